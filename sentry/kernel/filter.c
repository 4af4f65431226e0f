/*
 * The sentry's own seccomp allowlist: every host system call the sandbox
 * process may make once guest code can run, each with the reason it is
 * needed. Anything else kills the sandbox. Guest system calls never reach
 * this filter (ptrace's SYSEMU stops them first); the stubs inherit it,
 * under their own, stricter one.
 */
#include "config.h"
#include "sentry/kernel/filter.h"
#include "platform/ptrace/stub.h"
#include "lib/error.h"
#include "lib/util.h"

#include <asm/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

/* Allowed whatever the arguments. */
static const struct {
	int nr;
	const char *why;
} plain[] = {
	/* guest I/O on inherited stdio and gofer-donated files, page by page */
	{SCMP_SYS(read), "host stdio and donated files"},
	{SCMP_SYS(write), "host stdio, donated files, log lines"},
	{SCMP_SYS(readv), "direct I/O into pinned guest memory"},
	{SCMP_SYS(writev), "direct I/O from pinned guest memory"},
	{SCMP_SYS(pread64), "donated files at an offset"},
	{SCMP_SYS(pwrite64), "donated files at an offset"},
	{SCMP_SYS(preadv), "direct I/O at an offset"},
	{SCMP_SYS(pwritev), "direct I/O at an offset"},
	{SCMP_SYS(lseek), "the position of inherited stdio; SEEK_DATA in the memory file (fork)"},
	{SCMP_SYS(fstat), "fstat of inherited stdio"},
	{SCMP_SYS(newfstatat), "fstat through glibc (AT_EMPTY_PATH)"},
	{SCMP_SYS(fcntl), "F_GETFL/F_SETFL of stdio, F_DUPFD_CLOEXEC of /dev/tty"},
	{SCMP_SYS(close), "descriptors the sentry owns"},
	{SCMP_SYS(fsync), "fsync of donated files"},
	{SCMP_SYS(fdatasync), "fdatasync of donated files"},
	{SCMP_SYS(fallocate), "punching freed memory-file pages; donated files"},
	{SCMP_SYS(ftruncate), "O_TRUNC of inherited stdio opened again (> /dev/stdout)"},
	{SCMP_SYS(sendmsg), "gofer requests"},
	{SCMP_SYS(recvmsg), "gofer replies (with donated descriptors)"},
	/* memory of the sentry itself (malloc, thread stacks) */
	{SCMP_SYS(munmap), "malloc, thread stacks; stubs drop windows"},
	{SCMP_SYS(mremap), "realloc of large blocks"},
	{SCMP_SYS(madvise), "malloc trimming, thread stack release"},
	{SCMP_SYS(mincore), "which memory-file pages a copy on write must copy"},
	{SCMP_SYS(brk), "malloc"},
	/* threads and blocking */
	{SCMP_SYS(futex), "sentry locks, task sleeps, the timer thread's sleep until a deadline"},
	{SCMP_SYS(sched_yield), "sched_yield of the guest"},
	{SCMP_SYS(sched_getaffinity), "malloc's arena limit: glibc counts the usable CPUs "
				      "once threads outnumber arenas"},
	{SCMP_SYS(set_robust_list), "new sentry threads (glibc)"},
	{SCMP_SYS(rseq), "new sentry threads (glibc)"},
	{SCMP_SYS(exit), "a task thread (or the timer thread) ends"},
	{SCMP_SYS(exit_group), "the sandbox ends"},
	{SCMP_SYS(rt_sigprocmask), "sentry threads block host signals"},
	{SCMP_SYS(rt_sigaction), "glibc sets up its internal signals with the first thread"},
	{SCMP_SYS(rt_sigreturn), "returning from a signal handler"},
	{SCMP_SYS(rt_sigtimedwait), "the signal thread waits for SIGINT/SIGTERM"},
	{SCMP_SYS(restart_syscall), "a sleep interrupted by a cgroup freeze (pause) goes on"},
	{SCMP_SYS(getpid), "glibc (raise, pthread)"},
	{SCMP_SYS(getuid), "the guest's credentials start as the caller's"},
	{SCMP_SYS(geteuid), "the guest's credentials start as the caller's"},
	{SCMP_SYS(getegid), "the guest's credentials start as the caller's"},
	{SCMP_SYS(getgid), "the guest's credentials start as the caller's"},
	{SCMP_SYS(gettid), "the ptrace platform names its tracer thread"},
	{SCMP_SYS(getppid), "a new stub checks it still has its sentry"},
	{SCMP_SYS(setsid), "a new stub leaves the sentry's session"},
	/* waiting on host descriptors (sentry/fs/hostpoll.c) */
	{SCMP_SYS(epoll_create1), "the host poller's epoll instance"},
	{SCMP_SYS(epoll_ctl), "host descriptors a guest waits on join and leave the host poller"},
	{SCMP_SYS(epoll_wait), "the host poller thread waits for host events"},
	{SCMP_SYS(ppoll), "the readiness of a host descriptor now (zero timeout)"},
	/* the OCI sandbox's control socket */
	{SCMP_SYS(accept4), "connections from rung's commands (start, kill, exec)"},
	{SCMP_SYS(poll), "an exec's connection and its exit report"},
	{SCMP_SYS(pipe2), "the exit report of an exec'd process"},
	{SCMP_SYS(timerfd_create), "guest timerfds are host timerfds"},
	{SCMP_SYS(timerfd_settime), "guest timerfd_settime"},
	{SCMP_SYS(timerfd_gettime), "guest timerfd_gettime"},
	/* time */
	{SCMP_SYS(clock_gettime), "guest clocks; stub processes' CPU clocks (guest CPU time)"},
	{SCMP_SYS(clock_nanosleep), "nothing yet; glibc's nanosleep"},
	{SCMP_SYS(nanosleep), "glibc's sleep"},
	{SCMP_SYS(gettimeofday), "the guest's vsyscall gettimeofday, trapped in the stub"},
	{SCMP_SYS(time), "the guest's vsyscall time, trapped in the stub"},
	{SCMP_SYS(getcpu), "getcpu; the guest's vsyscall getcpu"},
	{SCMP_SYS(getrandom), "AT_RANDOM, getrandom, /dev/urandom, ASLR"},
	{SCMP_SYS(sysinfo), "glibc's qsort sizes its buffer (capstone's first use)"},
	/* the ptrace platform */
	{SCMP_SYS(ptrace), "driving the stubs"},
	{SCMP_SYS(wait4), "stub stops and exits"},
	{SCMP_SYS(waitid), "reaping stubs and the gofer"},
	{SCMP_SYS(close_range), "a new stub closes everything but the memory file"},
	{SCMP_SYS(seccomp), "a new stub installs its own filter"},
	{SCMP_SYS(pause), "a new stub thread parks until its tracer seizes it"},
	/* the systrap platform (its stubs run under this filter too) */
	{SCMP_SYS(sigaltstack), "a new systrap stub thread's signal stack"},
	{SCMP_SYS(sched_setaffinity), "a task's sentry and stub threads share a CPU"},
};

