/*
 * Unit tests: the systrap stub's seccomp filters (platform/systrap/filter.c).
 *
 * A guest thread runs under both filters, so what matters is the stricter
 * answer of the two: the tests check each rule of each filter with the BPF
 * interpreter (edges included), that a guest thread, whatever registers it
 * brings into the stub's code, gets nothing but the five harmless calls,
 * and, in forked children, that the kernel accepts the filters and agrees.
 */
#include "config.h"
#include "platform/systrap/filter.h"
#include "platform/systrap/layout.h"
#include "platform/platform.h"
#include "lib/util.h"
#include "unit.h"
#include "bpf.h"

#include <asm/prctl.h>
#include <check.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif

#define TEXT	 0x7f8812340000ull
#define DATA	 (TEXT + STUB_DATA_OFF)
#define DATA_END (DATA + (uint64_t)STUB_MAX_SLOTS * SLOT_SIZE)
#define MEMFD	 7
#define SLOTFD	 8
#define REPORT	 11
#define VSYSCALL 0xffffffffff600000ull
#define X32_BIT	 0x40000000u

#define KILL  SECCOMP_RET_KILL_PROCESS
#define TRAP  SECCOMP_RET_TRAP
#define ALLOW SECCOMP_RET_ALLOW

struct prog {
	struct sock_filter insn[SYSTRAP_FILTER_MAX];
	unsigned short len;
};

static struct prog stub_prog, guest_prog;

static void build_with(const struct systrap_filter_params *fp)
{
	memset(&stub_prog, 0, sizeof(stub_prog));
	memset(&guest_prog, 0, sizeof(guest_prog));
	stub_prog.len = systrap_stub_filter(fp, stub_prog.insn);
	guest_prog.len = systrap_guest_filter(fp, guest_prog.insn);
	bpf_validate(stub_prog.insn, stub_prog.len, SYSTRAP_FILTER_MAX);
	bpf_validate(guest_prog.insn, guest_prog.len, SYSTRAP_FILTER_MAX);
}

static void build(void)
{
	struct systrap_filter_params fp = {
		.text = TEXT, .data = DATA, .memfd = MEMFD, .slotfd = SLOTFD, .report_fd = REPORT};

	ck_assert(systrap_filter_layout_ok(TEXT, DATA));
	build_with(&fp);
}

/* A system call as seccomp sees it. */
struct call {
	uint32_t arch;
	int nr;
	uint64_t ip;
	uint64_t a[6];
};

static struct seccomp_data data_of(const struct call *c)
{
	struct seccomp_data d = {.nr = c->nr,
				 .arch = c->arch ? c->arch : AUDIT_ARCH_X86_64,
				 .instruction_pointer = c->ip ? c->ip : TEXT + 0x100};

	memcpy(d.args, c->a, sizeof(d.args));
	return d;
}

static uint32_t stub_says(struct call c)
{
	struct seccomp_data d = data_of(&c);
	return bpf_run(stub_prog.insn, stub_prog.len, &d);
}

static uint32_t guest_filter_says(struct call c)
{
	struct seccomp_data d = data_of(&c);
	return bpf_run(guest_prog.insn, guest_prog.len, &d);
}

/* What a guest thread gets: the stricter answer of its two filters. */
static uint32_t guest_says(struct call c)
{
	uint32_t a = stub_says(c), b = guest_filter_says(c);

	if (a == KILL || b == KILL)
		return KILL;
	if (a == TRAP || b == TRAP)
		return TRAP;
	return ALLOW;
}

#define CALL(...) ((struct call){__VA_ARGS__})

START_TEST(test_shape)
{
	struct prog s, g;

	build();
	s = stub_prog;
	g = guest_prog;
	ck_assert_uint_ge(guest_prog.len, 10);
	ck_assert_uint_gt(stub_prog.len, guest_prog.len);
	build();
	ck_assert_int_eq(memcmp(&s, &stub_prog, sizeof(s)), 0);
	ck_assert_int_eq(memcmp(&g, &guest_prog, sizeof(g)), 0);
}
END_TEST

/* Layouts the filters cannot check (two 4 GiB windows, wrapped low halves,
 * code over the slots) are refused. */
