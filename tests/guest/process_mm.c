/*
 * Guest test: process_madvise (on itself and a child, through pidfds:
 * the hints Linux takes, their errors, a partial vector), process_mrelease
 * (EINVAL for a live process, ESRCH for a zombie) and move_pages on a
 * one-node machine (the status of touched, untouched and unmapped pages;
 * ENODEV for another node).
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define MPOL_MF_MOVE 2

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static long pmadvise(int pidfd, struct iovec *iov, size_t n, int advice, unsigned flags)
{
	return syscall(SYS_process_madvise, pidfd, iov, n, advice, flags);
}

static int pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int main(void)
{
	char *m = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int self = pidfd_open(getpid()), p[2], st, status[4] = {9, 9, 9, 9}, nodes[4] = {0};
	struct iovec iov[2];
	void *pages[4];
	pid_t child;

	memset(m, 'a', 2 * PAGE); /* pages 0 and 1 touched, 2 and 3 not */
	munmap(m + 3 * PAGE, PAGE);

	/* process_madvise on itself */
	iov[0] = (struct iovec){m, 2 * PAGE};
	CHECK_EQ(pmadvise(self, iov, 1, MADV_WILLNEED, 0), 2 * PAGE, "MADV_WILLNEED on itself");
	CHECK_EQ(pmadvise(self, iov, 1, MADV_COLD, 0), 2 * PAGE, "MADV_COLD");
	CHECK_EQ(pmadvise(self, iov, 1, MADV_PAGEOUT, 0), 2 * PAGE, "MADV_PAGEOUT");
	CHECK(m[0] == 'a' && m[PAGE] == 'a', "the memory keeps its data");
	CHECK_ERRNO(pmadvise(self, iov, 1, MADV_WILLNEED, 1), EINVAL, "flags");
	CHECK_ERRNO(pmadvise(0, iov, 1, MADV_WILLNEED, 0), EBADF, "an fd that is no pidfd");
	CHECK_ERRNO(pmadvise(self, iov, 1025, MADV_WILLNEED, 0), EINVAL, "1025 iovecs");
	CHECK_ERRNO(pmadvise(self, (struct iovec *)8, 1, MADV_WILLNEED, 0), EFAULT,
		    "a bad iovec array");
	iov[0] = (struct iovec){m + 1, PAGE};
	CHECK_ERRNO(pmadvise(self, iov, 1, MADV_WILLNEED, 0), EINVAL, "an unaligned start");
	iov[0] = (struct iovec){m + 3 * PAGE, PAGE};
	CHECK_ERRNO(pmadvise(self, iov, 1, MADV_COLD, 0), ENOMEM, "an unmapped range");
	iov[0] = (struct iovec){m, PAGE};
	iov[1] = (struct iovec){m + 3 * PAGE, PAGE};
	CHECK_EQ(pmadvise(self, iov, 2, MADV_COLD, 0), PAGE, "a bad second iovec: the first counts");
	if (mlock(m, PAGE) == 0) {
		iov[0] = (struct iovec){m, PAGE};
		CHECK_ERRNO(pmadvise(self, iov, 1, MADV_COLD, 0), EINVAL, "MADV_COLD on locked memory");
		CHECK_EQ(pmadvise(self, iov, 1, MADV_WILLNEED, 0), PAGE,
			 "MADV_WILLNEED on locked memory");
		munlock(m, PAGE);
	}

	/* move_pages */
	pages[0] = m;
	pages[1] = m + PAGE + 100;
	pages[2] = m + 2 * PAGE;
	pages[3] = m + 3 * PAGE;
	CHECK_EQ(syscall(SYS_move_pages, 0, 4, pages, NULL, status, 0), 0, "move_pages: status");
	CHECK(status[0] == 0 && status[1] == 0, "touched pages are on node 0");
	CHECK_EQ(status[2], -ENOENT, "an untouched page: -ENOENT");
	CHECK_EQ(status[3], -EFAULT, "an unmapped page: -EFAULT");
	memset(status, 9, sizeof(status));
	CHECK_EQ(syscall(SYS_move_pages, getpid(), 4, pages, nodes, status, MPOL_MF_MOVE), 0,
		 "move_pages to node 0");
	CHECK(status[0] == 0 && status[1] == 0 && status[2] == -ENOENT && status[3] == -EFAULT,
	      "the same statuses (node 0 for what is there)");
	nodes[1] = 1;
	CHECK_ERRNO(syscall(SYS_move_pages, 0, 4, pages, nodes, status, 0), ENODEV,
		    "move_pages to node 1");
	nodes[1] = -1;
	CHECK_ERRNO(syscall(SYS_move_pages, 0, 4, pages, nodes, status, 0), ENODEV,
		    "move_pages to node -1");
	CHECK_ERRNO(syscall(SYS_move_pages, 0, 1, pages, NULL, status, 8), EINVAL,
		    "move_pages with unknown flags");
	CHECK_ERRNO(syscall(SYS_move_pages, 0, 1, (void *)8, NULL, status, 0), EFAULT,
		    "move_pages with a bad page array");
	CHECK_ERRNO(syscall(SYS_move_pages, 0, 1, pages, NULL, (void *)8, 0), EFAULT,
		    "move_pages with a bad status array");
	CHECK_ERRNO(syscall(SYS_move_pages, 999999, 1, pages, NULL, status, 0), ESRCH,
		    "move_pages of no process");

	/* a child */
	pipe(p);
	child = fork();
	if (child == 0) {
		char c;
		close(p[1]);
		read(p[0], &c, 1);
		_exit(0);
	}
	{
		int cfd = pidfd_open(child);
		iov[0] = (struct iovec){m, 2 * PAGE};
		CHECK_EQ(pmadvise(cfd, iov, 1, MADV_COLD, 0), 2 * PAGE, "MADV_COLD on a child");
		CHECK_ERRNO(pmadvise(cfd, iov, 1, MADV_DONTNEED, 0), EINVAL,
			    "MADV_DONTNEED on a child");
		status[0] = 9;
		CHECK(syscall(SYS_move_pages, child, 1, pages, NULL, status, 0) == 0 &&
			      status[0] == 0,
		      "move_pages of a child's page");
		CHECK_ERRNO(syscall(SYS_process_mrelease, cfd, 0), EINVAL,
			    "process_mrelease of a live process");
		CHECK_ERRNO(syscall(SYS_process_mrelease, cfd, 1), EINVAL,
			    "process_mrelease with flags");
		CHECK_ERRNO(syscall(SYS_process_mrelease, 0, 0), EBADF,
			    "process_mrelease of an fd that is no pidfd");
		write(p[1], "x", 1);
		waitid(P_PID, child, NULL, WEXITED | WNOWAIT);
		CHECK_ERRNO(syscall(SYS_process_mrelease, cfd, 0), ESRCH,
			    "process_mrelease of a zombie");
		CHECK_ERRNO(pmadvise(cfd, iov, 1, MADV_COLD, 0), ESRCH, "process_madvise of a zombie");
		waitpid(child, &st, 0);
	}
	return GUEST_DONE();
}
