#include "config.h"
#include "sentry/fs/hostinfo.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/sysinfo.h>
#include <sys/timex.h>
#include <unistd.h>

static char *cpuinfo;
static struct timex timex0;
static long timex_adjust;
static int timex_state = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

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

uint64_t host_ram_bytes(void)
{
	struct sysinfo si;

	return sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 1ull << 32;
}
