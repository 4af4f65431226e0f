/*
 * Classic BPF's checks and interpreter (see cbpf.h), shared by seccomp
 * filters and socket filters; what a flavor loads is its own.
 */
#include "config.h"
#include "sentry/kernel/cbpf.h"

#include <errno.h>
#include <string.h>

/* A load the flavor does (not of a constant nor of scratch memory). */
static bool is_load(uint16_t code)
{
	return (BPF_CLASS(code) == BPF_LD || BPF_CLASS(code) == BPF_LDX) &&
	       BPF_MODE(code) != BPF_IMM && BPF_MODE(code) != BPF_MEM;
}

/* --- the checker ---------------------------------------------------------------- */

bool cbpf_is_cond_jump(uint16_t code)
{
	switch (code) {
	case BPF_JMP | BPF_JEQ | BPF_K:
	case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K:
	case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K:
	case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K:
	case BPF_JMP | BPF_JSET | BPF_X:
		return true;
	default:
		return false;
	}
}

/* One instruction on its own: an opcode the flavor takes, with operands in
 * range (bpf_check_classic's chk_code_allowed and its special checks). */
static bool insn_ok(const struct sock_filter *f, unsigned pc, unsigned len,
		    const struct cbpf_flavor *fl)
{
	uint32_t k = f->k;

	if (cbpf_is_cond_jump(f->code))
		return pc + f->jt + 1 < len && pc + f->jf + 1 < len;
	if (is_load(f->code))
		return fl->load_ok(f);
	switch (f->code) {
	case BPF_ALU | BPF_MOD | BPF_K:
		return fl->mod && k != 0;
	case BPF_ALU | BPF_MOD | BPF_X:
		return fl->mod;
	case BPF_ALU | BPF_DIV | BPF_K:
		return k != 0;
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_K:
		return k < 32;
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
		return k < BPF_MEMWORDS;
	case BPF_JMP | BPF_JA:
		return k < len - pc - 1;
	case BPF_RET | BPF_K:
	case BPF_RET | BPF_A:
	case BPF_ALU | BPF_ADD | BPF_K:
	case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K:
	case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K:
	case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K:
	case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K:
	case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K:
	case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_X:
	case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_NEG:
	case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_IMM:
	case BPF_MISC | BPF_TAX:
	case BPF_MISC | BPF_TXA:
		return true;
	default:
		return false; /* RET X, unknown codes */
	}
}

/*
 * Every read of a scratch word must follow a write of it on every path
 * that reaches the read. Jumps only go forward, so one pass suffices: each
 * instruction's set of written words is what all its predecessors agree on.
 */
static bool memory_ok(const struct sock_filter *insns, unsigned len)
{
	uint16_t reach[CBPF_MAX_INSNS]; /* words written on every path into pc */
	uint16_t valid = 0;		/* ... and at pc, on the path falling through */

	memset(reach, 0xff, len * sizeof(reach[0]));
	for (unsigned pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];
		valid &= reach[pc];
		if (f->code == BPF_ST || f->code == BPF_STX) {
			valid |= (uint16_t)(1u << f->k);
		} else if (f->code == (BPF_LD | BPF_MEM) || f->code == (BPF_LDX | BPF_MEM)) {
			if (!(valid & (1u << f->k)))
				return false;
		} else if (f->code == (BPF_JMP | BPF_JA)) {
			reach[pc + 1 + f->k] &= valid;
			valid = 0xffff; /* nothing falls through */
		} else if (cbpf_is_cond_jump(f->code)) {
			reach[pc + 1 + f->jt] &= valid;
			reach[pc + 1 + f->jf] &= valid;
			valid = 0xffff;
		}
	}
	return true;
}

int cbpf_check(const struct sock_filter *insns, unsigned len, unsigned max,
	       const struct cbpf_flavor *fl)
{
	uint16_t last;

	if (len == 0 || len > max || len > CBPF_MAX_INSNS)
		return -EINVAL;
	for (unsigned pc = 0; pc < len; pc++)
		if (!insn_ok(&insns[pc], pc, len, fl))
			return -EINVAL;
	last = insns[len - 1].code;
	if (last != (BPF_RET | BPF_K) && last != (BPF_RET | BPF_A))
		return -EINVAL;
	return memory_ok(insns, len) ? 0 : -EINVAL;
}

