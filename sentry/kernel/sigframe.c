/*
 * Signal frames (arch/x86/kernel/signal.c and fpu/signal.c in Linux).
 * Guest memory is written through mm_copy_out, so a frame that does not
 * fit (a bad stack pointer, an overflowing alternate stack) is -EFAULT and
 * becomes SIGSEGV, as in Linux.
 */
#include "config.h"
#include "sentry/kernel/sigframe.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define USER_CS 0x33
#define USER_DS 0x2b

#define UC_FP_XSTATE	     0x1
#define UC_SIGCONTEXT_SS     0x2
#define UC_STRICT_RESTORE_SS 0x4

#ifndef FP_XSTATE_MAGIC1
#define FP_XSTATE_MAGIC1 0x46505853u
#endif
#ifndef FP_XSTATE_MAGIC2
#define FP_XSTATE_MAGIC2 0x46505845u
#endif
#ifndef FP_XSTATE_MAGIC2_SIZE
#define FP_XSTATE_MAGIC2_SIZE 4
#endif
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31)
#endif
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
#define FXSAVE_SIZE    512
#define XSAVE_HDR_OFF  512
#define XSAVE_MIN_SIZE 576 /* legacy area + header */
#define XFEATURE_FPSSE 0x3ull

/* The kernel's MINSIGSTKSZ, not glibc's run-time one (sysconf, AT_MINSIGSTKSZ):
 * whether a frame fits is checked as a signal is delivered (SIGSEGV if not). */
#define KERNEL_MINSIGSTKSZ 2048

/* eflags bits a handler's sigreturn may change (FIX_EFLAGS). */
#define EFL_CF 0x1
#define EFL_PF 0x4
#define EFL_AF 0x10
#define EFL_ZF 0x40
#define EFL_SF 0x80
#define EFL_TF 0x100
#define EFL_DF 0x400
#define EFL_OF 0x800
#define EFL_RF 0x10000
#define EFL_AC 0x40000
#define FIX_EFLAGS \
	(EFL_AC | EFL_OF | EFL_DF | EFL_TF | EFL_SF | EFL_ZF | EFL_AF | EFL_PF | EFL_CF | EFL_RF)

/* struct sigcontext, x86-64 (uapi/asm/sigcontext.h). */
struct k_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;
	uint64_t reserved1[8];
};

struct k_stack {
	uint64_t ss_sp;
	int32_t ss_flags;
	int32_t pad;
	uint64_t ss_size;
};

struct k_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct k_stack uc_stack;
	struct k_sigcontext uc_mcontext;
	uint64_t uc_sigmask;
};

struct k_rt_sigframe {
	uint64_t pretcode;
	struct k_ucontext uc;
	siginfo_t info;
};

/* The software bytes in the legacy area's reserved part (offset 464). */
struct fpx_sw_bytes {
	uint32_t magic1;
	uint32_t extended_size;
	uint64_t xfeatures;
	uint32_t xstate_size;
	uint32_t padding[7];
};
#define SW_BYTES_OFF 464

_Static_assert(sizeof(struct k_sigcontext) == 256, "sigcontext layout");
_Static_assert(sizeof(struct k_ucontext) == 304, "ucontext layout");
_Static_assert(sizeof(struct k_rt_sigframe) == 440, "rt_sigframe layout");
_Static_assert(sizeof(struct fpx_sw_bytes) == 48, "fpx_sw_bytes layout");

/* --- the alternate stack --------------------------------------------------------- */

static bool on_altstack_raw(const struct task *t, uint64_t sp)
{
	return sp > (uint64_t)(uintptr_t)t->altstack.ss_sp &&
	       sp - (uint64_t)(uintptr_t)t->altstack.ss_sp <= t->altstack.ss_size;
}

static bool on_altstack(const struct task *t, uint64_t sp)
{
	if (t->altstack.ss_flags & SS_AUTODISARM)
		return false;
	return on_altstack_raw(t, sp);
}

static int altstack_flags(const struct task *t, uint64_t sp)
{
	if (!t->altstack.ss_size)
		return SS_DISABLE;
	return on_altstack(t, sp) ? SS_ONSTACK : 0;
}

