/*
 * Guest test: resource usage and limits. getrusage (self, thread, children;
 * real CPU times that grow with work, maxrss), times() in clock ticks, the
 * rusage wait4 returns, prlimit64 on other processes with its permission
 * rules, RLIMIT_NPROC for fork, RLIMIT_AS for mmap, mremap and brk, and
 * RLIMIT_DATA for brk.
 */
#include "guest.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>

#define NOBODY 65534

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

static uint64_t cpu_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Burn ms milliseconds of this thread's CPU time (few system calls). */
static void burn(unsigned ms)
{
	uint64_t end = cpu_ns(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000ull;
	volatile uint64_t x = 0;

	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000000; i++)
			x += (uint64_t)i;
}

static void *burner(void *arg)
{
	burn(100);
	return NULL;
}

static void self(void)
{
	struct rusage a, b, th;
	pthread_t t;

	CHECK_EQ(getrusage(RUSAGE_SELF, &a), 0, "getrusage(RUSAGE_SELF)");
	burn(200);
	CHECK_EQ(getrusage(RUSAGE_SELF, &b), 0, "again after 200 ms of work");
	CHECK(tv_ns(b.ru_utime) + tv_ns(b.ru_stime) >= tv_ns(a.ru_utime) + tv_ns(a.ru_stime) +
							   150000000ull,
	      "user + system time grew by about that much");
	CHECK(b.ru_utime.tv_usec < 1000000 && b.ru_stime.tv_usec < 1000000,
	      "microseconds are below a second");
	CHECK(b.ru_maxrss > 0, "maxrss is there");
	pthread_create(&t, NULL, burner, NULL);
	pthread_join(t, NULL);
	CHECK_EQ(getrusage(RUSAGE_THREAD, &th), 0, "getrusage(RUSAGE_THREAD)");
	CHECK_EQ(getrusage(RUSAGE_SELF, &a), 0, "getrusage(RUSAGE_SELF)");
	CHECK(tv_ns(a.ru_utime) + tv_ns(a.ru_stime) >=
		      tv_ns(b.ru_utime) + tv_ns(b.ru_stime) + 80000000ull,
	      "an exited thread's time counts for the process");
	CHECK(tv_ns(th.ru_utime) + tv_ns(th.ru_stime) + 80000000ull <=
		      tv_ns(a.ru_utime) + tv_ns(a.ru_stime),
	      "but not for this thread");
	CHECK_ERRNO(getrusage(2, &a), EINVAL, "who 2");
	CHECK_ERRNO(getrusage(-2, &a), EINVAL, "who -2 (RUSAGE_BOTH is internal)");
	CHECK_ERRNO(syscall(SYS_getrusage, RUSAGE_SELF, (void *)8), EFAULT, "into a bad pointer");
}

static void children(void)
{
	struct rusage before, after, ru;
	struct tms tb, ta;
	clock_t t0, t1;
	int st;
	pid_t p;

	getrusage(RUSAGE_CHILDREN, &before);
	t0 = times(&tb);
	p = fork();
	if (p == 0) {
		burn(200);
		_exit(0);
	}
	CHECK_EQ(wait4(p, &st, 0, &ru), p, "wait4 with rusage");
	CHECK(tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime) >= 150000000ull,
	      "wait4 reports the child's CPU time");
	CHECK(ru.ru_maxrss > 0, "and its maxrss");
	getrusage(RUSAGE_CHILDREN, &after);
	CHECK(tv_ns(after.ru_utime) + tv_ns(after.ru_stime) >=
		      tv_ns(before.ru_utime) + tv_ns(before.ru_stime) + 150000000ull,
	      "RUSAGE_CHILDREN grew by the reaped child's time");
	CHECK(after.ru_maxrss > 0, "children's maxrss");
	t1 = times(&ta);
	CHECK(t1 >= t0 + 15, "times() counts clock ticks (100 per second)");
	CHECK(ta.tms_cutime + ta.tms_cstime >= tb.tms_cutime + tb.tms_cstime + 15,
	      "tms_cutime + tms_cstime grew by the child's ticks");
	CHECK(ta.tms_utime + ta.tms_stime >= tb.tms_utime + tb.tms_stime,
	      "our own ticks do not go back");
	CHECK_EQ(syscall(SYS_times, NULL) > 0, 1, "times(NULL)");
	CHECK_ERRNO(syscall(SYS_times, (void *)8), EFAULT, "times into a bad pointer");
}

