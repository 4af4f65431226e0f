/*
 * Guest test: thread-local storage through arch_prctl. __thread variables
 * get their initial values, ARCH_GET_FS is the thread pointer (%fs:0 points
 * at itself), ARCH_SET_FS to a custom block and back works, GS likewise,
 * and bad requests fail as on Linux. While FS points at the custom block
 * nothing may use libc, so those steps use raw system calls only.
 */
#include "guest.h"

#include <asm/prctl.h>

static __thread int tls_init = 42;
static __thread char tls_str[16] = "tls-string";
static __thread long tls_zero[64];

static unsigned long read_fs0(void)
{
	unsigned long v;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(v));
	return v;
}

static unsigned long read_fs8(void)
{
	unsigned long v;

	__asm__ volatile("mov %%fs:8, %0" : "=r"(v));
	return v;
}

static unsigned long read_gs0(void)
{
	unsigned long v;

	__asm__ volatile("mov %%gs:0, %0" : "=r"(v));
	return v;
}

static long arch_prctl_raw(int code, unsigned long addr)
{
	return guest_raw_syscall(SYS_arch_prctl, code, (long)addr, 0, 0, 0, 0);
}

int main(void)
{
	static unsigned long block[8] __attribute__((aligned(64)));
	unsigned long fs = 0, gs = 0, got = 0, fs0, fs8, back;
	int zero = 1;
	long r1, r2, r3;

	CHECK_EQ(tls_init, 42, "an initialised __thread int has its value");
	CHECK(strcmp(tls_str, "tls-string") == 0, "an initialised __thread string has its value");
	for (int i = 0; i < 64; i++)
		zero &= tls_zero[i] == 0;
	CHECK(zero, "a __thread array in TLS bss reads zeros");
	tls_init++;
	CHECK_EQ(tls_init, 43, "a __thread variable is writable");

	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_FS, &fs), 0, "ARCH_GET_FS");
	CHECK(fs != 0, "FS base is set");
	CHECK_EQ(read_fs0(), fs, "%fs:0 points at the thread pointer itself");
	CHECK((uintptr_t)&tls_init < fs && (uintptr_t)&tls_init >= fs - 4096,
	      "__thread variables sit just below the thread pointer");
	errno = 0;
	CHECK_ERRNO(close(-1), EBADF, "errno, itself thread-local, is set");

	/* Switch FS to a block of our own and back, touching nothing else. */
	block[0] = (unsigned long)block;
	block[1] = 0x1234567890abcdefUL;
	r1 = arch_prctl_raw(ARCH_SET_FS, (unsigned long)block);
	fs0 = read_fs0();
	fs8 = read_fs8();
	r2 = arch_prctl_raw(ARCH_GET_FS, (unsigned long)&got);
	r3 = arch_prctl_raw(ARCH_SET_FS, fs);
	back = read_fs0();
	CHECK_EQ(r1, 0, "ARCH_SET_FS to a custom block");
	CHECK_EQ(fs0, (unsigned long)block, "%fs:0 reads the custom block");
	CHECK_EQ(fs8, 0x1234567890abcdefUL, "%fs:8 reads the custom block's second word");
	CHECK(r2 == 0 && got == (unsigned long)block, "ARCH_GET_FS reports the custom block");
	CHECK_EQ(r3, 0, "ARCH_SET_FS back to the original");
	CHECK_EQ(back, fs, "%fs:0 is the original thread pointer again");
	CHECK_EQ(tls_init, 43, "__thread variables are intact after the round trip");

	/* GS: unused by glibc, free for the program. */
	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_GS, &gs), 0, "ARCH_GET_GS");
	CHECK_EQ(gs, 0, "GS base starts at 0");
	block[0] = 0xfeedface;
	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_SET_GS, block), 0, "ARCH_SET_GS");
	CHECK_EQ(read_gs0(), 0xfeedface, "%gs:0 reads the block");
	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_GS, &gs), 0, "ARCH_GET_GS again");
	CHECK_EQ(gs, (unsigned long)block, "ARCH_GET_GS reports the block");
	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_SET_GS, 0), 0, "ARCH_SET_GS back to 0");

	/* Errors. */
	CHECK_ERRNO(syscall(SYS_arch_prctl, ARCH_SET_FS, 1ul << 47), EPERM,
		    "ARCH_SET_FS to a non-user address");
	CHECK_ERRNO(syscall(SYS_arch_prctl, ARCH_SET_FS, 0xffff800000000000ul), EPERM,
		    "ARCH_SET_FS to a kernel address");
	CHECK_ERRNO(syscall(SYS_arch_prctl, 0x9999, 0), EINVAL, "arch_prctl with an unknown code");
	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_FS, &got), 0, "ARCH_GET_FS after the errors");
	CHECK_EQ(got, fs, "the failed calls left FS alone");
	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0), 1, "ARCH_GET_CPUID: CPUID is enabled");

	return GUEST_DONE();
}