/* The thread flags glibc's pthread_create uses, and a stub's plain fork. */
#define THREAD_CLONE                                                                        \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
	 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

/* Terminal requests on the host terminal and inherited stdio: settings,
 * size, queues and flow (TCFLSH, TCXONC), and whether rung is in the
 * foreground (TIOCGPGRP). Never TIOCSTI, TIOCSCTTY or TIOCSPGRP. */
static const unsigned long ioctls[] = {TCGETS,	 TCSETS,   TCSETSW, TCSETSF, TIOCGWINSZ, TIOCSWINSZ,
				       FIONREAD, TIOCOUTQ, TCFLSH,  TCXONC,  TIOCGPGRP};

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif

/* The last: a systrap stub thread's guest system calls become SIGSYS. */
static const int prctls[] = {PR_SET_PDEATHSIG, PR_SET_NAME, PR_SET_NO_NEW_PRIVS,
			     PR_SET_SYSCALL_USER_DISPATCH};

/* CPUID faulting for new stubs; the fs and gs bases of systrap guest
 * threads on hosts without FSGSBASE. */
static const int arch_prctls[] = {ARCH_SET_CPUID, ARCH_SET_FS, ARCH_GET_FS, ARCH_SET_GS,
				  ARCH_GET_GS};

/*
 * The only signals the sandbox process sends once it is confined, each to
 * a positive pid: never 0 or a negative one, which would reach a process
 * group or every process the sandbox may signal (inside a pid namespace of
 * its own, positive pids are the sandbox's own processes). tkill,
 * rt_sigqueueinfo and pidfd_send_signal are never allowed.
 */
static const struct {
	int nr;
	int sig;
	bool self; /* tgkill to a thread of the sandbox process itself only */
	const char *why;
} signals[] = {
	{SCMP_SYS(kill), SIGKILL, false, "ending a stub process or the gofer"},
	{SCMP_SYS(tgkill), SIGCHLD, false, "interrupting a stub thread that runs guest code"},
	{SCMP_SYS(tgkill), 0, false, "whether a systrap stub thread is still there"},
	{SCMP_SYS(tgkill), SIGTSTP, true, "rung stops on the host with the guest's job"},
	{SCMP_SYS(tgkill), SIGTTIN, true, "rung stops on the host with the guest's job"},
	{SCMP_SYS(tgkill), SIGTTOU, true, "rung stops on the host with the guest's job"},
	{SCMP_SYS(tgkill), SIGSTOP, true, "rung stops on the host with the guest's job"},
	{SCMP_SYS(tgkill), SIGABRT, true, "abort() (glibc raises SIGABRT with tgkill)"},
};

/* The kernel reads pid and signal arguments as ints, the low 32 bits of
 * their registers: only those are compared. */
#define LOW32	 0xffffffffull
#define SIGN_BIT 0x80000000ull

/*
 * Allow signals[i] from the process whose pid is self. tgkill refuses a
 * tgid or tid of 0 itself (EINVAL), so a negative one is what must die
 * here. For kill, "1 <= pid <= INT_MAX" takes 31 rules, one for each place
 * of the pid's highest bit set: libseccomp compares an argument once per
 * rule (two comparisons of one argument are refused, EINVAL), and only as
 * 64 bits.
 */
