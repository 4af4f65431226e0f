/*
 * The sentry's seccomp allowlist, applied for real in a child: what the
 * sentry needs passes, what it does not need kills the child with SIGSYS.
 */
#include "config.h"
#include "sentry/kernel/filter.h"
#include "lib/error.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static void *idle_thread(void *arg)
{
	return arg;
}

/* Run fn in a child under the filter (widened for --network=host with
 * host_net); returns its wait status. */
static int under_filter_net(void (*fn)(int memfd), bool host_net)
{
	int memfd = memfd_create("sentry-filter-test", MFD_CLOEXEC);
	struct rlimit no_core = {0, 0};
	pid_t pid;
	int status;

	ck_assert_int_ge(memfd, 0);
	ck_assert_int_eq(ftruncate(memfd, 1 << 20), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rung_error err = {0};
		setrlimit(RLIMIT_CORE, &no_core);
		if (sentry_filter_install(memfd, host_net, &err) < 0)
			_exit(100);
		fn(memfd);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	close(memfd);
	return status;
}

static int under_filter(void (*fn)(int memfd))
{
	return under_filter_net(fn, false);
}

static void allowed(int memfd)
{
	void *p;
	char buf[16];
	int fds[2] = {-1, -1};

	/* Memory the sentry uses for itself, and guest windows (executable) onto the memory file. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || munmap(p, 4096) < 0)
		_exit(1);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, memfd, 0);
	if (p == MAP_FAILED)
		_exit(2);
	if (fallocate(memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) < 0)
		_exit(3);
	/* Copy on write finds the pages that hold data. */
	{
		unsigned char vec;
		if (mincore(p, 4096, &vec) < 0 || lseek(memfd, 0, SEEK_DATA) != -1 ||
		    errno != ENXIO)
			_exit(3);
	}
	if (getrandom(buf, sizeof(buf), 0) != sizeof(buf) || getpid() <= 0 || gettid() <= 0)
		_exit(4);
	/* clone3 is answered ENOSYS (so glibc uses clone, whose flags are checked). */
	if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
		_exit(5);
	/* Opening a file fails quietly (glibc's malloc tries one; there are none). */
	if (open("/etc/passwd", O_RDONLY) != -1 || errno != ENOENT)
		_exit(6);
	/* The host terminal's requests pass (on no descriptor: EBADF). */
	if (ioctl(-1, TIOCOUTQ, buf) != -1 || errno != EBADF || ioctl(-1, TIOCGPGRP, buf) != -1 ||
	    errno != EBADF || ioctl(-1, TCFLSH, 0) != -1 || errno != EBADF ||
	    ioctl(-1, TCSBRK, 1) != -1 || errno != EBADF)
		_exit(11);
	/* The host poller: an epoll instance, a host timerfd in it, a look at
	 * readiness now, and the wait of its thread; timerfds for the guest. */
	{
		struct itimerspec its = {.it_value = {0, 1000}}, cur;
		struct epoll_event ev = {.events = EPOLLIN | EPOLLET};
		struct pollfd pfd;
		struct timespec zero = {0, 0};
		int ep = epoll_create1(EPOLL_CLOEXEC);
		int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (ep < 0 || tfd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) < 0)
			_exit(7);
		if (timerfd_settime(tfd, 0, &its, NULL) < 0 || timerfd_gettime(tfd, &cur) < 0)
			_exit(8);
		if (epoll_wait(ep, &ev, 1, -1) != 1)
			_exit(9);
		pfd = (struct pollfd){.fd = tfd, .events = POLLIN};
		if (ppoll(&pfd, 1, &zero, NULL) != 1 || epoll_ctl(ep, EPOLL_CTL_DEL, tfd, NULL) < 0)
			_exit(10);
		close(tfd);
		close(ep);
	}
	/* The timer thread: made with pthread_create, sleeps on a futex until an
	 * absolute deadline; CPU clocks of a (stub) process are read. */
	{
		pthread_t th;
		uint32_t word = 0;
		struct timespec past = {0, 1}, ts;
		clockid_t stub_clock = (clockid_t)((~(unsigned)getpid() << 3) | 2);
		if (pthread_create(&th, NULL, idle_thread, NULL) != 0 ||
		    pthread_join(th, NULL) != 0)
			_exit(11);
		if (syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 0, &past, NULL,
			    FUTEX_BITSET_MATCH_ANY) != -1 ||
		    errno != ETIMEDOUT)
			_exit(12);
		if (clock_gettime(stub_clock, &ts) < 0)
			_exit(13);
	}
	(void)fds;
}

