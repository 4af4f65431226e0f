/*
 * Guest test: credentials are per thread, and glibc's set*id wrappers
 * change every thread's (they signal each thread with SIGSETXID, whose
 * handler makes the same system call, and check that all agree). Threads
 * blocked in a system call take part too.
 */
#include "guest.h"

#include <grp.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sys/prctl.h>

#define NTHREADS 3
#define NOBODY	 65534

static int go[2];		 /* the main thread's "report now" */
static int blocked[2];		 /* one thread sits in read() on this */
static pthread_barrier_t ready;

struct report {
	uid_t r, e, s;
	gid_t g;
	int ngroups;
	uint32_t eff;
};

static void report(struct report *rep)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	syscall(SYS_getresuid, &rep->r, &rep->e, &rep->s);
	rep->g = (gid_t)syscall(SYS_getegid);
	rep->ngroups = (int)syscall(SYS_getgroups, 0, NULL);
	syscall(SYS_capget, &h, d);
	rep->eff = d[0].effective;
}

static void *worker(void *arg)
{
	struct report *rep = arg;
	char c;

	pthread_barrier_wait(&ready);
	read(go[0], &c, 1);
	report(rep);
	return NULL;
}

static void *reader(void *arg)
{
	struct report *rep = arg;
	char c;

	pthread_barrier_wait(&ready);
	/* Interrupted by SIGSETXID (SA_RESTART) while blocked, and restarted. */
	read(blocked[0], &c, 1);
	report(rep);
	return NULL;
}

/* A raw system call changes the calling thread only. */
static void raw_calls(void)
{
	pthread_t t2, t3;
	struct report r2, r3;

	pipe(go);
	CHECK_EQ(syscall(SYS_setresgid, 0, 200, 0), 0, "raw setresgid in the main thread");
	pthread_barrier_init(&ready, NULL, 2);
	pthread_create(&t2, NULL, worker, &r2);
	pthread_barrier_wait(&ready);
	write(go[1], "x", 1);
	pthread_join(t2, NULL);
	CHECK_EQ(r2.g, 200, "a new thread inherits the creator's egid");

	CHECK_EQ(syscall(SYS_setresgid, 0, 0, 0), 0, "raw setresgid back");
	pthread_barrier_init(&ready, NULL, 2);
	pthread_create(&t3, NULL, worker, &r3);
	pthread_barrier_wait(&ready);
	CHECK_EQ(syscall(SYS_setresgid, 0, 300, 0), 0, "raw setresgid, another thread running");
	write(go[1], "x", 1);
	pthread_join(t3, NULL);
	CHECK_EQ(r3.g, 0, "the other thread kept its own egid");
	CHECK_EQ(getegid(), 300, "while this one changed");
	CHECK_EQ(syscall(SYS_setresgid, 0, 0, 0), 0, "raw setresgid back");
	close(go[0]);
	close(go[1]);
}

int main(void)
{
	pthread_t th[NTHREADS + 1];
	struct report rep[NTHREADS + 1], me;
	gid_t g = 777;

	raw_calls();
	pipe(go);
	pipe(blocked);
	pthread_barrier_init(&ready, NULL, NTHREADS + 2);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, &rep[i]);
	pthread_create(&th[NTHREADS], NULL, reader, &rep[NTHREADS]);
	pthread_barrier_wait(&ready);
	usleep(20000); /* let the reader block */

	CHECK_EQ(setgroups(1, &g), 0, "setgroups from the main thread");
	CHECK_EQ(setresgid(100, 100, 100), 0, "setresgid from the main thread");
	CHECK_EQ(setresuid(NOBODY, NOBODY, NOBODY), 0, "setresuid from the main thread");
	write(go[1], "xxx", NTHREADS);
	write(blocked[1], "x", 1);
	for (int i = 0; i <= NTHREADS; i++)
		pthread_join(th[i], NULL);
	report(&me);
	for (int i = 0; i <= NTHREADS; i++) {
		char what[64];
		snprintf(what, sizeof(what), "thread %d has the new ids, groups and caps", i);
		CHECK(rep[i].r == NOBODY && rep[i].e == NOBODY && rep[i].s == NOBODY &&
			      rep[i].g == 100 && rep[i].ngroups == 1 && rep[i].eff == 0,
		      what);
	}
	CHECK(me.r == NOBODY && me.g == 100 && me.eff == 0, "so has the main thread");

	return GUEST_DONE();
}
