/* POSIX message queues: names, O_CREAT/O_EXCL, the default attributes,
 * priority order, O_NONBLOCK's EAGAIN, a receive timeout, EMSGSIZE and
 * EBADF, mq_getsetattr, poll readiness and the line read() gives.
 * Natively it runs as root on the host: the queue's name is made unique
 * with the pid and the queue is unlinked before the test ends. */
#include "guest.h"

#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <time.h>

int main(void)
{
	struct mq_attr a = {0}, na;
	char name[64], buf[8192], line[128];
	struct pollfd p;
	struct timespec ts;
	unsigned prio = 0;
	mqd_t q, q2;
	ssize_t n;

	snprintf(name, sizeof(name), "/rung-mqueue-basic-%d", (int)getpid());
	CHECK_ERRNO(mq_open("/rung-mqueue-none-such", O_RDONLY), ENOENT, "opening a missing queue");
	CHECK_ERRNO(syscall(SYS_mq_open, "a/b", O_RDWR | O_CREAT, 0600, NULL), EACCES,
		    "a name with a slash inside");
	q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, NULL);
	if (q == (mqd_t)-1 && errno == ENOSYS) {
		printf("SKIP: no POSIX message queues\n");
		return 77;
	}
	CHECK(q != (mqd_t)-1, "mq_open O_CREAT|O_EXCL makes a queue");
	CHECK_ERRNO(mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, NULL), EEXIST,
		    "O_EXCL on an existing queue");
	CHECK(mq_getattr(q, &a) == 0 && a.mq_maxmsg == 10 && a.mq_msgsize == 8192 &&
		      a.mq_curmsgs == 0 && a.mq_flags == 0,
	      "the default attributes are 10 messages of 8192 bytes");

	CHECK_EQ(mq_send(q, "low", 3, 1), 0, "send priority 1");
	CHECK_EQ(mq_send(q, "high", 4, 9), 0, "send priority 9");
	CHECK_EQ(mq_send(q, "low2", 4, 1), 0, "send priority 1 again");
	CHECK(mq_getattr(q, &a) == 0 && a.mq_curmsgs == 3, "three messages queued");

	n = read(q, line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = 0;
	CHECK(n > 0 && strncmp(line, "QSIZE:11", 8) == 0, "read() gives QSIZE as the sum of lengths");
	printf("line: %s", line);

	p = (struct pollfd){.fd = q, .events = POLLIN | POLLOUT};
	CHECK(poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLOUT)) == (POLLIN | POLLOUT),
	      "a queue neither empty nor full polls readable and writable");

	CHECK_ERRNO(mq_receive(q, buf, 100, &prio), EMSGSIZE, "a buffer shorter than mq_msgsize");
	n = mq_receive(q, buf, sizeof(buf), &prio);
	CHECK(n == 4 && memcmp(buf, "high", 4) == 0 && prio == 9, "the highest priority comes first");
	n = mq_receive(q, buf, sizeof(buf), &prio);
	CHECK(n == 3 && memcmp(buf, "low", 3) == 0 && prio == 1, "then the oldest of priority 1");
	n = mq_receive(q, buf, sizeof(buf), &prio);
	CHECK(n == 4 && memcmp(buf, "low2", 4) == 0, "then the next one");

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	CHECK_ERRNO(mq_timedreceive(q, buf, sizeof(buf), NULL, &ts), ETIMEDOUT,
		    "a receive on an empty queue times out");
	ts.tv_nsec = 1000000000;
	CHECK_ERRNO(mq_timedreceive(q, buf, sizeof(buf), NULL, &ts), EINVAL,
		    "a timeout with tv_nsec out of range");

	na = (struct mq_attr){.mq_flags = O_NONBLOCK};
	CHECK(mq_setattr(q, &na, &a) == 0 && a.mq_flags == 0, "mq_setattr sets O_NONBLOCK");
	CHECK(mq_getattr(q, &a) == 0 && a.mq_flags == O_NONBLOCK, "mq_getattr shows O_NONBLOCK");
	CHECK_ERRNO(mq_receive(q, buf, sizeof(buf), NULL), EAGAIN, "a nonblocking receive on empty");
	CHECK_ERRNO(mq_send(q, buf, 8193, 0), EMSGSIZE, "a message longer than mq_msgsize");
	CHECK_ERRNO(mq_send(q, "x", 1, 32768), EINVAL, "a priority of MQ_PRIO_MAX");
	for (int i = 0; i < 10; i++)
		mq_send(q, "f", 1, 0);
	CHECK_ERRNO(mq_send(q, "f", 1, 0), EAGAIN, "a nonblocking send on a full queue");
	p = (struct pollfd){.fd = q, .events = POLLIN | POLLOUT};
	CHECK(poll(&p, 1, 0) == 1 && p.revents == POLLIN, "a full queue polls readable only");

	q2 = mq_open(name, O_WRONLY);
	CHECK(q2 != (mqd_t)-1, "a second open of the queue");
	CHECK_ERRNO(mq_receive(q2, buf, sizeof(buf), NULL), EBADF, "receiving on a write-only queue");
	CHECK_ERRNO(mq_send(STDOUT_FILENO, "x", 1, 0), EBADF, "sending on a descriptor that is no queue");
	mq_close(q2);

	a = (struct mq_attr){.mq_maxmsg = 0, .mq_msgsize = 16};
	CHECK_ERRNO(mq_open("/rung-mqueue-bad-attr", O_RDWR | O_CREAT, 0600, &a), EINVAL,
		    "mq_maxmsg 0");

	CHECK_EQ(mq_unlink(name), 0, "mq_unlink");
	CHECK_ERRNO(mq_unlink(name), ENOENT, "a second mq_unlink");
	CHECK(mq_send(q, "", 0, 0) == -1 && errno == EAGAIN, "the open queue outlives its name");
	mq_close(q);
	return GUEST_DONE();
}
