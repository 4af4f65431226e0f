/*
 * Guest seccomp (see seccomp.h): the classic-BPF checker and interpreter,
 * filter stacks, and what each action does to the system call that met it.
 * The semantics are Linux's (kernel/seccomp.c, net/core/filter.c); the
 * interpreter follows classic BPF as Linux runs it once converted: A and X
 * start at 0, division by X == 0 ends the program with 0, shifts by X use
 * its low 5 bits, comparisons are unsigned 32-bit.
 */
#include "config.h"
#include "sentry/kernel/seccomp.h"
#include "sentry/kernel/cbpf.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "syscalls/syscall.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* The largest errno SECCOMP_RET_ERRNO passes on (Linux's MAX_ERRNO). */
#define SECCOMP_MAX_ERRNO 4095
#define X32_SYSCALL_BIT	  0x40000000u
/* SIGSYS's si_code for seccomp (glibc's headers lack it). */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

/* --- the seccomp flavor of classic BPF (cbpf.h) --------------------------------------- */

/* Only struct seccomp_data, a 32-bit word at a time, and its length. */
static bool seccomp_load_ok(const struct sock_filter *f)
{
	switch (f->code) {
	case BPF_LD | BPF_W | BPF_ABS:
		return f->k < sizeof(struct seccomp_data) && (f->k & 3) == 0;
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
		return true;
	default:
		return false; /* packet loads (H, B, IND, MSH) */
	}
}

static bool seccomp_load(const void *ctx, const struct sock_filter *f, uint32_t A, uint32_t X,
			 uint32_t *out)
{
	if (BPF_MODE(f->code) == BPF_LEN)
		*out = sizeof(struct seccomp_data);
	else
		memcpy(out, (const unsigned char *)ctx + f->k, sizeof(*out));
	return true;
}

static const struct cbpf_flavor seccomp_flavor = {
	.mod = false,
	.load_ok = seccomp_load_ok,
	.load = seccomp_load,
};

int seccomp_check(const struct sock_filter *insns, unsigned len)
{
	return cbpf_check(insns, len, SECCOMP_MAX_INSNS, &seccomp_flavor);
}

uint32_t seccomp_bpf_run(const struct sock_filter *insns, unsigned len,
			 const struct seccomp_data *d)
{
	return cbpf_run(insns, len, &seccomp_flavor, d);
}

/* --- filters ---------------------------------------------------------------------- */

/*
 * How long Linux counts a program when it adds up a stack against
 * SECCOMP_MAX_PATH_INSNS: the length of its eBPF translation
 * (bpf_convert_filter), which is what it keeps. A prologue of 3; a return
 * of a constant, 2; a division by X, 5 (its zero test); a conditional jump,
 * 1 or 2 (2 when neither branch falls through, JEQ/JGT/JGE with only the
 * true branch jumping excepted) and 1 more for a negative constant.
 */
unsigned seccomp_linux_len(const struct sock_filter *insns, unsigned len)
{
	unsigned n = 3;

	for (unsigned pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];
		if (f->code == (BPF_RET | BPF_K)) {
			n += 2;
		} else if (f->code == (BPF_ALU | BPF_DIV | BPF_X)) {
			n += 5;
		} else if (cbpf_is_cond_jump(f->code)) {
			if (BPF_SRC(f->code) == BPF_K && (int32_t)f->k < 0)
				n++;
			if (f->jf == 0 || (f->jt == 0 && BPF_OP(f->code) != BPF_JSET))
				n++;
			else
				n += 2;
		} else {
			n++;
		}
	}
	return n;
}

int seccomp_filter_new(const struct sock_filter *insns, unsigned len, bool log,
		       struct seccomp_filter **out)
{
	struct seccomp_filter *f;
	int ret = seccomp_check(insns, len);

