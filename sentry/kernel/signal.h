/*
 * Signals: generation (kill, tgkill, the kernel's own SIGPIPE, SIGCHLD, timer
 * and fault signals), the restart codes blocking system calls return, and
 * what blocking waits ask ("must I stop waiting?").
 *
 * Locking: every signal state (pending sets, dispositions, masks of other
 * tasks) is under the kernel's task lock, taken inside these functions.
 */
#ifndef RUNG_SIGNAL_H
#define RUNG_SIGNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct task;

/*
 * What a system call interrupted by a signal returns (never seen by the
 * guest: the signal code turns them into EINTR or a restart, as Linux does):
 *  ERESTARTSYS      restart if the handler has SA_RESTART (or there is none)
 *  ERESTARTNOINTR   always restart
 *  ERESTARTNOHAND   restart only if no handler runs
 *  ERESTART_RESTARTBLOCK  like NOHAND, but the restart calls restart_syscall
 *                   (t->restart_fn) instead of the original call
 */
#define ERESTARTSYS	      512
#define ERESTARTNOINTR	      513
#define ERESTARTNOHAND	      514
#define ERESTART_RESTARTBLOCK 516

static inline bool is_restart_code(long ret)
{
	return ret == -ERESTARTSYS || ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND ||
	       ret == -ERESTART_RESTARTBLOCK;
}

#define SIGBIT(s)	(1ull << ((s)-1))
#define SIG_UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* siginfo for a signal the kernel raises itself (si_code SI_KERNEL). */
void siginfo_kernel(siginfo_t *si, int sig);
/* siginfo for kill() by task from (si_code SI_USER, si_pid, si_uid). */
void siginfo_user(siginfo_t *si, int sig, struct task *from);

/*
 * Send info->si_signo to target's whole process (group: kill semantics,
 * any thread that does not block it takes it) or to target alone (tgkill).
 * Signal 0 only checks. Returns 0 or -errno (EINVAL for a bad number).
 * Permission checks are the caller's.
 */
int signal_send(struct task *target, const siginfo_t *info, bool group);
/* Send to every process in process group pgid; -ESRCH when it is empty. */
int signal_send_pgrp(struct kernel *k, int pgid, const siginfo_t *info);

/* Must a blocking wait of t stop now: an unblocked signal is pending, or the
 * task is being killed or stopped? (Checked by task_block.) */
bool task_signal_pending(struct task *t);

/*
 * ppoll, pselect6, epoll_pwait, rt_sigsuspend: use mask until the system
 * call returns. If a handler runs then, its frame records the old mask (so
 * sigreturn restores it); otherwise the old mask comes back at once.
 */
void task_set_temp_sigmask(struct task *t, uint64_t mask);
/* Such a call was not interrupted: the old mask comes back now, before a
 * signal that only the temporary mask let through is delivered (Linux's
 * restore_saved_sigmask_unless(false)). */
void task_restore_sigmask(struct task *t);

#endif
