/*
 * The systrap stub's seccomp filters (see filter.h), written with a small
 * label assembler so that every rule reads top to bottom.
 *
 * The stub filter (every thread of a stub process), for calls from the
 * stub's code:
 *   futex          FUTEX_WAIT or FUTEX_WAKE (shared), on a word in the slots
 *   rt_sigreturn, sched_yield, exit
 *   arch_prctl     ARCH_{GET,SET}_{FS,GS} (hosts without FSGSBASE)
 *   mmap           MAP_SHARED|MAP_FIXED of the guest memory file below
 *                  GUEST_MAX_ADDR, or of the slot file into the slots
 *                  (never executable)
 *   munmap         the injector's; and the stub's own start
 *   mprotect       the injector's (copy-on-write), below GUEST_MAX_ADDR
 *   clone          exactly SYSTRAP_CLONE_FLAGS (a thread)
 *   write          to the injector's pipe
 *   sigaltstack, prctl(PR_SET_SYSCALL_USER_DISPATCH),
 *   seccomp(SECCOMP_SET_MODE_FILTER, no flags)   a new thread's start
 * The guest filter (guest threads, on top) allows only the first four
 * lines. Anything else from the stub's code kills the process; anything
 * from elsewhere traps (SIGSYS to the stub's handler, then the sentry).
 */
#include "config.h"
#include "platform/systrap/filter.h"
#include "platform/systrap/layout.h"
#include "platform/platform.h"
#include "lib/util.h"

#include <asm/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif

#define X32_SYSCALL_BIT 0x40000000u

#define OFF_NR	      offsetof(struct seccomp_data, nr)
#define OFF_ARCH      offsetof(struct seccomp_data, arch)
#define OFF_IP_LO     offsetof(struct seccomp_data, instruction_pointer)
#define OFF_IP_HI     (OFF_IP_LO + 4)
#define OFF_ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#define OFF_ARG_HI(n) (OFF_ARG_LO(n) + 4)

/* Jump targets: the returns, and the rule blocks. NEXT falls through. */
enum label {
	NEXT = -1,
	L_KILL,
	L_TRAP,
	L_ALLOW,
	L_FUTEX,
	L_FUTEX_ADDR,
	L_ARCH,
	L_MMAP,
	L_MMAP_GUEST,
	L_MMAP_SLOT,
	L_MPROTECT,
	L_CLONE,
	L_WRITE,
	L_PRCTL,
	L_SECCOMP,
	NLABELS,
};

struct prog {
	struct sock_filter insn[SYSTRAP_FILTER_MAX];
	signed char jt[SYSTRAP_FILTER_MAX], jf[SYSTRAP_FILTER_MAX];
	int at[NLABELS];
	unsigned n;
	bool overflow;
};

static void emit(struct prog *p, struct sock_filter f, int jt, int jf)
{
	if (p->n == SYSTRAP_FILTER_MAX) {
		p->overflow = true;
		return;
	}
	p->insn[p->n] = f;
	p->jt[p->n] = (signed char)jt;
	p->jf[p->n] = (signed char)jf;
	p->n++;
}

static void ld(struct prog *p, uint32_t off)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off), NEXT, NEXT);
}

static void jeq(struct prog *p, uint32_t k, int t, int f)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0), t, f);
}

static void jge(struct prog *p, uint32_t k, int t, int f)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, k, 0, 0), t, f);
}

static void jset(struct prog *p, uint32_t k, int t, int f)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, k, 0, 0), t, f);
}

static void ret(struct prog *p, uint32_t k)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, k), NEXT, NEXT);
}

static void label(struct prog *p, enum label l)
{
	p->at[l] = (int)p->n;
}

/* Resolve the labels into relative offsets; 0 if anything does not fit. */
static unsigned short finish(struct prog *p, struct sock_filter *out)
{
	if (p->overflow)
		return 0;
	for (unsigned i = 0; i < p->n; i++) {
		struct sock_filter f = p->insn[i];
		if (BPF_CLASS(f.code) == BPF_JMP) {
			int t = p->jt[i] == NEXT ? (int)i + 1 : p->at[(int)p->jt[i]];
			int e = p->jf[i] == NEXT ? (int)i + 1 : p->at[(int)p->jf[i]];
			if (t <= (int)i || e <= (int)i || t - (int)i - 1 > 255 ||
			    e - (int)i - 1 > 255)
				return 0;
			f.jt = (uint8_t)(t - (int)i - 1);
			f.jf = (uint8_t)(e - (int)i - 1);
		}
		out[i] = f;
	}
	return (unsigned short)p->n;
}

