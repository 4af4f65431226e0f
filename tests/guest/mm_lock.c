/* mlock, mlock2, munlock, mlockall, munlockall, mincore and personality:
 * what they return and refuse, residency of touched and untouched anonymous
 * pages, and a persona kept across fork and exec. */
#include "guest.h"

#include <sys/personality.h>
#include <sys/wait.h>

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif

static long vm_lck_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	unsigned char vec[8];
	char *p;
	pid_t pid;
	int st;

	if (argc > 1) /* the exec'd copy: report the persona it got */
		return personality(0xffffffff) == ADDR_NO_RANDOMIZE ? 0 : 1;

	p = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap 8 pages");
	CHECK(mincore(p, 8 * PAGE, vec) == 0, "mincore of a fresh mapping");
	CHECK(!(vec[0] | vec[3] | vec[7]), "no page of it is resident");
	p[0] = 1;
	p[3 * PAGE] = 1;
	CHECK(mincore(p, 8 * PAGE, vec) == 0 && vec[0] == 1 && vec[3] == 1 && vec[1] == 0 &&
		      vec[7] == 0,
	      "the touched pages are, the others not");
	CHECK(mincore(p + 3 * PAGE, 1, vec) == 0 && vec[0] == 1, "a length rounds up to a page");
	CHECK_ERRNO(mincore(p + 1, PAGE, vec), EINVAL, "mincore of an unaligned address");
	CHECK_ERRNO(munmap(p + 4 * PAGE, PAGE) == 0 ? mincore(p, 8 * PAGE, vec) : 0, ENOMEM,
		    "mincore over a hole");
	CHECK_ERRNO(mincore(p, PAGE, NULL), EFAULT, "mincore into a bad vector");

	CHECK(mlock(p + 10, 2 * PAGE) == 0, "mlock of an unaligned range");
	CHECK_EQ(vm_lck_kb(), 12, "VmLck: the three pages it spans");
	CHECK_ERRNO(mlock(p, 8 * PAGE), ENOMEM, "mlock over a hole");
	CHECK_EQ(vm_lck_kb(), 16, "... locks what comes before the hole");
	CHECK_ERRNO(mlock(p + 4 * PAGE, PAGE), ENOMEM, "mlock of the hole");
	CHECK_ERRNO(madvise(p, PAGE, MADV_DONTNEED), EINVAL, "MADV_DONTNEED of a locked page");
	CHECK_ERRNO(munlock(p, 8 * PAGE), ENOMEM, "munlock over the hole");
	CHECK_EQ(vm_lck_kb(), 0, "... unlocks what comes before it");
	CHECK_ERRNO(mlock2(p, PAGE, 2), EINVAL, "mlock2 with an unknown flag");
	CHECK(mlock2(p, PAGE, MLOCK_ONFAULT) == 0 && vm_lck_kb() == 4, "mlock2(MLOCK_ONFAULT)");
	pid = fork();
	if (pid == 0)
		_exit(vm_lck_kb() == 0 ? 0 : 1);
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "a fork's child inherits no lock");
	CHECK(munlock(p, PAGE) == 0, "munlock it");
	CHECK_ERRNO(mlockall(0), EINVAL, "mlockall(0)");
	CHECK_ERRNO(mlockall(MCL_ONFAULT), EINVAL, "mlockall(MCL_ONFAULT) alone");
	CHECK(mlockall(MCL_CURRENT | MCL_FUTURE) == 0 && vm_lck_kb() > 0, "mlockall");
	{
		long before = vm_lck_kb();
		char *q = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(q != MAP_FAILED && vm_lck_kb() == before + 16, "MCL_FUTURE locks a new mapping");
		munmap(q, 4 * PAGE);
	}
	CHECK(munlockall() == 0 && vm_lck_kb() == 0, "munlockall");
	CHECK(mlockall(MCL_FUTURE) == 0 && vm_lck_kb() == 0, "mlockall(MCL_FUTURE) locks nothing yet");
	{
		char *q = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(q != MAP_FAILED && vm_lck_kb() == 4, "... but the next mapping");
		munmap(q, PAGE);
	}
	CHECK(munlockall() == 0, "munlockall");
	{
		char *q = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK_ERRNO(mlock(q, PAGE), ENOMEM, "mlock of a PROT_NONE page (it cannot be faulted in)");
		CHECK(munlock(q, PAGE) == 0 && mlock2(q, PAGE, MLOCK_ONFAULT) == 0,
		      "mlock2(MLOCK_ONFAULT) of it works");
		munmap(q, PAGE);
	}

	CHECK_EQ(personality(0xffffffff), PER_LINUX, "the persona is PER_LINUX");
	CHECK_EQ(personality(ADDR_NO_RANDOMIZE), PER_LINUX, "personality returns the old one");
	CHECK_EQ(personality(0xffffffff), ADDR_NO_RANDOMIZE, "the new one holds");
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(2);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a child keeps it, across exec too");
	CHECK_EQ(personality(PER_LINUX), ADDR_NO_RANDOMIZE, "back to PER_LINUX");
	return GUEST_DONE();
}
