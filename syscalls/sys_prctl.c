/*
 * prctl(2): the options of Linux's kernel/sys.c and the capability ones of
 * security/commoncap.c (with Yama's PR_SET_PTRACER). What x86-64 Linux
 * does not have (unaligned access, FP emulation, endianness, SVE, pointer
 * authentication) is EINVAL as there; what the sandbox cannot offer is an
 * honest error, listed in docs/syscalls.md.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/sched.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <linux/prctl.h>
#include <sched.h>
#include <string.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA	     0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif
#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#define PR_SET_PTRACER_ANY_ ((unsigned long)-1)

/* task->mce_kill bits (PR_MCE_KILL's PF_MCE_PROCESS and PF_MCE_EARLY). */
#define MCE_PROCESS 1u
#define MCE_EARLY   2u

/* The longest name PR_SET_VMA_ANON_NAME takes (ANON_VMA_NAME_MAX_LEN). */
#define ANON_NAME_MAX 80

/* PR_SET_NAME: up to 15 bytes of the string (strncpy_from_user), NUL added. */
static long set_name(struct task *t, uint64_t addr)
{
	char comm[TASK_COMM_LEN] = {0};
	size_t got = mm_copy_in_partial(t->mm, comm, addr, TASK_COMM_LEN - 1);

	if (got < TASK_COMM_LEN - 1 && !memchr(comm, '\0', got))
		return -EFAULT;
	comm[TASK_COMM_LEN - 1] = '\0';
	pthread_mutex_lock(&t->k->lock);
	memset(t->comm, 0, sizeof(t->comm));
	strcpy(t->comm, comm);
	pthread_mutex_unlock(&t->k->lock);
	return 0;
}

static long put_int(struct task *t, uint64_t addr, int v)
{
	return mm_copy_out(t->mm, addr, &v, sizeof(v));
}

/* PR_SET_SECUREBITS: locked bits stay, locks stay, CAP_SETPCAP needed. */
static long set_securebits(struct task *t, unsigned long bits)
{
	struct creds c = t->creds;
	unsigned old = c.securebits;

	if ((((old & SECURE_ALL_LOCKS) >> 1) & (old ^ bits)) || (old & SECURE_ALL_LOCKS & ~bits) ||
	    (bits & ~(unsigned long)(SECURE_ALL_LOCKS | SECURE_ALL_BITS)) ||
	    !creds_own_capable(&c, KCAP_SETPCAP))
		return -EPERM;
	c.securebits = (uint32_t)bits;
	task_commit_creds(t, &c);
	return 0;
}

static long set_keepcaps(struct task *t, unsigned long on)
{
	struct creds c = t->creds;

	if (on > 1)
		return -EINVAL;
	if (c.securebits & (SECBIT_KEEP_CAPS << 1)) /* SECBIT_KEEP_CAPS_LOCKED */
		return -EPERM;
	if (on)
		c.securebits |= SECBIT_KEEP_CAPS;
	else
		c.securebits &= ~SECBIT_KEEP_CAPS;
	task_commit_creds(t, &c);
	return 0;
}

static bool cap_valid(unsigned long cap)
{
	return cap <= CAP_LAST_CAP;
}

static long cap_ambient(struct task *t, unsigned long op, unsigned long cap, unsigned long a4,
			unsigned long a5)
{
	struct creds c = t->creds;

	if (op == PR_CAP_AMBIENT_CLEAR_ALL) {
		if (cap | a4 | a5)
			return -EINVAL;
		c.cap_ambient = 0;
		task_commit_creds(t, &c);
		return 0;
	}
	if (!cap_valid(cap) || a4 || a5)
		return -EINVAL;
	switch (op) {
	case PR_CAP_AMBIENT_IS_SET:
		return !!(c.cap_ambient & CAP_BIT(cap));
	case PR_CAP_AMBIENT_RAISE:
		if (!(c.cap_permitted & CAP_BIT(cap)) || !(c.cap_inheritable & CAP_BIT(cap)) ||
		    (c.securebits & SECBIT_NO_CAP_AMBIENT_RAISE))
			return -EPERM;
		c.cap_ambient |= CAP_BIT(cap);
		break;
	case PR_CAP_AMBIENT_LOWER:
		c.cap_ambient &= ~CAP_BIT(cap);
		break;
	default:
		return -EINVAL;
	}
	task_commit_creds(t, &c);
	return 0;
}

