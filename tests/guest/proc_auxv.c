/*
 * Guest test: /proc/self/auxv is the auxiliary vector exec built, the same
 * pairs getauxval reports (but AT_HWCAP*), ending with AT_NULL; a fork's copy is the same.
 * Only facts are printed (no addresses).
 */
#include "guest.h"

#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>

static long read_auxv(uint64_t *buf, size_t size)
{
	long n = 0, r;
	int fd = open("/proc/self/auxv", O_RDONLY);

	if (fd < 0)
		return -1;
	/* Small reads: the contents must not depend on their size. */
	while ((size_t)n < size && (r = read(fd, (char *)buf + n, 24)) > 0)
		n += r;
	close(fd);
	return n;
}

static int same_as_getauxval(const uint64_t *v, long words)
{
	long i;

	for (i = 0; i + 1 < words; i += 2) {
		if (v[i] == AT_NULL)
			return 1;
		/* glibc's getauxval answers AT_HWCAP and AT_HWCAP2 from its own
		 * figures on x86-64. */
		if (v[i] == AT_HWCAP || v[i] == AT_HWCAP2)
			continue;
		if (getauxval(v[i]) != v[i + 1])
			return 0;
	}
	return 0;
}

static int has(const uint64_t *v, long words, uint64_t type)
{
	long i;

	for (i = 0; i + 1 < words; i += 2)
		if (v[i] == type)
			return 1;
	return 0;
}

int main(void)
{
	static uint64_t v[512], w[512];
	long n = read_auxv(v, sizeof(v)), words = n / 8;
	struct stat st;
	pid_t pid;
	int status;

	CHECK(n > 0 && n % 16 == 0, "auxv is whole (type, value) pairs");
	CHECK(words >= 2 && v[words - 2] == AT_NULL && v[words - 1] == 0, "auxv ends with AT_NULL");
	CHECK(same_as_getauxval(v, words), "every pair but the hwcaps is what getauxval says");
	CHECK(has(v, words, AT_PAGESZ) && has(v, words, AT_RANDOM) && has(v, words, AT_PHDR) &&
		      has(v, words, AT_ENTRY) && has(v, words, AT_EXECFN),
	      "auxv has AT_PAGESZ, AT_RANDOM, AT_PHDR, AT_ENTRY, AT_EXECFN");
	CHECK(getauxval(AT_PAGESZ) == 4096, "AT_PAGESZ is 4096");
	CHECK(stat("/proc/self/auxv", &st) == 0 && (st.st_mode & 0777) == 0400,
	      "auxv's mode is 0400");

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		long m = read_auxv(w, sizeof(w));
		_exit(m == n && memcmp(v, w, n) == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0,
	      "a fork's auxv is its parent's");
	return guest_failures ? 1 : 0;
}
