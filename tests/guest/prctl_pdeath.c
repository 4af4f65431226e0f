/*
 * Guest test: the parent-death signal and child subreapers. A process that
 * asked for PR_SET_PDEATHSIG gets the signal when its parent dies (as a
 * kill from the dying parent), and is reparented to the nearest subreaper;
 * the setting is not inherited by fork and is cleared by a change of
 * credentials. An orphan without subreaper goes to init.
 */
#include "guest.h"

#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static int report[2]; /* grandchildren write what they saw here */
static volatile sig_atomic_t got_sig, got_code, got_pid_is_parent;
static pid_t old_parent;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	got_sig = sig;
	got_code = si->si_code;
	got_pid_is_parent = si->si_pid == old_parent;
}

/* In the grandchild: wait (bounded) for the signal, then report. */
static void grandchild_wait(pid_t subreaper)
{
	char msg[64];
	int n;

	for (int i = 0; i < 5000 && !got_sig; i++)
		usleep(1000);
	/* The reparenting is done once the signal came. */
	n = snprintf(msg, sizeof(msg), "%d %d %d %d", (int)got_sig, (int)got_code,
		     (int)got_pid_is_parent, getppid() == subreaper);
	write(report[1], msg, (size_t)n);
	_exit(0);
}

static void delivered(void)
{
	struct sigaction sa = {.sa_sigaction = on_sig, .sa_flags = SA_SIGINFO};
	int ready[2], st, sig, code, from_parent, reaped_by_us;
	char buf[64] = {0}, c;
	pid_t child, me = getpid();

	CHECK_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0, "become a child subreaper");
	CHECK_EQ(prctl(PR_GET_CHILD_SUBREAPER, &st), 0, "PR_GET_CHILD_SUBREAPER");
	CHECK_EQ(st, 1, "we are one");
	pipe(ready);
	pipe(report);
	child = fork();
	if (child == 0) {
		pid_t gc = fork();
		if (gc == 0) {
			old_parent = getppid();
			sigaction(SIGUSR1, &sa, NULL);
			prctl(PR_SET_PDEATHSIG, SIGUSR1);
			write(ready[1], "x", 1);
			grandchild_wait(me);
		}
		read(ready[0], &c, 1);
		_exit(7); /* the grandchild's parent dies */
	}
	CHECK_EQ(waitpid(child, &st, 0), child, "the middle process exits");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "with status 7");
	read(report[0], buf, sizeof(buf) - 1);
	sscanf(buf, "%d %d %d %d", &sig, &code, &from_parent, &reaped_by_us);
	CHECK_EQ(sig, SIGUSR1, "the orphan got its parent-death signal");
	CHECK_EQ(code, SI_USER, "as a kill (SI_USER)");
	CHECK_EQ(from_parent, 1, "from the dying parent's pid");
	CHECK_EQ(reaped_by_us, 1, "and now has the subreaper as its parent");
	CHECK(wait(&st) > 0 && WIFEXITED(st), "the subreaper reaps the orphan");
	close(ready[0]);
	close(ready[1]);
	close(report[0]);
	close(report[1]);
}

/* Not inherited by fork, and cleared when the credentials change. */
static void cleared(void)
{
	int v = -1, st;
	pid_t p;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	p = fork();
	if (p == 0) {
		prctl(PR_GET_PDEATHSIG, &v);
		CHECK_EQ(v, 0, "a fork child does not inherit the parent-death signal");
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		setresgid(-1, 55, -1);
		prctl(PR_GET_PDEATHSIG, &v);
		CHECK_EQ(v, 0, "changing the egid clears it");
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		setgroups(0, NULL);
		prctl(PR_GET_PDEATHSIG, &v);
		CHECK_EQ(v, SIGTERM, "setgroups does not");
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
	prctl(PR_GET_PDEATHSIG, &v);
	CHECK_EQ(v, SIGTERM, "the parent keeps its own");
	prctl(PR_SET_PDEATHSIG, 0);
}

/* Without a subreaper the orphan goes to init (in the sandbox that is this
 * test itself, so where it went is not printed), and a signal that kills. */
static void to_init(void)
{
	int ready[2], st;
	pid_t child;
	char c;

	CHECK_EQ(prctl(PR_SET_CHILD_SUBREAPER, 0), 0, "stop being a subreaper");
	prctl(PR_GET_CHILD_SUBREAPER, &st);
	CHECK_EQ(st, 0, "not a subreaper");
	pipe(ready);
	pipe(report);
	child = fork();
	if (child == 0) {
		pid_t gc = fork();
		if (gc == 0) {
			/* SIGKILL on the parent's death: the report pipe then
			 * reaches EOF with nothing written. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(report[0]);
			write(ready[1], "x", 1);
			pause();
			write(report[1], "alive", 5);
			_exit(0);
		}
		close(report[1]);
		read(ready[0], &c, 1);
		_exit(0);
	}
	close(report[1]);
	waitpid(child, &st, 0);
	CHECK_EQ(read(report[0], &c, 1), 0, "the orphan died of SIGKILL with its parent");
	close(report[0]);
}

int main(void)
{
	int v;

	CHECK_EQ(prctl(PR_GET_CHILD_SUBREAPER, &v), 0, "PR_GET_CHILD_SUBREAPER");
	CHECK_EQ(v, 0, "not a subreaper at start");
	CHECK_ERRNO(prctl(PR_GET_CHILD_SUBREAPER, (void *)8), EFAULT, "into a bad pointer");
	delivered();
	cleared();
	to_init();
	return GUEST_DONE();
}
