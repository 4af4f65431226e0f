/*
 * Guest test: fork's private memory is the child's own copy, however it is
 * made (rung shares pages copy-on-write). Writes on either side stay there,
 * for many pages and through nested forks; a sibling thread writing while
 * another forks; MAP_SHARED memory stays shared; mprotect, madvise
 * (DONTNEED), munmap and brk on one side only; the kernel's own writes
 * (read(2), futex words, a thread's clear_child_tid) into shared pages, and
 * a read(2) blocked in another thread across the fork; vfork and exec after
 * fork.
 */
#include "guest.h"

#include <pthread.h>
#include <sys/wait.h>

#define NPAGES 1024 /* 4 MiB */

static char *region;

static void fill(char *p, size_t pages, int seed)
{
	for (size_t i = 0; i < pages; i++)
		memset(p + i * PAGE, (int)((i + (size_t)seed) & 0xff), PAGE);
}

/* Does every byte of every page hold its fill value? */
static int filled(const char *p, size_t pages, int seed)
{
	for (size_t i = 0; i < pages; i++)
		for (size_t j = 0; j < PAGE; j += 512)
			if (p[i * PAGE + j] != (char)((i + (size_t)seed) & 0xff))
				return 0;
	return 1;
}

/* Run fn in a child; its exit status (0: its checks passed). */
static int in_child(int (*fn)(void))
{
	int st;
	pid_t p = fork();

	if (p == 0)
		_exit(fn());
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int child_writes_all(void)
{
	if (!filled(region, NPAGES, 1))
		return 1;
	fill(region, NPAGES, 7);
	return filled(region, NPAGES, 7) ? 0 : 2;
}

static void isolation(void)
{
	int fds[2], st;
	char c;
	pid_t p;

	fill(region, NPAGES, 1);
	CHECK_EQ(in_child(child_writes_all), 0, "the child sees the parent's pages and writes its own");
	CHECK(filled(region, NPAGES, 1), "the child's writes to every page stay in the child");

	/* The parent writes after the fork: the child keeps what it had. */
	CHECK_EQ(pipe(fds), 0, "pipe");
	p = fork();
	if (p == 0) {
		if (read(fds[0], &c, 1) != 1)
			_exit(3);
		_exit(filled(region, NPAGES, 1) ? 0 : 1);
	}
	fill(region, NPAGES, 9);
	CHECK_EQ(write(fds[1], "x", 1), 1, "parent wrote every page, then let the child look");
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the parent's writes after fork stay in the parent");
	CHECK(filled(region, NPAGES, 9), "the parent reads its own writes");
	close(fds[0]);
	close(fds[1]);

	/* Several children from one parent, each writing some pages. */
	fill(region, NPAGES, 2);
	for (int k = 0; k < 4; k++) {
		p = fork();
		if (p == 0) {
			int ok = filled(region, NPAGES, 2);
			for (size_t i = (size_t)k; i < NPAGES; i += 4)
				region[i * PAGE] = 'c';
			_exit(ok ? 0 : 1);
		}
		CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "a later child sees the parent's pages, not an earlier child's writes");
	}
	CHECK(filled(region, NPAGES, 2), "the parent's pages are untouched by four children");
}

static int grandchild(void)
{
	/* Forked after the child wrote half: sees that, and writes the rest. */
	if (!filled(region, NPAGES / 2, 5) || !filled(region + NPAGES / 2 * PAGE, NPAGES / 2,
						      NPAGES / 2 + 1))
		return 1;
	fill(region, NPAGES, 11);
	return 0;
}

static int nested_child(void)
{
	int r;

	fill(region, NPAGES / 2, 5);
	r = in_child(grandchild);
	if (r != 0)
		return 10 + r;
	/* The grandchild's writes stay there; the child's half is its own. */
	if (!filled(region, NPAGES / 2, 5) || !filled(region + NPAGES / 2 * PAGE, NPAGES / 2,
						      NPAGES / 2 + 1))
		return 2;
	fill(region, NPAGES, 6);
	return filled(region, NPAGES, 6) ? 0 : 3;
}

