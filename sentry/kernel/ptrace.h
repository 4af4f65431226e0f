/*
 * ptrace between guest tasks: who traces whom, the tracee's stops (syscall
 * entry and exit, signal delivery, group stops, events, PTRACE_INTERRUPT),
 * and what the tracer's wait learns of them (Linux's kernel/ptrace.c and the
 * ptrace parts of kernel/signal.c).
 *
 * A tracee stops on its own sentry thread, in ptrace_stop(): before it
 * parks it reads all its registers and FPU state into task->cpu, so the
 * tracer reads and writes them there (the platform writes changes back when
 * the tracee runs again). Memory writes that may need the platform (a
 * copy-on-write page mapped anew) are done by the stopped tracee's own
 * thread on the tracer's behalf (ptrace_tracee_call).
 *
 * Everything here is under k->lock unless it says otherwise.
 */
#ifndef RUNG_PTRACE_H
#define RUNG_PTRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"

struct task;
struct thread_group;
struct wait_result;

/* task_ptrace.flags, besides the PTRACE_O_* options in the low bits. */
#define PT_PTRACED 0x80000000u
#define PT_SEIZED  0x40000000u
#define PT_OPTIONS 0x003fffffu

/* How the tracer let the tracee go on. */
enum ptrace_mode {
	PTM_CONT,
	PTM_SYSCALL,
	PTM_SYSEMU,
	PTM_SINGLESTEP,
	PTM_SYSEMU_SINGLESTEP,
};

/* What kind of stop the tracee is in (GET_SYSCALL_INFO, LISTEN, GETSIGINFO). */
enum ptrace_stop_kind {
	PTS_NONE,
	PTS_SIGNAL,	   /* signal-delivery stop: siginfo valid */
	PTS_GROUP,	   /* group stop (or PTRACE_EVENT_STOP of one) */
	PTS_EVENT,	   /* PTRACE_EVENT_* (fork, exec, exit, ...) */
	PTS_SYSCALL_ENTRY, /* syscall-enter stop */
	PTS_SYSCALL_EXIT,  /* syscall-exit stop */
};

/* A job the tracer asks the stopped tracee's thread to do. */
struct ptrace_call {
	long (*fn)(struct task *tracee, void *arg);
	void *arg;
	long ret;
	bool done;
	struct task *caller;
};

/* A traced task's exit, kept for its tracer's wait when the tracer is not
 * its parent (or it was not its process's last thread). */
struct ptrace_zombie {
	struct list_head node; /* in the tracer's task_ptrace.zombies */
	int tid, pgid;
	int status;
	uint32_t uid;
	/* The process whose parent learns of its death only once the tracer
	 * has reaped it (Linux's delayed do_notify_parent), or NULL. */
	struct thread_group *deferred;
};

struct task_ptrace {
	struct task *tracer;   /* NULL: not traced */
	unsigned flags;	       /* PT_* and PTRACE_O_* */
	struct list_head node; /* in the tracer's tracees */
	/* Tracer side. */
	struct list_head tracees;
	struct list_head zombies;

	/* Tracee side: the stop. */
	bool stopped;	   /* parked in ptrace_stop */
	bool waitable;	   /* a stop the tracer's wait has not reported yet */
	bool listening;	   /* PTRACE_LISTEN: stopped, not waitable */
	bool trap_pending; /* PTRACE_INTERRUPT or a SEIZEd child's first stop */
	bool killed;	   /* SIGKILL arrived: no more stops */
	bool trap_notify;  /* SIGCONT came during the stop: LISTEN traps again */
	bool forced_tf;	   /* the trap flag is set for PTRACE_SINGLESTEP */
	enum ptrace_stop_kind kind;
	int code;		  /* the stop's wait status >> 8: signal | event << 8 */
	siginfo_t info;		  /* for signal-delivery and trap stops */
	bool has_info;		  /* a non-seized group stop has none */
	enum ptrace_mode mode;	  /* how the tracer resumed it */
	int resume_sig;		  /* the signal the tracer gave with the resume */
	uint64_t msg;		  /* PTRACE_GETEVENTMSG */
	struct ptrace_call *call; /* a job the tracer posted */
	uint64_t debugreg[8];	  /* PEEKUSER/POKEUSER's u_debugreg: kept, never armed */
};