START_TEST(test_layout)
{
	ck_assert(systrap_filter_layout_ok(TEXT, DATA));
	ck_assert(!systrap_filter_layout_ok(TEXT, TEXT));
	ck_assert(!systrap_filter_layout_ok(0x7f80fff00000ull, 0x7f80fff10000ull));
	ck_assert(!systrap_filter_layout_ok(0x7f80efff0000ull, 0x7f80f0000000ull));
	ck_assert(systrap_filter_layout_ok(0x7f80effe0000ull, 0x7f80efff0000ull));
	ck_assert(!systrap_filter_layout_ok(0x7f7fffff0000ull, 0x7f8000000000ull));
}
END_TEST

/* Only x86-64: other architectures and x32 numbers are killed, from anywhere. */
START_TEST(test_arch)
{
	static const uint32_t arches[] = {AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, ~0u,
					  AUDIT_ARCH_X86_64 ^ 1};

	build();
	for (unsigned i = 0; i < ARRAY_SIZE(arches); i++) {
		ck_assert_uint_eq(stub_says(CALL(.arch = arches[i], .nr = SYS_sched_yield)), KILL);
		ck_assert_uint_eq(guest_says(CALL(.arch = arches[i], .nr = SYS_sched_yield)), KILL);
		ck_assert_uint_eq(
			guest_says(CALL(.arch = arches[i], .nr = SYS_getpid, .ip = 0x400000)),
			KILL);
	}
	ck_assert_uint_eq(guest_says(CALL(.nr = (int)(X32_BIT | SYS_sched_yield))), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = (int)(X32_BIT | SYS_munmap))), KILL);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_sched_yield)), ALLOW);
}
END_TEST

/* Every call from outside the stub's code traps (to the stub's handler), the
 * vsyscall page included; the edges of the code are exact. */
START_TEST(test_outside_code_traps)
{
	static const uint64_t ips[] = {TEXT - 1,
				       TEXT + STUB_TEXT_SIZE,
				       TEXT + STUB_CODE_SIZE - 1,
				       DATA,
				       DATA + 0x1000,
				       TEXT ^ (1ull << 32),
				       TEXT & 0xffffffffull,
				       0x400000,
				       GUEST_MAX_ADDR - 4096,
				       VSYSCALL,
				       VSYSCALL + 0x400,
				       ~0ull};
	static const int nrs[] = {SYS_read,  SYS_getpid, SYS_futex, SYS_mmap,	     SYS_munmap,
				  SYS_clone, SYS_exit,	 SYS_write, SYS_rt_sigreturn};

	build();
	for (unsigned i = 0; i < ARRAY_SIZE(ips); i++)
		for (unsigned j = 0; j < ARRAY_SIZE(nrs); j++) {
			ck_assert_msg(stub_says(CALL(.nr = nrs[j], .ip = ips[i])) == TRAP,
				      "nr %d at %#llx", nrs[j], (unsigned long long)ips[i]);
			ck_assert_uint_eq(guest_says(CALL(.nr = nrs[j], .ip = ips[i])), TRAP);
		}
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_sched_yield, .ip = TEXT)), ALLOW);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_sched_yield, .ip = TEXT + STUB_TEXT_SIZE - 1)),
			  ALLOW);
}
END_TEST

/* futex: FUTEX_WAIT and FUTEX_WAKE on a word in the slots, nothing else. */
START_TEST(test_futex)
{
	static const uint64_t inside[] = {DATA, DATA + 4, DATA + SLOT_SIZE + STUB_PAGE,
					  DATA_END - 4};
	static const uint64_t outside[] = {DATA - 4,
					   DATA_END,
					   TEXT,
					   TEXT + 0x100,
					   DATA ^ (1ull << 32),
					   DATA & 0xffffffffull,
					   0x10000,
					   GUEST_MAX_ADDR - 4};
	static const uint64_t bad_ops[] = {FUTEX_WAIT | FUTEX_PRIVATE_FLAG,
					   FUTEX_WAKE | FUTEX_PRIVATE_FLAG,
					   FUTEX_REQUEUE,
					   FUTEX_CMP_REQUEUE,
					   FUTEX_WAKE_OP,
					   FUTEX_LOCK_PI,
					   FUTEX_UNLOCK_PI,
					   FUTEX_WAIT_BITSET,
					   FUTEX_WAIT_REQUEUE_PI,
					   FUTEX_WAKE | FUTEX_CLOCK_REALTIME};

	build();
	for (unsigned i = 0; i < ARRAY_SIZE(inside); i++) {
		ck_assert_uint_eq(guest_says(CALL(.nr = SYS_futex, .a = {inside[i], FUTEX_WAIT})),
				  ALLOW);
		ck_assert_uint_eq(guest_says(CALL(.nr = SYS_futex, .a = {inside[i], FUTEX_WAKE})),
				  ALLOW);
		ck_assert_uint_eq(stub_says(CALL(.nr = SYS_futex, .a = {inside[i], FUTEX_WAKE})),
				  ALLOW);
		for (unsigned j = 0; j < ARRAY_SIZE(bad_ops); j++) {
			ck_assert_msg(guest_says(CALL(.nr = SYS_futex,
						      .a = {inside[i], bad_ops[j]})) == KILL,
				      "futex op %#llx", (unsigned long long)bad_ops[j]);
			ck_assert_uint_eq(
				stub_says(CALL(.nr = SYS_futex, .a = {inside[i], bad_ops[j]})),
				KILL);
		}
	}
	for (unsigned i = 0; i < ARRAY_SIZE(outside); i++) {
		ck_assert_msg(guest_says(CALL(.nr = SYS_futex, .a = {outside[i], FUTEX_WAKE})) ==
				      KILL,
			      "futex at %#llx", (unsigned long long)outside[i]);
		ck_assert_uint_eq(stub_says(CALL(.nr = SYS_futex, .a = {outside[i], FUTEX_WAIT})),
				  KILL);
	}
}
END_TEST