static void nested(void)
{
	fill(region, NPAGES, 1);
	CHECK_EQ(in_child(nested_child), 0, "child and grandchild each keep their own writes");
	CHECK(filled(region, NPAGES, 1), "the grandparent's pages are untouched");
}

/* A thread keeps writing while the main thread forks. */
static volatile int stop;
static volatile unsigned long *counters;

static void *writer(void *arg)
{
	unsigned long n = 0;

	while (!stop) {
		n++;
		for (size_t i = 0; i < 64; i++)
			counters[i * PAGE / sizeof(long)] = n;
	}
	return NULL;
}

static int frozen_copy(void)
{
	unsigned long first[64];

	for (size_t i = 0; i < 64; i++)
		first[i] = counters[i * PAGE / sizeof(long)];
	usleep(20000);
	for (size_t i = 0; i < 64; i++)
		if (counters[i * PAGE / sizeof(long)] != first[i])
			return 1; /* the parent's thread reached into the child */
	/* Each page was written with n or n+1 at the fork: never out of step by more. */
	for (size_t i = 1; i < 64; i++)
		if (first[i] > first[0] || first[0] - first[i] > 1)
			return 2;
	counters[0] = 0;
	return 0;
}

static void fork_while_writing(void)
{
	pthread_t th;
	unsigned long before;
	int ok = 1;

	counters = (volatile unsigned long *)region;
	memset(region, 0, 64 * PAGE);
	stop = 0;
	CHECK_EQ(pthread_create(&th, NULL, writer, NULL), 0, "writer thread starts");
	while (counters[0] == 0)
		sched_yield();
	for (int k = 0; k < 10; k++)
		if (in_child(frozen_copy) != 0)
			ok = 0;
	CHECK(ok, "ten children each see a frozen copy of pages a thread is writing");
	before = counters[0];
	while (counters[0] == before)
		sched_yield();
	CHECK(1, "the parent's thread goes on writing its own pages after the forks");
	stop = 1;
	CHECK_EQ(pthread_join(th, NULL), 0, "writer thread joins");
}

/* Writable and executable memory (a JIT's) is copied on write like the rest. */
static char *rwx;

static int child_writes_rwx(void)
{
	if (rwx[0] != 'j' || rwx[PAGE] != 'k')
		return 1;
	memset(rwx, 'c', 2 * PAGE);
	return rwx[PAGE] == 'c' ? 0 : 2;
}

static void rwx_after_fork(void)
{
	rwx = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	CHECK(rwx != MAP_FAILED, "mmap read-write-execute");
	rwx[0] = 'j';
	rwx[PAGE] = 'k';
	CHECK_EQ(in_child(child_writes_rwx), 0, "the child writes its copy of RWX memory");
	CHECK(rwx[0] == 'j' && rwx[PAGE] == 'k', "the parent's RWX memory is as it was");
	rwx[0] = 'p';
	CHECK(rwx[0] == 'p', "the parent writes it again");
	munmap(rwx, 2 * PAGE);
}

static void shared_stays_shared(void)
{
	char *sh = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fds[2], st;
	char c;
	pid_t p;

	CHECK(sh != MAP_FAILED, "mmap MAP_SHARED");
	memset(sh, 'a', 16 * PAGE);
	CHECK_EQ(pipe(fds), 0, "pipe");
	p = fork();
	if (p == 0) {
		memset(sh, 'b', 8 * PAGE);
		if (read(fds[0], &c, 1) != 1)
			_exit(3);
		_exit(sh[15 * PAGE] == 'p' ? 0 : 1);
	}
	sh[15 * PAGE] = 'p';
	CHECK_EQ(write(fds[1], "x", 1), 1, "parent wrote shared memory");
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child sees the parent's write to MAP_SHARED memory");
	CHECK(sh[0] == 'b' && sh[7 * PAGE] == 'b' && sh[8 * PAGE] == 'a',
	      "the parent sees the child's writes to MAP_SHARED memory");
	munmap(sh, 16 * PAGE);
	close(fds[0]);
	close(fds[1]);
}

