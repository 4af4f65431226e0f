/*
 * Guest test: file mappings past the end of their file. A page wholly past
 * the end raises SIGBUS (BUS_ADRERR, si_addr the address) for reads and
 * writes, private or shared; the page that holds the end is whole; the
 * kernel's own access there is EFAULT; a file grown since covers the page
 * again (a private mapping then shows the file's new bytes); fork, mprotect
 * and mremap keep the rule; a truncation takes the pages past the new end
 * from every mapping, private copies too, and a file grown again shows
 * zeros there. Also mmap's argument errors that go with it:
 * EOVERFLOW for offsets past the largest file, EINVAL for an anonymous
 * MAP_SHARED_VALIDATE, a pipe's ENODEV and EACCES.
 */
#include "guest.h"

#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;
static volatile void *got_addr;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_sig = sig;
	got_code = si->si_code;
	got_addr = si->si_addr;
	siglongjmp(env, 1);
}

/* Touch p (write or read): the signal it raised, or 0. */
static int touch(volatile char *p, int write)
{
	got_sig = 0;
	got_addr = NULL;
	if (sigsetjmp(env, 1) == 0) {
		if (write)
			*p = 'x';
		else
			(void)*p;
	}
	return got_sig;
}

static int bus_at(volatile char *p, int write)
{
	return touch(p, write) == SIGBUS && got_code == BUS_ADRERR && got_addr == (void *)p;
}

/* A file of half a page of 'a's (unlinked). */
static int half_page_file(void)
{
	char path[] = "/tmp/rung-sigbus-XXXXXX", buf[PAGE / 2];
	int fd = mkstemp(path);

	unlink(path);
	memset(buf, 'a', sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return -1;
	return fd;
}

static void past_end(const char *name, int prot, int flags)
{
	int fd = half_page_file(), wr = prot & PROT_WRITE;
	char *p = mmap(NULL, 2 * PAGE, prot, flags, fd, 0), what[128];
	int pipefd[2];

	printf("-- %s\n", name);
	CHECK(p != MAP_FAILED, "a two-page mapping of a half-page file");
	CHECK(touch(p, wr) == 0 && touch(p + PAGE / 2 + 1, wr) == 0,
	      "the page with the end is whole");
	snprintf(what, sizeof(what), "%s past the end: SIGBUS BUS_ADRERR at the address",
		 wr ? "a write" : "a read");
	CHECK(bus_at(p + PAGE, wr), what);
	CHECK(bus_at(p + 2 * PAGE - 1, wr), "... to the mapping's last byte");
	CHECK(pipe(pipefd) == 0, "a pipe");
	CHECK_ERRNO(write(pipefd[1], p + PAGE, 16), EFAULT, "write(2) from past the end");
	if (wr) {
		int z = open("/dev/zero", O_RDONLY);
		CHECK_ERRNO(read(z, p + PAGE, 16), EFAULT, "read(2) into past the end");
		close(z);
	}
	close(pipefd[0]);
	close(pipefd[1]);

	/* The file grows: the page is there, with the file's bytes. */
	CHECK_EQ(pwrite(fd, "bb", 2, PAGE), 2, "the file grows by two bytes on the next page");
	CHECK(touch(p + PAGE, 0) == 0 && p[PAGE] == 'b' && p[PAGE + 2] == 0,
	      "... the page is mapped now and shows them");
	CHECK(touch(p + PAGE + 100, wr) == 0, "... and takes the access");
	munmap(p, 2 * PAGE);
	close(fd);
}

static void offset_past_end(void)
{
	int fd = half_page_file();
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 10 * PAGE);

	printf("-- an offset past the end\n");
	CHECK(p != MAP_FAILED, "mmap at ten pages in succeeds");
	CHECK(bus_at(p, 1), "a write there: SIGBUS");
	CHECK(bus_at(p, 0), "a read: SIGBUS");
	munmap(p, PAGE);
	close(fd);
}

