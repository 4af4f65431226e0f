/*
 * The systrap stub's two seccomp filters, hand-written BPF because they
 * match the instruction pointer, which libseccomp cannot express.
 *
 * Every thread of a stub process runs under the stub filter (installed by
 * the process before its first stub instruction, inherited by the threads
 * the injector clones); guest threads add the guest filter on top, so a
 * guest thread may do only what both allow. Both trap every system call
 * made outside the stub's code (Syscall User Dispatch has already turned
 * the guest's into SIGSYS; what is left is the kernel's vsyscall emulation)
 * and kill the process for anything unexpected from inside it: a guest
 * that jumps into the stub code with its own registers can do nothing the
 * guest filter does not let it do anyway.
 */
#ifndef RUNG_SYSTRAP_FILTER_H
#define RUNG_SYSTRAP_FILTER_H

#include <stdint.h>

struct sock_filter;

struct systrap_filter_params {
	uint64_t text; /* stub code: [text, text + STUB_TEXT_SIZE) */
	uint64_t data; /* slots: [data, data + STUB_MAX_SLOTS * SLOT_SIZE) */
	int memfd;     /* the guest memory file */
	int slotfd;    /* the platform's memory file, behind the slots */
	int report_fd; /* the injector's pipe */
};

#define SYSTRAP_FILTER_MAX 96

/* The only clone the injector may make: a thread of its own process (the
 * same flags as the ptrace stub's, so the sentry's filter knows them). */
#define SYSTRAP_CLONE_FLAGS \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM)

/* Build a filter into out (SYSTRAP_FILTER_MAX entries); returns its length,
 * 0 if it did not fit (a bug). */
unsigned short systrap_stub_filter(const struct systrap_filter_params *p, struct sock_filter *out);
unsigned short systrap_guest_filter(const struct systrap_filter_params *p, struct sock_filter *out);

/* Are text and data placed so that the filters can check them (one 4 GiB
 * window, no wrap of the low halves)? */
int systrap_filter_layout_ok(uint64_t text, uint64_t data);

#endif
