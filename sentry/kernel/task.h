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

struct kernel;
struct mm;
struct fdtable;

#define TASK_COMM_LEN 16
#define GUEST_NSIG    64

/* The kernel's struct sigaction for x86-64 rt_sigaction. */
struct k_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

struct creds {
	uint32_t uid, euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
};

struct task {
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
	struct creds creds;
	struct rlimit rlim[RLIM_NLIMITS];
	uint32_t umask;
	char *cwd; /* until the VFS exists: a host-style path */

	/* Signals: dispositions and mask are recorded; delivery comes with processes. */
	struct k_sigaction sigactions[GUEST_NSIG];
	uint64_t sigmask;

	uint64_t clear_child_tid;
	uint64_t robust_list, robust_list_len;

	/* Blocking: a futex word bumped by task_interrupt(). */
	uint32_t wake_seq;
	int interrupted; /* atomic: an interruption is pending */
	bool exiting;	 /* the run loop stops after this syscall */

	/* What the task execs first (kernel_start_init). */
	char *init_path;
	char **init_argv, **init_envp;
};

/* Make the task's current or next blocking wait, or guest run, return soon. */
void task_interrupt(struct task *t);

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

/* Replace the task's program: load path, build its stack, new address space.
 * Returns 0 or -errno (and *why for ENOEXEC). */
int task_exec(struct task *t, const char *path, char *const argv[], char *const envp[],
	      const char **why);

/* The task's thread group exits with status (exit_group, fatal signal). */
void task_exit_group(struct task *t, int status);

/* Deliver sig to the task: the default action, or ignore (handlers come later). */
void task_force_signal(struct task *t, int sig);

/* Handle a fault event from the platform. */
void task_handle_fault(struct task *t, const struct pevent *ev);

/* The sentry thread body of a task. */
void *task_main(void *arg);

#endif