static void kept(void)
{
	int fd = half_page_file(), status = 0;
	char *p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0), *q;
	pid_t pid;

	printf("-- mprotect, fork and mremap keep it\n");
	CHECK(p != MAP_FAILED, "a shared read-only mapping");
	CHECK_EQ(mprotect(p, 2 * PAGE, PROT_READ | PROT_EXEC), 0, "mprotect of all of it");
	CHECK(bus_at(p + PAGE, 0), "... past the end still SIGBUS");
	pid = fork();
	if (pid == 0)
		_exit(bus_at(p + PAGE, 0) && touch(p, 0) == 0 ? 0 : 1);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a fork's child gets SIGBUS there too");
	q = mremap(p, 2 * PAGE, 4 * PAGE, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED, "mremap to four pages");
	CHECK(touch(q, 0) == 0 && q[0] == 'a', "... the first page holds the file");
	CHECK(bus_at(q + PAGE, 0) && bus_at(q + 3 * PAGE, 0), "... the rest SIGBUS");
	munmap(q, 4 * PAGE);
	close(fd);
}

/* A file of n pages of c (unlinked). */
static int file_of(size_t n, char c)
{
	int fd = half_page_file();
	char buf[PAGE];

	memset(buf, c, sizeof(buf));
	for (size_t i = 0; i < n; i++)
		if (pwrite(fd, buf, PAGE, (off_t)(i * PAGE)) != (ssize_t)PAGE)
			return -1;
	return fd;
}

static void truncated(void)
{
	int fd = file_of(2, 'a');
	char *s = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0), buf[PAGE];
	pid_t pid;
	int status = 0;

	printf("-- a truncation\n");
	CHECK(s != MAP_FAILED && p != MAP_FAILED, "a shared and a private mapping of two pages");
	CHECK(touch(s + PAGE, 0) == 0 && s[PAGE] == 'a', "the shared one reads the file");
	CHECK(touch(p + PAGE, 1) == 0 && p[PAGE] == 'x', "the private one has its own copy");
	pid = fork();
	if (pid == 0) {
		CHECK_EQ(ftruncate(fd, PAGE / 2), 0, "a child truncates it to half a page");
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(touch(s, 0) == 0 && s[0] == 'a' && s[PAGE / 2] == 0,
	      "the shared page with the end is kept, zeros past it");
	CHECK(bus_at(s + PAGE, 0), "the shared page past the end: SIGBUS");
	CHECK(bus_at(p + PAGE, 0), "the private copy past the end: gone, SIGBUS");
	CHECK_EQ(ftruncate(fd, 2 * PAGE), 0, "the file grows again");
	CHECK(touch(s + PAGE, 0) == 0 && s[PAGE] == 0 && s[2 * PAGE - 1] == 0,
	      "the shared page is back, zeros");
	CHECK(touch(p + PAGE, 0) == 0 && p[PAGE] == 0, "the private one too");
	s[PAGE] = 'z';
	CHECK(pread(fd, buf, 1, PAGE) == 1 && buf[0] == 'z', "a store into it reaches the file");
	munmap(s, 2 * PAGE);
	munmap(p, 2 * PAGE);
	close(fd);
}

static void arguments(void)
{
	int fd = half_page_file(), pipefd[2];
	long max = LONG_MAX & ~(long)(PAGE - 1);

	printf("-- mmap's argument errors\n");
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, max - (long)PAGE) != MAP_FAILED,
	      "the page before the largest offset maps");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, max), EOVERFLOW,
		    "the largest offset: EOVERFLOW");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, -2 * (long)PAGE), EOVERFLOW,
		    "a negative offset: EOVERFLOW");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_NONE, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0), EINVAL,
		    "anonymous MAP_SHARED_VALIDATE: EINVAL");
	CHECK(pipe(pipefd) == 0, "a pipe");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, pipefd[0], 0), ENODEV,
		    "its read end: ENODEV");
	CHECK_ERRNO(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, pipefd[1], 0), EACCES,
		    "its write end: EACCES");
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
}

int main(void)
{
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_NODEFER};

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	past_end("private, written", PROT_READ | PROT_WRITE, MAP_PRIVATE);
	past_end("private, read", PROT_READ, MAP_PRIVATE);
	past_end("shared, written", PROT_READ | PROT_WRITE, MAP_SHARED);
	past_end("shared, read", PROT_READ, MAP_SHARED);
	offset_past_end();
	kept();
	truncated();
	arguments();
	return GUEST_DONE();
}
