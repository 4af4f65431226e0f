/*
 * PID namespaces (CLONE_NEWPID). Every task keeps its sandbox-wide tid
 * (task->tid, the initial namespace's number, which the kernel's lists and
 * lookups use); a task born in a nested namespace also has one number per
 * level below the initial one (task->pid_nrs[level - 1] in the namespace of
 * that level), and its thread group the leader's. System calls translate at
 * the boundary: a number a task gives is looked up in its own namespace
 * (pidns_global_locked), one it gets back is its namespace's view
 * (pidns_nr: 0 when the process is outside it).
 *
 * The first process of a namespace is its init (number 1): when it dies
 * every other process of the namespace (and of those under it) is killed,
 * and no new one may join (fork: ENOMEM), as Linux's zap_pid_ns_processes.
 */
#ifndef RUNG_PIDNS_H
#define RUNG_PIDNS_H

#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct task;
struct thread_group;
struct user_ns;

#define PIDNS_MAX_LEVEL 32 /* Linux's MAX_PID_NS_LEVEL */
/* A number no process has: what a number without a process translates to,
 * so that the lookups that follow fail with ESRCH. */
#define PID_NONE 0x7fffffff

struct pid_ns {
	int refs;
	uint64_t ino;
	struct user_ns *owner;
	struct pid_ns *parent; /* NULL for the initial one */
	unsigned level;	       /* 0: the initial one */
	/* Under the kernel's lock: */
	int next_nr;		   /* the next number to give */
	struct thread_group *init; /* its number 1 while it lives */
	bool dead;		   /* its init died: nobody may join */
};

struct pid_ns *pidns_new(uint64_t ino, struct pid_ns *parent, struct user_ns *owner);
struct pid_ns *pidns_get(struct pid_ns *ns);
void pidns_put(struct pid_ns *ns);

static inline unsigned pidns_level(const struct pid_ns *ns)
{
	return ns ? ns->level : 0;
}

/* The numbers of a new task in ns (below the initial level), in a new
 * array (*nrs, NULL at level 0): 0, or -ENOMEM when ns's init is dead.
 * Under the kernel's lock. */
int pidns_alloc_locked(struct pid_ns *ns, int **nrs);

/* What view calls the id whose numbers are (own, nrs, global): 0 when it
 * is outside view. */
int pidns_nr(const struct pid_ns *own, const int *nrs, int global, const struct pid_ns *view);
int task_tid_nr(const struct task *t, const struct pid_ns *view);
int tg_pid_nr(const struct thread_group *tg, const struct pid_ns *view);
/* Is ns view itself or under it? */
bool pidns_within(const struct pid_ns *ns, const struct pid_ns *view);

/* The sandbox's id of the task or process view calls nr (nr > 0), or
 * PID_NONE. Under the kernel's lock. */
int pidns_global_locked(struct kernel *k, const struct pid_ns *view, int nr);
int pidns_global(struct kernel *k, const struct pid_ns *view, int nr);

/* What view calls the process (or else thread) whose sandbox id is
 * global: 0 when it is outside view or gone. */
int pidns_view(struct kernel *k, const struct pid_ns *view, int global);
int pidns_view_locked(struct kernel *k, const struct pid_ns *view, int global);

/* SCM_CREDENTIALS and SO_PEERCRED keep the sandbox's pid, uid and gid:
 * what t's pid and user namespaces call them (0 / 65534 when outside). */
struct ucred;
void ucred_view(struct task *t, const struct ucred *kernel_ids, struct ucred *out);

/* A task's active namespace: the one it was born in (NULL: the initial). */
struct pid_ns *task_pidns(const struct task *t);

/* tg, the init of its namespace, is gone: kill the rest of it. Under the
 * kernel's lock. */
void pidns_init_exit_locked(struct kernel *k, struct thread_group *tg);
/* The init of tg's namespace, the reaper of its orphans (NULL: the
 * sandbox's). Under the kernel's lock. */
struct thread_group *pidns_reaper_locked(const struct thread_group *tg);

#endif
