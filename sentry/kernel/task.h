/*
 * A guest task (thread). Each runs on its own sentry thread, which is also
 * the tracer of the task's stub thread on the ptrace platform. The run loop:
 * switch to the guest -> handle the syscall, fault or interrupt -> repeat.
 */
#ifndef RUNG_TASK_H
#define RUNG_TASK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "platform/platform.h"
#include "sentry/kernel/creds.h"
#include "sentry/vfs/vfs.h"
#include "lib/list.h"

struct kernel;
struct mm;
struct fdtable;
struct fs_struct;

#define TASK_COMM_LEN 16
#define GUEST_NSIG    64

/* The kernel's struct sigaction for x86-64 rt_sigaction. */
struct k_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

struct task {
	int refs;
	struct list_head knode; /* in kernel->tasks */
	struct kernel *k;
	int tid;  /* virtual, in the sandbox's pid namespace */
	int tgid; /* thread group id (pid) */
	int ppid; /* 0 for the init task, as in a pid namespace */
	char comm[TASK_COMM_LEN];

	pthread_t thread;
	struct pcontext *ctx;
	struct cpu_state cpu;
	struct mm *mm;
	struct fdtable *files;
	struct fs_struct *fs; /* root, cwd, umask */
	struct path exe;      /* the program file (/proc/pid/exe) */
	uint64_t start_ns;    /* CLOCK_MONOTONIC when it started */
	struct creds creds;
	struct rlimit rlim[RLIM_NLIMITS];

	/* Signals: dispositions and mask are recorded; delivery comes with processes. */
	struct k_sigaction sigactions[GUEST_NSIG];
	uint64_t sigmask;

	uint64_t clear_child_tid;
	uint64_t robust_list, robust_list_len;

	/* Blocking: a futex word bumped by every wake-up (sentry/kernel/wait.h). */
	uint32_t wake_seq;
	bool exiting; /* the run loop stops after this syscall */

	/* What the task execs first (kernel_start_init). */
	char *init_path;
	char **init_argv, **init_envp;
};

/* What identifies the task's process as the owner of POSIX locks. */
static inline const void *task_lock_owner(struct task *t)
{
	return (const void *)(uintptr_t)t->tgid;
}

struct task *task_get(struct task *t);
void task_put(struct task *t);

/* The task the calling sentry thread runs (NULL on other threads). */
struct task *current_task(void);

/* Make the task's current or next blocking wait, or guest run, return soon. */
void task_interrupt(struct task *t);
/* Must the task stop waiting (it is exiting; later: a signal is pending)? */
bool task_interrupted(struct task *t);

/*
 * Sleep until the absolute time deadline (ns on clock, CLOCK_MONOTONIC or
 * CLOCK_REALTIME) or an interruption. Returns 0 when the time came, -EINTR.
 */
int task_sleep_until(struct task *t, int clock, uint64_t deadline_ns);

/* The whole register set, fetched from the platform when only part is known. */
struct user_regs_struct *task_regs(struct task *t);
/* Mark registers the sentry changed (CPU_DIRTY_*). */
static inline void task_regs_dirty(struct task *t, unsigned what)
{
	t->cpu.dirty |= what;
}

/*
 * Replace the task's program with the executable path (a guest path, resolved
 * in the task's filesystem): load it (following #! and PT_INTERP), build its
 * stack, give it a new address space. Returns 0 or -errno (and *why, a
 * static reason, for ENOEXEC and friends).
 */
int task_exec(struct task *t, int dirfd, const char *path, char *const argv[], char *const envp[],
	      int flags, const char **why);
/* The init task's first exec (kernel_start_init's program). */
int task_exec_init(struct task *t, const char **why);

/* The task's thread group exits with status (exit_group, fatal signal). */
void task_exit_group(struct task *t, int status);

/* Deliver sig to the task: the default action, or ignore (handlers come later). */
void task_force_signal(struct task *t, int sig);

/* Handle a fault event from the platform. */
void task_handle_fault(struct task *t, const struct pevent *ev);

/* The sentry thread body of a task. */
void *task_main(void *arg);

#endif