	if (ret < 0)
		return ret;
	f = xzalloc(sizeof(*f) + len * sizeof(f->insns[0]));
	f->refs = 1;
	f->depth = 1;
	f->linux_len = seccomp_linux_len(insns, len);
	f->path_insns = f->linux_len + 4;
	f->log = log;
	f->len = (uint16_t)len;
	memcpy(f->insns, insns, len * sizeof(f->insns[0]));
	*out = f;
	return 0;
}

struct seccomp_filter *seccomp_filter_get(struct seccomp_filter *f)
{
	if (f)
		__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
	return f;
}

void seccomp_filter_put(struct seccomp_filter *f)
{
	/* Iterative: a stack may be thousands of filters deep. */
	while (f && __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct seccomp_filter *prev = f->prev;
		free(f);
		f = prev;
	}
}

/* The same, returning the filter that decided (NULL for ALLOW). */
static uint32_t stack_run(const struct seccomp_filter *f, const struct seccomp_data *d,
			  const struct seccomp_filter **match)
{
	uint32_t ret = SECCOMP_RET_ALLOW;

	*match = NULL;
	for (; f; f = f->prev) {
		uint32_t cur = seccomp_bpf_run(f->insns, f->len, d);
		if (seccomp_action_rank(cur) < seccomp_action_rank(ret)) {
			ret = cur;
			*match = f;
		}
	}
	return ret;
}

uint32_t seccomp_stack_run(const struct seccomp_filter *f, const struct seccomp_data *d)
{
	const struct seccomp_filter *match;

	return stack_run(f, d, &match);
}

/* Is stack a on the way down from b (NULL is below everything)? */
static bool is_ancestor(const struct seccomp_filter *a, const struct seccomp_filter *b)
{
	if (!a)
		return true;
	for (; b; b = b->prev)
		if (a == b)
			return true;
	return false;
}

/* --- tasks ------------------------------------------------------------------------ */

int seccomp_mode(struct task *t)
{
	return __atomic_load_n(&t->seccomp_mode, __ATOMIC_ACQUIRE);
}

unsigned seccomp_filter_count(struct task *t)
{
	unsigned n;

	pthread_mutex_lock(&t->k->lock);
	n = t->seccomp ? t->seccomp->depth : 0;
	pthread_mutex_unlock(&t->k->lock);
	return n;
}

/* Point t at stack f (a reference of t's now), dropping its old one. Under the task lock. */
static void set_stack_locked(struct task *t, struct seccomp_filter *f)
{
	struct seccomp_filter *old = t->seccomp;

	__atomic_store_n(&t->seccomp, f, __ATOMIC_RELEASE);
	/* The old stack is below f (or t's own replaced by t): nothing a
	 * concurrent run of t's filters uses is freed. */
	seccomp_filter_put(old);
	__atomic_store_n(&t->seccomp_mode, SECCOMP_MODE_FILTER, __ATOMIC_RELEASE);
}

long seccomp_attach(struct task *t, struct seccomp_filter *f, unsigned flags)
{
	struct kernel *k = t->k;
	struct task *p;
	long ret = 0;

	pthread_mutex_lock(&k->lock);
	if (t->seccomp_mode != SECCOMP_MODE_DISABLED && t->seccomp_mode != SECCOMP_MODE_FILTER) {
		ret = -EINVAL;
		goto out;
	}
	if (t->seccomp && t->seccomp->path_insns + f->linux_len > SECCOMP_MAX_PATH_INSNS) {
		ret = -ENOMEM;
		goto out;
	}
	if (flags & SECCOMP_FILTER_FLAG_TSYNC) {
		/* Every other thread must be unfiltered, or filtered by a stack
		 * the caller's extends. */
		list_for_each_entry(p, &t->tg->threads, tg_node) {
			if (p == t || p->exited || p->seccomp_mode == SECCOMP_MODE_DISABLED ||
			    (p->seccomp_mode == SECCOMP_MODE_FILTER &&
			     is_ancestor(p->seccomp, t->seccomp)))
				continue;
			ret = (flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH) ? -ESRCH : p->tid;
			goto out;
		}
	}
	if (flags & SECCOMP_FILTER_FLAG_LOG)
		f->log = true;
	f->prev = t->seccomp; /* t's reference moves to f */
	if (f->prev) {
		f->depth = f->prev->depth + 1;
		f->path_insns += f->prev->path_insns;
	}
	t->seccomp = NULL;
	set_stack_locked(t, f);
	f = NULL;
	if (flags & SECCOMP_FILTER_FLAG_TSYNC) {
		list_for_each_entry(p, &t->tg->threads, tg_node) {
			if (p == t || p->exited)
				continue;
			set_stack_locked(p, seccomp_filter_get(t->seccomp));
			/* A thread cannot be a way around no_new_privs. */
			if (t->no_new_privs)
				__atomic_store_n(&p->no_new_privs, true, __ATOMIC_RELAXED);
		}
	}
out:
	pthread_mutex_unlock(&k->lock);
	seccomp_filter_put(f);
	return ret;
}

