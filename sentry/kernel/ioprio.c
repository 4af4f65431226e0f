/* I/O priorities of tasks (see ioprio.h). */
#include "config.h"
#include "sentry/kernel/ioprio.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <sched.h>
#include <stdlib.h>

#ifndef CLONE_IO
#define CLONE_IO 0x80000000
#endif

static struct io_context *io_new(int ioprio)
{
	struct io_context *io = xzalloc(sizeof(*io));

	io->refs = 1;
	io->ioprio = ioprio;
	return io;
}

static void io_put(struct io_context *io)
{
	if (io && __atomic_sub_fetch(&io->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(io);
}

void ioprio_fork(struct task *child, struct task *parent, uint64_t flags)
{
	struct io_context *io = parent->io;

	if (!io)
		return;
	if (flags & CLONE_IO) {
		__atomic_add_fetch(&io->refs, 1, __ATOMIC_RELAXED);
		child->io = io;
	} else if (IOPRIO_CLASS(io->ioprio) != IOPRIO_CLASS_NONE) {
		child->io = io_new(io->ioprio);
	}
}

void ioprio_task_release(struct task *t)
{
	io_put(t->io);
	t->io = NULL;
}

int ioprio_task_get(const struct task *p)
{
	return p->io ? p->io->ioprio : IOPRIO_VALUE(IOPRIO_CLASS_NONE, 0);
}

int ioprio_task_effective(const struct task *p)
{
	int prio = ioprio_task_get(p), class;

	if (IOPRIO_CLASS(prio) != IOPRIO_CLASS_NONE)
		return prio;
	switch (p->sched.policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		class = IOPRIO_CLASS_RT;
		break;
	case SCHED_IDLE:
		class = IOPRIO_CLASS_IDLE;
		break;
	default:
		class = IOPRIO_CLASS_BE;
	}
	return IOPRIO_VALUE(class, (p->sched.nice + 20) / 5);
}

void ioprio_task_set(struct task *p, int ioprio)
{
	if (!p->io)
		p->io = io_new(ioprio);
	else
		p->io->ioprio = ioprio;
}
