/*
 * Guest test: deaths by signals whose default action dumps core, under
 * RLIMIT_CORE 0 (which run.sh sets natively too). No core is written, so
 * the wait status has no core bit (WCOREDUMP) and waitid says CLD_KILLED,
 * for SIGSEGV, SIGABRT, SIGQUIT, SIGBUS, SIGFPE as for SIGTERM. The
 * sandbox never writes core files (docs/architecture.md): what it reports
 * is what Linux reports when no core was dumped. A host whose core_pattern
 * pipes cores to a program dumps whatever RLIMIT_CORE is: skipped there.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

static int pipes_cores(void)
{
	char c = 0;
	int fd = open("/proc/sys/kernel/core_pattern", O_RDONLY);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '|';
}

static void dies_of(int sig)
{
	char what[96];
	siginfo_t si;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		signal(sig, SIG_DFL);
		raise(sig);
		_exit(0);
	}
	waitid(P_PID, pid, &si, WEXITED | WNOWAIT);
	waitpid(pid, &status, 0);
	snprintf(what, sizeof(what), "%s: killed by it, no core bit", sigabbrev_np(sig));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig && !WCOREDUMP(status), what);
	snprintf(what, sizeof(what), "%s: waitid says CLD_KILLED", sigabbrev_np(sig));
	CHECK(si.si_code == CLD_KILLED && si.si_status == sig, what);
}

int main(void)
{
	struct rlimit none = {0, 0};
	int sigs[] = {SIGSEGV, SIGABRT, SIGQUIT, SIGBUS, SIGFPE, SIGTERM};

	if (pipes_cores()) {
		printf("SKIP: core_pattern pipes cores to a program\n");
		return 77;
	}
	CHECK_EQ(setrlimit(RLIMIT_CORE, &none), 0, "RLIMIT_CORE 0");
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		dies_of(sigs[i]);
	return GUEST_DONE();
}
