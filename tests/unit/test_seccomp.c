/*
 * Unit tests: the guest seccomp engine (sentry/kernel/seccomp.c). The
 * checker against a table of programs Linux refuses or takes, then against
 * the host kernel itself on random programs (a child asks the kernel to
 * check each without installing it: TSYNC past a thread with a filter of
 * its own fails only after the program was checked); the interpreter
 * against hand-computed results and against the kernel running random
 * arithmetic filters; stacks (the most restrictive action wins, the newest
 * on a tie) and their reference counts; seccomp_linux_len.
 */
#include "config.h"
#include "sentry/kernel/seccomp.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <linux/audit.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SD_NR	  offsetof(struct seccomp_data, nr)
#define SD_ARG(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define LD(k)	  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (k))
#define RET(k)	  BPF_STMT(BPF_RET | BPF_K, (k))
#define ALLOW	  RET(SECCOMP_RET_ALLOW)
#define ERRNO(e)  (SECCOMP_RET_ERRNO | (e))

struct case_ {
	const char *what;
	struct sock_filter insns[8];
	unsigned len;
	bool ok;
};

static const struct case_ cases[] = {
	{"allow", {ALLOW}, 1, true},
	{"return A", {BPF_STMT(BPF_RET | BPF_A, 0)}, 1, true},
	{"empty", {ALLOW}, 0, false},
	{"no final return", {LD(0)}, 1, false},
	{"return X", {BPF_STMT(BPF_RET | BPF_X, 0)}, 1, false},
	{"load at 60", {LD(60), ALLOW}, 2, true},
	{"load at 64", {LD(64), ALLOW}, 2, false},
	{"load at 6", {LD(6), ALLOW}, 2, false},
	{"halfword load", {BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0), ALLOW}, 2, false},
	{"indirect load", {BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0), ALLOW}, 2, false},
	{"length loads",
	 {BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0), BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0), ALLOW},
	 3,
	 true},
	{"mod", {BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 2), ALLOW}, 2, false},
	{"div by 0", {BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), ALLOW}, 2, false},
	{"div by X", {BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0), ALLOW}, 2, true},
	{"lsh 31", {BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 31), ALLOW}, 2, true},
	{"lsh 32", {BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32), ALLOW}, 2, false},
	{"rsh 32", {BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 32), ALLOW}, 2, false},
	{"ja to the last", {BPF_STMT(BPF_JMP | BPF_JA, 0), ALLOW}, 2, true},
	{"ja past the end", {BPF_STMT(BPF_JMP | BPF_JA, 1), ALLOW}, 2, false},
	{"jeq past the end", {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1), ALLOW}, 2, false},
	{"jset both ways", {BPF_JUMP(BPF_JMP | BPF_JSET | BPF_X, 0, 1, 0), ALLOW, ALLOW}, 3, true},
	{"st 15", {BPF_STMT(BPF_ST, 15), BPF_STMT(BPF_LD | BPF_MEM, 15), ALLOW}, 3, true},
	{"st 16", {BPF_STMT(BPF_ST, 16), ALLOW}, 2, false},
	{"load unwritten", {BPF_STMT(BPF_LDX | BPF_MEM, 3), ALLOW}, 2, false},
	{"load written on one path",
	 {LD(0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0), BPF_STMT(BPF_STX, 2),
	  BPF_STMT(BPF_LD | BPF_MEM, 2), ALLOW},
	 5,
	 false},
	{"load written before a jump",
	 {BPF_STMT(BPF_ST, 2), BPF_STMT(BPF_JMP | BPF_JA, 0), BPF_STMT(BPF_LD | BPF_MEM, 2), ALLOW},
	 4,
	 true},
	{"unknown opcode", {BPF_STMT(0x0f, 0), ALLOW}, 2, false},
};

START_TEST(test_check_table)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = seccomp_check(cases[i].insns, cases[i].len);
		ck_assert_msg((ret == 0) == cases[i].ok, "%s: %d", cases[i].what, ret);
		ck_assert(ret == 0 || ret == -EINVAL);
	}
}
END_TEST

