/* Close every descriptor while reading /proc/self/fd a few entries at a
 * time, as Python's subprocess does in a child after fork: an fd closed
 * behind the read position must not make the listing skip the next ones
 * (Linux keeps each entry at the position of its number). */
#include "guest.h"
#include <stdint.h>
#include <fcntl.h>
#include <sys/syscall.h>

struct ent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

int main(void)
{
	char buf[96] __attribute__((aligned(8))); /* room for two or three entries a call */
	int first = -1, dir, open_left = 0;
	long n;

	for (int i = 0; i < 12; i++) {
		int fd = open("/dev/null", O_RDONLY);
		if (first < 0)
			first = fd;
	}
	dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dir >= 0, "open /proc/self/fd");
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct ent *d = (struct ent *)(buf + off);
			int fd = atoi(d->name);
			if (d->name[0] != '.' && fd > 2 && fd != dir)
				close(fd);
			off += d->reclen;
		}
	}
	CHECK_EQ(n, 0, "the listing ends");
	for (int fd = first; fd < first + 13; fd++)
		if (fd != dir && fcntl(fd, F_GETFD) >= 0)
			open_left++;
	CHECK_EQ(open_left, 0, "every descriptor it listed was closed: none was skipped");
	close(dir);
	return GUEST_DONE();
}