/* arch_prctl: the fs and gs bases only (a guest can set those anyway). */
START_TEST(test_arch_prctl)
{
	static const uint64_t ok[] = {ARCH_SET_FS, ARCH_GET_FS, ARCH_SET_GS, ARCH_GET_GS};
	static const uint64_t bad[] = {0, ARCH_GET_CPUID, ARCH_SET_CPUID, 0x2001, 0x3001, 0x1005};

	build();
	for (unsigned i = 0; i < ARRAY_SIZE(ok); i++) {
		ck_assert_uint_eq(guest_says(CALL(.nr = SYS_arch_prctl, .a = {ok[i], 0x1234})),
				  ALLOW);
		ck_assert_uint_eq(stub_says(CALL(.nr = SYS_arch_prctl, .a = {ok[i]})), ALLOW);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_uint_eq(guest_says(CALL(.nr = SYS_arch_prctl, .a = {bad[i]})), KILL);
		ck_assert_uint_eq(stub_says(CALL(.nr = SYS_arch_prctl, .a = {bad[i]})), KILL);
	}
}
END_TEST

/* rt_sigreturn, sched_yield and exit (of the calling thread): both allow. */
START_TEST(test_plain_calls)
{
	build();
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_rt_sigreturn)), ALLOW);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_sched_yield)), ALLOW);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_exit, .a = {7})), ALLOW);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_exit_group)), KILL);
}
END_TEST

/* mprotect (the injector, copy on write): guest windows below GUEST_MAX_ADDR only. */
START_TEST(test_mprotect)
{
	build();
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mprotect, .a = {0x10000, 4096, 1})), ALLOW);
	ck_assert_uint_eq(
		stub_says(CALL(.nr = SYS_mprotect, .a = {GUEST_MAX_ADDR - 4096, 4096, 3})), ALLOW);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mprotect, .a = {GUEST_MAX_ADDR, 4096, 1})),
			  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mprotect, .a = {TEXT, 4096, 7})), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mprotect, .a = {DATA, 4096, 3})), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mprotect, .a = {~0ull, 4096, 3})), KILL);
	/* Guest threads: never. */
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_mprotect, .a = {0x10000, 4096, 7})), KILL);
}
END_TEST

/* mmap (the injector): shared fixed windows of the guest memory file below
 * GUEST_MAX_ADDR, of the slot file into the slots (not executable). */