START_TEST(test_needed_calls_pass)
{
	int status = under_filter(allowed);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}
END_TEST

static void do_socket(int memfd)
{
	socket(AF_INET, SOCK_STREAM, 0);
}

static void do_unlink(int memfd)
{
	unlink("/tmp/rung-filter-test-nothing");
}

static void do_exec_mmap(int memfd)
{
	/* Executable memory that is not the memory file. */
	mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void do_exec_mprotect(int memfd)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	mprotect(p, 4096, PROT_READ | PROT_EXEC);
}

static void do_execve(int memfd)
{
	char *argv[] = {"/bin/true", NULL};

	execve(argv[0], argv, argv + 1);
}

static void do_setrlimit(int memfd)
{
	struct rlimit r = {1024, 1024};

	setrlimit(RLIMIT_NOFILE, &r);
}

static void do_fork_flags(int memfd)
{
	/* A clone with namespace flags: not one of the two shapes the sentry uses. */
	syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0);
}

static void do_io_uring(int memfd)
{
	syscall(SYS_io_uring_setup, 8, NULL);
}

static void do_ioctl(int memfd)
{
	ioctl(0, 0x540E /* TIOCSCTTY */, 0);
}

static void do_ioctl_sti(int memfd)
{
	char c = 'x';

	ioctl(0, TIOCSTI, &c); /* faking input on the host's terminal */
}

static void do_ioctl_break(int memfd)
{
	ioctl(0, TCSBRK, 0); /* a break on the host's line */
}

static void do_ioctl_spgrp(int memfd)
{
	int pgrp = 1;

	ioctl(0, TIOCSPGRP, &pgrp);
}

static void (*const forbidden[])(int) = {do_socket, do_unlink,	  do_exec_mmap,	  do_exec_mprotect,
					 do_execve, do_setrlimit, do_fork_flags,  do_io_uring,
					 do_ioctl,  do_ioctl_sti, do_ioctl_break, do_ioctl_spgrp};

START_TEST(test_forbidden_calls_kill)
{
	int status = under_filter(forbidden[_i]);

	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "forbidden call %d: status %#x", _i, status);
}
END_TEST

/* --- signals ------------------------------------------------------------------------ */

/* A child of a filtered process made with the one clone the filter allows
 * for it (glibc's fork uses other flags); it waits to be killed. */
static pid_t plain_child(void)
{
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);

	if (pid == 0)
		for (;;)
			syscall(SYS_pause);
	return pid;
}

/* What the sandbox sends: SIGKILL to a stub or the gofer, SIGCHLD and 0 to
 * a stub's thread, its job-control stops and SIGABRT to itself. */
static void signals_sent(int memfd)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};
	int self = getpid(), tid = gettid(), status;
	pid_t stub = plain_child();

	if (stub <= 0)
		_exit(1);
	if (syscall(SYS_tgkill, stub, stub, 0) != 0 ||
	    syscall(SYS_tgkill, stub, stub, SIGCHLD) != 0)
		_exit(2);
	/* The kernel reads the pid's low 32 bits (and so does the filter). */
	if (syscall(SYS_kill, (long)stub | (1l << 32), SIGKILL) != 0 ||
	    waitpid(stub, &status, 0) != stub || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGKILL)
		_exit(3);
	stub = plain_child();
	if (stub <= 0 || kill(stub, SIGKILL) != 0 || waitpid(stub, &status, 0) != stub)
		_exit(4);
	/* The stops and SIGABRT, ignored here; SIGCHLD and 0 to a thread of its own. */
	if (sigaction(SIGTSTP, &ign, NULL) < 0 || sigaction(SIGTTIN, &ign, NULL) < 0 ||
	    sigaction(SIGTTOU, &ign, NULL) < 0 || sigaction(SIGABRT, &ign, NULL) < 0)
		_exit(5);
	if (syscall(SYS_tgkill, self, tid, SIGTSTP) != 0 ||
	    syscall(SYS_tgkill, self, tid, SIGTTIN) != 0 ||
	    syscall(SYS_tgkill, self, tid, SIGTTOU) != 0 ||
	    syscall(SYS_tgkill, self, tid, SIGABRT) != 0)
		_exit(6);
	if (syscall(SYS_tgkill, self, tid, SIGCHLD) != 0 || syscall(SYS_tgkill, self, tid, 0) != 0)
		_exit(7);
	/* tgkill's zero pids are the kernel's to refuse (EINVAL, nothing sent). */
	if (syscall(SYS_tgkill, 0, tid, 0) != -1 || errno != EINVAL)
		_exit(8);
}