static long capbset_drop(struct task *t, unsigned long cap)
{
	struct creds c = t->creds;

	if (!creds_own_capable(&c, KCAP_SETPCAP))
		return -EPERM;
	if (!cap_valid(cap))
		return -EINVAL;
	c.cap_bounding &= ~CAP_BIT(cap);
	task_commit_creds(t, &c);
	return 0;
}

/* Yama's PR_SET_PTRACER: who may trace us is moot (no guest ptrace yet),
 * but a named tracer must exist. */
static long set_ptracer(struct task *t, unsigned long pid)
{
	struct task *p;

	if (pid == 0 || pid == PR_SET_PTRACER_ANY_ || (int)pid == -1)
		return 0;
	if ((int)pid <= 0)
		return -EINVAL;
	p = kernel_find_task(t->k, pidns_global(t->k, t->pidns, (int)pid));
	if (!p)
		return -EINVAL;
	task_put(p);
	return 0;
}

/*
 * PR_SET_VMA_ANON_NAME (prctl_set_vma): the arguments are checked as Linux
 * does, and the name is accepted but not kept (/proc/pid/maps does not
 * show it).
 */
static long set_vma(struct task *t, unsigned long opt, uint64_t addr, uint64_t len, uint64_t name)
{
	char buf[ANON_NAME_MAX];
	uint64_t alen;

	if (opt != PR_SET_VMA_ANON_NAME)
		return -EINVAL;
	if (name) {
		long n = mm_strncpy_in(t->mm, buf, name, sizeof(buf));
		if (n == -ENAMETOOLONG)
			return -EINVAL;
		if (n < 0)
			return n;
		for (long i = 0; i < n; i++)
			if (!isprint((unsigned char)buf[i]) || strchr("\\`$[]", buf[i]))
				return -EINVAL;
	}
	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	alen = ALIGN_UP(len, PAGE_SIZE);
	if ((len && !alen) || addr + alen < addr)
		return -EINVAL;
	return 0;
}

