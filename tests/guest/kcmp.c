/*
 * kcmp: a task against itself, its threads and a forked child, for each
 * kind of object; file descriptions (dup, fork, a new open); the epoll
 * target slot; the ordering (a < b exactly when b > a); the errors and
 * the ptrace permission (another user's process: EPERM). (Whether two
 * processes have undo lists or I/O contexts depends on their history in
 * Linux, so SYSVSEM and IO are only compared within one process.)
 */
#include "guest.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/wait.h>

enum { KFILE, KVM, KFILES, KFS, KSIGHAND, KIO, KSYSVSEM, KEPOLL_TFD };

struct slot {
	uint32_t efd, tfd, toff;
};

static long kcmp(pid_t a, pid_t b, int type, unsigned long i1, unsigned long i2)
{
	return syscall(SYS_kcmp, a, b, type, i1, i2);
}

static pid_t thread_tid;
static int go[2];

static void *thread_main(void *arg)
{
	char c;

	thread_tid = gettid();
	write(go[1], "t", 1);
	read(*(int *)arg, &c, 1);
	return NULL;
}

int main(void)
{
	static const char *names[] = {"VM", "FILES", "FS", "SIGHAND", "IO", "SYSVSEM"};
	int sync[2], tsync[2], fd, fd2, dupfd, ep, st;
	struct epoll_event ev = {.events = EPOLLIN};
	struct slot s;
	pthread_t th;
	pid_t me = getpid(), child;
	char c, what[80];

	if (kcmp(me, me, KVM, 0, 0) < 0 && errno == ENOSYS) {
		printf("SKIP: no kcmp\n");
		return 77;
	}
	for (int k = KVM; k <= KSYSVSEM; k++) {
		snprintf(what, sizeof(what), "%s: itself", names[k - 1]);
		CHECK_EQ(kcmp(me, me, k, 0, 0), 0, what);
	}
	if (pipe(tsync) || pipe(go) || pipe(sync))
		return 2;
	pthread_create(&th, NULL, thread_main, &tsync[0]);
	read(go[0], &c, 1);
	for (int k = KVM; k <= KSYSVSEM; k++) {
		if (k == KIO)
			continue;
		snprintf(what, sizeof(what), "%s: a thread shares it", names[k - 1]);
		CHECK_EQ(kcmp(me, thread_tid, k, 0, 0), 0, what);
	}

	fd = open("/proc/self/status", O_RDONLY);
	fd2 = open("/proc/self/status", O_RDONLY);
	dupfd = dup(fd);
	CHECK_EQ(kcmp(me, me, KFILE, fd, dupfd), 0, "FILE: a dup is the same file");
	CHECK(kcmp(me, me, KFILE, fd, fd2) > 0, "FILE: another open is not");
	CHECK(kcmp(me, me, KFILE, fd, fd2) + kcmp(me, me, KFILE, fd2, fd) == 3,
	      "FILE: less one way, greater the other");
	CHECK_EQ(kcmp(me, thread_tid, KFILE, fd, fd), 0, "FILE: the thread's fd");
	CHECK_ERRNO(kcmp(me, me, KFILE, fd, 999), EBADF, "FILE: a closed fd");
	CHECK_ERRNO(kcmp(me, me, 99, 0, 0), EINVAL, "an unknown type");
	CHECK_ERRNO(kcmp(me, -1, KVM, 0, 0), ESRCH, "no such task");

	ep = epoll_create1(0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, sync[0], &ev), 0, "watch a pipe with epoll");
	s = (struct slot){.efd = ep, .tfd = sync[0], .toff = 0};
	CHECK_EQ(kcmp(me, me, KEPOLL_TFD, sync[0], (unsigned long)&s), 0,
		 "EPOLL_TFD: the watched file");
	CHECK(kcmp(me, me, KEPOLL_TFD, fd2, (unsigned long)&s) > 0, "EPOLL_TFD: another file");
	s.toff = 1;
	CHECK_ERRNO(kcmp(me, me, KEPOLL_TFD, sync[0], (unsigned long)&s), ENOENT,
		    "EPOLL_TFD: no second entry");
	s = (struct slot){.efd = fd2, .tfd = fd, .toff = 0};
	CHECK_ERRNO(kcmp(me, me, KEPOLL_TFD, fd, (unsigned long)&s), EINVAL,
		    "EPOLL_TFD: not an epoll fd");

	fflush(stdout);
	child = fork();
	if (child == 0) {
		read(sync[0], &c, 1);
		if (getuid() == 0 && setresuid(65534, 65534, 65534) == 0)
			_exit(kcmp(getppid(), getpid(), KVM, 0, 0) == -1 && errno == EPERM ? 0 : 1);
		_exit(0);
	}
	for (int k = KVM; k <= KSIGHAND; k++) {
		long r = kcmp(me, child, k, 0, 0);
		snprintf(what, sizeof(what), "%s: a forked child has its own", names[k - 1]);
		CHECK(r == 1 || r == 2, what);
		snprintf(what, sizeof(what), "%s: the order is the same both ways", names[k - 1]);
		CHECK(r + kcmp(child, me, k, 0, 0) == 3, what);
	}
	CHECK_EQ(kcmp(me, child, KFILE, fd, fd), 0, "FILE: the child's inherited fd");
	write(sync[1], "x", 1);
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "another user's kcmp of this process fails with EPERM");
	write(tsync[1], "x", 1);
	pthread_join(th, NULL);
	return GUEST_DONE();
}
