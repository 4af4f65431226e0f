/*
 * I/O priorities (ioprio_set/ioprio_get, Linux's block/ioprio.c): each
 * task's value is kept in an I/O context as Linux keeps it, shared by
 * CLONE_IO and copied by other clones, and reported back; the sandbox
 * schedules no I/O by it (the host's I/O scheduler sees only the
 * sentry's and the gofer's requests).
 *
 * A task has no context until its priority is set or a CLONE_IO shares
 * one (Linux makes one at the first I/O too): kcmp(KCMP_IO) compares them.
 * Locking: t->io changes under the kernel's task lock.
 */
#ifndef RUNG_IOPRIO_H
#define RUNG_IOPRIO_H

#include <stdint.h>

struct task;

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_NONE  0
#define IOPRIO_CLASS_RT	   1
#define IOPRIO_CLASS_BE	   2
#define IOPRIO_CLASS_IDLE  3
#define IOPRIO_NR_LEVELS   8
#define IOPRIO_CLASS(p)	   (((p) >> IOPRIO_CLASS_SHIFT) & 7)
#define IOPRIO_DATA(p)	   ((p) & ((1 << IOPRIO_CLASS_SHIFT) - 1))
#define IOPRIO_VALUE(c, d) (((c) << IOPRIO_CLASS_SHIFT) | (d))

struct io_context {
	int refs;
	int ioprio;
};

/* clone: CLONE_IO shares the parent's context; other clones copy a
 * priority that was set. Under the task lock. */
void ioprio_fork(struct task *child, struct task *parent, uint64_t flags);
/* Linux's ioprio_check_cap for t (syscalls/sys_ioprio.c): 0, -EPERM, -EINVAL. */
int ioprio_check_cap(struct task *t, int ioprio);
/* The last reference to the task (plain memory). */
void ioprio_task_release(struct task *t);
/* p's raw priority (0, IOPRIO_CLASS_NONE, when never set). Under the lock. */
int ioprio_task_get(const struct task *p);
/* p's priority as the I/O scheduler would use it: NONE maps to the class
 * and level of its CPU policy and nice (task_nice_ioclass/ioprio). */
int ioprio_task_effective(const struct task *p);
/* Set p's priority (checked). Under the lock. */
void ioprio_task_set(struct task *p, int ioprio);

#endif