/* --- the interpreter ------------------------------------------------------------- */

uint32_t cbpf_run(const struct sock_filter *insns, unsigned len, const struct cbpf_flavor *fl,
		  const void *ctx)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = {0};

	for (unsigned pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];
		uint32_t k = f->k;
		bool taken;

		if (is_load(f->code)) {
			uint32_t v;
			if (!fl->load(ctx, f, A, X, &v))
				return 0;
			if (BPF_CLASS(f->code) == BPF_LDX)
				X = v;
			else
				A = v;
			continue;
		}
		switch (f->code) {
		case BPF_LD | BPF_IMM:
			A = k;
			continue;
		case BPF_LDX | BPF_IMM:
			X = k;
			continue;
		case BPF_LD | BPF_MEM:
			A = M[k];
			continue;
		case BPF_LDX | BPF_MEM:
			X = M[k];
			continue;
		case BPF_ST:
			M[k] = A;
			continue;
		case BPF_STX:
			M[k] = X;
			continue;
		case BPF_MISC | BPF_TAX:
			X = A;
			continue;
		case BPF_MISC | BPF_TXA:
			A = X;
			continue;
		case BPF_ALU | BPF_ADD | BPF_K:
			A += k;
			continue;
		case BPF_ALU | BPF_ADD | BPF_X:
			A += X;
			continue;
		case BPF_ALU | BPF_SUB | BPF_K:
			A -= k;
			continue;
		case BPF_ALU | BPF_SUB | BPF_X:
			A -= X;
			continue;
		case BPF_ALU | BPF_MUL | BPF_K:
			A *= k;
			continue;
		case BPF_ALU | BPF_MUL | BPF_X:
			A *= X;
			continue;
		case BPF_ALU | BPF_DIV | BPF_K:
			A /= k;
			continue;
		case BPF_ALU | BPF_DIV | BPF_X:
			if (X == 0)
				return 0;
			A /= X;
			continue;
		case BPF_ALU | BPF_MOD | BPF_K:
			A %= k;
			continue;
		case BPF_ALU | BPF_MOD | BPF_X:
			if (X == 0)
				return 0;
			A %= X;
			continue;
		case BPF_ALU | BPF_AND | BPF_K:
			A &= k;
			continue;
		case BPF_ALU | BPF_AND | BPF_X:
			A &= X;
			continue;
		case BPF_ALU | BPF_OR | BPF_K:
			A |= k;
			continue;
		case BPF_ALU | BPF_OR | BPF_X:
			A |= X;
			continue;
		case BPF_ALU | BPF_XOR | BPF_K:
			A ^= k;
			continue;
		case BPF_ALU | BPF_XOR | BPF_X:
			A ^= X;
			continue;
		case BPF_ALU | BPF_LSH | BPF_K:
			A <<= k;
			continue;
		case BPF_ALU | BPF_LSH | BPF_X:
			A <<= X & 31;
			continue;
		case BPF_ALU | BPF_RSH | BPF_K:
			A >>= k;
			continue;
		case BPF_ALU | BPF_RSH | BPF_X:
			A >>= X & 31;
			continue;
		case BPF_ALU | BPF_NEG:
			A = -A;
			continue;
		case BPF_RET | BPF_K:
			return k;
		case BPF_RET | BPF_A:
			return A;
		case BPF_JMP | BPF_JA:
			pc += k;
			continue;
		case BPF_JMP | BPF_JEQ | BPF_K:
			taken = A == k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_X:
			taken = A == X;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			taken = A >= k;
			break;
		case BPF_JMP | BPF_JGE | BPF_X:
			taken = A >= X;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			taken = A > k;
			break;
		case BPF_JMP | BPF_JGT | BPF_X:
			taken = A > X;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			taken = (A & k) != 0;
			break;
		case BPF_JMP | BPF_JSET | BPF_X:
			taken = (A & X) != 0;
			break;
		default:
			return 0; /* cbpf_check lets nothing else through */
		}
		pc += taken ? f->jt : f->jf;
	}
	return 0; /* unreachable for a checked program: it ends in a return */
}
