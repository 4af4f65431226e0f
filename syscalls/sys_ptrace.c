/*
 * ptrace(2): attaching (TRACEME, ATTACH, SEIZE) and the requests a tracer
 * makes of a stopped tracee: memory, registers, FPU state, siginfo, event
 * messages, options, and resuming (CONT, SYSCALL, SINGLESTEP, SYSEMU,
 * LISTEN, DETACH, KILL, INTERRUPT). The stops themselves and the tracer's
 * wait are sentry/kernel/ptrace.c.
 *
 * The tracee is stopped on its own thread while the tracer reads and writes
 * its task->cpu (read in full before it stopped); memory is the tracee's mm,
 * written as FOLL_FORCE does (a private read-only page gets its own copy).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/ptrace.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <asm/prctl.h>
#include <elf.h>
#include <errno.h>
#include <linux/audit.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#define OPTIONS_MASK \
	0x3000ffu /* PTRACE_O_TRACESYSGOOD .. TRACESECCOMP, EXITKILL, SUSPEND_SECCOMP */
#define FXSAVE_SIZE	512
#define SW_RESERVED_OFF 464
#define USER_SIZE	sizeof(struct user)
#define DEBUGREG_OFF	offsetof(struct user, u_debugreg)
/* The flags a tracer may change (Linux's FLAG_MASK). */
#define EFLAGS_USER 0x54dd5ull

static bool valid_signal(uint64_t sig)
{
	return sig <= GUEST_NSIG;
}

/* --- attaching -------------------------------------------------------------------- */

static long traceme(struct task *t)
{
	struct kernel *k = t->k;
	struct thread_group *parent;
	struct task *tracer;
	long ret = 0;

	pthread_mutex_lock(&k->lock);
	parent = t->tg->parent;
	tracer = !parent ? NULL
		 : parent->leader && !parent->leader->exited
			 ? parent->leader
			 : list_first_entry_or_null(&parent->threads, struct task, tg_node);
	if (t->pt.tracer || !tracer)
		ret = -EPERM;
	else
		ptrace_link_locked(tracer, t, 0);
	pthread_mutex_unlock(&k->lock);
	return ret;
}

