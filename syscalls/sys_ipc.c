/* System V IPC: shared memory, semaphores, message queues (sentry/ipc/). */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/ipc/msg.h"
#include "sentry/ipc/sem.h"
#include "sentry/ipc/shm.h"

SYSCALL(shmget)
{
	return shm_get(t, (int32_t)a->a[0], a->a[1], (int)a->a[2]);
}

SYSCALL(shmat)
{
	return shm_attach(t, (int)a->a[0], a->a[1], (int)a->a[2]);
}

SYSCALL(shmdt)
{
	return shm_detach(t, a->a[0]);
}

SYSCALL(shmctl)
{
	return shm_ctl(t, (int)a->a[0], (int)a->a[1], a->a[2]);
}

SYSCALL(semget)
{
	return sem_get(t, (int32_t)a->a[0], (int)a->a[1], (int)a->a[2]);
}

SYSCALL(semop)
{
	return sem_timedop(t, (int)a->a[0], a->a[1], a->a[2], 0);
}

SYSCALL(semtimedop)
{
	return sem_timedop(t, (int)a->a[0], a->a[1], a->a[2], a->a[3]);
}

SYSCALL(semctl)
{
	return sem_ctl(t, (int)a->a[0], (int)a->a[1], (int)a->a[2], a->a[3]);
}

SYSCALL(msgget)
{
	return msg_get(t, (int32_t)a->a[0], (int)a->a[1]);
}

SYSCALL(msgsnd)
{
	return msg_send(t, (int)a->a[0], a->a[1], a->a[2], (int)a->a[3]);
}

SYSCALL(msgrcv)
{
	return msg_receive(t, (int)a->a[0], a->a[1], a->a[2], (int64_t)a->a[3], (int)a->a[4]);
}

SYSCALL(msgctl)
{
	return msg_ctl(t, (int)a->a[0], (int)a->a[1], a->a[2]);
}