int task_sigaltstack(struct task *t, const stack_t *ss, stack_t *oss)
{
	uint64_t sp = task_regs(t)->rsp;

	if (oss) {
		memset(oss, 0, sizeof(*oss));
		oss->ss_sp = t->altstack.ss_sp;
		oss->ss_size = t->altstack.ss_size;
		oss->ss_flags = altstack_flags(t, sp) | (t->altstack.ss_flags & SS_AUTODISARM);
	}
	if (ss) {
		int mode = ss->ss_flags & ~SS_AUTODISARM;
		if (on_altstack(t, sp))
			return -EPERM;
		if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
			return -EINVAL;
		if (mode == SS_DISABLE) {
			t->altstack.ss_sp = NULL;
			t->altstack.ss_size = 0;
			t->altstack.ss_flags = SS_DISABLE;
		} else {
			if (ss->ss_size < KERNEL_MINSIGSTKSZ)
				return -ENOMEM;
			t->altstack.ss_sp = ss->ss_sp;
			t->altstack.ss_size = ss->ss_size;
			t->altstack.ss_flags = ss->ss_flags & SS_AUTODISARM;
		}
	}
	return 0;
}

/* --- FPU state -------------------------------------------------------------------- */

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Write the XSAVE area (size bytes, 64-byte aligned at buf) and its magic. */
static int save_fpstate(struct task *t, uint64_t buf, unsigned size)
{
	uint8_t *fpu = task_fpu(t);
	struct fpx_sw_bytes sw;
	uint8_t *copy;
	uint64_t xfeatures;
	uint32_t magic2 = FP_XSTATE_MAGIC2;
	int ret;

	if (!fpu)
		return -EFAULT;
	copy = xmalloc(size);
	memcpy(copy, fpu, size);
	/* What the platform put in the software bytes names the enabled features. */
	memcpy(&sw, copy + SW_BYTES_OFF, sizeof(sw));
	xfeatures = sw.magic1 == FP_XSTATE_MAGIC1 ? sw.xfeatures : XFEATURE_FPSSE;
	memset(&sw, 0, sizeof(sw));
	sw.magic1 = FP_XSTATE_MAGIC1;
	sw.extended_size = size + FP_XSTATE_MAGIC2_SIZE;
	sw.xfeatures = xfeatures;
	sw.xstate_size = size;
	memcpy(copy + SW_BYTES_OFF, &sw, sizeof(sw));
	/* Legacy programs that edit FP/SSE state without XSAVE know-how rely on
	 * these two bits being set in the header. */
	if (size >= XSAVE_MIN_SIZE) {
		uint64_t bv = rd64(copy + XSAVE_HDR_OFF) | XFEATURE_FPSSE;
		memcpy(copy + XSAVE_HDR_OFF, &bv, sizeof(bv));
	}
	ret = mm_copy_out(t->mm, buf, copy, size);
	if (ret == 0)
		ret = mm_copy_out(t->mm, buf + size, &magic2, sizeof(magic2));
	free(copy);
	return ret;
}

/*
 * Load the FPU state a handler's frame holds at buf (0: none, the initial
 * state), with Linux's checks: an XSAVE image when both magic numbers are
 * right, else just the legacy FXSAVE part; anything the CPU would refuse
 * (reserved header bytes, bad MXCSR bits) is a bad frame.
 */
