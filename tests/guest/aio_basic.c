/*
 * Guest test: Linux native AIO without libaio. io_setup's ring (its header
 * as libaio reads it, head and tail), PREAD/PWRITE/PREADV/PWRITEV/FSYNC/
 * FDSYNC on a tmpfs file (memfd), a /tmp file and a pipe, eventfd
 * notification (IOCB_FLAG_RESFD), io_getevents' timeouts and EINTR,
 * io_pgetevents, the ring filling up (EAGAIN), io_cancel, io_destroy,
 * aio-nr, a forked child that does not have the context, and the
 * EINVAL/EFAULT/EBADF errors of Linux's fs/aio.c.
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/aio_abi.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

struct ring {
	unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
	struct io_event events[];
};

static long io_setup(unsigned nr, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, nr, ctx);
}

static long io_destroy(aio_context_t ctx)
{
	return syscall(SYS_io_destroy, ctx);
}

static long io_submit(aio_context_t ctx, long n, struct iocb **cbs)
{
	return syscall(SYS_io_submit, ctx, n, cbs);
}

static long io_getevents(aio_context_t ctx, long min, long max, struct io_event *ev,
			 struct timespec *ts)
{
	return syscall(SYS_io_getevents, ctx, min, max, ev, ts);
}

static long io_cancel(aio_context_t ctx, struct iocb *cb, struct io_event *ev)
{
	return syscall(SYS_io_cancel, ctx, cb, ev);
}

static long read_num(const char *path)
{
	char buf[64] = {0};
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

static void prep(struct iocb *cb, int op, int fd, void *buf, size_t n, long long off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = op;
	cb->aio_fildes = fd;
	cb->aio_buf = (uintptr_t)buf;
	cb->aio_nbytes = n;
	cb->aio_offset = off;
	cb->aio_data = 0x1000 + op;
}

/* A request Linux completes at submit too (its FSYNC runs in a worker). */
static void prep_quick(struct iocb *cb, int fd)
{
	prep(cb, IOCB_CMD_PWRITE, fd, "x", 1, 100);
}

/* Submit one request and take its event: its res, or a large negative
 * number when the submit or the wait failed. */