START_TEST(test_mmap)
{
	const uint64_t fixed = MAP_SHARED | MAP_FIXED;

	build();
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {0x10000, 4096, 7, fixed, MEMFD})),
			  ALLOW);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {GUEST_MAX_ADDR - 4096, 4096, 5,
							       fixed, MEMFD, 1 << 20})),
			  ALLOW);
	/* Not at or above GUEST_MAX_ADDR: never over the stub region. */
	ck_assert_uint_eq(
		stub_says(CALL(.nr = SYS_mmap, .a = {GUEST_MAX_ADDR, 4096, 3, fixed, MEMFD})),
		KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {TEXT, 4096, 5, fixed, MEMFD})),
			  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {DATA, 4096, 3, fixed, MEMFD})),
			  KILL);
	/* Other flags or descriptors. */
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap,
					 .a = {0x10000, 4096, 3, MAP_PRIVATE | MAP_FIXED, MEMFD})),
			  KILL);
	ck_assert_uint_eq(
		stub_says(CALL(.nr = SYS_mmap, .a = {0x10000, 4096, 3, MAP_SHARED, MEMFD})), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap,
					 .a = {0x10000, 4096, 3, fixed | MAP_ANONYMOUS, MEMFD})),
			  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap,
					 .a = {0x10000, 4096, 3, fixed | (1ull << 32), MEMFD})),
			  KILL);
	for (int fd = -1; fd < 16; fd++) {
		uint32_t want = fd == MEMFD ? ALLOW : KILL;
		ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap,
						 .a = {0x10000, 4096, 3, fixed, (uint64_t)fd})),
				  fd == SLOTFD ? KILL : want);
	}
	/* The slot file: into the slots only, never executable. */
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {DATA, 4096, 1, fixed, SLOTFD})),
			  ALLOW);
	ck_assert_uint_eq(
		stub_says(CALL(.nr = SYS_mmap, .a = {DATA_END - 4096, 4096, 3, fixed, SLOTFD})),
		ALLOW);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {DATA, 4096, 5, fixed, SLOTFD})),
			  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {DATA_END, 4096, 3, fixed, SLOTFD})),
			  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {TEXT, 4096, 1, fixed, SLOTFD})),
			  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_mmap, .a = {0x10000, 4096, 3, fixed, SLOTFD})),
			  KILL);
	/* A guest thread: none of it. */
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_mmap, .a = {0x10000, 4096, 7, fixed, MEMFD})),
			  KILL);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_mmap, .a = {DATA, 4096, 3, fixed, SLOTFD})),
			  KILL);
}
END_TEST

/* clone: exactly a thread of the stub process. */
START_TEST(test_clone)
{
	static const uint64_t bad[] = {SIGCHLD,
				       0,
				       SYSTRAP_CLONE_FLAGS | CLONE_SETTLS,
				       SYSTRAP_CLONE_FLAGS | CLONE_CHILD_CLEARTID,
				       SYSTRAP_CLONE_FLAGS & ~CLONE_THREAD,
				       SYSTRAP_CLONE_FLAGS & ~CLONE_VM,
				       SYSTRAP_CLONE_FLAGS | CLONE_PARENT,
				       SYSTRAP_CLONE_FLAGS | (1ull << 32),
				       CLONE_VM | CLONE_VFORK | SIGCHLD};

	build();
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_clone, .a = {SYSTRAP_CLONE_FLAGS, DATA})),
			  ALLOW);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_clone, .a = {SYSTRAP_CLONE_FLAGS, DATA})),
			  KILL);
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(stub_says(CALL(.nr = SYS_clone, .a = {bad[i]})) == KILL,
			      "clone flags %#llx", (unsigned long long)bad[i]);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_clone3)), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_fork)), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_vfork)), KILL);
}
END_TEST

/* write: the injector's reports to its pipe; nothing for a guest thread. */
START_TEST(test_write)
{
	build();
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_write, .a = {REPORT, DATA, 8})), ALLOW);
	for (int fd = -1; fd < 32; fd++)
		if (fd != REPORT)
			ck_assert_uint_eq(stub_says(CALL(.nr = SYS_write, .a = {(uint64_t)fd})),
					  KILL);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_write, .a = {REPORT, DATA, 8})), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_pwrite64, .a = {REPORT})), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_writev, .a = {REPORT})), KILL);
}
END_TEST

/* A new thread's start: sigaltstack, Syscall User Dispatch, its filter (no
 * flags). A guest thread can do none of them again. */