static int restore_fpstate(struct task *t, uint64_t buf)
{
	unsigned size = t->k->plat->fpu_size;
	uint8_t *fpu = t->cpu.fpu, *cur = task_fpu(t);
	struct fpx_sw_bytes sw;
	uint64_t user_xfeatures = XFEATURE_FPSSE, bv;
	uint32_t mxcsr_mask, magic2;
	bool fx_only = true;

	if (!buf) {
		t->cpu.fpu_reset = true;
		t->cpu.fpu_valid = false;
		t->cpu.fpu_dirty = false;
		return 0;
	}
	if (!cur)
		return -EFAULT;
	memcpy(&sw, cur + SW_BYTES_OFF, sizeof(sw));
	if (sw.magic1 == FP_XSTATE_MAGIC1)
		user_xfeatures = sw.xfeatures;
	mxcsr_mask = rd32(cur + 28);
	if (!mxcsr_mask)
		mxcsr_mask = 0xffbf;

	if (mm_copy_in(t->mm, &sw, buf + SW_BYTES_OFF, sizeof(sw)) < 0)
		return -EFAULT;
	if (sw.magic1 == FP_XSTATE_MAGIC1 && sw.xstate_size >= XSAVE_MIN_SIZE &&
	    sw.xstate_size <= size && sw.xstate_size <= sw.extended_size) {
		if (mm_copy_in(t->mm, &magic2, buf + sw.xstate_size, sizeof(magic2)) < 0)
			return -EFAULT;
		fx_only = magic2 != FP_XSTATE_MAGIC2;
	}
	memset(fpu, 0, size);
	if (fx_only) {
		if (mm_copy_in(t->mm, fpu, buf, FXSAVE_SIZE) < 0)
			return -EFAULT;
		bv = XFEATURE_FPSSE;
	} else {
		if (mm_copy_in(t->mm, fpu, buf, sw.xstate_size) < 0)
			return -EFAULT;
		/* The header: XSTATE_BV limited to what the frame asks and the CPU
		 * has; compaction and reserved bytes must be zero. */
		if (rd64(fpu + XSAVE_HDR_OFF + 8))
			return -EFAULT;
		for (unsigned i = XSAVE_HDR_OFF + 16; i < XSAVE_MIN_SIZE; i++)
			if (fpu[i])
				return -EFAULT;
		bv = rd64(fpu + XSAVE_HDR_OFF) & sw.xfeatures & user_xfeatures;
	}
	if (rd32(fpu + 24) & ~mxcsr_mask)
		return -EFAULT; /* FXRSTOR would raise #GP */
	memset(fpu + SW_BYTES_OFF, 0, sizeof(sw));
	memset(fpu + XSAVE_HDR_OFF, 0, XSAVE_MIN_SIZE - XSAVE_HDR_OFF);
	memcpy(fpu + XSAVE_HDR_OFF, &bv, sizeof(bv));
	t->cpu.fpu_valid = true;
	t->cpu.fpu_dirty = true;
	return 0;
}

/* --- frames ------------------------------------------------------------------------ */

int sigframe_setup(struct task *t, int sig, const siginfo_t *info, const struct k_sigaction *ka,
		   uint64_t oldmask)
{
	struct user_regs_struct *r = task_regs(t);
	unsigned fpsize = t->k->plat->fpu_size;
	bool nested = on_altstack(t, r->rsp), entering = false;
	struct k_rt_sigframe f;
	uint64_t sp = r->rsp, fpstate, frame;

	/* x86-64 handlers return through their sa_restorer (glibc sets it). */
	if (!(ka->flags & SA_RESTORER))
		return -EFAULT;
	sp -= 128; /* the red zone */
	if ((ka->flags & SA_ONSTACK) && altstack_flags(t, sp) == 0) {
		sp = (uint64_t)(uintptr_t)t->altstack.ss_sp + t->altstack.ss_size;
		entering = true;
	}
	fpstate = ALIGN_DOWN(sp - (fpsize + FP_XSTATE_MAGIC2_SIZE), 64);
	frame = ALIGN_DOWN(fpstate - sizeof(f), 16) - 8;
	if ((nested || entering) && !on_altstack_raw(t, frame))
		return -EFAULT; /* the alternate stack would overflow */
	if (save_fpstate(t, fpstate, fpsize) < 0)
		return -EFAULT;

	memset(&f, 0, sizeof(f));
	f.pretcode = ka->restorer;
	f.uc.uc_flags = UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	f.uc.uc_stack.ss_sp = (uint64_t)(uintptr_t)t->altstack.ss_sp;
	f.uc.uc_stack.ss_size = t->altstack.ss_size;
	f.uc.uc_stack.ss_flags = altstack_flags(t, r->rsp) | (t->altstack.ss_flags & SS_AUTODISARM);
	f.uc.uc_mcontext = (struct k_sigcontext){
		.r8 = r->r8,
		.r9 = r->r9,
		.r10 = r->r10,
		.r11 = r->r11,
		.r12 = r->r12,
		.r13 = r->r13,
		.r14 = r->r14,
		.r15 = r->r15,
		.rdi = r->rdi,
		.rsi = r->rsi,
		.rbp = r->rbp,
		.rbx = r->rbx,
		.rdx = r->rdx,
		.rax = r->rax,
		.rcx = r->rcx,
		.rsp = r->rsp,
		.rip = r->rip,
		.eflags = r->eflags,
		.cs = (uint16_t)r->cs,
		.ss = (uint16_t)r->ss,
		.err = t->fault_err,
		.trapno = t->fault_trapno,
		.oldmask = oldmask,
		.cr2 = t->fault_cr2,
		.fpstate = fpstate,
	};
	f.uc.uc_sigmask = oldmask;
	if (ka->flags & SA_SIGINFO)
		f.info = *info;
	/* Without SA_SIGINFO Linux leaves the siginfo slot as the stack had it. */
	if (mm_copy_out(t->mm, frame, &f,
			(ka->flags & SA_SIGINFO) ? sizeof(f)
						 : offsetof(struct k_rt_sigframe, info)) < 0)
		return -EFAULT;
	if (t->altstack.ss_flags & SS_AUTODISARM) {
		t->altstack.ss_sp = NULL;
		t->altstack.ss_size = 0;
		t->altstack.ss_flags = SS_DISABLE;
	}

	r->rdi = (uint64_t)sig;
	r->rax = 0;
	r->rsi = frame + offsetof(struct k_rt_sigframe, info);
	r->rdx = frame + offsetof(struct k_rt_sigframe, uc);
	r->rip = ka->handler;
	r->rsp = frame;
	r->cs = USER_CS;
	r->ss = USER_DS;
	r->eflags &= ~(uint64_t)(EFL_DF | EFL_RF | EFL_TF);
	task_regs_dirty(t, CPU_DIRTY_ALL);
	/* The handler starts with a clean FPU. */
	t->cpu.fpu_reset = true;
	t->cpu.fpu_valid = false;
	t->cpu.fpu_dirty = false;
	t->fault_err = t->fault_trapno = t->fault_cr2 = 0;
	return 0;
}

