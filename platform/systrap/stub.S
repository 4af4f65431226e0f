/*
 * The systrap stub: the only code of a stub process besides its guest's.
 * Freestanding: no libc, no relocations, nothing outside this section. The
 * sentry copies the section to the start of the stub region (layout.h), so
 * every reference here is %rip-relative to the section's own start (.Lbase:
 * a local label, which the assembler resolves without a relocation).
 *
 * Three parts:
 *  - the injector (the process's first thread): runs the system calls the
 *    sentry writes into its sentry page (mmap and munmap of guest windows,
 *    clone of a guest thread) and reports each through its pipe. It uses no
 *    stack, so guest threads, which can write any stub memory, can never
 *    steer it; its arguments come from a page they cannot write.
 *  - a new guest thread's start: signal stack, Syscall User Dispatch, its
 *    seccomp filter; then it traps (ud2) and waits for its first registers.
 *    Until the filter is on it uses no stack either.
 *  - the signal handler of guest threads: reports the trap (the kernel's
 *    ucontext stays on the slot's signal stack, where the sentry reads and
 *    rewrites it), waits for the sentry's answer, and returns through
 *    rt_sigreturn into whatever registers the sentry left in the frame.
 */
#include "platform/systrap/layout.h"

#include <asm/prctl.h>
#include <asm/unistd_64.h>

#define FUTEX_WAIT			0
#define FUTEX_WAKE			1
#define PR_SET_SYSCALL_USER_DISPATCH	59
#define PR_SYS_DISPATCH_ON		1
#define SECCOMP_SET_MODE_FILTER		1
#define STUB_TASK_TOP			0x7ffffffff000

	.section rung_systrap, "ax", @progbits
	.balign 16
	.globl systrap_stub_start
systrap_stub_start:
.Lbase:

/*
 * The injector. Entered once, from the child the sentry forked, with every
 * signal blocked and the stub's filter on: the rest of the address space
 * goes, then commands run until the process is killed.
 *   %r15: slot 0's sentry page, %r14: its stub page, %r13d: the last command
 */
	.globl systrap_stub_entry
systrap_stub_entry:
	leaq	.Lbase+STUB_DATA_OFF(%rip), %r15
	leaq	STUB_PAGE(%r15), %r14
	movl	$__NR_munmap, %eax
	xorl	%edi, %edi
	leaq	.Lbase(%rip), %rsi
	syscall
	testq	%rax, %rax
	jnz	.Ldie
	movl	$__NR_munmap, %eax
	leaq	.Lbase+STUB_REGION_SIZE(%rip), %rdi
	movabsq	$STUB_TASK_TOP, %rsi
	subq	%rdi, %rsi
	syscall
	testq	%rax, %rax
	jnz	.Ldie
	xorl	%r13d, %r13d
	movq	$STUB_READY, %rax
	jmp	.Lreport

.Lwait:
	movl	SP_CMD_SEQ(%r15), %eax
	cmpl	%eax, %r13d
	jne	.Lrun
	movl	$__NR_futex, %eax
	leaq	SP_CMD_SEQ(%r15), %rdi
	movl	$FUTEX_WAIT, %esi
	movl	%r13d, %edx
	xorl	%r10d, %r10d
	syscall
	jmp	.Lwait

.Lrun:
	movl	%eax, %r13d
	movq	SP_CMD_ARGS(%r15), %rdi
	movq	SP_CMD_ARGS+8(%r15), %rsi
	movq	SP_CMD_ARGS+16(%r15), %rdx
	movq	SP_CMD_ARGS+24(%r15), %r10
	movq	SP_CMD_ARGS+32(%r15), %r8
	movq	SP_CMD_ARGS+40(%r15), %r9
	movq	SP_CMD_NR(%r15), %rax
	cmpq	$__NR_clone, %rax
	je	.Lclone
	syscall

/* Report %rax: into the stub page, then 8 bytes down the pipe. The pipe is
 * what the sentry believes; the value only helps it (a guest thread may
 * change it in between, which can only confuse that guest). */
.Lreport:
	movq	%rax, ST_CMD_RET(%r14)
	movl	%r13d, ST_DONE_SEQ(%r14)
	movl	$__NR_write, %eax
	movl	SP_REPORT_FD(%r15), %edi
	leaq	ST_CMD_RET(%r14), %rsi
	movl	$8, %edx
	syscall
	cmpq	$8, %rax
	jne	.Ldie
	jmp	.Lwait

/* A new guest thread: the slot is in the last argument (clone ignores
 * %r9), the new stack in the second. */
.Lclone:
	movq	%r9, %r12
	syscall
	testq	%rax, %rax
	jnz	.Lreport
	jmp	.Lthread

.Ldie:
	movl	$__NR_exit, %eax
	movl	$1, %edi
	syscall
	ud2

/*
 * A new guest thread, %r12 its slot. No stack until the filter is on: the
 * arguments are in its sentry page and in the read-only data.
 */
