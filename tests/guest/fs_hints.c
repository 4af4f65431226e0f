/* readahead and sync_file_range: what they accept and refuse. */
#include "fsguest.h"

#include <fcntl.h>

int main(void)
{
	const char *path = "hints";
	int fd, ro, p[2];

	fs_enter("fs_hints");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "some data", 9) == 9, "a file with data");
	CHECK(readahead(fd, 0, 4096) == 0, "readahead of a file");
	CHECK(pipe(p) == 0, "pipe");
	CHECK_ERRNO(readahead(p[0], 0, 10), EINVAL, "readahead of a pipe");
	CHECK_ERRNO(readahead(999, 0, 10), EBADF, "readahead of no descriptor");
	ro = open(path, O_WRONLY);
	CHECK_ERRNO(readahead(ro, 0, 10), EBADF, "readahead of a write-only descriptor");
	close(ro);
	CHECK(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) == 0, "sync_file_range WRITE");
	CHECK(sync_file_range(fd, 0, 9,
			      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				      SYNC_FILE_RANGE_WAIT_AFTER) == 0,
	      "sync_file_range with every flag");
	CHECK_ERRNO(sync_file_range(fd, 0, 9, 8), EINVAL, "an unknown flag");
	CHECK_ERRNO(sync_file_range(fd, -1, 9, 0), EINVAL, "a negative offset");
	CHECK_ERRNO(sync_file_range(p[1], 0, 9, 0), ESPIPE, "sync_file_range of a pipe");
	CHECK_ERRNO(sync_file_range(999, 0, 9, 0), EBADF, "of no descriptor");
	close(fd);
	fs_leave();
	return GUEST_DONE();
}
