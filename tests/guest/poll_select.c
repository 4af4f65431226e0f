/*
 * Guest test: select and pselect6 on pipes: result sets and counts, the
 * exceptional set, EBADF for a closed descriptor in a set, descriptors
 * beyond the table ignored, timeouts with the remaining time written back
 * (select and the raw pselect6), signal-mask arguments, and bad arguments.
 */
#include "guest.h"

#pragma GCC diagnostic ignored "-Wnonnull"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#include <fcntl.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>

static long raw_select(int n, void *in, void *out, void *ex, void *tv)
{
	return syscall(SYS_select, n, in, out, ex, tv);
}

static long raw_pselect(int n, void *in, void *out, void *ex, void *ts, void *sig)
{
	return syscall(SYS_pselect6, n, in, out, ex, ts, sig);
}

int main(void)
{
	fd_set in, out, ex;
	struct timeval tv;
	struct timespec ts;
	int fds[2], fds2[2], r, w, r2, w2, max;

	for (int i = 3; i < 1024; i++)
		close(i);
	CHECK_EQ(pipe(fds), 0, "pipe");
	CHECK_EQ(pipe(fds2), 0, "a second pipe");
	r = fds[0];
	w = fds[1];
	r2 = fds2[0];
	w2 = fds2[1];
	max = w2 + 1;

	/* Nothing to read yet: both write ends are writable. */
	FD_ZERO(&in);
	FD_ZERO(&out);
	FD_ZERO(&ex);
	FD_SET(r, &in);
	FD_SET(r2, &in);
	FD_SET(w, &out);
	FD_SET(w2, &out);
	FD_SET(r, &ex);
	FD_SET(w, &ex);
	tv = (struct timeval){0, 0};
	CHECK_EQ(select(max, &in, &out, &ex, &tv), 2, "select: the two write ends are ready");
	CHECK(!FD_ISSET(r, &in) && !FD_ISSET(r2, &in), "no read end in the read set");
	CHECK(FD_ISSET(w, &out) && FD_ISSET(w2, &out), "both write ends in the write set");
	CHECK(!FD_ISSET(r, &ex) && !FD_ISSET(w, &ex), "the exceptional set is empty");

	/* Data in the second pipe; each set a descriptor is in counts. */
	CHECK_EQ(write(w2, "hi", 2), 2, "write to the second pipe");
	FD_ZERO(&in);
	FD_ZERO(&out);
	FD_SET(r, &in);
	FD_SET(r2, &in);
	FD_SET(w, &out);
	FD_SET(r2, &out);
	CHECK_EQ(select(max, &in, &out, NULL, &tv), 2, "select: r2 readable, w writable");
	CHECK(FD_ISSET(r2, &in) && !FD_ISSET(r, &in), "r2 alone in the read set");
	CHECK(FD_ISSET(w, &out) && !FD_ISSET(r2, &out), "w alone in the write set");
	FD_ZERO(&in);
	FD_ZERO(&out);
	FD_SET(r2, &in);
	FD_SET(w2, &in);
	FD_SET(w2, &out);
	CHECK_EQ(select(max, &in, &out, NULL, &tv), 2,
		 "select: a descriptor in two sets counts twice");
	CHECK(FD_ISSET(r2, &in) && FD_ISSET(w2, &out) && !FD_ISSET(w2, &in),
	      "r2 readable, w2 writable (not readable)");

	/* Hang-up and error count as readable and writable. */
	CHECK_EQ(close(w2), 0, "close the second pipe's write end");
	CHECK_EQ(read(r2, (char[4]){0}, 4), 2, "drain it");
	FD_ZERO(&in);
	FD_SET(r2, &in);
	CHECK_EQ(select(max, &in, NULL, NULL, &tv), 1, "select: a hung-up read end is readable");
	CHECK_EQ(close(r), 0, "close the first pipe's read end");
	FD_ZERO(&out);
	FD_ZERO(&ex);
	FD_SET(w, &out);
	FD_SET(w, &ex);
	CHECK_EQ(select(max, NULL, &out, &ex, &tv), 1,
		 "select: a write end without reader is writable, not exceptional");

	/* A closed descriptor in any set is EBADF; the sets are left alone. */
	FD_ZERO(&in);
	FD_SET(r, &in);
	CHECK_ERRNO(select(max, &in, NULL, NULL, &tv), EBADF, "select with a closed fd");
	CHECK(FD_ISSET(r, &in), "the set is unchanged");
	/* The table's size depends on what was open: make it 256 (Linux's
	 * sizes and ours are the same powers of two from there). */
	CHECK_EQ(dup2(0, 200), 200, "dup2 to fd 200 grows the table");
	CHECK_EQ(close(200), 0, "close it again");
	FD_ZERO(&ex);
	FD_SET(250, &ex);
	CHECK_ERRNO(select(251, NULL, NULL, &ex, &tv), EBADF, "a closed fd in the exceptional set");
	CHECK_EQ(select(250, NULL, NULL, &ex, &tv), 0, "... not when n stops below it");
	/* Bits past the descriptor table's size (256 here) are not looked at. */
	FD_ZERO(&in);
	FD_SET(900, &in);
	CHECK_EQ(select(1000, &in, NULL, NULL, &tv), 0, "fd 900, beyond the table, is ignored");
	CHECK(FD_ISSET(900, &in),
	      "and its bit is left as it was (only the table's part is written)");
	CHECK_EQ(select(0, NULL, NULL, NULL, &tv), 0, "select of nothing");

	/* Timeouts and the time left. */
	CHECK_EQ(pipe(fds), 0, "a third pipe");
	r = fds[0];
	FD_ZERO(&in);
	FD_SET(r, &in);
	tv = (struct timeval){0, 20000};
	CHECK_EQ(select(r + 1, &in, NULL, NULL, &tv), 0, "select times out after 20 ms");
	CHECK(!FD_ISSET(r, &in), "the read set comes back empty");
	CHECK(tv.tv_sec == 0 && tv.tv_usec == 0, "no time left is written back");
	tv = (struct timeval){0, 1500000};
	FD_SET(w, &out);
	CHECK_EQ(select(w + 1, NULL, &out, NULL, &tv), 1, "tv_usec above a second is accepted");
	CHECK(tv.tv_sec == 1 && tv.tv_usec > 400000, "and normalised in the time left (1.4+ s)");
	tv = (struct timeval){5, 0};
	CHECK_EQ(select(w + 1, NULL, &out, NULL, &tv), 1, "select with 5 s, ready at once");
	CHECK(tv.tv_sec == 4 || (tv.tv_sec == 5 && tv.tv_usec == 0), "time left is 4-5 s");
	tv = (struct timeval){0, 10000};
	CHECK_EQ(select(0, NULL, NULL, NULL, &tv), 0, "select of no sets sleeps");
	ts = (struct timespec){5, 0};
	CHECK_EQ(raw_pselect(w + 1, NULL, &out, NULL, &ts, NULL), 1, "raw pselect6 with 5 s");
	CHECK(ts.tv_sec == 4 || (ts.tv_sec == 5 && ts.tv_nsec == 0),
	      "the raw pselect6 writes back the time left too");
	ts = (struct timespec){5, 0};
	CHECK_EQ(pselect(w + 1, NULL, &out, NULL, &ts, NULL), 1, "glibc's pselect");
	CHECK(ts.tv_sec == 5 && ts.tv_nsec == 0, "leaves the caller's timeout alone");
	ts = (struct timespec){0, 10000000};
	CHECK_EQ(raw_pselect(r + 1, &in, NULL, NULL, &ts, NULL), 0, "pselect6 times out");
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 0, "with no time left");
	{
		sigset_t mask;
		struct {
			sigset_t *ss;
			size_t len;
		} pack = {&mask, 8};
		sigemptyset(&mask);
		sigaddset(&mask, SIGUSR1);
		CHECK_EQ(raw_pselect(w + 1, NULL, &out, NULL, NULL, &pack), 1,
			 "pselect6 with a signal mask");
		CHECK_EQ(pselect(w + 1, NULL, &out, NULL, NULL, &mask), 1,
			 "glibc's pselect with a mask");
		pack.len = 16;
		CHECK_ERRNO(raw_pselect(w + 1, NULL, &out, NULL, NULL, &pack), EINVAL,
			    "pselect6 with a mask size of 16");
		pack.len = 8;
		pack.ss = (void *)8;
		CHECK_ERRNO(raw_pselect(w + 1, NULL, &out, NULL, NULL, &pack), EFAULT,
			    "pselect6 with a bad mask pointer");
		pack.ss = NULL;
		pack.len = 3;
		CHECK_EQ(raw_pselect(w + 1, NULL, &out, NULL, NULL, &pack), 1,
			 "pselect6 with no mask: its size does not matter");
		CHECK_ERRNO(raw_pselect(w + 1, NULL, &out, NULL, NULL, (void *)8), EFAULT,
			    "pselect6 with a bad argument pack");
	}

	/* Bad arguments. */
	FD_ZERO(&out);
	FD_SET(w, &out);
	CHECK_ERRNO(raw_select(-1, NULL, NULL, NULL, NULL), EINVAL, "select with n < 0");
	tv = (struct timeval){0, -1};
	CHECK_ERRNO(raw_select(w + 1, NULL, &out, NULL, &tv), EINVAL, "select with tv_usec -1");
	tv = (struct timeval){-1, 0};
	CHECK_ERRNO(raw_select(w + 1, NULL, &out, NULL, &tv), EINVAL, "select with tv_sec -1");
	CHECK_ERRNO(raw_select(w + 1, NULL, &out, NULL, (void *)8), EFAULT,
		    "select with a bad timeval");
	CHECK_ERRNO(raw_select(w + 1, (void *)8, NULL, NULL, NULL), EFAULT,
		    "select with a bad set");
	ts = (struct timespec){0, 1000000000};
	CHECK_ERRNO(raw_pselect(w + 1, NULL, &out, NULL, &ts, NULL), EINVAL,
		    "pselect6 with tv_nsec 1e9");
	{
		/* The time left cannot be written back: the result stands. */
		struct timeval *ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		*ro = (struct timeval){5, 0};
		mprotect(ro, PAGE, PROT_READ);
		CHECK_EQ(raw_select(w + 1, NULL, &out, NULL, ro), 1,
			 "select with a read-only timeval still reports the ready fd");
		CHECK(ro->tv_sec == 5, "and the timeval is unchanged");
		/* A result set in read-only memory: EFAULT. */
		mprotect(ro, PAGE, PROT_READ | PROT_WRITE);
		FD_ZERO((fd_set *)ro);
		FD_SET(w, (fd_set *)ro);
		mprotect(ro, PAGE, PROT_READ);
		CHECK_ERRNO(raw_select(w + 1, NULL, ro, NULL, NULL), EFAULT,
			    "select with a read-only result set");
	}
	return GUEST_DONE();
}