.Lthread:
	movl	$__NR_sigaltstack, %eax
	leaq	SP_ALTSTACK(%r12), %rdi
	xorl	%esi, %esi
	syscall
	testq	%rax, %rax
	jnz	.Ldie
	movl	$__NR_prctl, %eax
	movl	$PR_SET_SYSCALL_USER_DISPATCH, %edi
	movl	$PR_SYS_DISPATCH_ON, %esi
	leaq	.Lbase(%rip), %rdx
	movl	$STUB_TEXT_SIZE, %r10d
	xorl	%r8d, %r8d
	syscall
	testq	%rax, %rax
	jnz	.Ldie
	movl	$__NR_seccomp, %eax
	movl	$SECCOMP_SET_MODE_FILTER, %edi
	xorl	%esi, %esi
	leaq	.Lbase+STUB_TEXT_SIZE+RO_GUEST_FPROG(%rip), %rdx
	syscall
	testq	%rax, %rax
	jnz	.Ldie
	/* From here on this thread can do no more than its guest could. The
	 * trap below is its first report; the sentry answers it with the
	 * guest's registers and signal mask. */
	.globl systrap_stub_boot_trap
systrap_stub_boot_trap:
	ud2

/*
 * The signal handler of guest threads (SIGSYS, the faults, the interrupt
 * signal), on the slot's signal stack with every signal blocked.
 *   %rdi: signal, %rsi: siginfo, %rdx: ucontext
 *   %r8: sentry page, %r9: stub page, %r12d: this trap's number, %r13d: polls
 */
	.balign 16
	.globl systrap_stub_handler
systrap_stub_handler:
	movq	%rsp, %r8
	andq	$-SLOT_SIZE, %r8
	leaq	STUB_PAGE(%r8), %r9
	movl	%edi, ST_SIGNO(%r9)
	movq	%rdx, ST_UC(%r9)
	leaq	ST_SIGINFO(%r9), %rdi
	movl	$16, %ecx
	cld
	rep movsq
	cmpl	$0, .Lbase+STUB_TEXT_SIZE+RO_FSGSBASE(%rip)
	je	1f
	rdfsbase %rax
	movq	%rax, ST_FS_BASE(%r9)
	rdgsbase %rax
	movq	%rax, ST_GS_BASE(%r9)
	jmp	2f
1:	movl	$__NR_arch_prctl, %eax
	movl	$ARCH_GET_FS, %edi
	leaq	ST_FS_BASE(%r9), %rsi
	syscall
	movl	$__NR_arch_prctl, %eax
	movl	$ARCH_GET_GS, %edi
	leaq	ST_GS_BASE(%r9), %rsi
	syscall

	/* Publish the trap (xchg: a full barrier before the sleeper test). */
2:	movl	ST_TRAP_SEQ(%r9), %r12d
	incl	%r12d
	movl	%r12d, %eax
	xchgl	%eax, ST_TRAP_SEQ(%r9)
	cmpl	$0, SP_SENTRY_SLEEPS(%r8)
	je	3f
	movl	$__NR_futex, %eax
	leaq	ST_TRAP_SEQ(%r9), %rdi
	movl	$FUTEX_WAKE, %esi
	movl	$1, %edx
	syscall

	/* Wait for the answer: poll as long as the sentry says (pausing, or
	 * yielding the CPU to a sentry thread that shares it), then sleep. */
3:	movl	SP_SPIN(%r8), %r13d
4:	cmpl	%r12d, SP_RESUME_SEQ(%r8)
	je	.Lresumed
	testl	%r13d, %r13d
	jz	5f
	decl	%r13d
	cmpl	$0, SP_YIELD(%r8)
	jne	41f
	pause
	jmp	4b
41:	movl	$__NR_sched_yield, %eax
	syscall
	jmp	4b
5:	movl	$1, %eax
	xchgl	%eax, ST_STUB_SLEEPS(%r9)
	movl	SP_RESUME_SEQ(%r8), %edx
	cmpl	%r12d, %edx
	je	6f
	movl	$__NR_futex, %eax
	leaq	SP_RESUME_SEQ(%r8), %rdi
	movl	$FUTEX_WAIT, %esi
	xorl	%r10d, %r10d
	syscall
6:	movl	$0, ST_STUB_SLEEPS(%r9)
	xorl	%r13d, %r13d
	jmp	4b

.Lresumed:
	movl	SP_FLAGS(%r8), %r10d
	testl	$RESUME_EXIT, %r10d
	jnz	.Lexit
	cmpl	$0, .Lbase+STUB_TEXT_SIZE+RO_FSGSBASE(%rip)
	je	8f
	testl	$RESUME_SET_FS, %r10d
	jz	7f
	movq	SP_FS_BASE(%r8), %rax
	wrfsbase %rax
7:	testl	$RESUME_SET_GS, %r10d
	jz	9f
	movq	SP_GS_BASE(%r8), %rax
	wrgsbase %rax
	jmp	9f
8:	testl	$RESUME_SET_FS, %r10d
	jz	7f
	movl	$__NR_arch_prctl, %eax
	movl	$ARCH_SET_FS, %edi
	movq	SP_FS_BASE(%r8), %rsi
	syscall
7:	testl	$RESUME_SET_GS, %r10d
	jz	9f
	movl	$__NR_arch_prctl, %eax
	movl	$ARCH_SET_GS, %edi
	movq	SP_GS_BASE(%r8), %rsi
	syscall
9:	ret

.Lexit:
	movl	$__NR_exit, %eax
	xorl	%edi, %edi
	syscall
	ud2

/* sa_restorer: the handler returns here, on the kernel's frame. */
	.balign 16
	.globl systrap_stub_restorer
systrap_stub_restorer:
	movl	$__NR_rt_sigreturn, %eax
	syscall
	ud2

	.globl systrap_stub_end
systrap_stub_end:

	.section .note.GNU-stack, "", @progbits