static long long one(aio_context_t ctx, struct iocb *cb)
{
	struct iocb *cbs[1] = {cb};
	struct io_event ev;
	struct timespec ts = {5, 0};

	if (io_submit(ctx, 1, cbs) != 1)
		return -1000 - errno;
	if (io_getevents(ctx, 1, 1, &ev, &ts) != 1)
		return -2000 - errno;
	if (ev.obj != (uintptr_t)cb || ev.data != cb->aio_data || ev.res2 != 0)
		return -3000;
	return ev.res;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void file_io(aio_context_t ctx, int fd, const char *what)
{
	char buf[64], a[4] = {0}, b[8] = {0};
	struct iovec wv[2] = {{"abcd", 4}, {"efgh", 4}};
	struct iovec rv[2] = {{a, 3}, {b, 5}};
	struct iocb cb;
	char label[128];

	prep(&cb, IOCB_CMD_PWRITE, fd, "hello, aio", 10, 0);
	snprintf(label, sizeof(label), "%s: PWRITE writes 10 bytes", what);
	CHECK_EQ(one(ctx, &cb), 10, label);
	memset(buf, 0, sizeof(buf));
	prep(&cb, IOCB_CMD_PREAD, fd, buf, sizeof(buf), 7);
	snprintf(label, sizeof(label), "%s: PREAD at 7 reads the last 3", what);
	CHECK(one(ctx, &cb) == 3 && !strcmp(buf, "aio"), label);
	prep(&cb, IOCB_CMD_PWRITEV, fd, wv, 2, 20);
	snprintf(label, sizeof(label), "%s: PWRITEV writes 8 bytes at 20", what);
	CHECK_EQ(one(ctx, &cb), 8, label);
	prep(&cb, IOCB_CMD_PREADV, fd, rv, 2, 20);
	snprintf(label, sizeof(label), "%s: PREADV scatters them", what);
	CHECK(one(ctx, &cb) == 8 && !strcmp(a, "abc") && !strcmp(b, "defgh"), label);
	CHECK_EQ(pread(fd, buf, 4, 6), 4, "pread sees the AIO write");
	prep(&cb, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	snprintf(label, sizeof(label), "%s: FSYNC completes with 0", what);
	CHECK_EQ(one(ctx, &cb), 0, label);
	prep(&cb, IOCB_CMD_FDSYNC, fd, NULL, 0, 0);
	snprintf(label, sizeof(label), "%s: FDSYNC completes with 0", what);
	CHECK_EQ(one(ctx, &cb), 0, label);
	prep(&cb, IOCB_CMD_PREAD, fd, buf, sizeof(buf), 1000);
	snprintf(label, sizeof(label), "%s: PREAD past the end gives 0", what);
	CHECK_EQ(one(ctx, &cb), 0, label);
}

int main(void)
{
	aio_context_t ctx = 0, ctx2, bad = 0;
	struct iocb cb, cb2, *cbs[4];
	struct io_event ev[256];
	struct timespec ts0 = {0, 0}, ts50 = {0, 50 * 1000 * 1000};
	char tmpl[] = "/tmp/aio_basic.XXXXXX", buf[32];
	long nr0, maxnr, n;
	struct ring *r;
	int mfd, tfd, p[2], efd, rofd;
	uint64_t cnt;

	/* io_setup */
	CHECK_ERRNO(io_setup(0, &ctx), EINVAL, "io_setup of 0 events");
	CHECK_ERRNO(io_setup(8, (aio_context_t *)8), EFAULT, "io_setup with a bad pointer");
	ctx = 1;
	CHECK_ERRNO(io_setup(8, &ctx), EINVAL, "io_setup into a non-zero context");
	ctx = 0;
	CHECK_ERRNO(io_setup(0x7fffffff, &ctx), EINVAL, "io_setup of 2^31-1 events");
	maxnr = read_num("/proc/sys/fs/aio-max-nr");
	CHECK(maxnr > 0, "aio-max-nr reads");
	if (maxnr > 0 && maxnr < 4000000)
		CHECK_ERRNO(io_setup((unsigned)maxnr + 1, &ctx), EAGAIN,
			    "io_setup past aio-max-nr");
	nr0 = read_num("/proc/sys/fs/aio-nr");
	CHECK_EQ(io_setup(128, &ctx), 0, "io_setup of 128 events");
	CHECK_EQ(read_num("/proc/sys/fs/aio-nr") - nr0, 128, "aio-nr counts them");
	r = (struct ring *)ctx;
	CHECK(ctx != 0 && guest_mapped(r), "the context is a mapped ring");
	CHECK_EQ(r->magic, 0xa10a10a1, "ring magic");
	CHECK_EQ(r->header_length, sizeof(struct ring), "ring header_length");
	CHECK_EQ(r->compat_features, 1, "ring compat_features");
	CHECK_EQ(r->incompat_features, 0, "ring incompat_features");
	CHECK(r->nr >= 256 && (sizeof(struct ring) + r->nr * sizeof(struct io_event)) % PAGE <
				      sizeof(struct io_event),
	      "ring nr: twice the events at least, filling its pages");
	CHECK(r->head == 0 && r->tail == 0, "ring starts empty");

	/* files */
	mfd = memfd_create("aio", 0);
	file_io(ctx, mfd, "memfd");
	tfd = mkstemp(tmpl);
	unlink(tmpl);
	file_io(ctx, tfd, "/tmp file");

	/* head and tail as libaio reads them */
	prep_quick(&cb, mfd);
	prep_quick(&cb2, mfd);
	cb2.aio_data++;
	cbs[0] = &cb;
	cbs[1] = &cb2;
	{
		unsigned h = r->head;
		CHECK_EQ(io_submit(ctx, 2, cbs), 2, "io_submit of two");
		CHECK_EQ((r->tail - h + r->nr) % r->nr, 2, "the tail moves by two at submit");
		CHECK_EQ(io_getevents(ctx, 0, 1, ev, NULL), 1, "io_getevents takes one of them");
		CHECK_EQ((r->head - h + r->nr) % r->nr, 1, "the head moves by one");
		CHECK(ev[0].obj == (uintptr_t)&cb && ev[0].data == cb.aio_data,
		      "events come in order");
		/* user space may consume the ring itself, as libaio does */
		CHECK(r->events[r->head].obj == (uintptr_t)&cb2, "the ring holds the next event");
		r->head = r->tail;
		CHECK_EQ(io_getevents(ctx, 0, 4, ev, &ts0), 0, "nothing left after the guest's head");
	}

	/* a pipe: streams ignore the offset */
	pipe(p);
	prep(&cb, IOCB_CMD_PWRITE, p[1], "pipe data", 9, 0);
	CHECK_EQ(one(ctx, &cb), 9, "pipe: PWRITE writes");
	memset(buf, 0, sizeof(buf));
	prep(&cb, IOCB_CMD_PREAD, p[0], buf, sizeof(buf), 12345);
	CHECK(one(ctx, &cb) == 9 && !strcmp(buf, "pipe data"), "pipe: PREAD reads it");
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	prep(&cb, IOCB_CMD_PREAD, p[0], buf, sizeof(buf), 0);
	CHECK_EQ(one(ctx, &cb), -EAGAIN, "pipe: an empty O_NONBLOCK read completes with -EAGAIN");
	prep(&cb, IOCB_CMD_FSYNC, p[1], NULL, 0, 0);
	cbs[0] = &cb;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "pipe: FSYNC");
	prep(&cb, IOCB_CMD_PREAD, p[0], buf, sizeof(buf), -1);
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "pipe: a negative offset");

	/* eventfd notification */
	efd = eventfd(0, EFD_NONBLOCK);
	prep(&cb, IOCB_CMD_PWRITE, mfd, "x", 1, 0);
	cb.aio_flags = IOCB_FLAG_RESFD;
	cb.aio_resfd = efd;
	prep_quick(&cb2, mfd);
	cb2.aio_flags = IOCB_FLAG_RESFD;
	cb2.aio_resfd = efd;
	cbs[0] = &cb;
	cbs[1] = &cb2;
	CHECK_EQ(io_submit(ctx, 2, cbs), 2, "two requests with an eventfd");
	cnt = 0;
	CHECK(read(efd, &cnt, 8) == 8 && cnt == 2, "the eventfd counts two completions");
	CHECK_EQ(io_getevents(ctx, 2, 2, ev, NULL), 2, "and their events are in the ring");
	cb.aio_resfd = p[0];
	cbs[0] = &cb;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "a resfd that is not an eventfd");
	cb.aio_resfd = 999;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EBADF, "a resfd that is not open");

	/* io_submit's errors */
	prep(&cb, IOCB_CMD_PREAD, mfd, buf, 4, 0);
	cbs[0] = &cb;
	CHECK_ERRNO(io_submit(bad, 1, cbs), EINVAL, "io_submit on context 0");
	CHECK_ERRNO(io_submit((aio_context_t)buf, 1, cbs), EINVAL,
		    "io_submit on a context that is not one");
	CHECK_ERRNO(io_submit(ctx, -1, cbs), EINVAL, "io_submit of -1 requests");
	CHECK_EQ(io_submit(ctx, 0, cbs), 0, "io_submit of none");
	CHECK_ERRNO(io_submit(ctx, 1, (struct iocb **)8), EFAULT, "a bad iocb array");
	cbs[0] = (struct iocb *)8;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EFAULT, "a bad iocb");
	cbs[0] = &cb;
	cb.aio_fildes = 999;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EBADF, "a closed fd");
	cb.aio_fildes = mfd;
	cb.aio_lio_opcode = IOCB_CMD_NOOP;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "IOCB_CMD_NOOP");
	cb.aio_lio_opcode = 42;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "an unknown opcode");
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_reserved2 = 1;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "aio_reserved2 set");
	cb.aio_reserved2 = 0;
	cb.aio_nbytes = (uint64_t)-1;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "a negative length");
	cb.aio_nbytes = 4;
	cb.aio_buf = 0xffff800000000000ul;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EFAULT, "PREAD into a kernel address");
	cb.aio_buf = 8;
	CHECK_EQ(one(ctx, &cb), -EFAULT, "PREAD into an unmapped buffer completes with -EFAULT");
	cb.aio_buf = (uintptr_t)buf;
	cb.aio_rw_flags = 0x200;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EOPNOTSUPP, "unknown aio_rw_flags");
	cb.aio_rw_flags = 0;
	cb.aio_offset = -1;
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "a negative offset");
	cb.aio_offset = 0;
	rofd = open("/proc/self/exe", O_RDONLY);
	prep(&cb, IOCB_CMD_PWRITE, rofd, "x", 1, 0);
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EBADF, "PWRITE on a read-only fd");
	prep(&cb, IOCB_CMD_PREAD, p[1], buf, 1, 0);
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EBADF, "PREAD on a pipe's write end");
	prep(&cb, IOCB_CMD_FSYNC, mfd, buf, 0, 0);
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "FSYNC with a buffer");
	prep(&cb, IOCB_CMD_PREADV, mfd, (void *)8, 1, 0);
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EFAULT, "PREADV with a bad iovec array");
	prep(&cb, IOCB_CMD_PREADV, mfd, buf, 5000, 0);
	CHECK_ERRNO(io_submit(ctx, 1, cbs), EINVAL, "PREADV of more than 1024 iovecs");
	prep_quick(&cb, mfd);
	prep_quick(&cb2, 999);
	cbs[0] = &cb;
	cbs[1] = &cb2;
	CHECK_EQ(io_submit(ctx, 2, cbs), 1, "a bad second request: the first is taken");
	CHECK_EQ(io_getevents(ctx, 1, 4, ev, &ts0), 1, "and completes alone");
	cb.aio_key = 7;
	CHECK_EQ(io_submit(ctx, 1, cbs), 1, "io_submit of an iocb with aio_key set");
	CHECK_EQ(cb.aio_key, 0, "io_submit writes aio_key (KIOCB_KEY)");
	io_getevents(ctx, 1, 1, ev, NULL);

	/* io_getevents */
	CHECK_ERRNO(io_getevents(ctx, 2, 1, ev, NULL), EINVAL, "io_getevents with min_nr > nr");
	CHECK_ERRNO(io_getevents(ctx, -1, 1, ev, NULL), EINVAL, "io_getevents with min_nr < 0");
	CHECK_ERRNO(io_getevents(bad, 0, 1, ev, NULL), EINVAL, "io_getevents on context 0");
	CHECK_ERRNO(io_getevents(ctx, 1, 1, ev, (struct timespec *)8), EFAULT,
		    "io_getevents with a bad timeout");
	CHECK_EQ(io_getevents(ctx, 0, 1, ev, NULL), 0, "min_nr 0 returns at once");
	CHECK_EQ(io_getevents(ctx, 1, 1, ev, &ts0), 0, "a zero timeout returns at once");
	CHECK_EQ(io_getevents(ctx, 1, 1, ev, &ts50), 0, "a 50ms timeout expires with 0");
	{
		struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
		struct itimerval it = {{0, 0}, {0, 50000}};
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		CHECK_ERRNO(io_getevents(ctx, 1, 1, ev, NULL), EINTR,
			    "a signal interrupts io_getevents (even with SA_RESTART)");
	}
	prep_quick(&cb, mfd);
	cbs[0] = &cb;
	io_submit(ctx, 1, cbs);
	CHECK_ERRNO(io_getevents(ctx, 1, 1, (struct io_event *)8, NULL), EFAULT,
		    "io_getevents into a bad array");
	CHECK_EQ(io_getevents(ctx, 1, 1, ev, NULL), 1, "the event stays for the next call");
	{
		struct {
			const sigset_t *mask;
			size_t size;
		} usig;
		sigset_t set;
		sigemptyset(&set);
		usig.mask = &set;
		usig.size = 4;
		CHECK_ERRNO(syscall(SYS_io_pgetevents, ctx, 0, 1, ev, NULL, &usig), EINVAL,
			    "io_pgetevents with a bad sigsetsize");
		usig.size = 8;
		io_submit(ctx, 1, cbs);
		CHECK_EQ(syscall(SYS_io_pgetevents, ctx, 1, 1, ev, NULL, &usig), 1,
			 "io_pgetevents takes an event");
		CHECK_EQ(syscall(SYS_io_pgetevents, ctx, 1, 1, ev, &ts0, NULL), 0,
			 "io_pgetevents without a mask, zero timeout");
	}

	/* io_cancel: nothing pending to cancel */
	prep_quick(&cb, mfd);
	io_submit(ctx, 1, cbs);
	CHECK_ERRNO(io_cancel(ctx, &cb, ev), EINVAL, "io_cancel of a completed request");
	cb.aio_key = 1;
	CHECK_ERRNO(io_cancel(ctx, &cb, ev), EINVAL, "io_cancel with a wrong aio_key");
	CHECK_ERRNO(io_cancel(ctx, (struct iocb *)8, ev), EFAULT, "io_cancel of a bad iocb");
	io_getevents(ctx, 1, 1, ev, NULL);

	/* a small context fills up */
	CHECK_EQ(io_setup(1, &ctx2), 0, "io_setup of 1 event");
	{
		struct ring *r2 = (struct ring *)ctx2;
		static struct iocb many[512];
		static struct iocb *mp[512];
		unsigned i, lim = r2->nr < 512 ? r2->nr : 512;
		for (i = 0; i < lim; i++) {
			prep_quick(&many[i], mfd);
			mp[i] = &many[i];
		}
		n = io_submit(ctx2, lim, mp);
		CHECK(n >= 1 && n < (long)r2->nr, "a full ring takes some, not all");
		CHECK_ERRNO(io_submit(ctx2, 1, mp), EAGAIN, "then io_submit fails with EAGAIN");
		CHECK_EQ(io_getevents(ctx2, n, n, ev, NULL), n, "io_getevents takes them all");
		CHECK_EQ(io_submit(ctx2, 1, mp), 1, "and there is room again");
		CHECK_EQ(io_destroy(ctx2), 0, "io_destroy of the small one");
	}

	/* a child does not have the context */
	if (fork() == 0) {
		prep(&cb, IOCB_CMD_FSYNC, mfd, NULL, 0, 0);
		cbs[0] = &cb;
		_exit(io_submit(ctx, 1, cbs) == -1 && errno == EINVAL ? 0 : 1);
	} else {
		int st;
		wait(&st);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a forked child gets EINVAL");
	}

	/* io_destroy */
	CHECK_EQ(io_destroy(ctx), 0, "io_destroy");
	CHECK(!guest_mapped(r), "the ring is unmapped");
	CHECK_ERRNO(io_destroy(ctx), EINVAL, "io_destroy again");
	CHECK_ERRNO(io_getevents(ctx, 0, 1, ev, NULL), EINVAL, "io_getevents after io_destroy");
	CHECK_ERRNO(io_destroy(bad), EINVAL, "io_destroy of context 0");
	CHECK_EQ(read_num("/proc/sys/fs/aio-nr"), nr0, "aio-nr is back");
	return GUEST_DONE();
}