START_TEST(test_thread_start)
{
	static const uint64_t bad_flags[] = {
		SECCOMP_FILTER_FLAG_TSYNC, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		SECCOMP_FILTER_FLAG_LOG, SECCOMP_FILTER_FLAG_SPEC_ALLOW};

	build();
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_sigaltstack)), ALLOW);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_sigaltstack)), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_prctl, .a = {PR_SET_SYSCALL_USER_DISPATCH, 1})),
			  ALLOW);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_prctl, .a = {PR_SET_SYSCALL_USER_DISPATCH, 0})),
			  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_prctl, .a = {PR_SET_SECCOMP})), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_prctl, .a = {PR_SET_DUMPABLE, 1})), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_prctl, .a = {PR_SET_PTRACER, ~0ull})), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_seccomp, .a = {SECCOMP_SET_MODE_FILTER, 0})),
			  ALLOW);
	ck_assert_uint_eq(guest_says(CALL(.nr = SYS_seccomp, .a = {SECCOMP_SET_MODE_FILTER, 0})),
			  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_seccomp, .a = {SECCOMP_SET_MODE_STRICT, 0})),
			  KILL);
	for (unsigned i = 0; i < ARRAY_SIZE(bad_flags); i++)
		ck_assert_uint_eq(stub_says(CALL(.nr = SYS_seccomp,
						 .a = {SECCOMP_SET_MODE_FILTER, bad_flags[i]})),
				  KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_rt_sigprocmask)), KILL);
	ck_assert_uint_eq(stub_says(CALL(.nr = SYS_rt_sigaction)), KILL);
}
END_TEST

/*
 * The whole table from inside the stub's code: a guest thread gets exactly
 * futex, rt_sigreturn, sched_yield, exit and arch_prctl (each checked above
 * for its arguments); every other number kills its process.
 */
START_TEST(test_guest_gains_nothing)
{
	static const int harmless[] = {SYS_futex, SYS_rt_sigreturn, SYS_sched_yield, SYS_exit,
				       SYS_arch_prctl};

	build();
	for (int nr = 0; nr < 1024; nr++) {
		bool ok = false;
		for (unsigned i = 0; i < ARRAY_SIZE(harmless); i++)
			ok |= nr == harmless[i];
		/* Arguments a guest would pick to make the most of a call. */
		struct call c = CALL(.nr = nr,
				     .a = {DATA, FUTEX_WAKE, 7, MAP_SHARED | MAP_FIXED, MEMFD, 0});
		if (nr == SYS_arch_prctl)
			c.a[0] = ARCH_SET_FS;
		ck_assert_msg(guest_says(c) == (ok ? ALLOW : KILL), "syscall %d", nr);
	}
	ck_assert_uint_eq(guest_says(CALL(.nr = -1)), KILL);
	/* The stub filter alone is no wider than its list either. */
	for (int nr = 0; nr < 1024; nr++) {
		static const int listed[] = {SYS_futex,	 SYS_rt_sigreturn, SYS_sched_yield,
					     SYS_exit,	 SYS_arch_prctl,   SYS_mmap,
					     SYS_munmap, SYS_mprotect,	   SYS_clone,
					     SYS_write,	 SYS_sigaltstack,  SYS_prctl,
					     SYS_seccomp};
		bool in = false;
		for (unsigned i = 0; i < ARRAY_SIZE(listed); i++)
			in |= nr == listed[i];
		if (!in)
			ck_assert_msg(stub_says(CALL(.nr = nr)) == KILL, "stub syscall %d", nr);
	}
}
END_TEST

/* Random layouts (as the platform picks them): the edges hold for all. */
START_TEST(test_many_layouts)
{
	uint64_t seed = 4242;
	unsigned built = 0;

	for (unsigned round = 0; round < 2000; round++) {
		uint64_t text = GUEST_MAX_ADDR +
				ALIGN_DOWN(unit_rand(&seed) % (HOST_TASK_SIZE - GUEST_MAX_ADDR -
							       STUB_REGION_SIZE - (1ull << 32)),
					   SLOT_SIZE),
			 data = text + STUB_DATA_OFF,
			 end = data + (uint64_t)STUB_MAX_SLOTS * SLOT_SIZE;
		struct systrap_filter_params fp = {.text = text,
						   .data = data,
						   .memfd = (int)(unit_rand(&seed) % 512),
						   .slotfd = 600,
						   .report_fd = 700};
		if (!systrap_filter_layout_ok(text, data))
			continue;
		built++;
		build_with(&fp);
		ck_assert_uint_eq(guest_says(CALL(.nr = SYS_sched_yield, .ip = text)), ALLOW);
		ck_assert_uint_eq(guest_says(CALL(.nr = SYS_sched_yield, .ip = text - 1)), TRAP);
		ck_assert_uint_eq(
			guest_says(CALL(.nr = SYS_sched_yield, .ip = text + STUB_TEXT_SIZE)), TRAP);
		ck_assert_uint_eq(
			guest_says(CALL(.nr = SYS_futex, .ip = text, .a = {data, FUTEX_WAKE})),
			ALLOW);
		ck_assert_uint_eq(
			guest_says(CALL(.nr = SYS_futex, .ip = text, .a = {end - 4, FUTEX_WAIT})),
			ALLOW);
		ck_assert_uint_eq(
			guest_says(CALL(.nr = SYS_futex, .ip = text, .a = {end, FUTEX_WAKE})),
			KILL);
		ck_assert_uint_eq(
			guest_says(CALL(.nr = SYS_futex, .ip = text, .a = {data - 4, FUTEX_WAKE})),
			KILL);
		ck_assert_uint_eq(guest_says(CALL(.nr = SYS_mmap, .ip = text)), KILL);
	}
	ck_assert_uint_gt(built, 1500);
}
END_TEST