static void prlimit_others(void)
{
	struct rlimit rl, old;
	int go[2], st;
	pid_t p;
	char c;

	pipe(go);
	p = fork();
	if (p == 0) {
		read(go[0], &c, 1);
		getrlimit(RLIMIT_NOFILE, &rl);
		_exit(rl.rlim_cur == 123 ? 0 : 1);
	}
	CHECK_EQ(prlimit(p, RLIMIT_NOFILE, NULL, &old), 0, "read a child's RLIMIT_NOFILE");
	rl.rlim_cur = 123;
	rl.rlim_max = old.rlim_max;
	CHECK_EQ(prlimit(p, RLIMIT_NOFILE, &rl, NULL), 0, "set a child's RLIMIT_NOFILE");
	CHECK_EQ(prlimit(p, RLIMIT_NOFILE, NULL, &rl), 0, "read it back");
	CHECK_EQ(rl.rlim_cur, 123, "123");
	write(go[1], "x", 1);
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child saw its new limit");
	CHECK_ERRNO(prlimit(p, RLIMIT_NOFILE, NULL, &rl), ESRCH, "a reaped child");
	CHECK_ERRNO(prlimit(0, 99, NULL, &rl), EINVAL, "resource 99");

	p = fork();
	if (p == 0) {
		setresuid(NOBODY, NOBODY, NOBODY);
		CHECK_ERRNO(prlimit(getppid(), RLIMIT_NOFILE, NULL, &rl), EPERM,
			    "nobody may not even read root's limits");
		rl.rlim_cur = rl.rlim_max = 50;
		CHECK_EQ(prlimit(0, RLIMIT_NOFILE, &rl, &old), 0, "but may lower its own");
		rl.rlim_max = 60;
		CHECK_ERRNO(prlimit(0, RLIMIT_NOFILE, &rl, NULL), EPERM, "not raise the hard one");
		rl.rlim_cur = 70;
		CHECK_ERRNO(prlimit(0, RLIMIT_NOFILE, &rl, NULL), EINVAL, "soft above hard");
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
}

static void nproc(void)
{
	struct rlimit rl = {1, 1};
	int st;
	pid_t p = fork();

	if (p == 0) {
		setrlimit(RLIMIT_NPROC, &rl);
		CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0,
			 "setresuid over RLIMIT_NPROC succeeds (it is checked at execve)");
		CHECK_ERRNO(fork(), EAGAIN, "fork beyond RLIMIT_NPROC");
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");

	/* Another process of nobody's; then a set*uid to nobody with
	 * RLIMIT_NPROC 0 succeeds, and the next execve fails. */
	int go[2], ready[2];
	char c;
	pipe(go);
	pipe(ready);
	pid_t other = fork();
	if (other == 0) {
		setresuid(NOBODY, NOBODY, NOBODY);
		write(ready[1], "x", 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	read(ready[0], &c, 1);
	close(ready[0]);
	close(ready[1]);
	p = fork();
	if (p == 0) {
		char *argv[] = {"x", NULL};
		getrlimit(RLIMIT_NPROC, &rl);
		rl.rlim_cur = 0;
		CHECK_EQ(setrlimit(RLIMIT_NPROC, &rl), 0, "RLIMIT_NPROC 0 (soft)");
		CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "setresuid with RLIMIT_NPROC 0");
		CHECK_ERRNO(execve("/nonexistent", argv, argv + 1), EAGAIN,
			    "the next execve fails with EAGAIN");
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NPROC, &rl);
		CHECK_ERRNO(execve("/nonexistent", argv, argv + 1), ENOENT,
			    "with the limit raised execve goes on");
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
	write(go[1], "x", 1);
	waitpid(other, &st, 0);
	close(go[0]);
	close(go[1]);

	p = fork();
	if (p == 0) {
		rl.rlim_cur = rl.rlim_max = 1;
		setrlimit(RLIMIT_NPROC, &rl);
		pid_t q = fork();
		if (q == 0)
			_exit(0);
		CHECK(q > 0, "root is not bound by RLIMIT_NPROC");
		waitpid(q, &st, 0);
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
}

/* RLIMIT_AS bounds every mapping, PROT_NONE ones included. */
static void address_space(void)
{
	struct rlimit rl = {1ul << 30, 1ul << 30};
	void *p, *brk0;
	int st;
	pid_t c = fork();

	if (c == 0) {
		CHECK_EQ(setrlimit(RLIMIT_AS, &rl), 0, "RLIMIT_AS 1 GiB");
		p = mmap(NULL, 2ul << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
		CHECK(p == MAP_FAILED && errno == ENOMEM, "a 2 GiB PROT_NONE mapping is ENOMEM");
		p = mmap(NULL, 64ul << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		CHECK(p != MAP_FAILED, "64 MiB fit");
		CHECK_ERRNO(mremap(p, 64ul << 20, 1200ul << 20, MREMAP_MAYMOVE), ENOMEM,
			    "mremap to 1200 MiB");
		CHECK(mremap(p, 64ul << 20, 128ul << 20, MREMAP_MAYMOVE) != MAP_FAILED,
		      "mremap to 128 MiB");
		brk0 = sbrk(0);
		CHECK(sbrk(1200l << 20) == (void *)-1, "growing the heap by 1200 MiB fails");
		CHECK(sbrk(0) == brk0, "and leaves the break");
		CHECK(malloc(1500ul << 20) == NULL, "malloc of 1500 MiB returns NULL");
		fflush(stdout);
		_exit(guest_failures ? 1 : 0);
	}
	waitpid(c, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's checks passed");
}

/* RLIMIT_DATA bounds the heap: brk past it leaves the break. */
static void data_limit(void)
{
	struct rlimit rl = {0, RLIM_INFINITY};
	void *brk0 = sbrk(0);

	CHECK_EQ(setrlimit(RLIMIT_DATA, &rl), 0, "RLIMIT_DATA 0");
	CHECK(sbrk(8192) == (void *)-1 && errno == ENOMEM, "growing the heap fails with ENOMEM");
	CHECK(sbrk(0) == brk0, "and leaves the break");
	rl.rlim_cur = RLIM_INFINITY;
	CHECK_EQ(setrlimit(RLIMIT_DATA, &rl), 0, "RLIMIT_DATA back to unlimited");
	CHECK(sbrk(8192) == brk0, "the heap grows again");
	CHECK(sbrk(-8192) != (void *)-1, "and shrinks");
}

int main(void)
{
	self();
	children();
	prlimit_others();
	nproc();
	address_space();
	data_limit();
	return GUEST_DONE();
}
