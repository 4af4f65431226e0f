/* Decoding one guest instruction (for fault reports and the access type of
 * a fault), with capstone loaded on demand. */
#ifndef RUNG_SENTRY_KERNEL_DISASM_H
#define RUNG_SENTRY_KERNEL_DISASM_H

#include <stddef.h>
#include <stdint.h>

/* Load capstone now, while the host's files are still reachable (the
 * confined sentry has an empty root). Failing is not fatal: faults are
 * then reported without the instruction. */
void disasm_preload(void);

/* Decode the instruction in code[0..n) at address rip: its text into
 * text[0..size) ("?" or "(undecodable)" when it cannot be), and the
 * accesses its memory operands make as ACCESS_* bits (0 if unknown). */
unsigned disasm_one(const uint8_t *code, size_t n, uint64_t rip, char *text, int size);

#endif
