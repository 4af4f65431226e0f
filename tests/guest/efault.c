/*
 * Guest test: bad pointers passed to system calls give EFAULT (NULL,
 * unmapped, PROT_NONE, read-only for output, kernel and non-canonical
 * addresses, ranges running off the end of user space), and a failed read
 * consumes no input. The runner feeds efault.stdin as stdin.
 */
#include "guest.h"

/* Bad arguments are the point here. */
#pragma GCC diagnostic ignored "-Wnonnull"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>

#define KERNEL_ADDR ((void *)0xffff888000000000ul)
#define NONCANON    ((void *)0x0000800000000000ul)

/* A read into BUF must fail with EFAULT and leave stdin's offset at 0. */
static void bad_read(void *buf, size_t len, const char *what)
{
	char msg[128];

	lseek(0, 0, SEEK_SET);
	CHECK_ERRNO(read(0, buf, len), EFAULT, what);
	snprintf(msg, sizeof(msg), "%s consumed no input", what);
	CHECK_EQ(lseek(0, 0, SEEK_CUR), 0, msg);
}

int main(void)
{
	char *unmapped, *none, *ro, *edge, buf[64];
	struct iovec iov[2];
	struct stat st;
	long r;

	unmapped = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro[0] = 'R';
	mprotect(ro, PAGE, PROT_READ);
	/* Two pages, the second one unmapped: a buffer at its end runs into a hole. */
	edge = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(edge + PAGE, PAGE);
	munmap(unmapped, PAGE); /* last, so that no other mapping lands there */
	CHECK(none != MAP_FAILED && ro != MAP_FAILED && edge != MAP_FAILED, "test pages mapped");

	/* write: the source must be readable. */
	CHECK_ERRNO(write(1, NULL, 10), EFAULT, "write from NULL");
	CHECK_ERRNO(write(1, unmapped, 10), EFAULT, "write from an unmapped page");
	CHECK_ERRNO(write(1, none, 10), EFAULT, "write from a PROT_NONE page");
	CHECK_ERRNO(write(1, KERNEL_ADDR, 10), EFAULT, "write from a kernel address");
	CHECK_ERRNO(write(1, NONCANON, 10), EFAULT, "write from a non-canonical address");
	CHECK_ERRNO(write(1, edge + PAGE - 8, 1ul << 47), EFAULT,
		    "write of a range past user space");
	CHECK_ERRNO(write(1, edge + PAGE - 8, (size_t)-1), EFAULT, "write of length 2^64-1");
	CHECK_EQ(write(1, NULL, 0), 0, "write of 0 bytes from NULL");
	CHECK_EQ(write(1, ro, 0), 0, "write of 0 bytes from a read-only page");
	CHECK_EQ(write(1, "from ro: ", 9) + write(1, ro, 1) + write(1, "\n", 1), 11,
		 "write from a read-only page works");
	iov[0] = (struct iovec){.iov_base = unmapped, .iov_len = 4};
	CHECK_ERRNO(writev(1, iov, 1), EFAULT, "writev of an unmapped buffer");
	CHECK_ERRNO(writev(1, (struct iovec *)unmapped, 1), EFAULT, "writev of an unmapped iovec");
	if (fstat(1, &st) == 0 && S_ISREG(st.st_mode))
		CHECK_ERRNO(pwrite(1, NULL, 4, 0), EFAULT, "pwrite from NULL");
	else
		CHECK(1, "pwrite from NULL fails with EFAULT");

	/* read: the destination must be writable, and a failed read reads
	 * nothing (the file offset stays where it was). */
	bad_read(NULL, 10, "read into NULL");
	bad_read(unmapped, 10, "read into an unmapped page");
	bad_read(none, 10, "read into a PROT_NONE page");
	bad_read(ro, 10, "read into a read-only page");
	bad_read(KERNEL_ADDR, 10, "read into a kernel address");
	bad_read(NONCANON, 10, "read into a non-canonical address");
	bad_read(edge + PAGE - 8, 1ul << 47, "read of a range past user space");
	CHECK(ro[0] == 'R' && ro[1] == 0, "the read-only page is unchanged");
	iov[0] = (struct iovec){.iov_base = ro, .iov_len = 4};
	lseek(0, 0, SEEK_SET);
	CHECK_ERRNO(readv(0, iov, 1), EFAULT, "readv into a read-only page");
	CHECK_EQ(lseek(0, 0, SEEK_CUR), 0, "the failed readv consumed no input");
	CHECK_ERRNO(readv(0, (struct iovec *)none, 1), EFAULT, "readv of a PROT_NONE iovec");
	CHECK_ERRNO(pread(0, NULL, 10, 0), EFAULT, "pread into NULL");
	CHECK_ERRNO(pread(0, ro, 10, 0), EFAULT, "pread into a read-only page");
	lseek(0, 0, SEEK_SET);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(0, buf, 4), 4, "a good read after the failures");
	CHECK(memcmp(buf, "0123", 4) == 0, "it reads from the start of the input");

	/* A buffer that runs into a hole: Linux reads what fits (a short read). */
	r = read(0, edge + PAGE - 6, 10);
	CHECK_EQ(r, 6, "a read into a buffer running into a hole is short");
	CHECK(memcmp(edge + PAGE - 6, "456789", 6) == 0, "the short read got the next bytes");
	CHECK_EQ(lseek(0, 0, SEEK_CUR), 10, "the short read moved the offset by 6");
	CHECK_EQ(read(0, buf, 4), 4, "the next read");
	CHECK(memcmp(buf, "abcd", 4) == 0, "the short read consumed only what it returned");
	/* Two iovecs, the second bad: the first one is filled. */
	iov[0] = (struct iovec){.iov_base = buf, .iov_len = 2};
	iov[1] = (struct iovec){.iov_base = unmapped, .iov_len = 2};
	CHECK_EQ(readv(0, iov, 2), 2, "readv with a bad second iovec reads into the first");
	CHECK(memcmp(buf, "ef", 2) == 0, "the first iovec got its bytes");

	/* Other system calls that write results into guest memory. */
	CHECK_ERRNO(fstat(1, NULL), EFAULT, "fstat into NULL");
	CHECK_ERRNO(fstat(1, (struct stat *)ro), EFAULT, "fstat into a read-only page");
	CHECK_ERRNO(uname(NULL), EFAULT, "uname into NULL");
	CHECK_ERRNO(uname((struct utsname *)ro), EFAULT, "uname into a read-only page");
	CHECK_ERRNO(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, NULL), EFAULT,
		    "clock_gettime into NULL");
	CHECK_ERRNO(syscall(SYS_clock_gettime, CLOCK_REALTIME, ro), EFAULT,
		    "clock_gettime into a read-only page");
	CHECK_ERRNO(syscall(SYS_clock_getres, CLOCK_MONOTONIC, ro), EFAULT,
		    "clock_getres into a read-only page");
	CHECK_ERRNO(syscall(SYS_gettimeofday, unmapped, NULL), EFAULT,
		    "gettimeofday into an unmapped page");
	CHECK_ERRNO(syscall(SYS_time, ro), EFAULT, "time into a read-only page");
	CHECK_ERRNO(syscall(SYS_nanosleep, unmapped, NULL), EFAULT,
		    "nanosleep from an unmapped page");
	CHECK_ERRNO(syscall(SYS_getrandom, NULL, 16, 0), EFAULT, "getrandom into NULL");
	CHECK_ERRNO(syscall(SYS_getrandom, ro, 16, 0), EFAULT, "getrandom into a read-only page");
	CHECK_ERRNO(syscall(SYS_getcwd, ro, 4096), EFAULT, "getcwd into a read-only page");
	CHECK_ERRNO(syscall(SYS_sched_getaffinity, 0, 128, NULL), EFAULT,
		    "sched_getaffinity into NULL");
	CHECK_ERRNO(syscall(SYS_getrlimit, RLIMIT_NOFILE, ro), EFAULT,
		    "getrlimit into a read-only page");
	CHECK_ERRNO(syscall(SYS_setrlimit, RLIMIT_NOFILE, unmapped), EFAULT,
		    "setrlimit from an unmapped page");
	CHECK_ERRNO(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, ro), EFAULT,
		    "prlimit64 into a read-only page");
	CHECK_ERRNO(syscall(SYS_rt_sigaction, SIGUSR1, unmapped, NULL, 8), EFAULT,
		    "rt_sigaction from an unmapped page");
	CHECK_ERRNO(syscall(SYS_rt_sigaction, SIGUSR1, NULL, ro, 8), EFAULT,
		    "rt_sigaction into a read-only page");
	CHECK_ERRNO(syscall(SYS_rt_sigprocmask, SIG_BLOCK, unmapped, NULL, 8), EFAULT,
		    "rt_sigprocmask from an unmapped page");
	CHECK_ERRNO(syscall(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */, ro), EFAULT,
		    "arch_prctl GET_FS into a read-only page");
	CHECK_ERRNO(syscall(SYS_ioctl, 0, 0x541b /* FIONREAD */, NULL), EFAULT,
		    "ioctl FIONREAD into NULL");

	return GUEST_DONE();
}