START_TEST(test_check_length)
{
	static struct sock_filter big[SECCOMP_MAX_INSNS + 1];

	for (size_t i = 0; i < ARRAY_SIZE(big); i++)
		big[i] = (struct sock_filter)ALLOW;
	ck_assert_int_eq(seccomp_check(big, SECCOMP_MAX_INSNS), 0);
	ck_assert_int_eq(seccomp_check(big, SECCOMP_MAX_INSNS + 1), -EINVAL);
	/* A jump over the whole maximum program. */
	big[0] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, SECCOMP_MAX_INSNS - 2);
	ck_assert_int_eq(seccomp_check(big, SECCOMP_MAX_INSNS), 0);
	big[0].k++;
	ck_assert_int_eq(seccomp_check(big, SECCOMP_MAX_INSNS), -EINVAL);
}
END_TEST

static uint32_t run(const struct sock_filter *insns, unsigned len, const struct seccomp_data *d)
{
	ck_assert_int_eq(seccomp_check(insns, len), 0);
	return seccomp_bpf_run(insns, len, d);
}

START_TEST(test_run)
{
	struct seccomp_data d = {.nr = 39,
				 .arch = AUDIT_ARCH_X86_64,
				 .instruction_pointer = 0x1122334455667788ull,
				 .args = {0xffffffff00000005ull, 7}};
	struct sock_filter by_nr[] = {
		LD(SD_NR),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 39, 0, 1),
		RET(ERRNO(1)),
		ALLOW,
	};
	struct sock_filter ip_high[] = {
		LD(offsetof(struct seccomp_data, instruction_pointer) + 4),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter arg_math[] = {
		LD(SD_ARG(0)),				/* 5 */
		BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0), /* 64 */
		BPF_STMT(BPF_ALU | BPF_MUL | BPF_X, 0), /* 320 */
		BPF_STMT(BPF_ST, 0),
		LD(SD_ARG(0) + 4),		/* 0xffffffff */
		BPF_STMT(BPF_ALU | BPF_NEG, 0), /* 1 */
		BPF_STMT(BPF_LDX | BPF_MEM, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0), /* 321 */
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter div0[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 9),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		ALLOW,
	};
	struct sock_filter shift_x[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 1),
		BPF_STMT(BPF_LDX | BPF_IMM, 36),
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter unsigned_cmp[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 0x80000000u),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 5, 0, 1),
		RET(1),
		RET(2),
	};

	ck_assert_uint_eq(run(by_nr, ARRAY_SIZE(by_nr), &d), ERRNO(1));
	d.nr = 40;
	ck_assert_uint_eq(run(by_nr, ARRAY_SIZE(by_nr), &d), SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(run(ip_high, ARRAY_SIZE(ip_high), &d), 0x11223344u);
	ck_assert_uint_eq(run(arg_math, ARRAY_SIZE(arg_math), &d), 321);
	ck_assert_uint_eq(run(div0, ARRAY_SIZE(div0), &d), 0); /* ends the program: KILL_THREAD */
	ck_assert_uint_eq(run(shift_x, ARRAY_SIZE(shift_x), &d), 16); /* 36 & 31 */
	ck_assert_uint_eq(run(unsigned_cmp, ARRAY_SIZE(unsigned_cmp), &d), 1);
}
END_TEST

static struct seccomp_filter *filter_ret(uint32_t ret)
{
	struct sock_filter f[] = {RET(ret)};
	struct seccomp_filter *out = NULL;

	ck_assert_int_eq(seccomp_filter_new(f, 1, false, &out), 0);
	return out;
}

/* A stack of filters returning rets[0] (oldest) ... rets[n - 1] (newest). */
static struct seccomp_filter *stack_of(const uint32_t *rets, int n)
{
	struct seccomp_filter *top = NULL;

	for (int i = 0; i < n; i++) {
		struct seccomp_filter *f = filter_ret(rets[i]);
		f->prev = top;
		f->depth = top ? top->depth + 1 : 1;
		top = f;
	}
	return top;
}

