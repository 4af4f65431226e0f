/*
 * Unit tests: the ptrace stub's seccomp filter (platform/ptrace/stub_filter.c).
 * A small classic-BPF interpreter runs the program against crafted
 * struct seccomp_data; a forked child then installs it for real, to check
 * that the kernel accepts it and agrees with the interpreter.
 */
#include "config.h"
#include "platform/ptrace/stub.h"
#include "platform/platform.h"
#include "lib/util.h"
#include "unit.h"
#include "bpf.h"

#include <check.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define STUB_BASE 0x7f8812345000ull
#define MEMFD	  7
#define VSYSCALL  0xffffffffff600000ull
#define X32_BIT	  0x40000000u

#define KILL  SECCOMP_RET_KILL_PROCESS
#define TRAP  SECCOMP_RET_TRAP
#define ALLOW SECCOMP_RET_ALLOW

struct prog {
	struct sock_filter insn[STUB_FILTER_MAX];
	unsigned short len;
};

static void validate(const struct prog *p)
{
	bpf_validate(p->insn, p->len, STUB_FILTER_MAX);
}

static uint32_t run(const struct prog *p, const struct seccomp_data *d)
{
	return bpf_run(p->insn, p->len, d);
}

static void build(struct prog *p, uint64_t base, int memfd)
{
	memset(p, 0xa5, sizeof(*p));
	p->len = stub_filter(base, memfd, p->insn);
	validate(p);
	/* Nothing past the program was written. */
	for (unsigned i = p->len; i < STUB_FILTER_MAX; i++) {
		static const struct sock_filter untouched = {0xa5a5, 0xa5, 0xa5, 0xa5a5a5a5};
		ck_assert_int_eq(memcmp(&p->insn[i], &untouched, sizeof(untouched)), 0);
	}
}

static uint32_t call(const struct prog *p, uint32_t arch, int nr, uint64_t ip, uint64_t arg4)
{
	struct seccomp_data d = {.nr = nr, .arch = arch, .instruction_pointer = ip};

	d.args[0] = 0x1000;
	d.args[1] = 4096;
	d.args[4] = arg4;
	return run(p, &d);
}

static uint32_t x86(const struct prog *p, int nr, uint64_t ip)
{
	return call(p, AUDIT_ARCH_X86_64, nr, ip, MEMFD);
}

static uint32_t clone_with(const struct prog *p, uint64_t flags, uint64_t ip)
{
	struct seccomp_data d = {
		.nr = SYS_clone, .arch = AUDIT_ARCH_X86_64, .instruction_pointer = ip};

	d.args[0] = flags;
	return run(p, &d);
}

/* The program's shape: short enough, and valid by the kernel's rules. */
START_TEST(test_shape)
{
	struct prog p;

	build(&p, STUB_BASE, MEMFD);
	ck_assert_uint_ge(p.len, 10);
	/* The same inputs always give the same program. */
	{
		struct prog q;
		build(&q, STUB_BASE, MEMFD);
		ck_assert_uint_eq(p.len, q.len);
		ck_assert_int_eq(memcmp(p.insn, q.insn, p.len * sizeof(p.insn[0])), 0);
	}
}
END_TEST

/* Anything not x86-64 is killed first, even from the stub page. */
START_TEST(test_arch_mismatch)
{
	static const uint32_t arches[] = {AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, 0, ~0u,
					  AUDIT_ARCH_X86_64 ^ 1};
	struct prog p;

	build(&p, STUB_BASE, MEMFD);
	for (unsigned i = 0; i < ARRAY_SIZE(arches); i++) {
		ck_assert_uint_eq(call(&p, arches[i], SYS_munmap, STUB_BASE, MEMFD), KILL);
		ck_assert_uint_eq(call(&p, arches[i], SYS_mmap, STUB_BASE, MEMFD), KILL);
		ck_assert_uint_eq(call(&p, arches[i], SYS_gettimeofday, VSYSCALL, 0), KILL);
	}
	ck_assert_uint_eq(call(&p, AUDIT_ARCH_X86_64, SYS_munmap, STUB_BASE, MEMFD), ALLOW);
}
END_TEST

