/*
 * What CPUID tells a guest. Where the host supports CPUID faulting, every
 * guest CPUID traps to the sentry, which answers from the host's values
 * masked to one fixed, documented feature set (docs/cpuid.md): a program
 * sees the same features on every host that has them all, so it can move
 * between hosts (checkpoint/restore) and cannot detect more than we allow.
 */
#ifndef RUNG_CPUID_H
#define RUNG_CPUID_H

#include <stdint.h>

struct task;

/* Mask the host's answer regs (eax, ebx, ecx, edx) for leaf/subleaf in place. */
void cpuid_filter(uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);

/* The guest executed CPUID at rip (its 2 bytes checked by the caller):
 * answer it and step over the instruction. */
void cpuid_emulate(struct task *t);

#endif