static int child_mprotect(void)
{
	if (mprotect(region, NPAGES * PAGE, PROT_READ) != 0)
		return 1;
	if (!filled(region, NPAGES, 3))
		return 2;
	if (mprotect(region, NPAGES * PAGE, PROT_READ | PROT_WRITE) != 0)
		return 3;
	fill(region, NPAGES, 4);
	return filled(region, NPAGES, 4) ? 0 : 4;
}

static int child_writes_ro_parent(void)
{
	/* The parent made its copy read-only after the fork: ours is still writable. */
	fill(region, 8, 8);
	return filled(region, 8, 8) ? 0 : 1;
}

static void mprotect_after_fork(void)
{
	fill(region, NPAGES, 3);
	CHECK_EQ(in_child(child_mprotect), 0, "the child's mprotect and writes work on its copy");
	CHECK(filled(region, NPAGES, 3), "and leave the parent's pages as they were");

	/* The parent protects its pages after forking a child that writes. */
	int fds[2], st;
	char c;
	pid_t p;
	CHECK_EQ(pipe(fds), 0, "pipe");
	p = fork();
	if (p == 0) {
		if (read(fds[0], &c, 1) != 1)
			_exit(3);
		_exit(child_writes_ro_parent());
	}
	CHECK_EQ(mprotect(region, NPAGES * PAGE, PROT_READ), 0, "parent mprotect PROT_READ");
	CHECK_EQ(write(fds[1], "x", 1), 1, "then lets the child write");
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child writes its copy of pages the parent made read-only");
	CHECK(filled(region, NPAGES, 3), "the parent's read-only pages are unchanged");
	CHECK_EQ(mprotect(region, NPAGES * PAGE, PROT_READ | PROT_WRITE), 0, "parent mprotect RW");
	region[0] = 'w';
	CHECK(region[0] == 'w', "the parent writes again");
	close(fds[0]);
	close(fds[1]);
}

static int child_dontneed(void)
{
	if (madvise(region, NPAGES / 2 * PAGE, MADV_DONTNEED) != 0)
		return 1;
	for (size_t i = 0; i < NPAGES / 2; i++)
		if (region[i * PAGE] != 0 || region[i * PAGE + PAGE - 1] != 0)
			return 2;
	if (!filled(region + NPAGES / 2 * PAGE, NPAGES / 2, NPAGES / 2 + 12))
		return 3;
	region[0] = 'z';
	return region[0] == 'z' ? 0 : 4;
}

static int child_keeps_after_parent_dontneed(void)
{
	return filled(region, NPAGES, 12) ? 0 : 1;
}

static void dontneed_after_fork(void)
{
	int fds[2], st;
	char c;
	pid_t p;

	fill(region, NPAGES, 12);
	CHECK_EQ(in_child(child_dontneed), 0,
		 "MADV_DONTNEED in the child zeroes its copy (only the range asked)");
	CHECK(filled(region, NPAGES, 12), "the parent keeps its data");

	CHECK_EQ(pipe(fds), 0, "pipe");
	p = fork();
	if (p == 0) {
		if (read(fds[0], &c, 1) != 1)
			_exit(3);
		_exit(child_keeps_after_parent_dontneed());
	}
	CHECK_EQ(madvise(region, NPAGES * PAGE, MADV_DONTNEED), 0, "parent MADV_DONTNEED");
	CHECK(region[0] == 0 && region[(NPAGES - 1) * PAGE] == 0, "the parent reads zeros");
	CHECK_EQ(write(fds[1], "x", 1), 1, "then lets the child look");
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child keeps the data the parent dropped");
	close(fds[0]);
	close(fds[1]);
}