/* x32 system call numbers are killed, even for the calls the stub may make. */
START_TEST(test_x32)
{
	struct prog p;

	build(&p, STUB_BASE, MEMFD);
	ck_assert_uint_eq(x86(&p, X32_BIT | SYS_munmap, STUB_BASE), KILL);
	ck_assert_uint_eq(x86(&p, X32_BIT | SYS_mprotect, STUB_BASE + 8), KILL);
	ck_assert_uint_eq(x86(&p, X32_BIT | SYS_mmap, STUB_BASE), KILL);
	ck_assert_uint_eq(x86(&p, X32_BIT | SYS_gettimeofday, VSYSCALL), KILL);
	ck_assert_uint_eq(x86(&p, (int)(X32_BIT | 0x80000000u), STUB_BASE), KILL);
}
END_TEST

/* From the stub page: munmap, mprotect, mmap of the memory file, exit, pause
 * and the stub-thread clone; nothing else. */
START_TEST(test_stub_page_calls)
{
	static const uint64_t ips[] = {STUB_BASE, STUB_BASE + STUB_SYSCALL_OFF + 2, STUB_BASE + 8,
				       STUB_BASE + 4095};
	struct prog p;

	build(&p, STUB_BASE, MEMFD);
	for (unsigned i = 0; i < ARRAY_SIZE(ips); i++) {
		ck_assert_uint_eq(x86(&p, SYS_munmap, ips[i]), ALLOW);
		ck_assert_uint_eq(x86(&p, SYS_mprotect, ips[i]), ALLOW);
		ck_assert_uint_eq(call(&p, AUDIT_ARCH_X86_64, SYS_mmap, ips[i], MEMFD), ALLOW);
		/* mmap of anything but the memory file: anonymous (-1), stdin, another fd. */
		ck_assert_uint_eq(call(&p, AUDIT_ARCH_X86_64, SYS_mmap, ips[i], ~0ull), KILL);
		ck_assert_uint_eq(call(&p, AUDIT_ARCH_X86_64, SYS_mmap, ips[i], 0), KILL);
		ck_assert_uint_eq(call(&p, AUDIT_ARCH_X86_64, SYS_mmap, ips[i], MEMFD + 1), KILL);
		ck_assert_uint_eq(call(&p, AUDIT_ARCH_X86_64, SYS_mmap, ips[i], MEMFD - 1), KILL);
		ck_assert_uint_eq(x86(&p, SYS_exit, ips[i]), ALLOW);
		ck_assert_uint_eq(x86(&p, SYS_pause, ips[i]), ALLOW);
		ck_assert_uint_eq(x86(&p, SYS_exit_group, ips[i]), KILL);
		ck_assert_uint_eq(clone_with(&p, STUB_CLONE_FLAGS, ips[i]), ALLOW);
		/* Any other flags (a new process, CLONE_SETTLS, high bits): killed. */
		ck_assert_uint_eq(clone_with(&p, SIGCHLD, ips[i]), KILL);
		ck_assert_uint_eq(clone_with(&p, STUB_CLONE_FLAGS | CLONE_SETTLS, ips[i]), KILL);
		ck_assert_uint_eq(clone_with(&p, STUB_CLONE_FLAGS & ~CLONE_THREAD, ips[i]), KILL);
		ck_assert_uint_eq(clone_with(&p, STUB_CLONE_FLAGS | (1ull << 32), ips[i]), KILL);
		ck_assert_uint_eq(clone_with(&p, 0, ips[i]), KILL);
	}
	/* Every other system call from the stub page is killed. */
	for (int nr = 0; nr < 1024; nr++) {
		if (nr == SYS_munmap || nr == SYS_mprotect || nr == SYS_mmap || nr == SYS_exit ||
		    nr == SYS_pause)
			continue;
		ck_assert_msg(x86(&p, nr, STUB_BASE) == KILL, "syscall %d from the stub page", nr);
	}
	ck_assert_uint_eq(x86(&p, -1, STUB_BASE), KILL);
}
END_TEST

