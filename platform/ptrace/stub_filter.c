/*
 * The seccomp filter of ptrace stubs, hand-written because it matches the
 * instruction pointer, which libseccomp cannot express.
 *
 * Guest system calls never reach it: PTRACE_SYSEMU stops them before seccomp
 * runs (Linux >= 4.8). What does reach it:
 *  - the sentry's injected calls, made from the stub page: mmap (of the
 *    memory file only), munmap, mprotect (copy-on-write makes windows
 *    read-only and writable again), clone with exactly the
 *    flags that add a stub thread, exit of one stub thread, and the pause()
 *    a new stub thread parks in until its tracer seizes it;
 *  - the kernel's vsyscall emulation (gettimeofday, time, getcpu called at
 *    0xffffffffff600000 + 0x000/0x400/0x800): trapped, so the sentry answers
 *    them instead of the host kernel;
 * and nothing else: the default is to kill the stub.
 */
#include "config.h"
#include "platform/ptrace/stub.h"
#include "lib/util.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>

#define VSYSCALL_ADDR 0xffffffffff600000ull

#define LD(off)	      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f)  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JGE(k, t, f)  BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), (t), (f))
#define JSET(k, t, f) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define RET(k)	      BPF_STMT(BPF_RET | BPF_K, (k))
#define OFF_NR	      offsetof(struct seccomp_data, nr)
#define OFF_ARCH      offsetof(struct seccomp_data, arch)
#define OFF_IP_LO     offsetof(struct seccomp_data, instruction_pointer)
#define OFF_IP_HI     (offsetof(struct seccomp_data, instruction_pointer) + 4)
#define OFF_ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n))

unsigned short stub_filter(uint64_t base, int memfd, struct sock_filter *out)
{
	uint32_t lo = (uint32_t)base, hi = (uint32_t)(base >> 32);
	uint32_t vlo = (uint32_t)VSYSCALL_ADDR, vhi = (uint32_t)(VSYSCALL_ADDR >> 32);
	/* Jump offsets are relative: t/f of instruction i lands on i + 1 + t/f.
	 * KILL is 27, ALLOW 28. */
	struct sock_filter prog[] = {
		/* 0 */ LD(OFF_ARCH),
		/* 1 */ JEQ(AUDIT_ARCH_X86_64, 0, 25),
		/* 2 */ LD(OFF_NR),
		/* 3 */ JSET(0x40000000u /* __X32_SYSCALL_BIT */, 23, 0),
		/* 4 */ LD(OFF_IP_HI),
		/* 5 */ JEQ(hi, 0, 16),
		/* From the stub page: munmap, mprotect, exit (of one thread), pause
		 * (a parked thread), mmap of the memory file, clone of a stub thread. */
		/* 6 */ LD(OFF_IP_LO),
		/* 7 */ JGE(lo, 0, 19),
		/* 8 */ JGE(lo + 4096, 18, 0),
		/* 9 */ LD(OFF_NR),
		/* 10 */ JEQ(SYS_munmap, 17, 0),
		/* 11 */ JEQ(SYS_mprotect, 16, 0),
		/* 12 */ JEQ(SYS_exit, 15, 0),
		/* 13 */ JEQ(SYS_pause, 14, 0),
		/* 14 */ JEQ(SYS_mmap, 0, 2),
		/* 15 */ LD(OFF_ARG_LO(4)),
		/* 16 */ JEQ((uint32_t)memfd, 11, 10),
		/* 17 */ JEQ(SYS_clone, 0, 9),
		/* 18 */ LD(OFF_ARG_LO(0)),
		/* 19 */ JEQ(STUB_CLONE_FLAGS, 0, 7),
		/* 20 */ LD(OFF_ARG_LO(0) + 4),
		/* 21 */ JEQ(0, 6, 5),
		/* From the vsyscall page (A still holds the high half of the IP): trap. */
		/* 22 */ JEQ(vhi, 0, 4),
		/* 23 */ LD(OFF_IP_LO),
		/* 24 */ JGE(vlo, 0, 2),
		/* 25 */ JGE(vlo + 4096, 1, 0),
		/* 26 */ RET(SECCOMP_RET_TRAP),
		/* 27 */ RET(SECCOMP_RET_KILL_PROCESS),
		/* 28 */ RET(SECCOMP_RET_ALLOW),
	};
	_Static_assert(ARRAY_SIZE(prog) <= STUB_FILTER_MAX, "stub filter too long");
	for (size_t i = 0; i < ARRAY_SIZE(prog); i++)
		out[i] = prog[i];
	return ARRAY_SIZE(prog);
}