static int child_munmap(void)
{
	if (munmap(region + PAGE, 2 * PAGE) != 0)
		return 1;
	return guest_mapped(region + PAGE) ? 2 : 0;
}

static void munmap_one_side(void)
{
	int fds[2], st;
	char c;
	pid_t p;

	fill(region, NPAGES, 13);
	CHECK_EQ(in_child(child_munmap), 0, "the child unmaps part of its copy");
	CHECK(filled(region, NPAGES, 13), "the parent's mapping and data stay");

	CHECK_EQ(pipe(fds), 0, "pipe");
	p = fork();
	if (p == 0) {
		if (read(fds[0], &c, 1) != 1)
			_exit(3);
		_exit(filled(region + NPAGES / 2 * PAGE, NPAGES / 2, NPAGES / 2 + 13) ? 0 : 1);
	}
	CHECK_EQ(munmap(region + NPAGES / 2 * PAGE, NPAGES / 2 * PAGE), 0, "parent unmaps half");
	CHECK_EQ(write(fds[1], "x", 1), 1, "then lets the child look");
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child keeps the half the parent unmapped");
	/* Map it again for what follows. */
	CHECK(mmap(region + NPAGES / 2 * PAGE, NPAGES / 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED,
	      "parent maps the half again");
	close(fds[0]);
	close(fds[1]);
}

static int child_reads_into_shared(void)
{
	int fds[2];

	/* The kernel writes into a page the fork shares: only this copy changes. */
	if (pipe(fds) != 0 || write(fds[1], "kernel", 6) != 6)
		return 1;
	if (read(fds[0], region + 3 * PAGE + 100, 6) != 6)
		return 2;
	if (memcmp(region + 3 * PAGE + 100, "kernel", 6) != 0)
		return 3;
	/* A larger read across several shared pages. */
	static char big[3 * PAGE];
	memset(big, 'k', sizeof(big));
	if (write(fds[1], big, sizeof(big)) != (ssize_t)sizeof(big))
		return 4;
	if (read(fds[0], region + 10 * PAGE + 7, sizeof(big)) != (ssize_t)sizeof(big))
		return 5;
	return region[10 * PAGE + 7] == 'k' && region[13 * PAGE + 6] == 'k' &&
			       region[13 * PAGE + 7] == (char)((13 + 14) & 0xff)
		       ? 0
		       : 6;
}

static void *quick(void *arg)
{
	return arg;
}

static int child_thread_join(void)
{
	pthread_t th;
	void *r;

	/* The thread's descriptor, stack and tid word were mapped before the
	 * fork (pthread caches stacks): its exit clears a word in a shared page. */
	for (int i = 0; i < 3; i++) {
		if (pthread_create(&th, NULL, quick, (void *)(long)(i + 1)) != 0)
			return 1;
		if (pthread_join(th, &r) != 0 || r != (void *)(long)(i + 1))
			return 2;
	}
	return 0;
}

/* A thread blocked in read(2) into private memory while another forks. */
static int pipe_in[2], pipe_go[2];

static void *blocked_reader(void *arg)
{
	return (void *)(long)read(pipe_in[0], region + 5 * PAGE, 5);
}

static void read_during_fork(void)
{
	pthread_t th;
	void *got;
	int st;
	char c;
	pid_t p;

	memcpy(region + 5 * PAGE, "old..", 5);
	CHECK(pipe(pipe_in) == 0 && pipe(pipe_go) == 0, "pipes");
	CHECK_EQ(pthread_create(&th, NULL, blocked_reader, NULL), 0, "reader thread blocks");
	usleep(50000);
	p = fork();
	if (p == 0) {
		if (read(pipe_go[0], &c, 1) != 1)
			_exit(3);
		_exit(memcmp(region + 5 * PAGE, "old..", 5) == 0 ? 0 : 1);
	}
	CHECK_EQ(write(pipe_in[1], "new!!", 5), 5, "the data comes after the fork");
	CHECK(pthread_join(th, &got) == 0 && got == (void *)5L, "the blocked read completes");
	CHECK(memcmp(region + 5 * PAGE, "new!!", 5) == 0, "into the parent's memory");
	CHECK_EQ(write(pipe_go[1], "x", 1), 1, "then the child looks");
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child's copy has what was there at the fork");
	close(pipe_in[0]);
	close(pipe_in[1]);
	close(pipe_go[0]);
	close(pipe_go[1]);
}

static void kernel_writes(void)
{
	pthread_t th;

	fill(region, NPAGES, 14);
	CHECK_EQ(in_child(child_reads_into_shared), 0,
		 "read(2) into pages the fork shares fills the child's copy");
	CHECK(filled(region, NPAGES, 14), "and not the parent's");
	/* A thread made and joined before the fork leaves a cached stack behind. */
	CHECK_EQ(pthread_create(&th, NULL, quick, NULL), 0, "thread before fork");
	CHECK_EQ(pthread_join(th, NULL), 0, "joined");
	CHECK_EQ(in_child(child_thread_join), 0, "threads made and joined in a forked child");
	CHECK_EQ(pthread_create(&th, NULL, quick, NULL), 0, "thread in the parent after that");
	CHECK_EQ(pthread_join(th, NULL), 0, "joined in the parent");
}

static char *heap;

static int child_brk(void)
{
	char *b = heap + 8 * PAGE;

	if (!filled(heap, 8, 15))
		return 1;
	fill(heap, 8, 16);
	if (sbrk(4 * PAGE) == (void *)-1)
		return 2;
	memset(b, 'g', 4 * PAGE);
	if (sbrk(-12 * (long)PAGE) == (void *)-1)
		return 3;
	return 0;
}

static void brk_after_fork(void)
{
	char *b = sbrk(8 * PAGE);

	heap = b;
	CHECK(b != (void *)-1, "sbrk 8 pages");
	fill(b, 8, 15);
	CHECK_EQ(in_child(child_brk), 0, "the child writes, grows and shrinks its heap");
	CHECK(filled(b, 8, 15), "the parent's heap is as it was");
	CHECK(sbrk(0) == b + 8 * PAGE, "and its break where it was");
	fill(b, 8, 17);
	CHECK(filled(b, 8, 17), "the parent writes its heap");
	sbrk(-8 * (long)PAGE);
}

static void vfork_and_exec(void)
{
	static volatile int shared_word;
	int st;
	pid_t p;

	fill(region, NPAGES, 18);
	p = fork();
	if (p == 0) {
		/* A child of the fork vforks: the vfork child writes its parent's memory. */
		pid_t q = vfork();
		if (q == 0) {
			shared_word = 42;
			_exit(0);
		}
		if (q < 0 || waitpid(q, &st, 0) != q)
			_exit(1);
		if (shared_word != 42)
			_exit(2);
		region[0] = 'v';
		/* Then execs: its copy goes, the parent's stays. */
		execl("/proc/self/exe", "proc_cow", "exec-child", (char *)NULL);
		_exit(3);
	}
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "vfork in a forked child, then exec");
	CHECK(shared_word == 0, "the vfork child's write reached its parent only");
	CHECK(filled(region, NPAGES, 18), "the exec'd child's copy did not touch the parent");
	fill(region, NPAGES, 19);
	CHECK(filled(region, NPAGES, 19), "the parent writes its pages after the child exec'd");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exec-child") == 0)
		return 0;
	region = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	CHECK(region != MAP_FAILED, "mmap 4 MiB private");
	isolation();
	nested();
	fork_while_writing();
	rwx_after_fork();
	shared_stays_shared();
	mprotect_after_fork();
	dontneed_after_fork();
	munmap_one_side();
	kernel_writes();
	read_during_fork();
	brk_after_fork();
	vfork_and_exec();
	return GUEST_DONE();
}
