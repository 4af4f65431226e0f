/*
 * Guest test: what a process learns about itself. uname (only fields that
 * are the same natively and in rung are compared: sysname and machine),
 * ids, resource limits, CPU affinity, getrandom, getcwd, sched_yield,
 * set_tid_address, and the recorded signal state (rt_sigaction and
 * rt_sigprocmask, whose handlers are never run here).
 */
#include "guest.h"

#include <sched.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/utsname.h>

static void handler(int sig)
{
}

static void ident(void)
{
	struct utsname u;

	CHECK_EQ(uname(&u), 0, "uname");
	printf("sysname=%s machine=%s\n", u.sysname, u.machine);
	CHECK(strcmp(u.sysname, "Linux") == 0, "sysname is Linux");
	CHECK(strcmp(u.machine, "x86_64") == 0, "machine is x86_64");
	CHECK(u.release[0] >= '1' && u.release[0] <= '9' && strchr(u.release, '.'),
	      "release looks like a version number");
	CHECK(u.version[0] != 0, "version is not empty");
	CHECK(u.nodename[0] != 0, "nodename is not empty");
	CHECK(memchr(u.domainname, 0, sizeof(u.domainname)) != NULL, "domainname is terminated");

	CHECK_EQ(getpid(), syscall(SYS_gettid), "getpid equals gettid in the main thread");
	CHECK(getpid() > 0, "the pid is positive");
	CHECK(getppid() >= 0, "getppid succeeds");
	CHECK_EQ(syscall(SYS_set_tid_address, NULL), getpid(), "set_tid_address returns the tid");
	CHECK_EQ(getuid(), geteuid(), "uid equals euid");
	CHECK_EQ(getgid(), getegid(), "gid equals egid");
}

static void limits(void)
{
	struct rlimit rl, old, got;

	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &old), 0, "getrlimit NOFILE");
	CHECK(old.rlim_cur <= old.rlim_max, "soft limit is at most the hard limit");
	CHECK(old.rlim_cur >= 64, "at least 64 descriptors are allowed");
	CHECK_EQ(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &got), 0, "prlimit64 get NOFILE");
	CHECK(got.rlim_cur == old.rlim_cur && got.rlim_max == old.rlim_max,
	      "prlimit64 and getrlimit agree");
	rl = (struct rlimit){.rlim_cur = 50, .rlim_max = old.rlim_max};
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0, "setrlimit NOFILE soft 50");
	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &got), 0, "getrlimit NOFILE again");
	CHECK(got.rlim_cur == 50 && got.rlim_max == old.rlim_max, "the soft limit round-trips");
	rl.rlim_cur = 60;
	CHECK_EQ(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, &got), 0, "prlimit64 set and get");
	CHECK_EQ(got.rlim_cur, 50, "prlimit64 returns the old limit");
	CHECK_EQ(syscall(SYS_prlimit64, getpid(), RLIMIT_NOFILE, NULL, &got), 0,
		 "prlimit64 of our own pid");
	CHECK_EQ(got.rlim_cur, 60, "prlimit64 set the new limit");
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &old), 0, "restore NOFILE");
	rl = (struct rlimit){.rlim_cur = old.rlim_max, .rlim_max = old.rlim_max - 1};
	CHECK_ERRNO(setrlimit(RLIMIT_NOFILE, &rl), EINVAL, "setrlimit soft above hard");
	CHECK_ERRNO(syscall(SYS_getrlimit, 100, &got), EINVAL, "getrlimit of resource 100");
	CHECK_ERRNO(syscall(SYS_prlimit64, 0, 100, NULL, &got), EINVAL,
		    "prlimit64 of resource 100");

	CHECK_EQ(getrlimit(RLIMIT_STACK, &got), 0, "getrlimit STACK");
	CHECK(got.rlim_cur > 0, "the stack limit is positive");
	CHECK_EQ(getrlimit(RLIMIT_CORE, &old), 0, "getrlimit CORE");
	rl = (struct rlimit){.rlim_cur = 0, .rlim_max = old.rlim_max};
	CHECK_EQ(setrlimit(RLIMIT_CORE, &rl), 0, "setrlimit CORE soft 0");
	CHECK_EQ(getrlimit(RLIMIT_CORE, &got), 0, "getrlimit CORE again");
	CHECK_EQ(got.rlim_cur, 0, "CORE soft limit is 0");
	setrlimit(RLIMIT_CORE, &old);
}

static void cpus(void)
{
	cpu_set_t set;
	long r;

	CPU_ZERO(&set);
	CHECK_EQ(sched_getaffinity(0, sizeof(set), &set), 0, "sched_getaffinity");
	CHECK(CPU_COUNT(&set) >= 1, "at least one CPU is allowed");
	r = syscall(SYS_sched_getaffinity, 0, sizeof(set), &set);
	CHECK(r >= 8 && r <= (long)sizeof(set) && r % 8 == 0,
	      "the raw call returns the mask size in whole longs");
	CHECK_ERRNO(syscall(SYS_sched_getaffinity, 0, 0, &set), EINVAL,
		    "sched_getaffinity with size 0");
	CHECK_ERRNO(syscall(SYS_sched_getaffinity, 0, 3, &set), EINVAL,
		    "sched_getaffinity with size 3");
	CHECK_ERRNO(syscall(SYS_sched_getaffinity, 0x3fffffff, sizeof(set), &set), ESRCH,
		    "sched_getaffinity of a pid that cannot exist");
	CHECK_EQ(sched_yield(), 0, "sched_yield");
}