static long attach(struct task *t, int pid, bool seize, uint64_t addr, uint64_t data)
{
	struct kernel *k = t->k;
	struct task *p;
	long ret = 0;

	if (seize && (addr || (data & ~(uint64_t)OPTIONS_MASK)))
		return addr ? -EIO : -EINVAL;
	if (seize && (data & PTRACE_O_SUSPEND_SECCOMP))
		return -EPERM;
	pthread_mutex_lock(&k->lock);
	p = pid > 0 ? kernel_find_task_locked(k, pid) : NULL;
	if (!p || p->exited)
		ret = -ESRCH;
	else if (p->tg == t->tg || p->pt.tracer || (p->tg->flags & TG_EXITING))
		ret = -EPERM;
	else if (!creds_may_attach(&t->creds, &p->creds, p->dumpable) || !landlock_may_ptrace(t, p))
		ret = -EPERM;
	if (ret == 0) {
		ptrace_link_locked(t, p, seize ? PT_SEIZED | (unsigned)data : 0);
		if (!seize) {
			siginfo_t info;
			siginfo_kernel(&info, SIGSTOP);
			signal_send_locked(p, &info, true);
		}
		/* Already stopped: it goes into a ptrace stop at once. */
		if ((p->tg->flags & TG_STOPPED) || p->tg->stop_pending) {
			p->pt.trap_pending = true;
			task_set_work(p, WORK_SIGNAL);
		}
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* --- memory ------------------------------------------------------------------------- */

struct poke {
	uint64_t addr, word;
};

/* On the tracee's thread: a new copy of the page may have to be mapped. */
static long do_poke(struct task *p, void *arg)
{
	struct poke *pk = arg;

	if (!p->mm)
		return -EIO;
	return mm_access_force(p->mm, pk->addr, &pk->word, 8, true) == 8 ? 0 : -EIO;
}

static long peek(struct task *t, struct task *p, uint64_t addr, uint64_t data)
{
	uint64_t word;
	struct mm *mm;
	size_t n;

	pthread_mutex_lock(&t->k->lock);
	mm = p->mm ? mm_get(p->mm) : NULL;
	pthread_mutex_unlock(&t->k->lock);
	if (!mm)
		return -EIO;
	n = mm_access_force(mm, addr, &word, 8, false);
	mm_put(mm);
	if (n != 8)
		return -EIO;
	return mm_copy_out(t->mm, data, &word, 8) ? -EFAULT : 0;
}

/* --- registers ---------------------------------------------------------------------- */

#define REG(name) (offsetof(struct user_regs_struct, name) / 8)

/* Store v as register number i of r the way Linux's putreg checks it. */
#define NREGS (sizeof(struct user_regs_struct) / 8)

static int put_reg(uint64_t *w, unsigned i, uint64_t v)
{
	switch (i) {
	case REG(cs):
	case REG(ss):
	case REG(ds):
	case REG(es):
	case REG(fs):
	case REG(gs):
		/* No other segments here: only the values they have. */
		return v == w[i] ? 0 : -EIO;
	case REG(fs_base):
	case REG(gs_base):
		if (v >= HOST_TASK_SIZE)
			return -EIO;
		break;
	case REG(rip):
		if (v >= HOST_TASK_SIZE)
			return -EIO;
		break;
	case REG(eflags):
		v = (w[i] & ~EFLAGS_USER) | (v & EFLAGS_USER);
		break;
	default:
		break;
	}
	w[i] = v;
	return 0;
}

static int set_regs(struct task *p, const struct user_regs_struct *in, size_t len)
{
	uint64_t w[NREGS], v[NREGS];

	memcpy(w, &p->cpu.regs, sizeof(w));
	memcpy(v, in, sizeof(v));
	for (unsigned i = 0; i < len / 8 && i < NREGS; i++)
		if (put_reg(w, i, v[i]) < 0)
			return -EIO;
	memcpy(&p->cpu.regs, w, sizeof(w));
	task_regs_dirty(p, CPU_DIRTY_ALL);
	return 0;
}

/* Debug registers: kept, never armed (no hardware breakpoints here). */
static uint64_t *debugregs(struct task *p)
{
	return p->pt.debugreg;
}

static long peek_user(struct task *t, struct task *p, uint64_t addr, uint64_t data)
{
	uint64_t v = 0;

	if (addr % 8 || addr >= USER_SIZE)
		return -EIO;
	if (addr < sizeof(struct user_regs_struct))
		memcpy(&v, (const uint8_t *)&p->cpu.regs + addr, 8);
	else if (addr >= DEBUGREG_OFF && addr < DEBUGREG_OFF + 64)
		v = debugregs(p)[(addr - DEBUGREG_OFF) / 8];
	return mm_copy_out(t->mm, data, &v, 8) ? -EFAULT : 0;
}

static long poke_user(struct task *p, uint64_t addr, uint64_t data)
{
	if (addr % 8 || addr >= USER_SIZE)
		return -EIO;
	if (addr < sizeof(struct user_regs_struct)) {
		uint64_t w[NREGS];
		memcpy(w, &p->cpu.regs, sizeof(w));
		if (put_reg(w, (unsigned)(addr / 8), data) < 0)
			return -EIO;
		memcpy(&p->cpu.regs, w, sizeof(w));
		task_regs_dirty(p, CPU_DIRTY_ALL);
		return 0;
	}
	if (addr >= DEBUGREG_OFF && addr < DEBUGREG_OFF + 64) {
		unsigned n = (unsigned)((addr - DEBUGREG_OFF) / 8);
		if (n == 4 || n == 5)
			return -EIO;
		/* Kept but never armed: enabling a hardware breakpoint fails. */
		if (n == 7 && (data & 0xff))
			return -EIO;
		if (n < 4 && data >= HOST_TASK_SIZE)
			return -EIO;
		debugregs(p)[n] = data;
		return 0;
	}
	return -EIO;
}

/* The XCR0 a tracer reads in the FXSAVE area's software bytes (gdb's
 * target description comes from it). */
static uint64_t xcr0(struct task *p)
{
	uint32_t lo, hi;

	if (p->k->plat->fpu_size <= FXSAVE_SIZE)
		return 3;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* The tracee's FPU state as ptrace shows it, size bytes of it. */
static int fpu_get(struct task *p, uint8_t *out, size_t size)
{
	uint8_t *fpu = task_fpu(p);
	uint64_t x = xcr0(p);

	if (!fpu)
		return -EIO;
	memcpy(out, fpu, size);
	if (size >= FXSAVE_SIZE) {
		memset(out + SW_RESERVED_OFF, 0, FXSAVE_SIZE - SW_RESERVED_OFF);
		memcpy(out + SW_RESERVED_OFF, &x, 8);
	}
	return 0;
}

/* Change the first size bytes of the FPU state (the software bytes stay). */
static int fpu_set(struct task *p, const uint8_t *in, size_t size)
{
	uint8_t *fpu = task_fpu(p);
	uint8_t sw[FXSAVE_SIZE - SW_RESERVED_OFF];
	uint32_t mxcsr;

	if (!fpu)
		return -EIO;
	if (size >= 28) {
		memcpy(&mxcsr, in + 24, 4);
		if (mxcsr & 0xffff0000u)
			return -EINVAL;
	}
	if (size > FXSAVE_SIZE) {
		/* The XSAVE header: standard format, reserved bytes zero. */
		for (size_t i = FXSAVE_SIZE + 8; i < FXSAVE_SIZE + 64 && i < size; i++)
			if (in[i])
				return -EINVAL;
	}
	memcpy(sw, fpu + SW_RESERVED_OFF, sizeof(sw));
	memcpy(fpu, in, size);
	memcpy(fpu + SW_RESERVED_OFF, sw, sizeof(sw));
	if (p->k->plat->fpu_size > FXSAVE_SIZE) {
		uint64_t bv;
		memcpy(&bv, fpu + FXSAVE_SIZE, 8);
		if (size <= FXSAVE_SIZE)
			bv |= 3; /* the legacy area's x87 and SSE state now count */
		bv &= xcr0(p);
		memcpy(fpu + FXSAVE_SIZE, &bv, 8);
	}
	p->cpu.fpu_valid = true;
	p->cpu.fpu_dirty = true;
	return 0;
}

static long regset(struct task *t, struct task *p, uint64_t type, uint64_t uiov, bool set)
{
	struct iovec iov;
	uint8_t buf[sizeof(struct user_regs_struct)];
	size_t size, len;
	uint8_t *big = NULL;
	long ret = 0;

	if (mm_copy_in(t->mm, &iov, uiov, sizeof(iov)))
		return -EFAULT;
	switch (type) {
	case NT_PRSTATUS:
		size = sizeof(struct user_regs_struct);
		break;
	case NT_PRFPREG:
		size = FXSAVE_SIZE;
		break;
	case NT_X86_XSTATE:
		if (p->k->plat->fpu_size <= FXSAVE_SIZE)
			return -ENODEV;
		size = p->k->plat->fpu_size;
		break;
	default:
		return -EINVAL;
	}
	len = MIN(iov.iov_len, size);
	/* As Linux: no partial or oversized FPU writes. */
	if (set && type == NT_PRFPREG && iov.iov_len != size)
		return -EINVAL;
	if (set && type == NT_X86_XSTATE && iov.iov_len != size)
		return -EFAULT;
	if (type == NT_PRSTATUS) {
		if (set) {
			memcpy(buf, &p->cpu.regs, sizeof(buf));
			if (mm_copy_in(t->mm, buf, (uint64_t)(uintptr_t)iov.iov_base, len))
				return -EFAULT;
			ret = set_regs(p, (struct user_regs_struct *)buf, len - len % 8);
		} else if (mm_copy_out(t->mm, (uint64_t)(uintptr_t)iov.iov_base, &p->cpu.regs,
				       len)) {
			return -EFAULT;
		}
	} else {
		big = xmalloc(size);
		ret = fpu_get(p, big, size);
		if (ret == 0 && set) {
			if (mm_copy_in(t->mm, big, (uint64_t)(uintptr_t)iov.iov_base, len))
				ret = -EFAULT;
			else
				ret = fpu_set(p, big, len);
		} else if (ret == 0 &&
			   mm_copy_out(t->mm, (uint64_t)(uintptr_t)iov.iov_base, big, len)) {
			ret = -EFAULT;
		}
		free(big);
	}
	if (ret == 0 && !set && len != iov.iov_len) {
		iov.iov_len = len;
		if (mm_copy_out(t->mm, uiov, &iov, sizeof(iov)))
			ret = -EFAULT;
	}
	return ret;
}

/* --- the rest ------------------------------------------------------------------------ */

static long syscall_info(struct task *t, struct task *p, uint64_t size, uint64_t data)
{
	struct __ptrace_syscall_info si;
	const struct user_regs_struct *r = &p->cpu.regs;
	size_t actual = offsetof(struct __ptrace_syscall_info, entry);

	memset(&si, 0, sizeof(si));
	si.arch = AUDIT_ARCH_X86_64;
	si.instruction_pointer = r->rip;
	si.stack_pointer = r->rsp;
	if (p->pt.kind == PTS_SYSCALL_ENTRY) {
		si.op = PTRACE_SYSCALL_INFO_ENTRY;
		si.entry.nr = r->orig_rax;
		si.entry.args[0] = r->rdi;
		si.entry.args[1] = r->rsi;
		si.entry.args[2] = r->rdx;
		si.entry.args[3] = r->r10;
		si.entry.args[4] = r->r8;
		si.entry.args[5] = r->r9;
		actual = offsetof(struct __ptrace_syscall_info, entry.args) + sizeof(si.entry.args);
	} else if (p->pt.kind == PTS_SYSCALL_EXIT) {
		si.op = PTRACE_SYSCALL_INFO_EXIT;
		si.exit.rval = (int64_t)r->rax;
		si.exit.is_error = (int64_t)r->rax < 0 && (int64_t)r->rax >= -4095;
		actual = offsetof(struct __ptrace_syscall_info, exit.is_error) +
			 sizeof(si.exit.is_error);
	}
	if (mm_copy_out(t->mm, data, &si, MIN(size, actual)))
		return -EFAULT;
	return (long)actual;
}

static long arch_prctl(struct task *t, struct task *p, uint64_t code, uint64_t addr)
{
	struct user_regs_struct *r = &p->cpu.regs;

	switch (code) {
	case ARCH_GET_FS:
		return mm_copy_out(t->mm, addr, &r->fs_base, 8) ? -EFAULT : 0;
	case ARCH_GET_GS:
		return mm_copy_out(t->mm, addr, &r->gs_base, 8) ? -EFAULT : 0;
	case ARCH_SET_FS:
	case ARCH_SET_GS:
		if (addr >= HOST_TASK_SIZE)
			return -EPERM;
		if (code == ARCH_SET_FS)
			r->fs_base = addr;
		else
			r->gs_base = addr;
		task_regs_dirty(p, CPU_DIRTY_ALL);
		return 0;
	default:
		return -EINVAL;
	}
}

static enum ptrace_mode resume_mode(long req)
{
	switch (req) {
	case PTRACE_SYSCALL:
		return PTM_SYSCALL;
	case PTRACE_SINGLESTEP:
		return PTM_SINGLESTEP;
	case PTRACE_SYSEMU:
		return PTM_SYSEMU;
	case PTRACE_SYSEMU_SINGLESTEP:
		return PTM_SYSEMU_SINGLESTEP;
	default:
		return PTM_CONT;
	}
}

/* Requests that need the tracee stopped, k->lock held by the caller for
 * the resuming ones. */
static long stopped_request(struct task *t, struct task *p, long req, uint64_t addr, uint64_t data)
{
	struct kernel *k = t->k;
	long ret = 0;

	switch (req) {
	case PTRACE_PEEKTEXT:
	case PTRACE_PEEKDATA:
		return peek(t, p, addr, data);
	case PTRACE_POKETEXT:
	case PTRACE_POKEDATA: {
		struct poke pk = {.addr = addr, .word = data};
		return ptrace_tracee_call(t, p, do_poke, &pk);
	}
	case PTRACE_PEEKUSER:
		return peek_user(t, p, addr, data);
	case PTRACE_POKEUSER:
		return poke_user(p, addr, data);
	case PTRACE_GETREGS:
		return mm_copy_out(t->mm, data, &p->cpu.regs, sizeof(p->cpu.regs)) ? -EFAULT : 0;
	case PTRACE_SETREGS: {
		struct user_regs_struct r = {0};
		if (mm_copy_in(t->mm, &r, data, sizeof(r)))
			return -EFAULT;
		return set_regs(p, &r, sizeof(r));
	}
	case PTRACE_GETFPREGS: {
		uint8_t fx[FXSAVE_SIZE];
		ret = fpu_get(p, fx, sizeof(fx));
		if (ret == 0 && mm_copy_out(t->mm, data, fx, sizeof(fx)))
			ret = -EFAULT;
		return ret;
	}
	case PTRACE_SETFPREGS: {
		uint8_t fx[FXSAVE_SIZE];
		if (mm_copy_in(t->mm, fx, data, sizeof(fx)))
			return -EFAULT;
		return fpu_set(p, fx, sizeof(fx));
	}
	case PTRACE_GETREGSET:
	case PTRACE_SETREGSET:
		return regset(t, p, addr, data, req == PTRACE_SETREGSET);
	case PTRACE_GETSIGINFO:
		if (!p->pt.has_info)
			return -EINVAL;
		return mm_copy_out(t->mm, data, &p->pt.info, sizeof(p->pt.info)) ? -EFAULT : 0;
	case PTRACE_SETSIGINFO: {
		siginfo_t si;
		if (mm_copy_in(t->mm, &si, data, sizeof(si)))
			return -EFAULT;
		pthread_mutex_lock(&k->lock);
		if (!p->pt.has_info)
			ret = -EINVAL;
		else
			p->pt.info = si;
		pthread_mutex_unlock(&k->lock);
		return ret;
	}
	case PTRACE_GETEVENTMSG:
		return mm_copy_out(t->mm, data, &p->pt.msg, 8) ? -EFAULT : 0;
	case PTRACE_SETOPTIONS:
		if (data & ~(uint64_t)OPTIONS_MASK)
			return -EINVAL;
		if (data & PTRACE_O_SUSPEND_SECCOMP)
			return -EPERM;
		pthread_mutex_lock(&k->lock);
		p->pt.flags = (p->pt.flags & ~PT_OPTIONS) | (unsigned)data;
		pthread_mutex_unlock(&k->lock);
		return 0;
	case PTRACE_GETSIGMASK:
		if (addr != 8)
			return -EINVAL;
		return mm_copy_out(t->mm, data, &p->sigmask, 8) ? -EFAULT : 0;
	case PTRACE_SETSIGMASK: {
		uint64_t m;
		if (addr != 8)
			return -EINVAL;
		if (mm_copy_in(t->mm, &m, data, 8))
			return -EFAULT;
		task_set_sigmask(p, m);
		return 0;
	}
	case PTRACE_GET_SYSCALL_INFO:
		return syscall_info(t, p, addr, data);
	case PTRACE_ARCH_PRCTL:
		return arch_prctl(t, p, data, addr);
	case PTRACE_CONT:
	case PTRACE_SYSCALL:
	case PTRACE_SINGLESTEP:
	case PTRACE_SYSEMU:
	case PTRACE_SYSEMU_SINGLESTEP:
		if (!valid_signal(data))
			return -EIO;
		pthread_mutex_lock(&k->lock);
		if (p->pt.stopped)
			ptrace_resume_locked(p, resume_mode(req), (int)data);
		pthread_mutex_unlock(&k->lock);
		return 0;
	case PTRACE_DETACH:
		if (!valid_signal(data))
			return -EIO;
		pthread_mutex_lock(&k->lock);
		if (p->pt.tracer == t)
			ptrace_unlink_locked(p, (int)data);
		pthread_mutex_unlock(&k->lock);
		return 0;
	case PTRACE_LISTEN:
		pthread_mutex_lock(&k->lock);
		if (!(p->pt.flags & PT_SEIZED) || !p->pt.has_info ||
		    (p->pt.info.si_code >> 8) != PTRACE_EVENT_STOP)
			ret = -EIO;
		else if (p->pt.stopped && p->pt.trap_notify)
			ptrace_retrap_locked(p);
		else if (p->pt.stopped) {
			p->pt.listening = true;
			p->pt.waitable = false;
		}
		pthread_mutex_unlock(&k->lock);
		return ret;
	default:
		return -EIO;
	}
}

SYSCALL(ptrace)
{
	long req = (long)a->a[0];
	int pid = (int)a->a[1];
	uint64_t addr = a->a[2], data = a->a[3];
	struct kernel *k = t->k;
	struct task *p;
	long ret = 0;

	if (req == PTRACE_TRACEME)
		return traceme(t);
	if (req == PTRACE_ATTACH || req == PTRACE_SEIZE)
		return attach(t, pid, req == PTRACE_SEIZE, addr, data);

	pthread_mutex_lock(&k->lock);
	p = pid > 0 ? kernel_find_task_locked(k, pid) : NULL;
	if (!p || p->pt.tracer != t) {
		pthread_mutex_unlock(&k->lock);
		return -ESRCH;
	}
	if (req == PTRACE_KILL) {
		siginfo_t info;
		siginfo_kernel(&info, SIGKILL);
		signal_send_locked(p, &info, true);
		pthread_mutex_unlock(&k->lock);
		return 0;
	}
	if (req == PTRACE_INTERRUPT) {
		if (!(p->pt.flags & PT_SEIZED)) {
			ret = -EIO;
		} else if (p->pt.stopped && p->pt.listening) {
			ptrace_retrap_locked(p);
		} else {
			p->pt.trap_pending = true;
			task_set_work(p, WORK_SIGNAL);
		}
		pthread_mutex_unlock(&k->lock);
		return ret;
	}
	if (!p->pt.stopped) {
		pthread_mutex_unlock(&k->lock);
		return -ESRCH;
	}
	task_get(p);
	pthread_mutex_unlock(&k->lock);
	ret = stopped_request(t, p, req, addr, data);
	task_put(p);
	return ret;
}
