/*
 * The guest's CPUID: the host's values with feature bits limited to the set
 * in docs/cpuid.md (x86-64-v3 and the extensions common programs probe).
 * Leaves that describe sizes (XSAVE areas, caches, topology) stay the
 * host's: the guest runs on this CPU, and an XSAVE buffer sized for fewer
 * features than XCR0 enables would be overrun.
 */
#include "config.h"
#include "sentry/kernel/cpuid.h"
#include "sentry/kernel/task.h"

#include <cpuid.h>

/* Leaf 1, ECX: SSE3 PCLMULQDQ SSSE3 FMA CX16 SSE4.1 SSE4.2 MOVBE POPCNT AES
 * XSAVE OSXSAVE AVX F16C RDRAND. */
#define L1_ECX                                                                                   \
	((1u << 0) | (1u << 1) | (1u << 9) | (1u << 12) | (1u << 13) | (1u << 19) | (1u << 20) | \
	 (1u << 22) | (1u << 23) | (1u << 25) | (1u << 26) | (1u << 27) | (1u << 28) |           \
	 (1u << 29) | (1u << 30))
/* Leaf 1, EDX: FPU TSC CX8 CMOV CLFSH MMX FXSR SSE SSE2 (and the basics every
 * x86-64 CPU has: DE PSE MSR PAE MCE APIC SEP MTRR PGE MCA PAT PSE36). */
#define L1_EDX                                                                                    \
	((1u << 0) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) |      \
	 (1u << 8) | (1u << 9) | (1u << 11) | (1u << 12) | (1u << 13) | (1u << 14) | (1u << 15) | \
	 (1u << 16) | (1u << 17) | (1u << 19) | (1u << 23) | (1u << 24) | (1u << 25) | (1u << 26))
/* Leaf 7.0, EBX: FSGSBASE BMI1 AVX2 SMEP BMI2 ERMS RDSEED ADX SMAP CLFLUSHOPT SHA. */
#define L7_EBX                                                                                \
	((1u << 0) | (1u << 3) | (1u << 5) | (1u << 7) | (1u << 8) | (1u << 9) | (1u << 18) | \
	 (1u << 19) | (1u << 20) | (1u << 23) | (1u << 29))
/* Leaf 7.0, ECX: VAES VPCLMULQDQ. */
#define L7_ECX ((1u << 9) | (1u << 10))
/* Leaf 7.0, EDX: FSRM. */
#define L7_EDX (1u << 4)
/* Leaf 0x80000001, ECX: LAHF/SAHF LZCNT PREFETCHW. */
#define LX1_ECX ((1u << 0) | (1u << 5) | (1u << 8))
/* Leaf 0x80000001, EDX: SYSCALL NX PDPE1GB RDTSCP LM. */
#define LX1_EDX ((1u << 11) | (1u << 20) | (1u << 26) | (1u << 27) | (1u << 29))

void cpuid_filter(uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	switch (leaf) {
	case 1:
		regs[2] &= L1_ECX; /* no hypervisor bit, no monitor, no x2APIC... */
		regs[3] &= L1_EDX;
		break;
	case 7:
		if (subleaf == 0) {
			regs[0] = 0; /* no further subleaves */
			regs[1] &= L7_EBX;
			regs[2] &= L7_ECX;
			regs[3] &= L7_EDX;
		} else {
			regs[0] = regs[1] = regs[2] = regs[3] = 0;
		}
		break;
	case 0x80000001:
		regs[2] &= LX1_ECX;
		regs[3] &= LX1_EDX;
		break;
	case 6:		 /* thermal and power management */
	case 0x40000000: /* hypervisor leaves: the host's hypervisor is not the guest's */
	case 0x40000001:
		regs[0] = regs[1] = regs[2] = regs[3] = 0;
		break;
	default:
		break;
	}
}

void cpuid_emulate(struct task *t)
{
	struct user_regs_struct *r = task_regs(t);
	uint32_t leaf = (uint32_t)r->rax, sub = (uint32_t)r->rcx, regs[4];

	__cpuid_count(leaf, sub, regs[0], regs[1], regs[2], regs[3]);
	cpuid_filter(leaf, sub, regs);
	r->rax = regs[0];
	r->rbx = regs[1];
	r->rcx = regs[2];
	r->rdx = regs[3];
	r->rip += 2;
	task_regs_dirty(t, CPU_DIRTY_ALL);
}
