/*
 * Guest test: IOCB_CMD_POLL. A poll on an empty pipe stays pending until
 * another process (and, second time, another thread) writes; a ready file
 * completes at submit; POLLHUP when the writer goes; an eventfd is told of
 * the completion; io_cancel of a pending poll completes it with 0; a
 * regular file is always ready (or EINVAL for events it never has); the
 * poll-only argument checks; io_destroy with a poll pending.
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/aio_abi.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>

struct ring {
	unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
	struct io_event events[];
};

static long io_submit1(aio_context_t ctx, struct iocb *cb)
{
	struct iocb *cbs[1] = {cb};

	return syscall(SYS_io_submit, ctx, 1, cbs);
}

static long io_getevents(aio_context_t ctx, long min, long max, struct io_event *ev,
			 struct timespec *ts)
{
	return syscall(SYS_io_getevents, ctx, min, max, ev, ts);
}

static void prep_poll(struct iocb *cb, int fd, unsigned events)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = IOCB_CMD_POLL;
	cb->aio_fildes = fd;
	cb->aio_buf = events;
	cb->aio_data = 0xabc;
}

static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000};

	nanosleep(&ts, NULL);
}

static void *thread_writer(void *arg)
{
	pause_ms(50);
	write(*(int *)arg, "t", 1);
	return NULL;
}

int main(void)
{
	struct timespec ts0 = {0, 0}, ts5 = {5, 0};
	aio_context_t ctx = 0;
	struct io_event ev[4];
	struct iocb cb;
	struct ring *r;
	int p[2], efd, mfd, st;
	uint64_t cnt;
	char c;

	CHECK_EQ(syscall(SYS_io_setup, 16, &ctx), 0, "io_setup");
	r = (struct ring *)ctx;
	pipe(p);

	/* pending until another process writes */
	prep_poll(&cb, p[0], POLLIN);
	CHECK_EQ(io_submit1(ctx, &cb), 1, "POLLIN on an empty pipe is taken");
	CHECK_EQ(io_getevents(ctx, 1, 1, ev, &ts0), 0, "and is pending");
	CHECK(r->head == r->tail, "the ring is empty meanwhile");
	if (fork() == 0) {
		pause_ms(50);
		write(p[1], "x", 1);
		_exit(0);
	}
	CHECK_EQ(io_getevents(ctx, 1, 1, ev, &ts5), 1, "a child's write completes it");
	CHECK(ev[0].obj == (uintptr_t)&cb && ev[0].data == 0xabc, "the event names the iocb");
	/* The write's wake-up names POLLRDNORM too (Linux completes with it). */
	CHECK_EQ(ev[0].res & ~POLLRDNORM, POLLIN, "res is POLLIN");
	wait(&st);
	read(p[0], &c, 1);

	/* and with a thread, an eventfd told */
	efd = eventfd(0, 0);
	prep_poll(&cb, p[0], POLLIN);
	cb.aio_flags = IOCB_FLAG_RESFD;
	cb.aio_resfd = efd;
	{
		pthread_t th;
		CHECK_EQ(io_submit1(ctx, &cb), 1, "POLLIN with an eventfd");
		pthread_create(&th, NULL, thread_writer, &p[1]);
		cnt = 0;
		CHECK(read(efd, &cnt, 8) == 8 && cnt == 1, "the eventfd wakes the reader");
		pthread_join(th, NULL);
	}
	CHECK(r->tail != r->head, "the event is in the ring at once");
	CHECK(io_getevents(ctx, 1, 1, ev, &ts5) == 1 && (ev[0].res & ~POLLRDNORM) == POLLIN,
	      "a thread's write completes it");
	read(p[0], &c, 1);

	/* ready at submit */
	prep_poll(&cb, p[1], POLLOUT);
	CHECK_EQ(io_submit1(ctx, &cb), 1, "POLLOUT on a pipe with room");
	CHECK(r->tail != r->head, "completes at submit");
	CHECK(io_getevents(ctx, 1, 1, ev, &ts0) == 1 && ev[0].res == POLLOUT, "res is POLLOUT");
	prep_poll(&cb, p[1], POLLIN | POLLOUT);
	CHECK(io_submit1(ctx, &cb) == 1 && io_getevents(ctx, 1, 1, ev, &ts0) == 1 &&
		      ev[0].res == POLLOUT,
	      "only the ready events are reported");

	/* io_cancel */
	prep_poll(&cb, p[0], POLLIN);
	CHECK_EQ(io_submit1(ctx, &cb), 1, "another POLLIN");
	CHECK_ERRNO(syscall(SYS_io_cancel, ctx, &cb, ev), EINPROGRESS, "io_cancel of it");
	CHECK(io_getevents(ctx, 1, 1, ev, &ts5) == 1 && ev[0].res == 0 &&
		      ev[0].obj == (uintptr_t)&cb,
	      "the cancelled poll completes with 0");
	CHECK_ERRNO(syscall(SYS_io_cancel, ctx, &cb, ev), EINVAL, "io_cancel again");

	/* regular files are always ready */
	mfd = memfd_create("aio_poll", 0);
	prep_poll(&cb, mfd, POLLIN);
	CHECK(io_submit1(ctx, &cb) == 1 && io_getevents(ctx, 1, 1, ev, &ts0) == 1 &&
		      ev[0].res == POLLIN,
	      "a memfd is readable at once");
	prep_poll(&cb, mfd, POLLPRI);
	CHECK_ERRNO(io_submit1(ctx, &cb), EINVAL, "POLLPRI on a memfd cannot be waited for");

	/* the poll-only checks */
	prep_poll(&cb, p[0], 0x10000);
	CHECK_ERRNO(io_submit1(ctx, &cb), EINVAL, "events past 16 bits");
	prep_poll(&cb, p[0], POLLIN);
	cb.aio_nbytes = 1;
	CHECK_ERRNO(io_submit1(ctx, &cb), EINVAL, "a length");
	prep_poll(&cb, p[0], POLLIN);
	cb.aio_offset = 1;
	CHECK_ERRNO(io_submit1(ctx, &cb), EINVAL, "an offset");

	/* the writer goes: POLLHUP, asked for or not */
	prep_poll(&cb, p[0], POLLIN);
	CHECK_EQ(io_submit1(ctx, &cb), 1, "POLLIN once more");
	close(p[1]);
	CHECK(io_getevents(ctx, 1, 1, ev, &ts5) == 1 && ev[0].res == POLLHUP,
	      "closing the write end completes it with POLLHUP");

	/* io_destroy with a poll pending */
	close(p[0]);
	pipe(p);
	prep_poll(&cb, p[0], POLLIN);
	CHECK_EQ(io_submit1(ctx, &cb), 1, "a poll left pending");
	CHECK_EQ(syscall(SYS_io_destroy, ctx), 0, "io_destroy with it pending");
	write(p[1], "y", 1);
	return GUEST_DONE();
}