/* --- the kernel agrees ------------------------------------------------------------- */

/* Call the "syscall; ret" at code with the registers of a system call. */
static long code_call(uint64_t code, long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = a5;
	long ret;

	__asm__ volatile("sub $128, %%rsp\n\tcall *%[fn]\n\tadd $128, %%rsp"
			 : "=a"(ret)
			 : [fn] "r"(code), "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* A stub region laid out as the platform lays it out: "syscall; ret" at its
 * start, one page of slots; its address in *text. */
static void map_region(uint64_t *text)
{
	static const unsigned char code[] = {0x0f, 0x05, 0xc3};

	for (int tries = 0; tries < 4096; tries++) {
		uint64_t base = 0x7f0000000000ull + (uint64_t)tries * 0x40000000ull + 0x10000;
		void *p;
		if (!systrap_filter_layout_ok(base, base + STUB_DATA_OFF))
			continue;
		p = mmap((void *)base, STUB_CODE_SIZE + STUB_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != (void *)base) {
			if (p != MAP_FAILED)
				munmap(p, STUB_CODE_SIZE + STUB_PAGE);
			continue;
		}
		memcpy(p, code, sizeof(code));
		ck_assert_int_eq(mprotect(p, STUB_PAGE, PROT_READ | PROT_EXEC), 0);
		*text = base;
		return;
	}
	ck_abort_msg("no room for a stub region");
}

/* Under the filters a child can only end through the code page: exit of
 * its only thread. */
static uint64_t child_text;

static void __attribute__((noreturn)) leave(int code)
{
	code_call(child_text, SYS_exit, code, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	leave(si->si_code == 1 /* SYS_SECCOMP */ ? 42 : 43);
}

enum attempt {
	TRY_ALLOWED,	  /* the harmless calls, from the code: they return */
	TRY_OUTSIDE,	  /* getppid from the test's own code: traps (SIGSYS handler) */
	TRY_MMAP,	  /* mmap of the memory file from the code */
	TRY_MUNMAP,	  /* munmap from the code */
	TRY_CLONE,	  /* a stub thread, from the code */
	TRY_WRITE,	  /* the injector's pipe, from the code */
	TRY_SECCOMP,	  /* another filter, from the code */
	TRY_FUTEX_OP,	  /* FUTEX_REQUEUE on a slot word */
	TRY_FUTEX_ADDR,	  /* FUTEX_WAKE outside the slots */
	TRY_GETPID,	  /* anything else, from the code */
	TRY_STUB_ALLOWED, /* the stub filter alone: the injector's calls pass */
	N_ATTEMPTS,
};

static void child(enum attempt what, uint64_t text, int memfd, int slotfd, int report,
		  uint64_t window)
{
	struct rlimit no_core = {0, 0};
	struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
	struct systrap_filter_params fp = {.text = text,
					   .data = text + STUB_DATA_OFF,
					   .memfd = memfd,
					   .slotfd = slotfd,
					   .report_fd = report};
	struct sock_fprog sprog, gprog;
	uint64_t slot_word = text + STUB_DATA_OFF, fs = 0;

	child_text = text;
	setrlimit(RLIMIT_CORE, &no_core);
	sigaction(SIGSYS, &sa, NULL);
	build_with(&fp);
	sprog = (struct sock_fprog){.len = stub_prog.len, .filter = stub_prog.insn};
	gprog = (struct sock_fprog){.len = guest_prog.len, .filter = guest_prog.insn};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &sprog) < 0)
		_exit(10);
	if (what == TRY_STUB_ALLOWED) {
		if (code_call(text, SYS_mmap, (long)window, 4096, PROT_READ, MAP_SHARED | MAP_FIXED,
			      memfd, 0) != (long)window)
			leave(20);
		if (code_call(text, SYS_munmap, (long)window, 4096, 0, 0, 0, 0) != 0)
			leave(21);
		if (code_call(text, SYS_write, report, (long)text, 1, 0, 0, 0) != 1)
			leave(22);
		leave(0);
	}
	if (code_call(text, SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)&gprog, 0, 0, 0) != 0)
		leave(11);
	switch (what) {
	case TRY_ALLOWED:
		if (code_call(text, SYS_futex, (long)slot_word, FUTEX_WAKE, 1, 0, 0, 0) != 0 ||
		    code_call(text, SYS_sched_yield, 0, 0, 0, 0, 0, 0) != 0 ||
		    code_call(text, SYS_arch_prctl, ARCH_GET_FS, (long)&fs, 0, 0, 0, 0) != 0 ||
		    fs == 0)
			leave(30);
		leave(0);
	case TRY_OUTSIDE:
		syscall(SYS_getppid);
		break;
	case TRY_MMAP:
		code_call(text, SYS_mmap, (long)window, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_FIXED, memfd, 0);
		break;
	case TRY_MUNMAP:
		code_call(text, SYS_munmap, (long)window, 4096, 0, 0, 0, 0);
		break;
	case TRY_CLONE:
		code_call(text, SYS_clone, SYSTRAP_CLONE_FLAGS, 0, 0, 0, 0, 0);
		break;
	case TRY_WRITE:
		code_call(text, SYS_write, report, (long)text, 1, 0, 0, 0);
		break;
	case TRY_SECCOMP:
		code_call(text, SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)&gprog, 0, 0, 0);
		break;
	case TRY_FUTEX_OP:
		code_call(text, SYS_futex, (long)slot_word, FUTEX_REQUEUE, 1, 0, (long)slot_word,
			  0);
		break;
	case TRY_FUTEX_ADDR:
		code_call(text, SYS_futex, (long)&fs, FUTEX_WAKE, 1, 0, 0, 0);
		break;
	case TRY_GETPID:
		code_call(text, SYS_getpid, 0, 0, 0, 0, 0, 0);
		break;
	default:
		break;
	}
	leave(50); /* the call went through */
}

