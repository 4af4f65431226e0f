/*
 * Guest test: sysinfo(2) agrees with /proc/meminfo and /proc/uptime, and
 * glibc's sysconf(_SC_PHYS_PAGES, _SC_AVPHYS_PAGES) with sysinfo. Only
 * invariants are checked (the figures differ between the host and a
 * sandbox): totalram is MemTotal, freeram lies near MemFree, totalswap is
 * SwapTotal, the unit is one byte, uptime is /proc/uptime rounded up, procs
 * counts at least this process's threads; NULL or a bad pointer is EFAULT.
 */
#include "guest.h"

#include <pthread.h>
#include <sys/sysinfo.h>

/* A field of /proc/meminfo in bytes, or -1. */
static long long meminfo(const char *field)
{
	char line[256];
	long long kb = -1;
	size_t len = strlen(field);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, len) == 0 && line[len] == ':') {
			kb = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

static double uptime(void)
{
	double up = -1;
	FILE *f = fopen("/proc/uptime", "r");

	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = -1;
		fclose(f);
	}
	return up;
}

static pthread_barrier_t stop;

static void *idle(void *arg)
{
	pthread_barrier_wait(&stop);
	return NULL;
}

int main(void)
{
	long long total = meminfo("MemTotal"), free1, free2, lo, hi, slack;
	long page = sysconf(_SC_PAGESIZE);
	struct sysinfo si;
	pthread_t th[3];
	double up1, up2;

	CHECK(total > 0, "/proc/meminfo has MemTotal");
	free1 = meminfo("MemFree");
	up1 = uptime();
	CHECK_EQ(sysinfo(&si), 0, "sysinfo succeeds");
	free2 = meminfo("MemFree");
	up2 = uptime();

	CHECK_EQ(si.mem_unit, 1, "mem_unit is one byte (64-bit counts)");
	CHECK_EQ((long long)si.totalram, total, "totalram is MemTotal");
	CHECK(si.freeram <= si.totalram, "freeram is at most totalram");
	/* Memory moves between the reads: within a sixteenth of the total. */
	slack = total / 16;
	lo = (free1 < free2 ? free1 : free2) - slack;
	hi = (free1 > free2 ? free1 : free2) + slack;
	CHECK((long long)si.freeram >= lo && (long long)si.freeram <= hi,
	      "freeram is about MemFree");
	CHECK_EQ((long long)si.totalswap, meminfo("SwapTotal"), "totalswap is SwapTotal");
	CHECK(si.freeswap <= si.totalswap, "freeswap is at most totalswap");
	CHECK(si.totalhigh == 0 && si.freehigh == 0, "no high memory on x86-64");
	CHECK(up1 >= 0 && si.uptime >= (long)up1 && si.uptime <= (long)up2 + 1,
	      "uptime is /proc/uptime's, in whole seconds rounded up");

	pthread_barrier_init(&stop, NULL, 4);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, idle, NULL);
	CHECK_EQ(sysinfo(&si), 0, "sysinfo with four threads");
	CHECK(si.procs >= 4, "procs counts this process's threads");
	pthread_barrier_wait(&stop);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);

	CHECK_EQ(sysconf(_SC_PHYS_PAGES), (long)(si.totalram / (unsigned long)page),
		 "sysconf(_SC_PHYS_PAGES) is totalram in pages");
	{
		long av = sysconf(_SC_AVPHYS_PAGES);
		CHECK(av > 0 && (long long)av * page <= (long long)si.totalram,
		      "sysconf(_SC_AVPHYS_PAGES) is within totalram");
		CHECK((long long)av * page >= lo && (long long)av * page <= hi,
		      "sysconf(_SC_AVPHYS_PAGES) is about MemFree");
	}
	CHECK_ERRNO(syscall(SYS_sysinfo, NULL), EFAULT, "sysinfo(NULL)");
	CHECK_ERRNO(syscall(SYS_sysinfo, (void *)8), EFAULT, "sysinfo of a bad pointer");
	return GUEST_DONE();
}
