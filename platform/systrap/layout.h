/*
 * The systrap stub's memory layout, shared by the sentry (C) and the stub
 * code (stub.S).
 *
 * Every stub process has one stub region at the same random address (chosen
 * once per sentry, above GUEST_MAX_ADDR):
 *
 *   [base, base + STUB_TEXT_SIZE)            stub code, r-x, sealed
 *   [+ STUB_TEXT_SIZE, + STUB_CODE_SIZE)     stub read-only data (the guest
 *                                            threads' filter), r--, sealed
 *   [+ STUB_DATA_OFF, + STUB_REGION_SIZE)    slots of SLOT_SIZE bytes, each a
 *                                            window onto the platform's own
 *                                            memory file
 *
 * Slot 0 belongs to the process's first thread, the injector, which runs the
 * memory operations the sentry asks for (and creates threads); slot N > 0 to
 * the Nth guest thread. A slot is:
 *
 *   page 0 (read-only in the stub)   the sentry page: what the sentry says
 *   page 1 (read-write)              the stub page: what the stub reports
 *   pages 2.. (read-write)           the thread's signal stack
 *
 * Stub code finds its slot by rounding its stack pointer down to SLOT_SIZE.
 * The sentry maps every slot read-write into itself, and treats whatever
 * the stub page and the signal stack hold as hostile input: any guest thread
 * can write them. That is why the injector reports each command it ran
 * through a pipe only it may write to (SP_REPORT_FD), never through memory.
 */
#ifndef RUNG_SYSTRAP_LAYOUT_H
#define RUNG_SYSTRAP_LAYOUT_H

#define STUB_PAGE	 4096
#define STUB_TEXT_SIZE	 0x8000 /* 32 KiB of code at most */
#define STUB_CODE_SIZE	 0x10000
#define STUB_DATA_OFF	 STUB_CODE_SIZE
#define SLOT_SHIFT	 16
#define SLOT_SIZE	 (1 << SLOT_SHIFT)
#define STUB_MAX_SLOTS	 4096 /* the injector and up to 4095 guest threads per process */
#define STUB_REGION_SIZE (STUB_DATA_OFF + STUB_MAX_SLOTS * SLOT_SIZE)
#define SLOT_STACK_OFF	 (2 * STUB_PAGE)

/* The sentry page (page 0 of a slot). */
#define SP_RESUME_SEQ	 0   /* u32: the trap the sentry answered */
#define SP_SENTRY_SLEEPS 4   /* u32: the sentry sleeps on ST_TRAP_SEQ: wake it */
#define SP_FLAGS	 8   /* u32: RESUME_* */
#define SP_SPIN		 12  /* u32: polls of SP_RESUME_SEQ before the stub sleeps */
#define SP_FS_BASE	 16  /* u64 */
#define SP_GS_BASE	 24  /* u64 */
#define SP_CMD_SEQ	 32  /* u32: injector: the command to run */
#define SP_REPORT_FD	 36  /* u32: injector: the pipe its results go to */
#define SP_CMD_NR	 40  /* u64: injector: its system call number */
#define SP_CMD_ARGS	 48  /* u64[6]: injector: its arguments */
#define SP_ALTSTACK	 96  /* stack_t: a new thread's signal stack */
#define SP_YIELD	 128 /* u32: poll with sched_yield, not pause */

#define RESUME_SET_FS 0x1 /* load SP_FS_BASE before returning to the guest */
#define RESUME_SET_GS 0x2 /* load SP_GS_BASE */
#define RESUME_EXIT   0x4 /* end this thread instead */

/* The stub page (page 1). */
#define ST_TRAP_SEQ    0  /* u32: the stub's traps, counted */
#define ST_STUB_SLEEPS 4  /* u32: the stub sleeps on SP_RESUME_SEQ: wake it */
#define ST_SIGNO       8  /* u32: the signal of the last trap */
#define ST_DONE_SEQ    12 /* u32: injector: the last command it ran */
#define ST_UC	       16 /* u64: the address of the trap's ucontext */
#define ST_FS_BASE     24 /* u64: the guest's fs base at the trap */
#define ST_GS_BASE     32 /* u64 */
#define ST_CMD_RET     40 /* u64: injector: the command's result */
#define ST_SIGINFO     64 /* siginfo_t, 128 bytes */

/* What a new stub's injector reports first, once it runs. */
#define STUB_READY 0x52554e47u

/* The read-only data page (offsets from STUB_TEXT_SIZE). */
#define RO_GUEST_FPROG	0  /* struct sock_fprog of the guest threads' filter */
#define RO_FSGSBASE	16 /* u32: rdfsbase and friends work */
#define RO_GUEST_FILTER 64 /* struct sock_filter[]: the guest threads' filter */
#define RO_FILTER_MAX	((STUB_CODE_SIZE - STUB_TEXT_SIZE - RO_GUEST_FILTER) / 8)

#endif
