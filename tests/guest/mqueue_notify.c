/* POSIX message queues between processes: mq_notify's SIGEV_SIGNAL (the
 * siginfo it sends, once, only when a message comes to an empty queue),
 * SIGEV_NONE, EBUSY and unregistering, a receiver blocked until another
 * process sends, epoll readiness, and a mode that denies a second user.
 * The queue's name carries the pid and is unlinked before the end. */
#include "guest.h"

#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

/* The read() line's NOTIFY and SIGNO fields ("QSIZE:... NOTIFY:n SIGNO:n ..."). */
static void notify_fields(mqd_t q, int *notify, int *signo)
{
	char line[128];
	ssize_t n = pread(q, line, sizeof(line) - 1, 0);

	*notify = *signo = -1;
	if (n > 0) {
		line[n] = 0;
		sscanf(line, "QSIZE:%*u NOTIFY:%d SIGNO:%d", notify, signo);
	}
}

int main(void)
{
	struct timespec zero = {0}, shortwait = {0, 50 * 1000 * 1000};
	struct epoll_event ev = {.events = EPOLLIN}, out;
	struct sigevent se = {0};
	char name[64], buf[8192];
	int notify, signo, ep, status;
	siginfo_t si;
	sigset_t set;
	mqd_t q;
	pid_t pid;

	snprintf(name, sizeof(name), "/rung-mqueue-notify-%d", (int)getpid());
	q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, NULL);
	if (q == (mqd_t)-1 && errno == ENOSYS) {
		printf("SKIP: no POSIX message queues\n");
		return 77;
	}
	CHECK(q != (mqd_t)-1, "mq_open");

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	se.sigev_notify = SIGEV_SIGNAL;
	se.sigev_signo = SIGUSR1;
	se.sigev_value.sival_int = 4242;
	CHECK_EQ(mq_notify(q, &se), 0, "mq_notify SIGEV_SIGNAL");
	CHECK_ERRNO(mq_notify(q, &se), EBUSY, "a second registration");
	notify_fields(q, &notify, &signo);
	CHECK(notify == SIGEV_SIGNAL && signo == SIGUSR1, "read() shows the registration");

	CHECK_EQ(mq_send(q, "a", 1, 0), 0, "send to the empty queue");
	CHECK(sigtimedwait(&set, &si, &shortwait) == SIGUSR1 && si.si_code == SI_MESGQ &&
		      si.si_value.sival_int == 4242 && si.si_pid == getpid() &&
		      si.si_uid == getuid(),
	      "the notification's siginfo");
	notify_fields(q, &notify, &signo);
	CHECK(notify == 0 && signo == 0, "a notification unregisters");

	CHECK_EQ(mq_notify(q, &se), 0, "register again with a message queued");
	CHECK_EQ(mq_send(q, "b", 1, 0), 0, "send to a non-empty queue");
	CHECK_ERRNO(sigtimedwait(&set, &si, &zero), EAGAIN, "no notification for a non-empty queue");
	CHECK_EQ(mq_notify(q, NULL), 0, "mq_notify NULL unregisters");
	notify_fields(q, &notify, &signo);
	CHECK(notify == 0, "unregistered");
	while (mq_timedreceive(q, buf, sizeof(buf), NULL, &zero) >= 0)
		;

	se.sigev_notify = SIGEV_NONE;
	CHECK_EQ(mq_notify(q, &se), 0, "mq_notify SIGEV_NONE");
	notify_fields(q, &notify, &signo);
	CHECK(notify == SIGEV_NONE && signo == 0, "read() shows SIGEV_NONE");
	CHECK_EQ(mq_send(q, "c", 1, 0), 0, "send with SIGEV_NONE");
	notify_fields(q, &notify, &signo);
	CHECK(notify == 0, "SIGEV_NONE is used up silently");
	CHECK_ERRNO(sigtimedwait(&set, &si, &zero), EAGAIN, "and sends nothing");
	se.sigev_notify = 99;
	CHECK_ERRNO(mq_notify(q, &se), EINVAL, "an unknown sigev_notify");
	se.sigev_notify = SIGEV_SIGNAL;
	se.sigev_signo = 65;
	CHECK_ERRNO(mq_notify(q, &se), EINVAL, "signal 65");
	se.sigev_signo = 0;
	CHECK_EQ(mq_notify(q, &se), 0, "signal 0 is accepted");
	notify_fields(q, &notify, &signo);
	CHECK(notify == SIGEV_SIGNAL && signo == 0, "registered with signal 0");
	CHECK_EQ(mq_send(q, "d", 1, 0), 0, "send with signal 0 registered");
	notify_fields(q, &notify, &signo);
	CHECK(notify == 0, "signal 0: unregistered, nothing sent");

	ep = epoll_create1(0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, q, &ev), 0, "epoll watches the queue");
	CHECK(epoll_wait(ep, &out, 1, 0) == 1 && (out.events & EPOLLIN), "epoll: readable");
	while (mq_timedreceive(q, buf, sizeof(buf), NULL, &zero) >= 0)
		;
	CHECK_EQ(epoll_wait(ep, &out, 1, 0), 0, "epoll: empty is not readable");

	pid = fork();
	if (pid == 0) {
		mqd_t c = mq_open(name, O_WRONLY);
		usleep(50 * 1000);
		_exit(c != (mqd_t)-1 && mq_send(c, "from child", 10, 3) == 0 ? 0 : 1);
	}
	CHECK(epoll_wait(ep, &out, 1, 5000) == 1, "epoll wakes when another process sends");
	CHECK(mq_receive(q, buf, sizeof(buf), NULL) == 10 && !memcmp(buf, "from child", 10),
	      "its message");
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "the sender");

	pid = fork();
	if (pid == 0) {
		mqd_t c = mq_open(name, O_WRONLY);
		usleep(50 * 1000);
		_exit(c != (mqd_t)-1 && mq_send(c, "later", 5, 0) == 0 ? 0 : 1);
	}
	CHECK(mq_receive(q, buf, sizeof(buf), NULL) == 5 && !memcmp(buf, "later", 5),
	      "a blocked receive is woken by another process's send");
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "the second sender");

	pid = fork();
	if (pid == 0) {
		/* Another user: the 0600 queue is not theirs. */
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(mq_open(name, O_RDONLY) == (mqd_t)-1 && errno == EACCES ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "another user may not open a 0600 queue (EACCES)");

	pid = fork();
	if (pid == 0) {
		/* RLIMIT_MSGQUEUE bounds what a user's queues may hold: a default
		 * queue is charged 10 * 8192 bytes and 960 of bookkeeping. */
		struct rlimit rl = {2 * 82880 + 100, 2 * 82880 + 100};
		char n1[80], n2[80], n3[80];
		mqd_t a, b;
		int ok;

		snprintf(n1, sizeof(n1), "%s-1", name);
		snprintf(n2, sizeof(n2), "%s-2", name);
		snprintf(n3, sizeof(n3), "%s-3", name);
		if (setrlimit(RLIMIT_MSGQUEUE, &rl) || setgid(54321) || setuid(54321))
			_exit(2);
		a = mq_open(n1, O_RDWR | O_CREAT, 0600, NULL);
		b = mq_open(n2, O_RDWR | O_CREAT, 0600, NULL);
		ok = a != (mqd_t)-1 && b != (mqd_t)-1 &&
		     mq_open(n3, O_RDWR | O_CREAT, 0600, NULL) == (mqd_t)-1 && errno == EMFILE;
		mq_unlink(n1);
		mq_unlink(n2);
		_exit(ok ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a third queue passes RLIMIT_MSGQUEUE (EMFILE)");

	close(ep);
	CHECK_EQ(mq_unlink(name), 0, "mq_unlink");
	mq_close(q);
	return GUEST_DONE();
}
