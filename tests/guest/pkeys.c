/*
 * Memory protection keys. The sandbox presents a CPU without OSPKE, where
 * Linux has no keys to give; the host may have them. Only what is the same
 * on both is printed: the argument checks, the keys no one allocated, and
 * pkey -1, which is plain mprotect.
 */
#include "guest.h"

#include <signal.h>
#include <sys/wait.h>

static long pkey_mprotect_(void *addr, size_t len, int prot, int pkey)
{
	return syscall(SYS_pkey_mprotect, addr, len, prot, pkey);
}

/* Does a write to P fault? Tried in a child, which dies of SIGSEGV if so. */
static int write_faults(char *p)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		*(volatile char *)p = 1;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

int main(void)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long key;

	CHECK(p != MAP_FAILED, "mmap two pages");
	p[0] = 'x';

	CHECK_ERRNO(syscall(SYS_pkey_alloc, 1, 0), EINVAL, "pkey_alloc with flags");
	CHECK_ERRNO(syscall(SYS_pkey_alloc, 0, 4), EINVAL, "pkey_alloc with init_val 4");
	CHECK_ERRNO(syscall(SYS_pkey_alloc, 0, ~0ul), EINVAL, "pkey_alloc with init_val ~0");

	/* The host may hand out a key; the sandbox has none. */
	errno = 0;
	key = syscall(SYS_pkey_alloc, 0, 0);
	if (key >= 1 && key < 16) {
		CHECK(syscall(SYS_pkey_free, key) == 0, "pkey_alloc: ok-or-ENOSPC");
	} else {
		CHECK(key == -1 && errno == ENOSPC, "pkey_alloc: ok-or-ENOSPC");
	}

	CHECK_ERRNO(syscall(SYS_pkey_free, 5), EINVAL, "pkey_free(5), never allocated");
	CHECK_ERRNO(syscall(SYS_pkey_free, 15), EINVAL, "pkey_free(15), never allocated");
	CHECK_ERRNO(syscall(SYS_pkey_free, -1), EINVAL, "pkey_free(-1)");
	CHECK_ERRNO(syscall(SYS_pkey_free, 16), EINVAL, "pkey_free(16)");

	/* A key no one allocated: EINVAL, but only after mprotect's own checks. */
	CHECK_ERRNO(pkey_mprotect_(p, PAGE, PROT_READ, 15), EINVAL, "pkey_mprotect with pkey 15");
	CHECK_ERRNO(pkey_mprotect_(p, PAGE, PROT_READ, 16), EINVAL, "pkey_mprotect with pkey 16");
	CHECK_ERRNO(pkey_mprotect_(p, PAGE, PROT_READ, -2), EINVAL, "pkey_mprotect with pkey -2");
	CHECK_EQ(pkey_mprotect_(p, 0, PROT_READ, 15), 0, "pkey_mprotect pkey 15, length 0: 0");
	CHECK_ERRNO(pkey_mprotect_(p + 1, PAGE, PROT_READ, 15), EINVAL,
		    "pkey_mprotect pkey 15, unaligned");
	CHECK_ERRNO(pkey_mprotect_(p, -PAGE, PROT_READ, 15), ENOMEM,
		    "pkey_mprotect pkey 15, wrapping length");
	CHECK_ERRNO(pkey_mprotect_(p, PAGE, PROT_READ | PROT_GROWSDOWN | PROT_GROWSUP, 15), EINVAL,
		    "pkey_mprotect pkey 15, both GROWS flags");
	CHECK(write_faults(p) == 0, "after the failed calls the page is still writable");

	/* pkey -1 is mprotect, checks and all. */
	CHECK_ERRNO(pkey_mprotect_(p + 1, PAGE, PROT_READ, -1), EINVAL,
		    "pkey_mprotect pkey -1, unaligned");
	CHECK_ERRNO(pkey_mprotect_(p, PAGE, 0x100, -1), EINVAL, "pkey_mprotect pkey -1, bad prot");
	CHECK_ERRNO(pkey_mprotect_(p, -PAGE, PROT_READ, -1), ENOMEM,
		    "pkey_mprotect pkey -1, wrapping length");
	CHECK(munmap(p + PAGE, PAGE) == 0, "munmap the second page");
	CHECK_ERRNO(pkey_mprotect_(p, 2 * PAGE, PROT_READ, -1), ENOMEM,
		    "pkey_mprotect pkey -1 over a hole");
	CHECK_EQ(pkey_mprotect_(p, PAGE, PROT_READ, -1), 0, "pkey_mprotect pkey -1, PROT_READ");
	CHECK(write_faults(p) == 1, "a write to the read-only page faults");
	CHECK(p[0] == 'x', "the page is still readable");
	CHECK_EQ(pkey_mprotect_(p, PAGE, PROT_READ | PROT_WRITE, -1), 0,
		 "pkey_mprotect pkey -1, PROT_READ|PROT_WRITE");
	CHECK(write_faults(p) == 0, "a write to it works again");
	return GUEST_DONE();
}
