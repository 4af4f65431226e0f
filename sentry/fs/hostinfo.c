#include "config.h"
#include "sentry/fs/hostinfo.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static char *cpuinfo;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void capture(void)
{
	struct strbuf sb;
	char buf[4096];
	ssize_t n;
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);

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

const char *host_cpuinfo(void)
{
	return cpuinfo;
}

uint64_t host_ram_bytes(void)
{
	struct sysinfo si;

	return sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 1ull << 32;
}
