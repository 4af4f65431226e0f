/*
 * Guest test: programs and requests seccomp refuses, and the edge ones it
 * takes. EINVAL for an empty or too long program, opcodes seccomp does not
 * allow (packet loads, MOD, RET X, ...), loads outside struct seccomp_data
 * or unaligned, jumps past the end, no final return, division by a constant
 * zero, shifts by 32, scratch memory out of range or read before written
 * on some path, unknown flags; EFAULT for bad pointers; ENOMEM for a stack
 * of more than 32768 instructions (4 more per filter). A refused program
 * leaves the process unfiltered.
 */
#include "guest.h"
#include "seccompguest.h"

#define ALLOW RET(SECCOMP_RET_ALLOW)
#define TSYNC SECCOMP_FILTER_FLAG_TSYNC

struct bad {
	const char *what;
	struct sock_filter insns[6];
	unsigned len;
};

static const struct bad bad[] = {
	{"no final return", {LD_ABS(SD_NR)}, 1},
	{"a final return of X", {BPF_STMT(BPF_RET | BPF_X, 0)}, 1},
	{"a halfword load", {BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0), ALLOW}, 2},
	{"a byte load", {BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), ALLOW}, 2},
	{"an indirect load", {BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0), ALLOW}, 2},
	{"an MSH load", {BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0), ALLOW}, 2},
	{"MOD", {BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), ALLOW}, 2},
	{"an unknown opcode", {BPF_STMT(0xffff, 0), ALLOW}, 2},
	{"NEG with X", {BPF_STMT(BPF_ALU | BPF_NEG | BPF_X, 0), ALLOW}, 2},
	{"a load at offset 2", {LD_ABS(2), ALLOW}, 2},
	{"a load at offset 64", {LD_ABS(64), ALLOW}, 2},
	{"an ancillary load", {LD_ABS(0xfffff000u), ALLOW}, 2},
	{"JA past the end", {BPF_STMT(BPF_JMP | BPF_JA, 1), ALLOW}, 2},
	{"jt past the end", {JEQ(0, 1, 0), ALLOW}, 2},
	{"jf past the end", {JEQ(0, 0, 1), ALLOW}, 2},
	{"division by constant 0", {BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), ALLOW}, 2},
	{"a left shift by 32", {BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32), ALLOW}, 2},
	{"a right shift by 32", {BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 32), ALLOW}, 2},
	{"a store to word 16", {BPF_STMT(BPF_ST, 16), ALLOW}, 2},
	{"a load of word 16", {BPF_STMT(BPF_ST, 0), BPF_STMT(BPF_LD | BPF_MEM, 16), ALLOW}, 3},
	{"a load of a word never stored", {BPF_STMT(BPF_LD | BPF_MEM, 0), ALLOW}, 2},
	{"a load of a word stored on one path only",
	 {LD_ABS(SD_NR), JEQ(0, 0, 1), BPF_STMT(BPF_ST, 5), BPF_STMT(BPF_LDX | BPF_MEM, 5), ALLOW},
	 5},
};

static void refusals(void)
{
	static struct sock_filter big[BPF_MAXINSNS + 1];
	struct sock_filter allow[] = {ALLOW};
	struct sock_fprog null_ptr = {.len = 1, .filter = NULL};
	struct sock_fprog bad_ptr = {.len = 1, .filter = (struct sock_filter *)8};
	char what[128];

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		snprintf(what, sizeof(what), "a program with %s", bad[i].what);
		CHECK_ERRNO(sc_install(0, bad[i].insns, bad[i].len), EINVAL, what);
	}
	for (size_t i = 0; i < ARRAY_LEN(big); i++)
		big[i] = (struct sock_filter)ALLOW;
	CHECK_ERRNO(sc_install(0, big, 0), EINVAL, "an empty program");
	CHECK_ERRNO(sc_install(0, big, ARRAY_LEN(big)), EINVAL, "a program of 4097 instructions");
	CHECK_ERRNO(sc_install(1u << 10, allow, 1), EINVAL, "an unknown flag");
	CHECK_ERRNO(sc_install(TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER, allow, 1), EINVAL,
		    "TSYNC with NEW_LISTENER");
	CHECK_ERRNO(sc_install(1u << 5, allow, 1), EINVAL, "WAIT_KILLABLE_RECV without a listener");
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL), EFAULT,
		    "a NULL struct sock_fprog");
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &null_ptr), EINVAL,
		    "a NULL program");
	CHECK_ERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &bad_ptr), EFAULT,
		    "a program at a bad address");
	CHECK_ERRNO(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0), EFAULT,
		    "PR_SET_SECCOMP with a NULL program");
	CHECK_EQ(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0, "nothing refused was installed");
}

