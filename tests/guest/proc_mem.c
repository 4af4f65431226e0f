/*
 * Guest test: /proc/<pid>/mem reads and writes a process's memory at the
 * offset that is the address: its own (through pread, pwrite, and lseek
 * then read), a read-only private mapping written as ptrace would (the
 * mapping stays read-only), a PROT_NONE mapping read, an unmapped address
 * (EIO), and a forked child's memory, read and written by its parent.
 * Without privilege, a process that is not dumpable cannot be opened.
 * No addresses are printed.
 */
#include "guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static volatile uint64_t word = 0x1122334455667788ull;

/* The permissions /proc/self/maps shows for the mapping that starts at addr. */
static const char *perms(const void *addr)
{
	static char line[512], result[8];
	char start[32];
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(start, sizeof(start), "%lx-", (unsigned long)(uintptr_t)addr);
	result[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, start, strlen(start)) == 0)
			sscanf(line, "%*s %7s", result);
	if (f)
		fclose(f);
	return result;
}

int main(void)
{
	int fd = open("/proc/self/mem", O_RDWR), p[2], q[2], status;
	uint64_t v = 0, w = 0xabcdefull;
	char path[64], c = 0, buf[8];
	char *ro, *none, *gone;
	pid_t pid;

	CHECK(fd >= 0, "open /proc/self/mem read-write");
	CHECK(pread(fd, &v, 8, (off_t)(uintptr_t)&word) == 8 && v == word,
	      "pread at a variable's address reads it");
	CHECK(pwrite(fd, &w, 8, (off_t)(uintptr_t)&word) == 8 && word == 0xabcdefull,
	      "pwrite there changes it");
	CHECK(lseek(fd, (off_t)(uintptr_t)&word, SEEK_SET) == (off_t)(uintptr_t)&word &&
		      read(fd, &v, 8) == 8 && v == 0xabcdefull &&
		      lseek(fd, 0, SEEK_CUR) == (off_t)(uintptr_t)&word + 8,
	      "lseek to it, read, and the position moves on");
	CHECK_ERRNO(lseek(fd, 0, SEEK_END), EINVAL, "lseek from the end");

	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED, "a read-only private mapping");
	CHECK(pwrite(fd, "forced", 6, (off_t)(uintptr_t)ro) == 6 && memcmp(ro, "forced", 6) == 0,
	      "a write to it goes through, as ptrace's");
	CHECK(strcmp(perms(ro), "r--p") == 0, "it is still mapped read-only");

	none = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(none, "hidden", 6);
	CHECK(mprotect(none, PAGE, PROT_NONE) == 0, "a mapping made PROT_NONE");
	CHECK(pread(fd, buf, 6, (off_t)(uintptr_t)none) == 6 && memcmp(buf, "hidden", 6) == 0,
	      "reads what it holds");

	gone = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(gone, 'g', 2 * PAGE);
	CHECK(munmap(gone + PAGE, PAGE) == 0, "unmap the second page of two");
	CHECK_ERRNO(pread(fd, buf, 8, (off_t)(uintptr_t)(gone + PAGE)), EIO,
		    "a read of an unmapped address");
	CHECK_ERRNO(pwrite(fd, buf, 8, (off_t)(uintptr_t)(gone + PAGE)), EIO,
		    "a write to an unmapped address");
	CHECK(pread(fd, buf, 8, (off_t)(uintptr_t)(gone + PAGE - 4)) == 4, "a read across the end is short");
	close(fd);

	/* A child: its parent reads and writes its memory. */
	CHECK(pipe(p) == 0 && pipe(q) == 0, "pipes");
	word = 42;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		word = 43;
		if (write(q[1], "r", 1) != 1 || read(p[0], &c, 1) != 1)
			_exit(3);
		_exit(word == 44 ? 0 : 1);
	}
	CHECK(read(q[0], &c, 1) == 1, "the child is ready");
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR);
	CHECK(fd >= 0, "open the child's mem");
	CHECK(pread(fd, &v, 8, (off_t)(uintptr_t)&word) == 8 && v == 43, "read the child's word");
	v = 44;
	CHECK(pwrite(fd, &v, 8, (off_t)(uintptr_t)&word) == 8 && word == 42,
	      "write the child's word (ours stays)");
	CHECK(write(p[1], "go", 1) == 1 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0,
	      "the child saw the write");
	CHECK(pread(fd, &v, 8, (off_t)(uintptr_t)&word) == 0, "a reaped child's mem reads nothing");
	close(fd);

	/* A child that is not dumpable: only a privileged process may open it. */
	if (geteuid() != 0) {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			prctl(PR_SET_DUMPABLE, 0);
			if (write(q[1], "r", 1) != 1 || read(p[0], &c, 1) != 1)
				_exit(3);
			_exit(0);
		}
		CHECK(read(q[0], &c, 1) == 1, "a child that is not dumpable");
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		CHECK_ERRNO(open(path, O_RDONLY), EACCES, "open its mem");
		CHECK(write(p[1], "g", 1) == 1 && waitpid(pid, &status, 0) == pid, "it ends");
	}
	return GUEST_DONE();
}