/* The same calls from anywhere else, edges included, are killed. */
START_TEST(test_outside_stub_page)
{
	static const uint64_t ips[] = {
		STUB_BASE - 1,
		STUB_BASE + 4096,
		STUB_BASE - 4096,
		STUB_BASE + 8192,
		STUB_BASE ^ (1ull << 32), /* same low half, other high half */
		STUB_BASE + (1ull << 32),
		STUB_BASE & 0xffffffffull,
		0,
		0x400000,
		GUEST_MAX_ADDR - 4096,
		~0ull,
	};
	struct prog p;

	build(&p, STUB_BASE, MEMFD);
	for (unsigned i = 0; i < ARRAY_SIZE(ips); i++) {
		ck_assert_msg(x86(&p, SYS_munmap, ips[i]) == KILL, "munmap at %#llx",
			      (unsigned long long)ips[i]);
		ck_assert_uint_eq(x86(&p, SYS_mprotect, ips[i]), KILL);
		ck_assert_uint_eq(x86(&p, SYS_mmap, ips[i]), KILL);
		ck_assert_uint_eq(x86(&p, SYS_read, ips[i]), KILL);
		ck_assert_uint_eq(x86(&p, SYS_exit_group, ips[i]), KILL);
		ck_assert_uint_eq(x86(&p, SYS_exit, ips[i]), KILL);
		ck_assert_uint_eq(x86(&p, SYS_pause, ips[i]), KILL);
		ck_assert_uint_eq(clone_with(&p, STUB_CLONE_FLAGS, ips[i]), KILL);
	}
}
END_TEST

/* System calls from the vsyscall page (the kernel's emulation) trap to the sentry. */
START_TEST(test_vsyscall_page)
{
	static const uint64_t inside[] = {VSYSCALL, VSYSCALL + 0x400, VSYSCALL + 0x800,
					  VSYSCALL + 4095};
	static const uint64_t outside[] = {VSYSCALL - 1,	  VSYSCALL + 4096,
					   VSYSCALL - 4096,	  VSYSCALL & 0xffffffffull,
					   0xffffffff00000000ull, VSYSCALL ^ (1ull << 32)};
	struct prog p;

	build(&p, STUB_BASE, MEMFD);
	for (unsigned i = 0; i < ARRAY_SIZE(inside); i++) {
		ck_assert_uint_eq(x86(&p, SYS_gettimeofday, inside[i]), TRAP);
		ck_assert_uint_eq(x86(&p, SYS_time, inside[i]), TRAP);
		ck_assert_uint_eq(x86(&p, SYS_getcpu, inside[i]), TRAP);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(outside); i++) {
		ck_assert_msg(x86(&p, SYS_gettimeofday, outside[i]) == KILL, "time at %#llx",
			      (unsigned long long)outside[i]);
		ck_assert_uint_eq(x86(&p, SYS_time, outside[i]), KILL);
	}
}
END_TEST

/*
 * Many stub pages (as stub_code_init picks them: above the guest range, with a
 * low half below 0xfffff000) and memory file descriptors: the edges hold for all.
 */
START_TEST(test_many_bases)
{
	const uint64_t span = HOST_TASK_SIZE - GUEST_MAX_ADDR - (1ull << 32);
	uint64_t seed = 99;

	for (unsigned round = 0; round < 3000; round++) {
		uint64_t base;
		int memfd = (int)(unit_rand(&seed) % 1024);
		struct prog p;

		/* Some rounds take the hardest low halves on purpose. */
		if (round % 3 == 0)
			base = GUEST_MAX_ADDR + ((unit_rand(&seed) % (span >> 32)) << 32) +
			       (round % 2 ? 0 : 0xffffe000ull);
		else
			base = GUEST_MAX_ADDR + ALIGN_DOWN(unit_rand(&seed) % span, 4096);
		if ((uint32_t)base >= 0xfffff000u)
			continue;
		build(&p, base, memfd);
		ck_assert_uint_eq(x86(&p, SYS_munmap, base), ALLOW);
		ck_assert_uint_eq(x86(&p, SYS_munmap, base + 4095), ALLOW);
		ck_assert_uint_eq(x86(&p, SYS_mprotect, base + 4095), ALLOW);
		ck_assert_uint_eq(x86(&p, SYS_mprotect, base + 4096), KILL);
		ck_assert_uint_eq(call(&p, AUDIT_ARCH_X86_64, SYS_mmap, base, (uint64_t)memfd),
				  ALLOW);
		ck_assert_uint_eq(
			call(&p, AUDIT_ARCH_X86_64, SYS_mmap, base, (uint64_t)(memfd ^ 1)), KILL);
		ck_assert_msg(x86(&p, SYS_munmap, base - 1) == KILL, "base %#llx - 1",
			      (unsigned long long)base);
		ck_assert_msg(x86(&p, SYS_munmap, base + 4096) == KILL, "base %#llx + 4096",
			      (unsigned long long)base);
		ck_assert_uint_eq(x86(&p, SYS_read, base), KILL);
		ck_assert_uint_eq(x86(&p, SYS_time, VSYSCALL + 0x400), TRAP);
	}
}
END_TEST