START_TEST(test_kernel_agrees)
{
	uint64_t text, window;
	int memfd, slotfd, pipefd[2], status;
	pid_t pid;
	void *w;

	map_region(&text);
	memfd = memfd_create("systrap-filter-test", MFD_CLOEXEC);
	slotfd = memfd_create("systrap-filter-test-slots", MFD_CLOEXEC);
	ck_assert_int_ge(memfd, 0);
	ck_assert_int_ge(slotfd, 0);
	ck_assert_int_eq(ftruncate(memfd, 4096), 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	/* A guest window below GUEST_MAX_ADDR to map over. */
	w = mmap((void *)0x200000000ull, 4096, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ck_assert(w == (void *)0x200000000ull);
	window = (uint64_t)w;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		child((enum attempt)_i, text, memfd, slotfd, pipefd[1], window);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	switch ((enum attempt)_i) {
	case TRY_ALLOWED:
	case TRY_STUB_ALLOWED:
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "attempt %d: status %#x", _i, status);
		break;
	case TRY_OUTSIDE:
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42,
			      "a call from outside the code traps: status %#x", status);
		break;
	default:
		ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
			      "attempt %d: status %#x, not killed", _i, status);
		break;
	}
	close(memfd);
	close(slotfd);
	close(pipefd[0]);
	close(pipefd[1]);
	munmap(w, 4096);
	munmap((void *)text, STUB_CODE_SIZE + STUB_PAGE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("systrap_filter");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_shape);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_arch);
	tcase_add_test(tc, test_outside_code_traps);
	tcase_add_test(tc, test_futex);
	tcase_add_test(tc, test_arch_prctl);
	tcase_add_test(tc, test_plain_calls);
	tcase_add_test(tc, test_mmap);
	tcase_add_test(tc, test_mprotect);
	tcase_add_test(tc, test_clone);
	tcase_add_test(tc, test_write);
	tcase_add_test(tc, test_thread_start);
	tcase_add_test(tc, test_guest_gains_nothing);
	tcase_add_test(tc, test_many_layouts);
	tcase_add_loop_test(tc, test_kernel_agrees, 0, N_ATTEMPTS);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