static void prog_init(struct prog *p)
{
	p->n = 0;
	p->overflow = false;
	for (int i = 0; i < NLABELS; i++)
		p->at[i] = -1;
}

/* The common head: x86-64 only, no x32; calls from outside the stub code
 * trap; A is left holding the system call number. */
static void head(struct prog *p, const struct systrap_filter_params *sp)
{
	uint32_t hi = (uint32_t)(sp->text >> 32), lo = (uint32_t)sp->text;

	ld(p, OFF_ARCH);
	jeq(p, AUDIT_ARCH_X86_64, NEXT, L_KILL);
	ld(p, OFF_NR);
	jset(p, X32_SYSCALL_BIT, L_KILL, NEXT);
	ld(p, OFF_IP_HI);
	jeq(p, hi, NEXT, L_TRAP);
	ld(p, OFF_IP_LO);
	jge(p, lo, NEXT, L_TRAP);
	jge(p, lo + STUB_TEXT_SIZE, L_TRAP, NEXT);
	ld(p, OFF_NR);
}

/* The rules both filters share: futex on the slots, rt_sigreturn,
 * sched_yield, exit, arch_prctl of the fs and gs bases; other numbers go
 * to otherwise. */
static void shared_rules(struct prog *p, int otherwise)
{
	jeq(p, SYS_futex, L_FUTEX, NEXT);
	jeq(p, SYS_rt_sigreturn, L_ALLOW, NEXT);
	jeq(p, SYS_sched_yield, L_ALLOW, NEXT);
	jeq(p, SYS_exit, L_ALLOW, NEXT);
	jeq(p, SYS_arch_prctl, L_ARCH, otherwise);
}

static void shared_blocks(struct prog *p, const struct systrap_filter_params *sp)
{
	uint32_t hi = (uint32_t)(sp->data >> 32), lo = (uint32_t)sp->data;

	/* futex(uaddr, op, ...): op is an int; only the two plain operations. */
	label(p, L_FUTEX);
	ld(p, OFF_ARG_LO(1));
	jeq(p, FUTEX_WAIT, L_FUTEX_ADDR, NEXT);
	jeq(p, FUTEX_WAKE, L_FUTEX_ADDR, L_KILL);
	label(p, L_FUTEX_ADDR);
	ld(p, OFF_ARG_HI(0));
	jeq(p, hi, NEXT, L_KILL);
	ld(p, OFF_ARG_LO(0));
	jge(p, lo, NEXT, L_KILL);
	jge(p, lo + STUB_MAX_SLOTS * SLOT_SIZE, L_KILL, L_ALLOW);
	/* arch_prctl(option, addr): option is an int. */
	label(p, L_ARCH);
	ld(p, OFF_ARG_LO(0));
	jeq(p, ARCH_SET_FS, L_ALLOW, NEXT);
	jeq(p, ARCH_GET_FS, L_ALLOW, NEXT);
	jeq(p, ARCH_SET_GS, L_ALLOW, NEXT);
	jeq(p, ARCH_GET_GS, L_ALLOW, L_KILL);
}

static void tail(struct prog *p)
{
	label(p, L_KILL);
	ret(p, SECCOMP_RET_KILL_PROCESS);
	label(p, L_TRAP);
	ret(p, SECCOMP_RET_TRAP);
	label(p, L_ALLOW);
	ret(p, SECCOMP_RET_ALLOW);
}