void ptrace_task_init(struct task *t);

/* --- the tracee's stops (called by the tracee itself) -------------------------- */

/* Is t traced, and would it stop for this PTRACE_EVENT_* ? */
bool ptrace_event_enabled(struct task *t, int event);
/* Stop for PTRACE_EVENT_* event with message msg (if the option is set). */
void ptrace_event(struct task *t, int event, uint64_t msg);
/* The syscall-enter stop: true when the system call is to be skipped. */
bool ptrace_syscall_entry(struct task *t);
/* The syscall-exit stop, and the single-step trap after a system call. */
void ptrace_syscall_exit(struct task *t);
/* execve succeeded: PTRACE_EVENT_EXEC, or the legacy SIGTRAP. */
void ptrace_exec(struct task *t);
/* A new task of clone: attach it to its parent's tracer when the options
 * say so (k->lock held; before it runs). Returns the event to report. */
int ptrace_clone_locked(struct task *parent, struct task *child, uint64_t flags, int exit_sig);
/*
 * In signal delivery, k->lock held: a traced task reports sig (info) and the
 * tracer decides. Returns the signal to deliver (0: none; info updated).
 */
int ptrace_signal_locked(struct task *t, int sig, siginfo_t *info);
/* A pending PTRACE_INTERRUPT (or first stop) or group stop: the trap stop.
 * Returns false when t does not take it (not traced). k->lock held. */
bool ptrace_trap_locked(struct task *t);
bool ptrace_group_stop_locked(struct task *t, int stop_sig);
/* SIGKILL for tg: traced threads stop no more, and leave any stop. */
void ptrace_sigkill_locked(struct thread_group *tg);
/* SIGCONT for tg: a listening tracee traps again. */
void ptrace_continue_locked(struct thread_group *tg);

/* --- exits ----------------------------------------------------------------------- */

/* t's thread exits (task_do_exit, k->lock held): its tracer learns of it;
 * returns true when t's process's parent must not be told yet (the tracer
 * will, once it reaps). last: t is its process's last thread. */
bool ptrace_task_exit_locked(struct task *t, int status, bool last);
/* A tracer exits: every tracee goes free (or dies, PTRACE_O_EXITKILL). */
void ptrace_tracer_exit_locked(struct task *t);

/* --- the tracer's wait ---------------------------------------------------------- */

/* Is there a tracee of t's process matching the selection (any) and has one
 * something to report (true, res filled)? k->lock held. */
bool ptrace_wait_locked(struct task *t, int which, int id, int options, struct wait_result *res,
			bool *any);
/* Is the child process c traced by t's own process (so that its stops are
 * reported as ptrace stops only)? */
bool ptrace_traced_by_tg(struct thread_group *c, struct thread_group *tg);

/* The tracer's tid of t (/proc status TracerPid), 0 if none. */
int ptrace_tracer_pid(struct task *t);

/* For sys_ptrace.c: the tracee's job, on its own thread. -ESRCH if it is
 * not stopped. */
long ptrace_tracee_call(struct task *tracer, struct task *tracee,
			long (*fn)(struct task *tracee, void *arg), void *arg);
/* A listening (or interrupted) tracee leaves its stop to trap again at once. */
void ptrace_retrap_locked(struct task *tracee);
/* Resume a stopped tracee (k->lock held). */
void ptrace_resume_locked(struct task *tracee, enum ptrace_mode mode, int sig);
/* Attach tracee to tracer (k->lock held; checks are the caller's). */
void ptrace_link_locked(struct task *tracer, struct task *tracee, unsigned flags);
/* Detach (k->lock held): resumes with sig if stopped. */
void ptrace_unlink_locked(struct task *tracee, int sig);

#endif