/* Programs at the edges that seccomp takes: scratch words stored on both
 * paths of a branch, and arithmetic through every ALU opcode whose result
 * (printed, so that the native run checks it) becomes getpid's errno. */
static void edges(void)
{
	struct sock_filter join[] = {
		LD_ABS(SD_NR), JEQ(0, 0, 2), BPF_STMT(BPF_ST, 5), BPF_STMT(BPF_JMP | BPF_JA, 1),
		BPF_STMT(BPF_ST, 5), BPF_STMT(BPF_LDX | BPF_MEM, 5), ALLOW,
	};
	struct sock_filter alu[] = {
		LD_ABS(SD_NR),
		JEQ(SYS_getpid, 0, 32),
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_SUB | BPF_K, 28),
		BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 3),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 7),
		BPF_STMT(BPF_ST, 15),
		BPF_STMT(BPF_LDX | BPF_IMM, 6),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 4),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 1),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_K, 1),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_K, 0x100),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x1ff),
		BPF_STMT(BPF_ALU | BPF_MUL | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 15),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_NEG, 0),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_STX, 1),
		BPF_STMT(BPF_LDX | BPF_IMM, 33), /* shifts by X use its low 5 bits */
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfff),
		BPF_STMT(BPF_LDX | BPF_IMM, 0xf0f),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_X, 0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_X, 0, 0, 0),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
		BPF_STMT(BPF_RET | BPF_A, 0),
		ALLOW,
	};

	sc_no_new_privs();
	CHECK_EQ(sc_install(0, join, ARRAY_LEN(join)), 0,
		 "a load of a word stored on both paths");
	CHECK_EQ(sc_install(0, alu, ARRAY_LEN(alu)), 0, "a program of every ALU opcode");
	errno = 0;
	CHECK_EQ(syscall(SYS_getpid), -1, "getpid fails with the computed errno");
	printf("the computed errno: %d\n", errno);
}

/* Division by X == 0 ends the program with 0: KILL_THREAD. */
static void div_zero(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LDX | BPF_IMM, 0),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		ALLOW,
	};

	sc_no_new_privs();
	if (sc_install(0, f, ARRAY_LEN(f)) == 0)
		syscall(SYS_getpid); /* (printing would die already) */
	printf("FAIL: survived a division by zero (errno %d)\n", errno);
}

/*
 * The stack's limit: 32768 instructions as Linux counts them (its eBPF
 * translation: 3 more per program, 2 per return of a constant), each
 * filter but the new one 4 more. Three programs of 4096 constant returns
 * take 3 * 8199; a fourth does not fit, a program of 8171 does exactly.
 */
static void too_long(void)
{
	static struct sock_filter big[BPF_MAXINSNS];
	int i;
	long ret = 0;

	for (i = 0; i < BPF_MAXINSNS; i++)
		big[i] = (struct sock_filter)ALLOW;
	sc_no_new_privs();
	for (i = 0; i < 8 && ret == 0; i++)
		ret = sc_install(0, big, BPF_MAXINSNS);
	printf("filters of 4096 returns: number %d fails with %s\n", i,
	       ret ? strerrorname_np(errno) : "nothing");
	/* 3 + (1 + 1 + 2) + 4082 * 2 = 8171 */
	big[0] = (struct sock_filter)LD_ABS(SD_NR);
	big[1] = (struct sock_filter)JEQ(SYS_getpid, 0, 1);
	big[2] = (struct sock_filter)RET(ERRNO(ENOLINK));
	CHECK_ERRNO(sc_install(0, big, 4086), ENOMEM, "a filter of 8173 does not fit");
	CHECK_EQ(sc_install(0, big, 4085), 0, "a filter of 8171 fits exactly");
	CHECK_ERRNO(syscall(SYS_getpid), ENOLINK, "it runs");
	CHECK_ERRNO(sc_install(0, big + 3, 1), ENOMEM, "not one instruction more");
}

int main(void)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		printf("SKIP: this test runs under a seccomp filter already\n");
		return 77;
	}
	refusals();
	sc_print_status("edges", sc_child(edges));
	sc_print_status("division by zero", sc_child(div_zero));
	sc_print_status("too long", sc_child(too_long));
	return GUEST_DONE();
}
