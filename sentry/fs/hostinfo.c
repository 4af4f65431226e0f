#include "config.h"
#include "sentry/fs/hostinfo.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include <sys/timex.h>
#include <unistd.h>

static char *cpuinfo;
static struct timex timex0;
static long timex_adjust;
static int timex_state = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;
#define MEM_MAX_DEFAULT 212992 /* Linux's net.core.[rw]mem_max */
static uint32_t wmem_max = MEM_MAX_DEFAULT, rmem_max = MEM_MAX_DEFAULT;

/* A number in a /proc/sys file, if it holds one in [4096, 2^31). */
static void read_limit(const char *path, uint32_t *out)
{
	char buf[32];
	ssize_t n;
	long v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	if (v >= 4096 && v < (1l << 31))
		*out = (uint32_t)v;
}

/* The host's clock discipline, read-only (modes 0 and ADJ_OFFSET_SS_READ
 * change nothing): the sentry's filter does not let it ask later. */
static void capture_timex(void)
{
	struct timex adj = {.modes = ADJ_OFFSET_SS_READ};

	timex_state = adjtimex(&timex0);
	if (adjtimex(&adj) >= 0)
		timex_adjust = adj.offset;
}

static void capture(void)
{
	struct strbuf sb;
	char buf[4096];
	ssize_t n;
	int fd;

	capture_timex();
	read_limit("/proc/sys/net/core/wmem_max", &wmem_max);
	read_limit("/proc/sys/net/core/rmem_max", &rmem_max);
	fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	strbuf_init(&sb);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_append(&sb, buf, (size_t)n);
	close(fd);
	cpuinfo = strbuf_steal(&sb, NULL);
}

void hostinfo_capture(void)
{
	pthread_once(&once, capture);
}

int host_timex(struct timex *tx, long *adjust)
{
	*tx = timex0;
	*adjust = timex_adjust;
	return timex_state;
}

const char *host_cpuinfo(void)
{
	return cpuinfo;
}

uint32_t host_wmem_max(void)
{
	return wmem_max;
}

uint32_t host_rmem_max(void)
{
	return rmem_max;
}

uint64_t host_ram_bytes(void)
{
	struct sysinfo si;

	return sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 1ull << 32;
}