START_TEST(test_stack_order)
{
	struct seccomp_data d = {0};
	static const uint32_t a[] = {ERRNO(1), ERRNO(2)};
	static const uint32_t b[] = {SECCOMP_RET_TRAP | 3, SECCOMP_RET_ERRNO | 4, SECCOMP_RET_LOG};
	static const uint32_t c[] = {SECCOMP_RET_ALLOW, SECCOMP_RET_KILL_PROCESS,
				     SECCOMP_RET_KILL_THREAD};
	static const uint32_t e[] = {SECCOMP_RET_TRACE, SECCOMP_RET_USER_NOTIF | 9,
				     SECCOMP_RET_LOG};
	static const uint32_t unknown[] = {SECCOMP_RET_ERRNO, 0x00010000u};
	struct seccomp_filter *s;

	ck_assert_uint_eq(seccomp_stack_run(NULL, &d), SECCOMP_RET_ALLOW);
	s = stack_of(a, 2);
	ck_assert_uint_eq(seccomp_stack_run(s, &d), ERRNO(2)); /* the newest on a tie */
	seccomp_filter_put(s);
	s = stack_of(b, 3);
	ck_assert_uint_eq(seccomp_stack_run(s, &d), SECCOMP_RET_TRAP | 3);
	seccomp_filter_put(s);
	s = stack_of(c, 3);
	ck_assert_uint_eq(seccomp_stack_run(s, &d), SECCOMP_RET_KILL_PROCESS);
	seccomp_filter_put(s);
	s = stack_of(e, 3);
	ck_assert_uint_eq(seccomp_stack_run(s, &d), SECCOMP_RET_USER_NOTIF | 9);
	seccomp_filter_put(s);
	/* An unknown action ranks as what its bits say (below ERRNO): it wins. */
	s = stack_of(unknown, 2);
	ck_assert_uint_eq(seccomp_stack_run(s, &d), 0x00010000u);
	seccomp_filter_put(s);
}
END_TEST

START_TEST(test_refs)
{
	static const uint32_t rets[] = {1, 2, 3, 4, 5};
	struct seccomp_filter *s = stack_of(rets, 5), *mid = s->prev->prev;

	ck_assert_uint_eq(s->depth, 5);
	/* A second holder of the middle keeps it and what lies below it. */
	seccomp_filter_get(mid);
	seccomp_filter_put(s);
	ck_assert_int_eq(mid->refs, 1);
	ck_assert_uint_eq(mid->depth, 3);
	ck_assert_int_eq(mid->prev->refs, 1);
	seccomp_filter_put(mid);
}
END_TEST

START_TEST(test_linux_len)
{
	struct sock_filter rets[] = {ALLOW, ALLOW};
	struct sock_filter mix[] = {
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),		/* 1: jt falls through... */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0),		/* 1: jf falls through */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 0, 1),		/* 2: JSET has no inverse */
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0x80000000u, 1, 0), /* 2: negative constant */
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),			/* 5 */
		BPF_STMT(BPF_RET | BPF_A, 0),				/* 1 */
		ALLOW,							/* 2 */
	};

	ck_assert_uint_eq(seccomp_linux_len(rets, 2), 3 + 4);
	ck_assert_uint_eq(seccomp_linux_len(mix, ARRAY_SIZE(mix)),
			  3 + 1 + 1 + 1 + 2 + 2 + 5 + 1 + 2);
}
END_TEST

/* --- against the host kernel ------------------------------------------------------ */

static uint64_t seed = 0x5eccull;

/* A random instruction: often a plausible one, sometimes anything. */
static struct sock_filter random_insn(unsigned len)
{
	static const uint16_t codes[] = {
		BPF_LD | BPF_W | BPF_ABS,
		BPF_LD | BPF_H | BPF_ABS,
		BPF_LD | BPF_W | BPF_LEN,
		BPF_LDX | BPF_W | BPF_LEN,
		BPF_LD | BPF_IMM,
		BPF_LDX | BPF_IMM,
		BPF_LD | BPF_MEM,
		BPF_LDX | BPF_MEM,
		BPF_ST,
		BPF_STX,
		BPF_MISC | BPF_TAX,
		BPF_MISC | BPF_TXA,
		BPF_ALU | BPF_ADD | BPF_X,
		BPF_ALU | BPF_DIV | BPF_K,
		BPF_ALU | BPF_MOD | BPF_K,
		BPF_ALU | BPF_LSH | BPF_K,
		BPF_ALU | BPF_RSH | BPF_X,
		BPF_ALU | BPF_NEG,
		BPF_JMP | BPF_JA,
		BPF_JMP | BPF_JEQ | BPF_K,
		BPF_JMP | BPF_JSET | BPF_X,
		BPF_JMP | BPF_JGT | BPF_X,
		BPF_RET | BPF_K,
		BPF_RET | BPF_A,
	};
	uint64_t r = unit_rand(&seed);
	struct sock_filter f;