unsigned short systrap_stub_filter(const struct systrap_filter_params *sp, struct sock_filter *out)
{
	struct prog p;
	uint32_t hi = (uint32_t)(sp->data >> 32), lo = (uint32_t)sp->data;

	prog_init(&p);
	head(&p, sp);
	shared_rules(&p, NEXT);
	jeq(&p, SYS_mmap, L_MMAP, NEXT);
	jeq(&p, SYS_munmap, L_ALLOW, NEXT);
	jeq(&p, SYS_mprotect, L_MPROTECT, NEXT);
	jeq(&p, SYS_clone, L_CLONE, NEXT);
	jeq(&p, SYS_write, L_WRITE, NEXT);
	jeq(&p, SYS_sigaltstack, L_ALLOW, NEXT);
	jeq(&p, SYS_prctl, L_PRCTL, NEXT);
	jeq(&p, SYS_seccomp, L_SECCOMP, L_KILL);
	shared_blocks(&p, sp);

	/* mmap(addr, len, prot, flags, fd, off): shared fixed windows only. */
	label(&p, L_MMAP);
	ld(&p, OFF_ARG_LO(3));
	jeq(&p, MAP_SHARED | MAP_FIXED, NEXT, L_KILL);
	ld(&p, OFF_ARG_HI(3));
	jeq(&p, 0, NEXT, L_KILL);
	ld(&p, OFF_ARG_LO(4));
	jeq(&p, (uint32_t)sp->memfd, L_MMAP_GUEST, NEXT);
	jeq(&p, (uint32_t)sp->slotfd, L_MMAP_SLOT, L_KILL);
	label(&p, L_MMAP_GUEST);
	ld(&p, OFF_ARG_HI(0));
	jge(&p, (uint32_t)(GUEST_MAX_ADDR >> 32), L_KILL, L_ALLOW);
	label(&p, L_MMAP_SLOT);
	ld(&p, OFF_ARG_LO(2));
	jset(&p, PROT_EXEC, L_KILL, NEXT);
	ld(&p, OFF_ARG_HI(0));
	jeq(&p, hi, NEXT, L_KILL);
	ld(&p, OFF_ARG_LO(0));
	jge(&p, lo, NEXT, L_KILL);
	jge(&p, lo + STUB_MAX_SLOTS * SLOT_SIZE, L_KILL, L_ALLOW);
	/* mprotect(addr, len, prot): guest windows only, never the stub region. */
	label(&p, L_MPROTECT);
	ld(&p, OFF_ARG_HI(0));
	jge(&p, (uint32_t)(GUEST_MAX_ADDR >> 32), L_KILL, L_ALLOW);
	/* clone(flags, ...): a thread, nothing more. */
	label(&p, L_CLONE);
	ld(&p, OFF_ARG_HI(0));
	jeq(&p, 0, NEXT, L_KILL);
	ld(&p, OFF_ARG_LO(0));
	jeq(&p, SYSTRAP_CLONE_FLAGS, L_ALLOW, L_KILL);
	/* write(fd, ...): the injector's reports. */
	label(&p, L_WRITE);
	ld(&p, OFF_ARG_LO(0));
	jeq(&p, (uint32_t)sp->report_fd, L_ALLOW, L_KILL);
	/* prctl(option, ...): a new thread turns on Syscall User Dispatch. */
	label(&p, L_PRCTL);
	ld(&p, OFF_ARG_LO(0));
	jeq(&p, PR_SET_SYSCALL_USER_DISPATCH, L_ALLOW, L_KILL);
	/* seccomp(op, flags, prog): a new thread adds its filter; no flags
	 * (no TSYNC onto other threads, no listener). */
	label(&p, L_SECCOMP);
	ld(&p, OFF_ARG_LO(0));
	jeq(&p, SECCOMP_SET_MODE_FILTER, NEXT, L_KILL);
	ld(&p, OFF_ARG_LO(1));
	jeq(&p, 0, L_ALLOW, L_KILL);
	tail(&p);
	return finish(&p, out);
}

unsigned short systrap_guest_filter(const struct systrap_filter_params *sp, struct sock_filter *out)
{
	struct prog p;

	prog_init(&p);
	head(&p, sp);
	shared_rules(&p, L_KILL);
	shared_blocks(&p, sp);
	tail(&p);
	return finish(&p, out);
}

int systrap_filter_layout_ok(uint64_t text, uint64_t data)
{
	uint64_t end = data + (uint64_t)STUB_MAX_SLOTS * SLOT_SIZE;

	return text >> 32 == data >> 32 && (end - 1) >> 32 == text >> 32 && (uint32_t)end != 0 &&
	       text + STUB_TEXT_SIZE <= data;
}
