/*
 * Guest test: blocking on unix sockets across processes and threads. A
 * blocked recv, accept, connect (full backlog) and send (full buffer) each
 * wake when another process acts; a signal interrupts a blocked recv
 * (SA_RESTART restarts it, without it EINTR, and with SO_RCVTIMEO set EINTR
 * even under SA_RESTART); a thread wakes another; credentials name the
 * process that sent (SCM_CREDENTIALS) or connected (SO_PEERCRED); 4 MiB
 * cross a stream intact.
 */
#include "guest.h"

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	got_usr1++;
}

/* A child that waits ms, then runs fn(arg) and exits. */
static pid_t later(long ms, void (*fn)(long), long arg)
{
	pid_t p = fork();

	if (p == 0) {
		pause_ms(ms);
		fn(arg);
		_exit(0);
	}
	return p;
}

static int g_fd;
static pid_t g_parent;

static void send_hello(long fd)
{
	send((int)fd, "hello", 5, 0);
}

static void kill_parent(long sig)
{
	kill(g_parent, (int)sig);
}

static void kill_then_send(long fd)
{
	kill(g_parent, SIGUSR1);
	pause_ms(50);
	send((int)fd, "after", 5, 0);
}

static int reap(pid_t p)
{
	int st = -1;

	waitpid(p, &st, 0);
	return st;
}

static void *thread_send(void *arg)
{
	pause_ms(50);
	send(g_fd, "thread", 6, 0);
	return arg;
}

int main(void)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	char buf[128];
	int sv[2];
	pid_t p;

	signal(SIGPIPE, SIG_IGN);
	g_parent = getpid();

	/* A blocked recv wakes when another process sends. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	p = later(50, send_hello, sv[1]);
	CHECK_EQ(recv(sv[0], buf, sizeof(buf), 0), 5, "a blocked recv gets what a child sends");
	CHECK_EQ(reap(p), 0, "the child exits");

	/* Signals: SA_RESTART restarts the recv, no SA_RESTART gives EINTR. */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	p = later(50, kill_then_send, sv[1]);
	CHECK_EQ(recv(sv[0], buf, sizeof(buf), 0), 5, "SA_RESTART: the recv goes on after the handler");
	CHECK(got_usr1 == 1 && memcmp(buf, "after", 5) == 0, "the handler ran and the data came");
	reap(p);
	sa.sa_flags = 0;
	sigaction(SIGUSR1, &sa, NULL);
	p = later(50, kill_parent, SIGUSR1);
	CHECK_ERRNO(recv(sv[0], buf, sizeof(buf), 0), EINTR, "no SA_RESTART: EINTR");
	reap(p);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	{
		struct timeval tv = {5, 0};
		setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	p = later(50, kill_parent, SIGUSR1);
	CHECK_ERRNO(recv(sv[0], buf, sizeof(buf), 0), EINTR,
		    "with SO_RCVTIMEO set, EINTR even under SA_RESTART");
	reap(p);
	CHECK_EQ(got_usr1, 3, "three signals handled");

	/* A thread wakes another. */
	{
		pthread_t th;
		g_fd = sv[1];
		pthread_create(&th, NULL, thread_send, NULL);
		CHECK_EQ(recv(sv[0], buf, sizeof(buf), 0), 6, "a thread's send wakes the main thread");
		pthread_join(th, NULL);
	}

	/* A blocked send wakes when the reader drains the buffer. */
	{
		static char big[1 << 16];
		long total = 0, n;
		struct timeval tv = {0, 0};
		setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while ((n = send(sv[1], big, sizeof(big), MSG_DONTWAIT)) > 0)
			total += n;
		p = fork();
		if (p == 0) {
			long got = 0;
			pause_ms(50);
			while (got < total + 5 && (n = recv(sv[0], big, sizeof(big), 0)) > 0)
				got += n;
			_exit(got == total + 5 ? 0 : 1);
		}
		CHECK_EQ(send(sv[1], "tail!", 5, 0), 5, "a send blocked on a full buffer completes");
		CHECK_EQ(reap(p), 0, "the reader got every byte");
	}
	close(sv[0]);
	close(sv[1]);

	/* 4 MiB through a stream between processes. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	p = fork();
	if (p == 0) {
		static unsigned char chunk[50000];
		long left = 4 << 20;
		unsigned char c = 0;
		close(sv[0]);
		while (left > 0) {
			long n = left < (long)sizeof(chunk) ? left : (long)sizeof(chunk), w;
			for (long i = 0; i < n; i++)
				chunk[i] = c++;
			w = write(sv[1], chunk, n);
			if (w != n)
				_exit(1);
			left -= n;
		}
		_exit(0);
	}
	close(sv[1]);
	{
		static unsigned char in[70000];
		long got = 0, n, bad = 0;
		unsigned char c = 0;
		while ((n = read(sv[0], in, sizeof(in))) > 0) {
			for (long i = 0; i < n; i++)
				if (in[i] != c++)
					bad++;
			got += n;
		}
		CHECK(got == 4 << 20 && bad == 0, "4 MiB arrive in order, then EOF");
	}
	CHECK_EQ(reap(p), 0, "the writer wrote it all");
	close(sv[0]);

	/* Accept and connect across processes; credentials. */
	{
		char dir[] = "/tmp/unix_blockXXXXXX";
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		socklen_t alen;
		int lfd, s, c;
		struct ucred cr;
		socklen_t crl = sizeof(cr);

		mkdtemp(dir);
		snprintf(a.sun_path, sizeof(a.sun_path), "%s/s", dir);
		alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(a.sun_path) + 1);
		lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		bind(lfd, (struct sockaddr *)&a, alen);
		listen(lfd, 0);
		p = fork();
		if (p == 0) {
			int fd = socket(AF_UNIX, SOCK_STREAM, 0), fd2, on = 1;
			pause_ms(50);
			if (connect(fd, (struct sockaddr *)&a, alen) < 0)
				_exit(1);
			/* The backlog (0) is full now: this connect blocks until the parent accepts. */
			fd2 = socket(AF_UNIX, SOCK_STREAM, 0);
			if (connect(fd2, (struct sockaddr *)&a, alen) < 0)
				_exit(2);
			setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
			send(fd, "c", 1, 0);
			recv(fd, buf, 1, 0);
			_exit(0);
		}
		s = accept(lfd, NULL, NULL);
		CHECK(s >= 0, "a blocked accept takes the child's connection");
		getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &crl);
		CHECK(cr.pid == p, "SO_PEERCRED names the connecting child");
		pause_ms(50);
		c = accept(lfd, NULL, NULL);
		CHECK(c >= 0, "the child's second, blocked, connect is accepted");
		{
			int on = 1;
			char cbuf[CMSG_SPACE(sizeof(struct ucred))];
			struct iovec iov = {buf, 1};
			struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
			struct cmsghdr *cm;
			struct ucred uc = {0};
			setsockopt(s, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
			mh.msg_control = cbuf;
			mh.msg_controllen = sizeof(cbuf);
			CHECK_EQ(recvmsg(s, &mh, 0), 1, "recvmsg from the child");
			cm = CMSG_FIRSTHDR(&mh);
			if (cm && cm->cmsg_type == SCM_CREDENTIALS)
				memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
			CHECK(uc.pid == p, "SCM_CREDENTIALS names the child");
		}
		send(s, "x", 1, 0);
		CHECK_EQ(reap(p), 0, "the child connected twice");
		close(s);
		close(c);
		close(lfd);
		unlink(a.sun_path);
		rmdir(dir);
	}
	return GUEST_DONE();
}
