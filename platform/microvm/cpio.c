/* cpio newc (see cpio.h): a 110-byte ASCII header, the name, the data, each
 * padded to 4 bytes. */
#include "config.h"
#include "platform/microvm/cpio.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static int pad4(FILE *out, size_t len)
{
	static const char zero[4];
	size_t n = (4 - len % 4) % 4;

	return fwrite(zero, 1, n, out) == n ? 0 : -EIO;
}

int cpio_add(FILE *out, const char *name, mode_t mode, dev_t rdev, const void *data, size_t len)
{
	static unsigned ino = 1;
	size_t namelen = strlen(name) + 1;

	if (fprintf(out, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino++,
		    (unsigned)mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, (unsigned)len, 0u, 0u,
		    major(rdev), minor(rdev), (unsigned)namelen, 0u) != 110)
		return -EIO;
	if (fwrite(name, 1, namelen, out) != namelen || pad4(out, 110 + namelen) < 0)
		return -EIO;
	if (len && (fwrite(data, 1, len, out) != len || pad4(out, len) < 0))
		return -EIO;
	return 0;
}

int cpio_finish(FILE *out)
{
	return cpio_add(out, "TRAILER!!!", 0, 0, NULL, 0);
}