START_TEST(test_signals_sent_pass)
{
	int status = under_filter(signals_sent);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}
END_TEST

/*
 * The signal calls the filter must refuse are made where, should the filter
 * let one pass, it still reaches nobody: under a second filter that turns
 * every signal call into EPERM (the most restrictive action wins: the
 * sentry filter's kill, or that EPERM), by pid 1 of a pid namespace of its
 * own that leads a process group of its own (kill(-1) there has no other
 * process to reach, kill(0) only itself, a host pid or group does not exist).
 */
static pid_t test_pid, test_pgid, sleeper;

static int install_signal_net(void)
{
	static const int calls[] = {SCMP_SYS(kill),
				    SCMP_SYS(tgkill),
				    SCMP_SYS(tkill),
				    SCMP_SYS(rt_sigqueueinfo),
				    SCMP_SYS(rt_tgsigqueueinfo),
				    SCMP_SYS(pidfd_send_signal)};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int ret = ctx ? 0 : -1;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && ret == 0; i++)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), calls[i], 0);
	if (ret == 0)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	return ret;
}

/* fn under the filter (and the net, with net) as pid 1 of a new pid
 * namespace (and of a new user namespace where a plain one is not ours to
 * make); the wait status it ended with, or exit 127 without a namespace. */
static int under_filter_pidns(void (*fn)(int memfd), bool net)
{
	int memfd = memfd_create("sentry-filter-test", MFD_CLOEXEC);
	struct rlimit no_core = {0, 0};
	pid_t pid;
	int status;

	ck_assert_int_ge(memfd, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pid_t init;
		if (unshare(CLONE_NEWPID) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			_exit(127);
		init = fork();
		if (init == 0) {
			struct rung_error err = {0};
			setrlimit(RLIMIT_CORE, &no_core);
			if (getpid() != 1 || setpgid(0, 0) < 0 ||
			    (net && install_signal_net() < 0) ||
			    sentry_filter_install(memfd, false, &err) < 0)
				_exit(100);
			fn(memfd);
			_exit(0);
		}
		if (init < 0 || waitpid(init, &status, 0) != init)
			_exit(101);
		/* The init's status, passed on as an exit code. */
		_exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	close(memfd);
	return status;
}

static void kill_all(int memfd)
{
	kill(-1, SIGKILL);
}

static void kill_own_group(int memfd)
{
	kill(0, SIGKILL);
}

static void kill_test_group(int memfd)
{
	kill(-test_pgid, SIGKILL);
}

static void kill_low32_zero(int memfd)
{
	syscall(SYS_kill, 1l << 32, SIGKILL); /* the kernel's pid 0 */
}

static void kill_low32_minus_one(int memfd)
{
	syscall(SYS_kill, 0xffffffffl, SIGKILL); /* the kernel's pid -1 */
}

static void kill_other_signal(int memfd)
{
	kill(getpid(), SIGTERM);
}

static void kill_probe(int memfd)
{
	kill(getpid(), 0);
}

static void tgkill_negative_tgid(int memfd)
{
	syscall(SYS_tgkill, -1, 1, SIGCHLD);
}

static void tgkill_negative_tid(int memfd)
{
	syscall(SYS_tgkill, getpid(), -1, SIGCHLD);
}

static void tgkill_stop_other(int memfd)
{
	/* A stop is for the sandbox process itself, never another tgid. */
	syscall(SYS_tgkill, getpid() + 1, getpid() + 1, SIGSTOP);
}

static void tgkill_other_signal(int memfd)
{
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
}

static void do_tkill(int memfd)
{
	syscall(SYS_tkill, gettid(), SIGCHLD);
}

static void do_sigqueueinfo(int memfd)
{
	siginfo_t info = {.si_code = SI_QUEUE};

	syscall(SYS_rt_sigqueueinfo, getpid(), SIGCHLD, &info);
}

static void (*const forbidden_signals[])(int) = {
	kill_all,	   kill_own_group,	 kill_test_group,
	kill_low32_zero,   kill_low32_minus_one, kill_other_signal,
	kill_probe,	   tgkill_negative_tgid, tgkill_negative_tid,
	tgkill_stop_other, tgkill_other_signal,	 do_tkill,
	do_sigqueueinfo};

START_TEST(test_forbidden_signals_kill)
{
	int status;

	test_pgid = getpgrp();
	status = under_filter_pidns(forbidden_signals[_i], true);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGSYS,
		      "forbidden signal call %d: status %#x (exit 127: no pid namespace)", _i,
		      status);
}
END_TEST

/* Outside its pid namespace, the sandbox's positive pids name nothing: a
 * SIGKILL to the test's own process or to a sleeper it started finds no
 * such process (ESRCH), while one to its own child is delivered. */
static void kill_outside(int memfd)
{
	pid_t child = plain_child();
	int status;

	if (kill(sleeper, SIGKILL) != -1 || errno != ESRCH)
		_exit(1);
	if (kill(test_pid, SIGKILL) != -1 || errno != ESRCH)
		_exit(2);
	if (child != 2 || kill(child, SIGKILL) != 0 || waitpid(child, &status, 0) != child ||
	    !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		_exit(3);
}

START_TEST(test_kill_outside_pidns_esrch)
{
	int status;

	test_pid = getpid();
	sleeper = fork();
	ck_assert_int_ge(sleeper, 0);
	if (sleeper == 0)
		for (;;)
			pause();
	status = under_filter_pidns(kill_outside, false);
	/* The sleeper is still there: nothing reached it. */
	ck_assert_int_eq(waitpid(sleeper, NULL, WNOHANG), 0);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "status %#x (exit 127: no pid namespace)", status);
}
END_TEST

/* --network=host: the sentry makes, binds, connects and tunes AF_INET and
 * AF_INET6 sockets... */
static void host_sockets(int memfd)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t n = sizeof(a);
	int one = 1, l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int u = socket(AF_INET6, SOCK_DGRAM, 0);

	if (l < 0 || c < 0 || u < 0)
		_exit(1);
	if (setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &n) < 0)
		_exit(2);
	if (connect(c, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS)
		_exit(3);
	if (getsockopt(c, SOL_SOCKET, SO_ERROR, &one, &n) < 0 || shutdown(c, SHUT_RDWR) < 0)
		_exit(4);
}

