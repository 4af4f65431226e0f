/* POSIX message queues (sentry/ipc/mqueue.c). */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/ipc/mqueue.h"

SYSCALL(mq_open)
{
	return mq_open_name(t, a->a[0], (int)a->a[1], (uint32_t)a->a[2], a->a[3]);
}

SYSCALL(mq_unlink)
{
	return mq_unlink_name(t, a->a[0]);
}

SYSCALL(mq_timedsend)
{
	return mq_timedsend_fd(t, (int)a->a[0], a->a[1], a->a[2], (unsigned)a->a[3], a->a[4]);
}

SYSCALL(mq_timedreceive)
{
	return mq_timedreceive_fd(t, (int)a->a[0], a->a[1], a->a[2], a->a[3], a->a[4]);
}

SYSCALL(mq_notify)
{
	return mq_notify_fd(t, (int)a->a[0], a->a[1]);
}

SYSCALL(mq_getsetattr)
{
	return mq_getsetattr_fd(t, (int)a->a[0], a->a[1], a->a[2]);
}
