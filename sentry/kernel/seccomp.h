/*
 * Guest seccomp: the sentry runs the guest's classic-BPF filters itself on
 * every guest system call, before the handler (a guest never installs a
 * host filter; the sandbox's own host filter is sentry/kernel/filter.c).
 *
 * A filter is an immutable, reference-counted program; a task points at
 * the newest filter of its stack and each filter at the one installed
 * before it, so fork shares the whole stack and a later filter of one task
 * never changes another's (Linux's kernel/seccomp.c model). Every filter of
 * the stack runs; the most restrictive action wins.
 *
 * Locking: a task's mode and filter pointer change under the kernel's task
 * lock (its own seccomp(2), another thread's TSYNC, clone), and are read
 * by the task's own thread at each system call without it (atomically: a
 * filter TSYNC replaces stays alive as an ancestor of its replacement).
 */
#ifndef RUNG_SECCOMP_H
#define RUNG_SECCOMP_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

struct task;
struct syscall_args;

/* Linux's limits: BPF_MAXINSNS per program; MAX_INSNS_PER_PATH for a
 * stack, each filter counting 4 instructions more than its length as Linux
 * counts it (seccomp_linux_len). */
#define SECCOMP_MAX_INSNS      4096
#define SECCOMP_MAX_PATH_INSNS 32768

/* The audit architectures a guest system call can have. */
#define SECCOMP_ARCH_X86_64 0xc000003eu /* AUDIT_ARCH_X86_64 (x32 numbers too) */
#define SECCOMP_ARCH_I386   0x40000003u /* AUDIT_ARCH_I386: int $0x80, sysenter */

struct seccomp_filter {
	int refs;
	struct seccomp_filter *prev; /* installed before this one (a reference), or NULL */
	unsigned depth;		     /* filters in the stack down from here (Seccomp_filters) */
	unsigned path_insns;	     /* the stack's length for SECCOMP_MAX_PATH_INSNS */
	unsigned linux_len;	     /* seccomp_linux_len of the program */
	bool log;		     /* SECCOMP_FILTER_FLAG_LOG */
	uint16_t len;
	struct sock_filter insns[];
};

/*
 * Is this a program Linux would take as a seccomp filter? Its checks
 * (bpf_check_classic, then seccomp_check_filter): 1..4096 instructions of
 * the opcodes seccomp allows, loads of struct seccomp_data only at aligned
 * offsets inside it, no division by a constant 0 nor shift by 32 or more,
 * scratch memory in range and written before it is read on every path,
 * jumps inside the program, the last instruction a return. 0 or -EINVAL.
 */
int seccomp_check(const struct sock_filter *insns, unsigned len);

/* The length Linux gives a checked program in the stack's limit (that of
 * the eBPF it translates the program to). */
unsigned seccomp_linux_len(const struct sock_filter *insns, unsigned len);

/* Run a program seccomp_check accepted over d: its return value. */
uint32_t seccomp_bpf_run(const struct sock_filter *insns, unsigned len,
			 const struct seccomp_data *d);

/* A filter holding a copy of a program (checked: 0, or -EINVAL). */
int seccomp_filter_new(const struct sock_filter *insns, unsigned len, bool log,
		       struct seccomp_filter **out);
struct seccomp_filter *seccomp_filter_get(struct seccomp_filter *f);
/* Drop a reference (and those of the filters below it that go with it). */
void seccomp_filter_put(struct seccomp_filter *f);

/* Run every filter of the stack f (newest first) over d: the return value
 * of the most restrictive action (the newest such on a tie); ALLOW when f
 * is NULL. */
uint32_t seccomp_stack_run(const struct seccomp_filter *f, const struct seccomp_data *d);

/* Actions in order, most restrictive first (KILL_PROCESS < ... < ALLOW). */
static inline int32_t seccomp_action_rank(uint32_t ret)
{
	return (int32_t)(ret & SECCOMP_RET_ACTION_FULL);
}

/* seccomp_attach flags this sentry takes (NEW_LISTENER and
 * WAIT_KILLABLE_RECV are refused by the seccomp(2) handler). */
#define SECCOMP_ATTACH_FLAGS                                                                    \
	(SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW | \
	 SECCOMP_FILTER_FLAG_TSYNC_ESRCH)

/*
 * Put filter f (the caller's reference, taken over in every case) on top
 * of t's stack; t is the calling task. With TSYNC, every other thread of
 * t's process gets t's new stack (and t's no_new_privs) if its own stack
 * is an ancestor of t's; else nothing changes and the result is the first
 * other thread's tid (or -ESRCH with TSYNC_ESRCH). Returns 0, -EINVAL (t
 * is in strict mode), -ENOMEM (the stack would be too long).
 */
long seccomp_attach(struct task *t, struct seccomp_filter *f, unsigned flags);
/* Strict mode for the calling task t: 0, or -EINVAL in filter mode. */
long seccomp_set_strict(struct task *t);

/* A new task's stack: the parent's (clone, under the task lock). */
void seccomp_fork_locked(struct task *child, struct task *parent);
/* A spawned process starts with filter f (a reference of its own). */
void seccomp_task_init(struct task *t, struct seccomp_filter *f);
/* The task's filters are gone (its last reference). */
void seccomp_task_release(struct task *t);

/* SECCOMP_MODE_DISABLED/STRICT/FILTER, and how many filters (for prctl and
 * /proc/PID/status). */
int seccomp_mode(struct task *t);
unsigned seccomp_filter_count(struct task *t);

/*
 * The check every guest system call passes before its handler: a has the
 * number and arguments, arch the audit architecture of the entry point.
 * Returns false when the call goes on to its handler (no filter, ALLOW,
 * LOG); true when it must not run, with *ret the value the guest sees
 * (ERRNO; ENOSYS for TRACE without a tracer and USER_NOTIF without a
 * listener; the number itself for TRAP, whose SIGSYS is queued) or the
 * task on its way out (KILL_*, a strict-mode violation).
 */
bool seccomp_syscall(struct task *t, uint32_t arch, const struct syscall_args *a, long *ret);
/* The same for a call made at ip (the vsyscall page's emulated calls:
 * the address of the vsyscall entry, as Linux shows them). */
bool seccomp_syscall_at(struct task *t, uint32_t arch, const struct syscall_args *a, uint64_t ip,
			long *ret);
/* The same for a call through a 32-bit entry point (int $0x80, sysenter:
 * AUDIT_ARCH_I386) or with an x32 number, from t's registers; such a call
 * that goes on gets ENOSYS from the caller. */
bool seccomp_syscall32(struct task *t, long *ret);

#endif