/* ... but nothing of another family (netlink, packet, unix), in any mode. */
static void do_socket_netlink(int memfd)
{
	socket(AF_NETLINK, SOCK_RAW, 0);
}

static void do_socket_packet(int memfd)
{
	socket(AF_PACKET, SOCK_RAW, 0);
}

static void do_socket_unix(int memfd)
{
	socket(AF_UNIX, SOCK_STREAM, 0);
}

START_TEST(test_host_network_sockets)
{
	int status = under_filter_net(host_sockets, true);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}
END_TEST

static void (*const forbidden_host[])(int) = {do_socket_netlink, do_socket_packet, do_socket_unix,
					      do_unlink, do_execve};

START_TEST(test_host_network_forbidden)
{
	int status = under_filter_net(forbidden_host[_i], true);

	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "forbidden call %d: status %#x", _i, status);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sentry_filter");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_needed_calls_pass);
	tcase_add_loop_test(tc, test_forbidden_calls_kill, 0,
			    (int)(sizeof(forbidden) / sizeof(forbidden[0])));
	tcase_add_test(tc, test_signals_sent_pass);
	tcase_add_loop_test(tc, test_forbidden_signals_kill, 0,
			    (int)(sizeof(forbidden_signals) / sizeof(forbidden_signals[0])));
	tcase_add_test(tc, test_kill_outside_pidns_esrch);
	tcase_add_test(tc, test_host_network_sockets);
	tcase_add_loop_test(tc, test_host_network_forbidden, 0,
			    (int)(sizeof(forbidden_host) / sizeof(forbidden_host[0])));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