	f.code = (r & 7) == 0 ? (uint16_t)(r >> 8) : codes[(r >> 8) % ARRAY_SIZE(codes)];
	f.jt = (uint8_t)((r >> 24) % (len + 1));
	f.jf = (uint8_t)((r >> 32) % (len + 1));
	switch ((r >> 40) & 3) {
	case 0:
		f.k = (uint32_t)((r >> 44) % 70);
		break;
	case 1:
		f.k = (uint32_t)((r >> 44) % 20);
		break;
	case 2:
		f.k = (uint32_t)((r >> 44) & 3) * 4;
		break;
	default:
		f.k = (uint32_t)(r >> 32);
	}
	return f;
}

/* Child: ask the kernel to check program after program (read from in as
 * length + instructions) without installing one, and write back each
 * verdict (0: taken, else the errno). */
static pthread_barrier_t ready;

static void *filtered_thread(void *arg)
{
	struct sock_filter allow = ALLOW;
	struct sock_fprog p = {.len = 1, .filter = &allow};

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) != 0)
		_exit(20);
	pthread_barrier_wait(&ready);
	pause();
	return arg;
}

static void checker_child(int in, int out)
{
	struct sock_filter insns[64];
	unsigned short len;
	pthread_t thr;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(21);
	pthread_barrier_init(&ready, NULL, 2);
	if (pthread_create(&thr, NULL, filtered_thread, NULL) != 0)
		_exit(22);
	pthread_barrier_wait(&ready);
	while (read(in, &len, sizeof(len)) == sizeof(len)) {
		struct sock_fprog p = {.len = len, .filter = insns};
		int verdict;
		if (len > ARRAY_SIZE(insns) ||
		    read(in, insns, len * sizeof(insns[0])) != (ssize_t)(len * sizeof(insns[0])))
			_exit(23);
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH, &p) == 0)
			_exit(24); /* installed: the thread should have stopped that */
		verdict = errno == ESRCH ? 0 : errno;
		if (write(out, &verdict, sizeof(verdict)) != sizeof(verdict))
			_exit(25);
	}
	_exit(0);
}