long seccomp_set_strict(struct task *t)
{
	long ret = 0;

	pthread_mutex_lock(&t->k->lock);
	if (t->seccomp_mode == SECCOMP_MODE_FILTER)
		ret = -EINVAL;
	else
		__atomic_store_n(&t->seccomp_mode, SECCOMP_MODE_STRICT, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

void seccomp_fork_locked(struct task *child, struct task *parent)
{
	child->seccomp = seccomp_filter_get(parent->seccomp);
	child->seccomp_mode = parent->seccomp_mode;
}

void seccomp_task_init(struct task *t, struct seccomp_filter *f)
{
	if (!f)
		return;
	t->seccomp = seccomp_filter_get(f);
	t->seccomp_mode = SECCOMP_MODE_FILTER;
}

void seccomp_task_release(struct task *t)
{
	seccomp_filter_put(t->seccomp);
	t->seccomp = NULL;
}

/* --- at each system call --------------------------------------------------------- */

/* Strict mode's system calls: read, write, exit, rt_sigreturn (the i386
 * numbers for a 32-bit call; an x32 call matches neither list, as in Linux). */
static bool strict_allowed(uint32_t arch, int nr)
{
	static const int native[] = {SYS_read, SYS_write, SYS_exit, SYS_rt_sigreturn};
	static const int i386[] = {3, 4, 1, 119}; /* read, write, exit, sigreturn */
	const int *list = native;

	if (arch == SECCOMP_ARCH_I386 || ((uint32_t)nr & X32_SYSCALL_BIT))
		list = i386;
	for (int i = 0; i < 4; i++)
		if (list[i] == nr)
			return true;
	return false;
}

static const char *action_name(uint32_t action)
{
	switch (action) {
	case SECCOMP_RET_KILL_PROCESS:
		return "kill_process";
	case SECCOMP_RET_KILL_THREAD:
		return "kill_thread";
	case SECCOMP_RET_TRAP:
		return "trap";
	case SECCOMP_RET_ERRNO:
		return "errno";
	case SECCOMP_RET_USER_NOTIF:
		return "user_notif";
	case SECCOMP_RET_TRACE:
		return "trace";
	case SECCOMP_RET_LOG:
		return "log";
	default:
		return "unknown (kill)";
	}
}

/* SIGSYS for the call d described, as Linux's force_sig_seccomp: delivered
 * even when blocked or ignored (then with the default action, death). */
static void force_sigsys(struct task *t, const struct seccomp_data *d, int data)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSYS;
	si.si_code = SYS_SECCOMP;
	si.si_errno = data;
	si.si_call_addr = (void *)(uintptr_t)d->instruction_pointer;
	si.si_syscall = d->nr;
	si.si_arch = d->arch;
	signal_force(t, &si);
}

bool seccomp_syscall(struct task *t, uint32_t arch, const struct syscall_args *a, long *ret)
{
	return seccomp_syscall_at(t, arch, a, t->cpu.regs.rip, ret);
}

bool seccomp_syscall_at(struct task *t, uint32_t arch, const struct syscall_args *a, uint64_t ip,
			long *ret)
{
	int mode = __atomic_load_n(&t->seccomp_mode, __ATOMIC_ACQUIRE);
	const struct seccomp_filter *match;
	struct seccomp_data d;
	uint32_t r, action;
	int data;

	if (mode == SECCOMP_MODE_DISABLED)
		return false;
	/* As Linux: the number is the low 32 bits of rax. */
	memset(&d, 0, sizeof(d));
	d.nr = (int)(uint32_t)a->nr;
	d.arch = arch;
	d.instruction_pointer = ip;
	memcpy(d.args, a->a, sizeof(d.args));
	if (mode == SECCOMP_MODE_STRICT) {
		if (strict_allowed(arch, d.nr))
			return false;
		log_debug("seccomp: strict mode kills pid %d (%s) at system call %d", t->tid,
			  t->comm, d.nr);
		task_exit_thread(t, SIGKILL);
		*ret = -ENOSYS;
		return true;
	}

	r = stack_run(__atomic_load_n(&t->seccomp, __ATOMIC_ACQUIRE), &d, &match);
	data = (int)(r & SECCOMP_RET_DATA);
	action = r & SECCOMP_RET_ACTION_FULL;
	switch (action) {
	case SECCOMP_RET_ALLOW:
		return false;
	case SECCOMP_RET_LOG:
		log_debug("seccomp: pid %d (%s) system call %d: log", t->tid, t->comm, d.nr);
		return false;
	case SECCOMP_RET_ERRNO:
		*ret = -(long)MIN(data, SECCOMP_MAX_ERRNO);
		/* An errno that is a restart code (512..516) reaches the guest as
		 * it is: restarting would only meet the filter again. */
		if (is_restart_code(*ret))
			t->syscall_nr = -1;
		break;
	case SECCOMP_RET_TRAP:
		/* The handler sees the registers of the call: rax is its number. */
		*ret = (long)a->nr;
		force_sigsys(t, &d, data);
		break;
	case SECCOMP_RET_TRACE:
		/* No tracer can attach to a guest here. */
	case SECCOMP_RET_USER_NOTIF:
		/* No listener: seccomp(2) refuses NEW_LISTENER. */
		*ret = -ENOSYS;
		break;
	case SECCOMP_RET_KILL_THREAD:
	case SECCOMP_RET_KILL_PROCESS:
	default:
		/* Any unknown action kills, as in Linux; KILL_THREAD of the last
		 * thread ends the process the same way. */
		log_debug("seccomp: %s of pid %d (%s) at system call %d", action_name(action),
			  t->tid, t->comm, d.nr);
		if (action == SECCOMP_RET_KILL_THREAD)
			task_exit_thread(t, SIGSYS);
		else
			task_exit_group(t, SIGSYS);
		*ret = -ENOSYS;
		return true;
	}
	if (match && match->log)
		log_debug("seccomp: pid %d (%s) system call %d: %s %d", t->tid, t->comm, d.nr,
			  action_name(action), data);
	return true;
}

bool seccomp_syscall32(struct task *t, long *ret)
{
	const struct user_regs_struct *r = &t->cpu.regs;
	/* The platform put the call's arguments where 64-bit ones go. */
	struct syscall_args a = {
		.nr = r->orig_rax,
		.a = {r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9},
	};

	if (__atomic_load_n(&t->seccomp_mode, __ATOMIC_ACQUIRE) == SECCOMP_MODE_DISABLED)
		return false;
	return seccomp_syscall(
		t, (r->orig_rax & X32_SYSCALL_BIT) ? SECCOMP_ARCH_X86_64 : SECCOMP_ARCH_I386, &a,
		ret);
}
