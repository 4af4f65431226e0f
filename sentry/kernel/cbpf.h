/*
 * Classic BPF as Linux checks and runs it (net/core/filter.c), for the two
 * kinds of program a guest gives the sentry: seccomp filters (loads of
 * struct seccomp_data, sentry/kernel/seccomp.c) and socket filters (loads
 * of the packet, sentry/net/sockfilter.c). What is common lives here: the
 * checks of every instruction but the loads, scratch memory written
 * before it is read on every path, and the interpreter (A and X start at
 * 0, a division by X == 0 ends the program with 0, shifts by X use its low
 * 5 bits, comparisons are unsigned 32-bit). A flavor says which loads and
 * whether BPF_MOD are allowed, and does the loads.
 */
#ifndef RUNG_CBPF_H
#define RUNG_CBPF_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>

#define CBPF_MAX_INSNS 4096 /* BPF_MAXINSNS */

struct cbpf_flavor {
	bool mod; /* BPF_ALU | BPF_MOD */
	/* May the program have this load (BPF_LD or BPF_LDX, not IMM nor
	 * MEM; BPF_LEN too), at pc of len? */
	bool (*load_ok)(const struct sock_filter *f);
	/* Do it (A and X as they are), into *out; false ends the program
	 * with 0 (a packet load past the end). */
	bool (*load)(const void *ctx, const struct sock_filter *f, uint32_t A, uint32_t X,
		     uint32_t *out);
};

/* 0, or -EINVAL for a program Linux would refuse: 1..max instructions of
 * the flavor's opcodes with operands in range, the last one a return. */
int cbpf_check(const struct sock_filter *insns, unsigned len, unsigned max,
	       const struct cbpf_flavor *fl);

/* A conditional jump (JEQ, JGE, JGT, JSET; K or X)? */
bool cbpf_is_cond_jump(uint16_t code);

/* Run a checked program on ctx: its return value. */
uint32_t cbpf_run(const struct sock_filter *insns, unsigned len, const struct cbpf_flavor *fl,
		  const void *ctx);

#endif
