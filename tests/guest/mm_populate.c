/*
 * Guest test: MAP_POPULATE of a writable anonymous mapping commits its
 * pages at once (the RSS grows by its size, mincore says resident, its
 * bytes read 0); a read-only one or PROT_NONE commits nothing.
 */
#include "guest.h"

#include <fcntl.h>

#define SIZE (32ul << 20)
#define SLACK (4ul << 20)

static unsigned long rss(void)
{
	char buf[128];
	unsigned long size = 0, res = 0;
	int fd = open("/proc/self/statm", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	sscanf(buf, "%lu %lu", &size, &res);
	return res * PAGE;
}

static int all_resident(void *p, size_t len)
{
	static unsigned char vec[SIZE / PAGE];

	if (mincore(p, len, vec) != 0)
		return 0;
	for (size_t i = 0; i < len / PAGE; i++)
		if (!(vec[i] & 1))
			return 0;
	return 1;
}

int main(void)
{
	unsigned long before, after;
	char *p;
	int zero = 1;

	before = rss();
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		 -1, 0);
	after = rss();
	CHECK(p != MAP_FAILED && after + SLACK >= before + SIZE,
	      "a writable MAP_POPULATE mapping is in the RSS at once");
	CHECK(all_resident(p, SIZE), "mincore: every page resident");
	for (size_t i = 0; i < SIZE; i += PAGE)
		zero &= p[i] == 0;
	CHECK(zero, "its pages read 0");
	munmap(p, SIZE);

	before = rss();
	p = mmap(NULL, SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	after = rss();
	CHECK(p != MAP_FAILED && after < before + SLACK, "a read-only one commits nothing");
	munmap(p, SIZE);
	before = rss();
	p = mmap(NULL, SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	after = rss();
	CHECK(p != MAP_FAILED && after < before + SLACK, "PROT_NONE commits nothing");
	munmap(p, SIZE);
	return GUEST_DONE();
}