static int add_signal(scmp_filter_ctx ctx, size_t i, uint32_t self)
{
	uint64_t sig = (uint64_t)signals[i].sig;
	int ret = 0;

	if (signals[i].nr == SCMP_SYS(tgkill)) {
		struct scmp_arg_cmp c[] = {
			signals[i].self ? SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, self)
					: SCMP_A0(SCMP_CMP_MASKED_EQ, SIGN_BIT, 0),
			SCMP_A1(SCMP_CMP_MASKED_EQ, SIGN_BIT, 0),
			SCMP_A2(SCMP_CMP_MASKED_EQ, LOW32, sig),
		};
		return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, signals[i].nr, ARRAY_SIZE(c), c);
	}
	for (unsigned bit = 0; bit < 31 && ret == 0; bit++)
		ret = seccomp_rule_add(
			ctx, SCMP_ACT_ALLOW, signals[i].nr, 2,
			SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32 & (LOW32 << bit), 1ull << bit),
			SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, sig));
	return ret;
}

#define ADD(ctx, action, nr, ...)                                       \
	do {                                                            \
		if (seccomp_rule_add(ctx, action, nr, __VA_ARGS__) < 0) \
			goto fail;                                      \
	} while (0)

/* --network=host: guest AF_INET/AF_INET6 sockets are host sockets the
 * sentry makes and drives (sentry/net/inet_host.c); sendmsg, recvmsg,
 * accept4 and FIONREAD are allowed in every mode. */
static const int hostinet[] = {SCMP_SYS(bind),	      SCMP_SYS(connect),     SCMP_SYS(listen),
			       SCMP_SYS(getsockname), SCMP_SYS(getpeername), SCMP_SYS(shutdown),
			       SCMP_SYS(setsockopt),  SCMP_SYS(getsockopt)};

scmp_filter_ctx sentry_filter_build(int memfd, bool host_network)
{
	/* RUNG_SECCOMP_LOG=1: log what would be killed (kernel audit log) and
	 * carry on, to find what a change to the sentry newly needs. */
	const char *log = getenv("RUNG_SECCOMP_LOG");
	scmp_filter_ctx ctx =
		seccomp_init(log && *log == '1' ? SCMP_ACT_LOG : SCMP_ACT_KILL_PROCESS);

	if (!ctx)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		ADD(ctx, SCMP_ACT_ALLOW, plain[i].nr, 0);
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
		if (add_signal(ctx, i, (uint32_t)getpid()) < 0)
			goto fail;
	/* No new executable memory, except guest windows onto the memory file
	 * (mapped into stubs, which run under this filter too). */
	ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, SCMP_A4(SCMP_CMP_EQ, (uint64_t)memfd));
	ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* Threads for tasks, and plain forks for stubs; clone3 cannot be
	 * inspected, so glibc is told it does not exist and falls back. */
	ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_EQ, THREAD_CLONE));
	ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_EQ, SIGCHLD));
	ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_EQ, STUB_CLONE_FLAGS));
	ADD(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* glibc's malloc reads /proc/sys/vm/overcommit_memory the first time it
	 * trims a thread's heap; the confined sandbox has no files to open, so
	 * opening fails (glibc then does not shrink heaps) instead of killing. */
	ADD(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(openat), 0);
	ADD(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(open), 0);
	for (size_t i = 0; i < ARRAY_SIZE(arch_prctls); i++)
		ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(arch_prctl), 1,
		    SCMP_A0(SCMP_CMP_EQ, (uint64_t)arch_prctls[i]));
	/* Reading the caller's resource limits (never setting them). */
	ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_EQ, 0));
	/* Terminal requests the guest makes on inherited stdio. */
	for (size_t i = 0; i < ARRAY_SIZE(ioctls); i++)
		ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, ioctls[i]));
	/* tcdrain of the host terminal: TCSBRK with a non-zero argument, which
	 * sends no break. */
	ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2, SCMP_A1(SCMP_CMP_EQ, TCSBRK),
	    SCMP_A2(SCMP_CMP_EQ, 1));
	/* What a new stub sets up before it stops for its tracer. */
	for (size_t i = 0; i < ARRAY_SIZE(prctls); i++)
		ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
		    SCMP_A0(SCMP_CMP_EQ, (uint64_t)prctls[i]));
	if (host_network) {
		ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_INET));
		ADD(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_INET6));
		for (size_t i = 0; i < ARRAY_SIZE(hostinet); i++)
			ADD(ctx, SCMP_ACT_ALLOW, hostinet[i], 0);
	}
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

int sentry_filter_install(int memfd, bool host_network, struct rung_error *err)
{
	scmp_filter_ctx ctx = sentry_filter_build(memfd, host_network);
	int ret;

	if (!ctx)
		return rung_error_make(err, EINVAL, "build the sentry's seccomp filter");
	ret = seccomp_load(ctx);
	seccomp_release(ctx);
	if (ret < 0)
		return rung_error_make(err, -ret, "install the sentry's seccomp filter");
	return 0;
}