/* Call code at stub with the registers of a system call (the stub page does syscall; ret). */
static long stub_call(uint64_t stub, long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = a5;
	long ret;

	/* Step over the red zone: the call pushes a return address. */
	__asm__ volatile("sub $128, %%rsp\n\tcall *%[fn]\n\tadd $128, %%rsp"
			 : "=a"(ret)
			 : [fn] "r"(stub), "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * The kernel accepts the filter, and it does what the interpreter says: from a
 * page of "syscall; ret" at the stub address, munmap and mmap of the memory
 * file pass; mmap of another fd, and any call from elsewhere, kill.
 */
static void child(volatile long *marks, uint64_t stub, int memfd, int otherfd, bool bad_mmap)
{
	struct rlimit no_core = {0, 0};
	struct sock_filter insn[STUB_FILTER_MAX];
	struct sock_fprog fprog;

	setrlimit(RLIMIT_CORE, &no_core);
	fprog.len = stub_filter(stub, memfd, insn);
	fprog.filter = insn;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(10);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0)
		_exit(errno == EINVAL ? 11 : 12);
	marks[0] = 1;
	marks[1] = stub_call(stub, SYS_munmap, 0x20000, 4096, 0, 0, 0, 0);
	marks[2] = stub_call(stub, SYS_munmap, 0x10000, 4096, 0, 0, 0, 0);
	marks[3] = stub_call(stub, SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, memfd, 0);
	if (bad_mmap)
		marks[4] = stub_call(stub, SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, otherfd, 0);
	marks[5] = 1;
	syscall(SYS_getppid); /* not from the stub page: killed here */
	marks[6] = 1;
	_exit(0);
}

static void run_child(bool bad_mmap, volatile long *marks)
{
	static const unsigned char code[] = {0x0f, 0x05, 0xc3}; /* syscall; ret */
	void *page = MAP_FAILED;
	int memfd, otherfd, status;
	pid_t pid;

	for (int tries = 0; tries < 16; tries++) {
		page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ck_assert(page != MAP_FAILED);
		if ((uint32_t)(uintptr_t)page < 0xfffff000u)
			break;
	}
	memcpy(page, code, sizeof(code));
	ck_assert_int_eq(mprotect(page, 4096, PROT_READ | PROT_EXEC), 0);
	memfd = memfd_create("stub-filter-test", MFD_CLOEXEC);
	ck_assert_int_ge(memfd, 0);
	ck_assert_int_eq(ftruncate(memfd, 4096), 0);
	otherfd = dup(memfd);
	ck_assert_int_ge(otherfd, 0);
	for (int i = 0; i < 8; i++)
		marks[i] = -999;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		child(marks, (uint64_t)(uintptr_t)page, memfd, otherfd, bad_mmap);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "child status %#x (exit %d): the filter was not installed or did not kill",
		      status, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	close(memfd);
	close(otherfd);
	munmap(page, 4096);
}

START_TEST(test_kernel_agrees)
{
	volatile long *marks =
		mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert(marks != MAP_FAILED);
	/* The allowed calls pass and return their results; the first other call kills. */
	run_child(false, marks);
	ck_assert_int_eq(marks[0], 1);
	ck_assert_int_eq(marks[1], 0);
	ck_assert_int_eq(marks[2], 0);
	ck_assert_int_gt(marks[3], 0);
	ck_assert_int_eq(marks[5], 1);
	ck_assert_int_eq(marks[6], -999);
	/* mmap of another descriptor from the stub page kills. */
	run_child(true, marks);
	ck_assert_int_gt(marks[3], 0);
	ck_assert_int_eq(marks[4], -999);
	ck_assert_int_eq(marks[5], -999);
	munmap((void *)marks, 4096);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stub_filter");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60); /* generous: slow CI machines, sanitizers */
	tcase_add_test(tc, test_shape);
	tcase_add_test(tc, test_arch_mismatch);
	tcase_add_test(tc, test_x32);
	tcase_add_test(tc, test_stub_page_calls);
	tcase_add_test(tc, test_outside_stub_page);
	tcase_add_test(tc, test_vsyscall_page);
	tcase_add_test(tc, test_many_bases);
	tcase_add_test(tc, test_kernel_agrees);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
