/*
 * Classic BPF for the seccomp filter unit tests (header only): the checks
 * the kernel makes before it accepts a filter, and an interpreter that runs
 * one against a crafted struct seccomp_data.
 */
#ifndef RUNG_TESTS_BPF_H
#define RUNG_TESTS_BPF_H

#include <check.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* What the kernel checks before it accepts a classic filter for seccomp. */
static inline void bpf_validate(const struct sock_filter *insn, unsigned len, unsigned max)
{
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_le(len, max);
	ck_assert_uint_eq(BPF_CLASS(insn[len - 1].code), BPF_RET);
	for (unsigned pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insn[pc];
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			/* seccomp allows only aligned 32-bit loads inside seccomp_data. */
			ck_assert_uint_eq(f->code, BPF_LD | BPF_W | BPF_ABS);
			ck_assert_uint_eq(f->k % 4, 0);
			ck_assert_uint_le(f->k + 4, sizeof(struct seccomp_data));
			break;
		case BPF_JMP:
			if (BPF_OP(f->code) == BPF_JA) {
				ck_assert_uint_lt(pc + 1 + f->k, len);
			} else {
				ck_assert_uint_lt(pc + 1 + f->jt, len);
				ck_assert_uint_lt(pc + 1 + f->jf, len);
			}
			break;
		case BPF_RET:
			break;
		default:
			ck_abort_msg("instruction %u: unexpected class %#x", pc, f->code);
		}
	}
}

/* A classic BPF interpreter, enough for seccomp filters (loads, ALU, jumps, returns). */
static inline uint32_t bpf_run(const struct sock_filter *insn, unsigned len,
			       const struct seccomp_data *d)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = {0};
	unsigned pc = 0;

	for (unsigned steps = 0; steps <= len; steps++) {
		const struct sock_filter *f;
		uint32_t src;
		bool cond = false;

		ck_assert_uint_lt(pc, len);
		f = &insn[pc++];
		src = BPF_SRC(f->code) == BPF_X ? X : f->k;
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			if (BPF_MODE(f->code) == BPF_ABS) {
				ck_assert_uint_eq(BPF_SIZE(f->code), BPF_W);
				ck_assert_uint_le(f->k + 4, sizeof(*d));
				memcpy(&A, (const char *)d + f->k, 4);
			} else if (BPF_MODE(f->code) == BPF_IMM) {
				A = f->k;
			} else if (BPF_MODE(f->code) == BPF_MEM) {
				ck_assert_uint_lt(f->k, BPF_MEMWORDS);
				A = M[f->k];
			} else {
				A = sizeof(*d); /* BPF_LEN */
			}
			break;
		case BPF_LDX:
			X = BPF_MODE(f->code) == BPF_IMM   ? f->k
			    : BPF_MODE(f->code) == BPF_MEM ? M[f->k % BPF_MEMWORDS]
							   : (uint32_t)sizeof(*d);
			break;
		case BPF_ST:
			M[f->k % BPF_MEMWORDS] = A;
			break;
		case BPF_STX:
			M[f->k % BPF_MEMWORDS] = X;
			break;
		case BPF_ALU:
			switch (BPF_OP(f->code)) {
			case BPF_ADD:
				A += src;
				break;
			case BPF_SUB:
				A -= src;
				break;
			case BPF_MUL:
				A *= src;
				break;
			case BPF_DIV:
				ck_assert_uint_ne(src, 0);
				A /= src;
				break;
			case BPF_MOD:
				ck_assert_uint_ne(src, 0);
				A %= src;
				break;
			case BPF_OR:
				A |= src;
				break;
			case BPF_AND:
				A &= src;
				break;
			case BPF_XOR:
				A ^= src;
				break;
			case BPF_LSH:
				A <<= src;
				break;
			case BPF_RSH:
				A >>= src;
				break;
			case BPF_NEG:
				A = -A;
				break;
			default:
				ck_abort_msg("bad ALU op %#x", f->code);
			}
			break;
		case BPF_JMP:
			switch (BPF_OP(f->code)) {
			case BPF_JA:
				pc += f->k;
				continue;
			case BPF_JEQ:
				cond = A == src;
				break;
			case BPF_JGT:
				cond = A > src;
				break;
			case BPF_JGE:
				cond = A >= src;
				break;
			case BPF_JSET:
				cond = (A & src) != 0;
				break;
			default:
				ck_abort_msg("bad jump %#x", f->code);
			}
			pc += cond ? f->jt : f->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(f->code) == BPF_K ? f->k : A;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		}
	}
	ck_abort_msg("filter ran past its length without returning");
	return 0;
}

#endif
