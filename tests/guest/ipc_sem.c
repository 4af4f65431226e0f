/* System V semaphores: values, atomic operation sets, waits woken by
 * another process (and counted by GETNCNT), timeouts, SEM_UNDO at exit,
 * the limits' errors, and removal waking a waiter with EIDRM. */
#include "ipcguest.h"

#include <signal.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <time.h>

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static int op(int id, unsigned short num, short delta, short flg)
{
	struct sembuf b = {num, delta, flg};

	return semop(id, &b, 1);
}

/* Wait (at most 5 s) until cmd (GETNCNT, GETZCNT) of semaphore num is want. */
static int wait_count(int id, int num, int cmd, int want)
{
	for (int i = 0; i < 500; i++) {
		if (semctl(id, num, cmd) == want)
			return 0;
		usleep(10000);
	}
	return -1;
}

int main(void)
{
	unsigned short vals[3] = {1, 2, 3}, got[3];
	struct semid_ds ds;
	struct timespec ts = {0, 50 * 1000 * 1000};
	struct sembuf two[2];
	int id;
	pid_t pid;

	ipc_own_namespace();
	id = semget(IPC_PRIVATE, 3, 0600);
	CHECK_EQ(id, 0, "the first set of a new namespace has id 0");
	CHECK(semctl(id, 0, IPC_STAT, (union semun){.buf = &ds}) == 0 && ds.sem_nsems == 3 &&
		      (ds.sem_perm.mode & 0777) == 0600 && ds.sem_otime == 0,
	      "IPC_STAT: three semaphores, the mode, never operated on");
	CHECK_EQ(semctl(id, 1, GETVAL), 0, "a new semaphore is 0");
	CHECK(semctl(id, 0, SETALL, (union semun){.array = vals}) == 0 &&
		      semctl(id, 0, GETALL, (union semun){.array = got}) == 0 && got[0] == 1 &&
		      got[1] == 2 && got[2] == 3,
	      "SETALL then GETALL");
	CHECK_EQ(semctl(id, 2, SETVAL, (union semun){.val = 7}), 0, "SETVAL");
	CHECK_EQ(semctl(id, 2, GETVAL), 7, "GETVAL after SETVAL");
	CHECK_ERRNO(semctl(id, 2, SETVAL, (union semun){.val = 32768}), ERANGE,
		    "SETVAL above SEMVMX");
	CHECK_ERRNO(semctl(id, 3, GETVAL), EINVAL, "GETVAL of a semaphore past the set");

	CHECK(op(id, 0, -1, 0) == 0 && semctl(id, 0, GETVAL) == 0, "a decrement that can go");
	CHECK_EQ(semctl(id, 0, GETPID), getpid(), "GETPID: the last process that changed it");
	CHECK_ERRNO(op(id, 0, -1, IPC_NOWAIT), EAGAIN, "a decrement below 0 with IPC_NOWAIT");
	CHECK_ERRNO(semtimedop(id, &(struct sembuf){0, -1, 0}, 1, &ts), EAGAIN,
		    "semtimedop's timeout");
	CHECK_ERRNO(op(id, 1, 0, IPC_NOWAIT), EAGAIN, "a wait for zero on a non-zero one");
	CHECK(op(id, 0, 0, 0) == 0, "a wait for zero on zero goes");
	CHECK_ERRNO(op(id, 1, 32767, 0), ERANGE, "an increment past SEMVMX");
	CHECK_ERRNO(op(id, 3, 1, 0), EFBIG, "a semaphore number past the set");
	CHECK_ERRNO(semop(id, two, 0), EINVAL, "no operations");
	{
		static struct sembuf many[501];
		CHECK_ERRNO(semop(id, many, 501), E2BIG, "more than SEMOPM operations");
	}

	/* All or nothing: the second cannot go, so the first is not done. */
	two[0] = (struct sembuf){1, -1, 0};
	two[1] = (struct sembuf){0, -1, IPC_NOWAIT};
	CHECK_ERRNO(semop(id, two, 2), EAGAIN, "a set whose second operation would wait");
	CHECK_EQ(semctl(id, 1, GETVAL), 2, "... leaves the first undone");
	two[1] = (struct sembuf){1, -1, 0};
	CHECK(semop(id, two, 2) == 0 && semctl(id, 1, GETVAL) == 0,
	      "two operations on one semaphore add up");

	/* A waiter woken by another process's increment. */
	pid = fork();
	if (pid == 0)
		_exit(op(id, 0, -2, 0) == 0 ? 0 : 1);
	CHECK_EQ(wait_count(id, 0, GETNCNT, 1), 0, "GETNCNT counts the waiting child");
	CHECK_EQ(op(id, 0, 1, 0), 0, "one up: not enough for it");
	usleep(20000);
	CHECK_EQ(semctl(id, 0, GETNCNT), 1, "it still waits");
	CHECK_EQ(op(id, 0, 1, 0), 0, "one more up");
	CHECK_EQ(ipc_wait(pid), 0, "the child took both and went on");
	CHECK_EQ(semctl(id, 0, GETNCNT), 0, "no one waits now");

	/* Waiting for zero. */
	CHECK_EQ(semctl(id, 1, SETVAL, (union semun){.val = 1}), 0, "SETVAL 1");
	pid = fork();
	if (pid == 0)
		_exit(op(id, 1, 0, 0) == 0 ? 0 : 1);
	CHECK_EQ(wait_count(id, 1, GETZCNT, 1), 0, "GETZCNT counts a wait for zero");
	CHECK_EQ(op(id, 1, -1, 0), 0, "down to zero");
	CHECK_EQ(ipc_wait(pid), 0, "the zero waiter went on");

	/* SEM_UNDO: what an exiting process did is undone. */
	pid = fork();
	if (pid == 0) {
		if (op(id, 2, 5, SEM_UNDO) || op(id, 2, -2, SEM_UNDO))
			_exit(1);
		_exit(semctl(id, 2, GETVAL) == 10 ? 0 : 2);
	}
	CHECK_EQ(ipc_wait(pid), 0, "the child's undoable +5 and -2");
	CHECK_EQ(semctl(id, 2, GETVAL), 7, "are undone when it exits");
	pid = fork();
	if (pid == 0) {
		if (op(id, 2, -7, SEM_UNDO))
			_exit(1);
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	CHECK_EQ(ipc_wait(pid), 128 + SIGKILL, "a child takes 7 undoably and is killed");
	CHECK_EQ(semctl(id, 2, GETVAL), 7, "its -7 is undone too");
	pid = fork();
	if (pid == 0) {
		if (op(id, 2, 3, SEM_UNDO))
			_exit(1);
		_exit(semctl(id, 2, SETVAL, (union semun){.val = 1}) ? 2 : 0);
	}
	CHECK_EQ(ipc_wait(pid), 0, "a child's undoable +3, then SETVAL 1");
	CHECK_EQ(semctl(id, 2, GETVAL), 1, "SETVAL clears what would be undone");

	/* Keys and permissions. */
	CHECK_EQ(semget(0x52756e67, 2, IPC_CREAT | 0640), 1, "a keyed set");
	CHECK_EQ(semget(0x52756e67, 1, 0), 1, "found by key, asking fewer");
	CHECK_ERRNO(semget(0x52756e67, 3, 0), EINVAL, "asking more than it has");
	CHECK_ERRNO(semget(0x52756e67, 2, IPC_CREAT | IPC_EXCL), EEXIST, "IPC_EXCL");
	CHECK_ERRNO(semget(0x52756e68, 2, 0), ENOENT, "a key not in use");
	CHECK_ERRNO(semget(IPC_PRIVATE, 0, 0600), EINVAL, "a new set of none");
	CHECK_ERRNO(semget(IPC_PRIVATE, 32001, 0600), EINVAL, "more than SEMMSL");
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		if (op(1, 0, 1, 0) != -1 || errno != EACCES)
			_exit(1);
		_exit(semctl(1, 0, IPC_RMID) == -1 && errno == EPERM ? 0 : 2);
	}
	CHECK_EQ(ipc_wait(pid), 0, "another user: EACCES to change it, EPERM to remove it");
	{
		struct seminfo si;
		CHECK_EQ(semctl(0, 0, SEM_INFO, (union semun){.buf = (void *)&si}), 1,
			 "SEM_INFO returns the highest index");
		CHECK(si.semusz == 2 && si.semaem == 5, "SEM_INFO: two sets, five semaphores");
		CHECK_EQ(semctl(1, 0, SEM_STAT, (union semun){.buf = &ds}), 1,
			 "SEM_STAT of index 1 gives its id");
	}

	/* Removal wakes a waiter with EIDRM. */
	pid = fork();
	if (pid == 0)
		_exit(op(id, 0, -1, 0) == -1 && errno == EIDRM ? 0 : 1);
	CHECK_EQ(wait_count(id, 0, GETNCNT, 1), 0, "a child waits");
	CHECK_EQ(semctl(id, 0, IPC_RMID), 0, "IPC_RMID");
	CHECK_EQ(ipc_wait(pid), 0, "the waiter gets EIDRM");
	CHECK_ERRNO(semctl(id, 0, GETVAL), EINVAL, "the set is gone");
	CHECK_EQ(semctl(1, 0, IPC_RMID), 0, "remove the keyed set");
	return GUEST_DONE();
}
