/*
 * The x86-64 signal frame, exactly as Linux builds it: struct rt_sigframe
 * (return address, ucontext with the sigcontext and the mask, siginfo) below
 * a 64-byte aligned XSAVE area with its software bytes and magic numbers,
 * after the red zone or on the alternate stack.
 */
#ifndef RUNG_SIGFRAME_H
#define RUNG_SIGFRAME_H

#include <signal.h>
#include <stdint.h>

struct task;
struct k_sigaction;

/* Build the frame for sig on t's stack and point t's registers at the
 * handler. oldmask goes into the frame (sigreturn restores it). Returns 0,
 * or -EFAULT when the frame cannot be written (the caller forces SIGSEGV). */
int sigframe_setup(struct task *t, int sig, const siginfo_t *info, const struct k_sigaction *ka,
		   uint64_t oldmask);

/* rt_sigreturn: restore registers (rax included), mask, FPU state and
 * alternate stack from the frame at the stack pointer. Returns 0, or -EFAULT
 * for a bad frame (the caller forces SIGSEGV). */
int sigframe_restore(struct task *t);

/* sigaltstack(2) on sentry copies of the stacks (either may be NULL). */
int task_sigaltstack(struct task *t, const stack_t *ss, stack_t *oss);

#endif