int sigframe_restore(struct task *t)
{
	struct user_regs_struct *r = task_regs(t);
	uint64_t frame = r->rsp - 8;
	struct k_ucontext uc;
	const struct k_sigcontext *sc = &uc.uc_mcontext;
	stack_t ss;

	if (mm_copy_in(t->mm, &uc, frame + offsetof(struct k_rt_sigframe, uc), sizeof(uc)) < 0)
		return -EFAULT;
	task_set_sigmask(t, uc.uc_sigmask);
	r->r8 = sc->r8;
	r->r9 = sc->r9;
	r->r10 = sc->r10;
	r->r11 = sc->r11;
	r->r12 = sc->r12;
	r->r13 = sc->r13;
	r->r14 = sc->r14;
	r->r15 = sc->r15;
	r->rdi = sc->rdi;
	r->rsi = sc->rsi;
	r->rbp = sc->rbp;
	r->rbx = sc->rbx;
	r->rdx = sc->rdx;
	r->rax = sc->rax;
	r->rcx = sc->rcx;
	r->rsp = sc->rsp;
	r->rip = sc->rip;
	/* Only user segments (RPL 3), and only the flags a program may set. */
	r->cs = sc->cs | 3;
	r->ss = sc->ss | 3;
	if (!(uc.uc_flags & UC_STRICT_RESTORE_SS) && r->cs == USER_CS)
		r->ss = USER_DS;
	r->eflags = (r->eflags & ~(uint64_t)FIX_EFLAGS) | (sc->eflags & FIX_EFLAGS);
	r->orig_rax = (uint64_t)-1;
	task_regs_dirty(t, CPU_DIRTY_ALL);
	t->syscall_nr = -1; /* the restored rax is never a restart request */
	t->restart.fn = NULL;
	if (restore_fpstate(t, sc->fpstate) < 0)
		return -EFAULT;
	/* The alternate stack as the frame recorded it (errors but EFAULT ignored). */
	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = (void *)(uintptr_t)uc.uc_stack.ss_sp;
	ss.ss_size = uc.uc_stack.ss_size;
	ss.ss_flags = uc.uc_stack.ss_flags;
	task_sigaltstack(t, &ss, NULL);
	return 0;
}