static long mce_kill(struct task *t, unsigned long op, unsigned long mode)
{
	unsigned flags;

	switch (op) {
	case PR_MCE_KILL_CLEAR:
		if (mode != 0)
			return -EINVAL;
		flags = 0;
		break;
	case PR_MCE_KILL_SET:
		flags = t->mce_kill | MCE_PROCESS;
		if (mode == PR_MCE_KILL_EARLY)
			flags |= MCE_EARLY;
		else if (mode == PR_MCE_KILL_LATE)
			flags &= ~MCE_EARLY;
		else if (mode == PR_MCE_KILL_DEFAULT)
			flags &= ~(MCE_EARLY | MCE_PROCESS);
		else
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	t->mce_kill = flags;
	return 0;
}

SYSCALL(prctl)
{
	int option = (int)a->a[0];
	unsigned long arg2 = a->a[1], arg3 = a->a[2], arg4 = a->a[3], arg5 = a->a[4];
	struct kernel *k = t->k;
	char comm[TASK_COMM_LEN];
	long ret = 0;

	switch (option) {
	case PR_SET_PDEATHSIG:
		if (arg2 > GUEST_NSIG)
			return -EINVAL;
		pthread_mutex_lock(&k->lock);
		t->pdeath_signal = (int)arg2;
		pthread_mutex_unlock(&k->lock);
		return 0;
	case PR_GET_PDEATHSIG:
		return put_int(t, arg2, t->pdeath_signal);
	case PR_GET_DUMPABLE:
		return t->dumpable;
	case PR_SET_DUMPABLE:
		if (arg2 != 0 && arg2 != 1)
			return -EINVAL;
		task_set_dumpable(t, arg2);
		return 0;
	case PR_GET_KEEPCAPS:
		return !!(t->creds.securebits & SECBIT_KEEP_CAPS);
	case PR_SET_KEEPCAPS:
		return set_keepcaps(t, arg2);
	case PR_GET_SECUREBITS:
		return t->creds.securebits;
	case PR_SET_SECUREBITS:
		return set_securebits(t, arg2);
	case PR_CAPBSET_READ:
		if (!cap_valid(arg2))
			return -EINVAL;
		return !!(t->creds.cap_bounding & CAP_BIT(arg2));
	case PR_CAPBSET_DROP:
		return capbset_drop(t, arg2);
	case PR_CAP_AMBIENT:
		return cap_ambient(t, arg2, arg3, arg4, arg5);
	case PR_GET_TIMING:
		return PR_TIMING_STATISTICAL;
	case PR_SET_TIMING:
		return arg2 == PR_TIMING_STATISTICAL ? 0 : -EINVAL;
	case PR_SET_NAME:
		return set_name(t, arg2);
	case PR_GET_NAME:
		pthread_mutex_lock(&k->lock);
		memcpy(comm, t->comm, sizeof(comm));
		pthread_mutex_unlock(&k->lock);
		return mm_copy_out(t->mm, arg2, comm, sizeof(comm));
	case PR_GET_SECCOMP:
	case PR_SET_SECCOMP:
		return seccomp_prctl(t, option, arg2, arg3);
	case PR_GET_TSC:
		return put_int(t, arg2, PR_TSC_ENABLE);
	case PR_SET_TSC:
		/* RDTSC runs natively: it cannot be made to fault. */
		return arg2 == PR_TSC_ENABLE ? 0 : -EINVAL;
	case PR_TASK_PERF_EVENTS_DISABLE:
	case PR_TASK_PERF_EVENTS_ENABLE:
		return 0; /* there are no perf events to switch */
	case PR_GET_TIMERSLACK:
		return (long)sched_timer_slack(&t->sched);
	case PR_SET_TIMERSLACK:
		pthread_mutex_lock(&k->lock);
		if (t->sched.policy != SCHED_FIFO && t->sched.policy != SCHED_RR)
			t->sched.timer_slack_ns =
				arg2 ? arg2 : sched_timer_slack_default(&t->sched);
		pthread_mutex_unlock(&k->lock);
		return 0;
	case PR_MCE_KILL:
		if (arg4 | arg5)
			return -EINVAL;
		return mce_kill(t, arg2, arg3);
	case PR_MCE_KILL_GET:
		if (arg2 | arg3 | arg4 | arg5)
			return -EINVAL;
		if (!(t->mce_kill & MCE_PROCESS))
			return PR_MCE_KILL_DEFAULT;
		return (t->mce_kill & MCE_EARLY) ? PR_MCE_KILL_EARLY : PR_MCE_KILL_LATE;
	case PR_GET_TID_ADDRESS:
		return mm_copy_out(t->mm, arg2, &t->clear_child_tid, sizeof(t->clear_child_tid));
	case PR_SET_CHILD_SUBREAPER:
		pthread_mutex_lock(&k->lock);
		t->tg->subreaper = arg2 != 0;
		pthread_mutex_unlock(&k->lock);
		return 0;
	case PR_GET_CHILD_SUBREAPER:
		return put_int(t, arg2, t->tg->subreaper);
	case PR_SET_NO_NEW_PRIVS:
		if (arg2 != 1 || arg3 || arg4 || arg5)
			return -EINVAL;
		t->no_new_privs = true;
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		if (arg2 || arg3 || arg4 || arg5)
			return -EINVAL;
		return t->no_new_privs;
	case PR_GET_THP_DISABLE:
		if (arg2 || arg3 || arg4 || arg5)
			return -EINVAL;
		return t->mm->thp_disable;
	case PR_SET_THP_DISABLE:
		if (arg3 || arg4 || arg5)
			return -EINVAL;
		t->mm->thp_disable = arg2 != 0;
		return 0;
	case PR_SET_PTRACER:
		return set_ptracer(t, arg2);
	case PR_SET_VMA:
		return set_vma(t, arg2, arg3, arg4, arg5);
	default:
		/* Unknown, not on x86-64 (UNALIGN, FPEMU, FPEXC, ENDIAN, FP_MODE,
		 * SVE, SME, PAC, TAGGED_ADDR, MPX), or not offered: PR_SET_MM,
		 * speculation control, syscall user dispatch, core scheduling,
		 * IO_FLUSHER. */
		ret = -EINVAL;
		break;
	}
	return ret;
}

/* personality: the persona is kept and inherited. The sandbox's layout
 * has no randomization (ADDR_NO_RANDOMIZE holds anyway); PER_LINUX32 does
 * not change what uname reports. */
SYSCALL(personality)
{
	unsigned persona = (unsigned)a->a[0], old = t->tg->personality;

	if (persona != 0xffffffffu)
		t->tg->personality = persona;
	return old;
}
