/*
 * Guest test: threads. pthread create/join, mutexes and condition
 * variables (futexes), thread ids, a signal to one thread (pthread_kill),
 * process-directed signals taken by a thread that does not block them,
 * robust mutexes whose owner dies (EOWNERDEAD), the main thread exiting
 * first (pthread_exit) while others finish, fork from a threaded process,
 * and exec from a non-main thread.
 */
#include "guest.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int counter, ready;
static volatile pid_t handler_tid;

static void *adder(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

static void *waiter(void *arg)
{
	pthread_mutex_lock(&m);
	while (!ready)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	return (void *)(uintptr_t)gettid();
}

static void on_usr1(int sig)
{
	handler_tid = gettid();
}

static void *sleeper(void *arg)
{
	sigset_t none;

	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	*(volatile pid_t *)arg = gettid();
	for (;;)
		pause();
	return NULL;
}

static pthread_mutex_t robust;

static void *die_holding(void *arg)
{
	pthread_mutex_lock(&robust);
	return NULL; /* exits holding the lock */
}

static void basics(void)
{
	pthread_t th[4];
	void *ret;

	for (long i = 0; i < 4; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, adder, (void *)i), 0, "pthread_create");
	for (long i = 0; i < 4; i++) {
		pthread_join(th[i], &ret);
		CHECK(ret == (void *)i, "pthread_join returns the thread's value");
	}
	CHECK_EQ(counter, 80000, "a mutex keeps four threads' increments apart");

	CHECK_EQ(pthread_create(&th[0], NULL, waiter, NULL), 0, "a thread waiting on a condition");
	usleep(50000);
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	pthread_join(th[0], &ret);
	CHECK((pid_t)(uintptr_t)ret != gettid() && (pid_t)(uintptr_t)ret > 0,
	      "the condition wakes it; its tid is its own");
	CHECK_EQ(getpid(), gettid(), "the main thread's tid is the pid");
}

static void signals(void)
{
	volatile pid_t tid = 0;
	sigset_t block;
	pthread_t th;

	signal(SIGUSR1, on_usr1);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	pthread_create(&th, NULL, sleeper, (void *)&tid);
	while (!tid)
		usleep(1000);
	handler_tid = 0;
	kill(getpid(), SIGUSR1);
	while (!handler_tid)
		usleep(1000);
	CHECK(handler_tid == tid, "a process signal goes to the thread that does not block it");
	handler_tid = 0;
	pthread_kill(th, SIGUSR1);
	while (!handler_tid)
		usleep(1000);
	CHECK(handler_tid == tid, "pthread_kill reaches that thread");
	pthread_cancel(th);
	pthread_join(th, NULL);
	pthread_sigmask(SIG_UNBLOCK, &block, NULL);
	signal(SIGUSR1, SIG_DFL);
}

static void robust_mutex(void)
{
	pthread_mutexattr_t a;
	pthread_t th;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&robust, &a);
	pthread_create(&th, NULL, die_holding, NULL);
	pthread_join(th, NULL);
	CHECK_EQ(pthread_mutex_lock(&robust), EOWNERDEAD, "a robust mutex whose owner died: EOWNERDEAD");
	CHECK_EQ(pthread_mutex_consistent(&robust), 0, "made consistent");
	pthread_mutex_unlock(&robust);
	CHECK_EQ(pthread_mutex_lock(&robust), 0, "then it locks normally");
	pthread_mutex_unlock(&robust);
}

static void *forker(void *arg)
{
	int st;
	pid_t p = fork();

	if (p == 0)
		_exit(9); /* the child has one thread: this one */
	waitpid(p, &st, 0);
	return (void *)(uintptr_t)(WIFEXITED(st) ? WEXITSTATUS(st) : 0);
}

static void *execer(void *arg)
{
	char *argv[] = {(char *)arg, "exec-child", NULL};

	execv(argv[0], argv);
	return NULL;
}

static void *late(void *arg)
{
	usleep(100000);
	printf("ok: a thread finishes after the main thread exited\n");
	fflush(stdout);
	exit(GUEST_DONE());
}

int main(int argc, char **argv)
{
	pthread_t th;
	void *ret;

	if (argc > 1 && strcmp(argv[1], "exec-child") == 0) {
		printf("ok: exec from a thread runs the new program as pid %s\n",
		       getpid() == gettid() ? "= tid" : "!= tid");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "exec-from-thread") == 0) {
		pthread_create(&th, NULL, adder, NULL);
		pthread_create(&th, NULL, execer, argv[0]);
		for (;;)
			pause();
	}
	basics();
	signals();
	robust_mutex();
	pthread_create(&th, NULL, forker, NULL);
	pthread_join(th, &ret);
	CHECK(ret == (void *)9, "fork in a thread: the child runs and exits");
	{
		int st;
		pid_t p = fork();
		if (p == 0) {
			char *a[] = {argv[0], "exec-from-thread", NULL};
			execv(a[0], a);
			_exit(127);
		}
		waitpid(p, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exec from a non-main thread succeeds");
	}
	pthread_create(&th, NULL, late, NULL);
	pthread_exit(NULL);
}
