/* A pid namespace of the test's own: clone(CLONE_NEWPID)'s child is its
 * namespace's 1 (getpid, gettid, getppid 0), its own child is 2 there (fork's
 * value, wait4's, SIGCHLD's si_pid, kill by the namespace's number), a /proc
 * mounted inside lists the namespace's numbers, and the parent outside sees
 * the child's real pid from clone and wait. When the namespace's 1 exits its
 * last process is killed; it ignores SIGTERM and SIGKILL from inside the
 * namespace, and its kill(-1) reaches only the namespace. unshare(CLONE_NEWPID) puts the caller's next
 * child, not the caller, in a new namespace. */
#include "guest.h"
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

static int count_pids(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
			n++;
	closedir(d);
	return n;
}

static volatile sig_atomic_t chld_pid;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	chld_pid = si->si_pid;
}

static int init_main(void)
{
	struct sigaction sa = {.sa_sigaction = on_chld, .sa_flags = SA_SIGINFO};
	char link[32] = "", b;
	int status, p[2];
	pid_t c;

	printf("inside: getpid %d gettid %ld getppid %d\n", getpid(), syscall(SYS_gettid),
	       getppid());
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "mounts made private");
	CHECK(mount("proc", "/proc", "proc", 0, NULL) == 0, "a /proc of the namespace");
	CHECK(readlink("/proc/self", link, sizeof(link) - 1) > 0, "readlink /proc/self");
	printf("/proc/self -> %s, %d process listed\n", link, count_pids("/proc"));
	sigaction(SIGCHLD, &sa, NULL);
	CHECK(pipe(p) == 0, "a pipe");
	fflush(stdout);
	c = fork();
	if (c == 0) {
		printf("grandchild: getpid %d getppid %d\n", getpid(), getppid());
		fflush(stdout);
		write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	CHECK(read(p[0], &b, 1) == 1, "the grandchild has printed");
	printf("fork gave %d\n", c);
	CHECK(kill(2, SIGTERM) == 0, "kill(2) reaches the namespace's 2");
	CHECK(waitpid(2, &status, 0) == 2 && WIFSIGNALED(status), "waitpid(2) reaps it");
	printf("SIGCHLD si_pid %d\n", (int)chld_pid);
	CHECK_ERRNO(kill(3, 0), ESRCH, "no 3 in the namespace");
	/* The namespace's 1 ignores what it does not handle, from inside. */
	CHECK(kill(1, SIGTERM) == 0 && kill(getpid(), SIGKILL) == 0, "SIGTERM and SIGKILL to itself");
	CHECK(kill(1, 0) == 0, "the namespace's 1 is still there");
	/* kill(-1) reaches the namespace's processes only (the test's parent
	 * outside lives on to wait for this one). */
	c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	CHECK(kill(-1, SIGTERM) == 0, "kill(-1, SIGTERM) in the namespace");
	CHECK(waitpid(c, &status, 0) == c && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	      "it killed the namespace's other process");
	/* One more child that outlives this init: the namespace kills it. */
	if (fork() == 0) {
		pause();
		_exit(0);
	}
	return GUEST_DONE();
}

static char stack[256 * 1024] __attribute__((aligned(16)));

static int clone_fn(void *arg)
{
	(void)arg;
	_exit(init_main());
}

int main(void)
{
	int status;
	pid_t pid, got, self = getpid();

	if (geteuid() != 0) {
		printf("SKIP: needs root\n");
		return 77;
	}
	/* The child mounts a proc of its own: in a mount namespace of its own. */
	fflush(stdout);
	pid = clone(clone_fn, stack + sizeof(stack), CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, NULL);
	/* (Nothing printed until the child is done: one order of lines.) */
	got = waitpid(pid, &status, 0);
	CHECK(pid > 1 && pid != getpid(), "clone(CLONE_NEWPID) gives the parent a real pid");
	CHECK(got == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "waitpid gets that pid, and the child's checks passed");

	CHECK(unshare(CLONE_NEWPID) == 0, "unshare(CLONE_NEWPID)");
	CHECK(getpid() == self, "the caller keeps its pid");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		printf("after unshare: child getpid %d getppid %d\n", getpid(), getppid());
		fflush(stdout);
		_exit(0);
	}
	CHECK(pid > 1 && waitpid(pid, &status, 0) == pid, "the child has a real pid outside");
	/* The namespace's 1 is gone: no one else may join it. */
	CHECK_ERRNO(fork(), ENOMEM, "a second fork into the dead namespace");
	return GUEST_DONE();
}