START_TEST(test_check_agrees_with_kernel)
{
	int to[2], from[2], status, agree = 0, taken = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(to), 0);
	ck_assert_int_eq(pipe(from), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		checker_child(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	for (int trial = 0; trial < 3000; trial++) {
		struct sock_filter insns[64];
		unsigned short len = (unsigned short)(1 + unit_rand(&seed) % 12);
		int verdict, ours;
		for (unsigned i = 0; i < len; i++)
			insns[i] = random_insn(len - i);
		/* Mostly end with a return, so that more programs get far. */
		if (unit_rand(&seed) % 4)
			insns[len - 1] = (struct sock_filter)ALLOW;
		ck_assert_int_eq(write(to[1], &len, sizeof(len)), sizeof(len));
		ck_assert_int_eq(write(to[1], insns, len * sizeof(insns[0])),
				 (ssize_t)(len * sizeof(insns[0])));
		ck_assert_int_eq(read(from[0], &verdict, sizeof(verdict)), sizeof(verdict));
		ours = -seccomp_check(insns, len);
		ck_assert_msg(ours == verdict, "trial %d: the kernel says %d, seccomp_check %d",
			      trial, verdict, ours);
		agree++;
		taken += verdict == 0;
	}
	close(to[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	/* The random programs must exercise both answers. */
	ck_assert_int_gt(taken, 100);
	ck_assert_int_gt(agree - taken, 100);
	close(from[0]);
}
END_TEST

/* A random filter for getppid computing errno (A & 0xfff) from the call's
 * arguments through every ALU operation, scratch memory and X. */
static unsigned arith_program(struct sock_filter *p)
{
	static const uint16_t ops[] = {BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR,
				       BPF_AND, BPF_LSH, BPF_RSH, BPF_XOR};
	unsigned n = 0, body = 4 + (unsigned)(unit_rand(&seed) % 20);

	p[n++] = (struct sock_filter)LD(SD_NR);
	p[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 1, 0);
	p[n++] = (struct sock_filter)ALLOW;
	p[n++] = (struct sock_filter)BPF_STMT(BPF_ST, 0);
	p[n++] = (struct sock_filter)BPF_STMT(BPF_STX, 1);
	for (unsigned i = 0; i < body; i++) {
		uint64_t r = unit_rand(&seed);
		uint32_t k = (uint32_t)(r >> 32);
		uint16_t op = ops[(r >> 4) % ARRAY_SIZE(ops)];
		switch (r & 7) {
		case 0:
			p[n++] = (struct sock_filter)LD(SD_ARG((r >> 8) % 6) + 4 * ((r >> 12) & 1));
			break;
		case 1: /* ALU with a constant in range */
			if (op == BPF_DIV && k == 0)
				k = 3;
			if (op == BPF_LSH || op == BPF_RSH)
				k &= 31;
			p[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | op | BPF_K, k);
			break;
		case 2: /* ALU with X (division by 0 may happen: it returns 0) */
			p[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | op | BPF_X, 0);
			break;
		case 3:
			p[n++] = (struct sock_filter)BPF_STMT(
				(r & 8) ? BPF_MISC | BPF_TAX : BPF_MISC | BPF_TXA, 0);
			break;
		case 4:
			p[n++] = (struct sock_filter)BPF_STMT((r & 8) ? BPF_ST : BPF_STX,
							      (r >> 9) & 1);
			break;
		case 5:
			p[n++] = (struct sock_filter)BPF_STMT(
				(r & 8) ? BPF_LD | BPF_MEM : BPF_LDX | BPF_MEM, (r >> 9) & 1);
			break;
		case 6:
			p[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_NEG, 0);
			break;
		default:
			p[n++] = (struct sock_filter)BPF_STMT(
				(r & 8) ? BPF_LD | BPF_IMM : BPF_LDX | BPF_IMM, k);
		}
	}
	p[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfff);
	p[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO);
	p[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	return n;
}

START_TEST(test_run_agrees_with_kernel)
{
	for (int trial = 0; trial < 300; trial++) {
		struct sock_filter p[40];
		unsigned len = arith_program(p);
		struct seccomp_data d = {.nr = SYS_getppid, .arch = AUDIT_ARCH_X86_64};
		uint32_t want;
		int fds[2], status;
		long got = -1;
		pid_t pid;

		for (int i = 0; i < 6; i++)
			d.args[i] = unit_rand(&seed) >> (unit_rand(&seed) % 64);
		ck_assert_int_eq(seccomp_check(p, len), 0);
		want = seccomp_bpf_run(p, len, &d);
		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct sock_fprog fp = {.len = (unsigned short)len, .filter = p};
			long r;
			signal(SIGSYS, SIG_DFL);
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
			    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) != 0)
				_exit(30);
			r = syscall(SYS_getppid, d.args[0], d.args[1], d.args[2], d.args[3],
				    d.args[4], d.args[5]);
			r = r < 0 ? errno : 0;
			_exit(write(fds[1], &r, sizeof(r)) == sizeof(r) ? 0 : 31);
		}
		close(fds[1]);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		if (read(fds[0], &got, sizeof(got)) != sizeof(got))
			got = -1;
		close(fds[0]);
		if (want == 0) {
			/* The program divided by X == 0: KILL_THREAD. */
			ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
				      "trial %d: status %#x", trial, status);
		} else {
			ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
				      "trial %d: status %#x", trial, status);
			ck_assert_msg(got == (long)(want & SECCOMP_RET_DATA),
				      "trial %d: the kernel gives errno %ld, the interpreter %u",
				      trial, got, want & SECCOMP_RET_DATA);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("seccomp");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_check_table);
	tcase_add_test(tc, test_check_length);
	tcase_add_test(tc, test_run);
	tcase_add_test(tc, test_stack_order);
	tcase_add_test(tc, test_refs);
	tcase_add_test(tc, test_linux_len);
	tcase_add_test(tc, test_check_agrees_with_kernel);
	tcase_add_test(tc, test_run_agrees_with_kernel);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