static void randomness(void)
{
	unsigned char a[64], b[64];
	int nz = 0;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CHECK_EQ(getrandom(a, sizeof(a), 0), 64, "getrandom 64 bytes");
	CHECK_EQ(getrandom(b, sizeof(b), GRND_NONBLOCK), 64, "getrandom GRND_NONBLOCK");
	for (int i = 0; i < 64; i++)
		nz |= a[i];
	CHECK(nz, "the bytes are not all zero");
	CHECK(memcmp(a, b, sizeof(a)) != 0, "two calls give different bytes");
	CHECK_EQ(getrandom(a, 0, 0), 0, "getrandom of 0 bytes");
	CHECK_EQ(getrandom(a, 1, GRND_RANDOM | GRND_NONBLOCK) >= 0 || errno == EAGAIN, 1,
		 "getrandom GRND_RANDOM works or would block");
	CHECK_ERRNO(getrandom(a, 8, 0x100), EINVAL, "getrandom with unknown flags");
	{
		size_t n = 1 << 20;
		unsigned char *big = malloc(n);
		CHECK(big && getrandom(big, n, 0) > 0, "getrandom of 1 MiB");
		free(big);
	}
}

static void cwd(void)
{
	char buf[4096];
	long r;

	CHECK(getcwd(buf, sizeof(buf)) != NULL, "getcwd");
	CHECK(buf[0] == '/', "the working directory is absolute");
	r = syscall(SYS_getcwd, buf, sizeof(buf));
	CHECK_EQ(r, strlen(buf) + 1, "the raw getcwd returns the length with its NUL");
	CHECK_ERRNO(syscall(SYS_getcwd, buf, 1), ERANGE, "getcwd into a 1-byte buffer");
	CHECK_ERRNO(syscall(SYS_getcwd, buf, 0), ERANGE, "getcwd into a 0-byte buffer");
}

static void signals(void)
{
	struct sigaction sa, old;
	sigset_t set, cur;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sa.sa_flags = SA_RESTART;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0, "sigaction SIGUSR1");
	CHECK_EQ(sigaction(SIGUSR1, NULL, &old), 0, "read SIGUSR1's action back");
	CHECK(old.sa_handler == handler, "the handler is recorded");
	CHECK(old.sa_flags & SA_RESTART, "SA_RESTART is recorded");
	CHECK(sigismember(&old.sa_mask, SIGUSR2), "the handler's mask is recorded");
	sa.sa_handler = SIG_IGN;
	CHECK_EQ(sigaction(SIGUSR1, &sa, &old), 0, "replace it with SIG_IGN");
	CHECK(old.sa_handler == handler, "the old action comes back");
	sa.sa_handler = SIG_DFL;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0, "back to SIG_DFL");
	CHECK_ERRNO(sigaction(SIGKILL, &sa, NULL), EINVAL, "sigaction on SIGKILL");
	CHECK_ERRNO(sigaction(SIGSTOP, &sa, NULL), EINVAL, "sigaction on SIGSTOP");
	CHECK_EQ(sigaction(SIGKILL, NULL, &old), 0, "reading SIGKILL's action works");
	CHECK_ERRNO(syscall(SYS_rt_sigaction, 0, NULL, &old, 8), EINVAL,
		    "rt_sigaction of signal 0");
	CHECK_ERRNO(syscall(SYS_rt_sigaction, 65, NULL, &old, 8), EINVAL,
		    "rt_sigaction of signal 65");
	CHECK_ERRNO(syscall(SYS_rt_sigaction, SIGUSR1, NULL, &old, 16), EINVAL,
		    "rt_sigaction with sigsetsize 16");

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGKILL);
	sigaddset(&set, SIGSTOP);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0, "block SIGUSR1, SIGKILL, SIGSTOP");
	CHECK_EQ(sigprocmask(SIG_BLOCK, NULL, &cur), 0, "read the mask");
	CHECK(sigismember(&cur, SIGUSR1), "SIGUSR1 is blocked");
	CHECK(!sigismember(&cur, SIGKILL) && !sigismember(&cur, SIGSTOP),
	      "SIGKILL and SIGSTOP cannot be blocked");
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &set, &cur), 0, "unblock them");
	CHECK(sigismember(&cur, SIGUSR1), "the old mask comes back");
	CHECK_EQ(sigprocmask(SIG_SETMASK, NULL, &cur), 0, "read the mask again");
	CHECK(!sigismember(&cur, SIGUSR1), "SIGUSR1 is unblocked");
	CHECK_ERRNO(syscall(SYS_rt_sigprocmask, 99, &set, NULL, 8), EINVAL,
		    "rt_sigprocmask with how 99");
	CHECK_ERRNO(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 4), EINVAL,
		    "rt_sigprocmask with sigsetsize 4");
}

int main(void)
{
	ident();
	limits();
	cpus();
	randomness();
	cwd();
	signals();
	return GUEST_DONE();
}
