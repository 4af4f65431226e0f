/*
 * Guest test: opening /proc/self/fd/N again. Linux opens the object the
 * descriptor refers to, not a path: a memfd gives a new file (its own
 * offset) on the same inode; a pipe end gives a new end of the same pipe,
 * in the direction the open asks for (a pipe reopens as a fifo would);
 * /dev/stdin (a link to /proc/self/fd/0) on a pipe or on a file reads it.
 * This program's stdin is tests/guest/fs_reopen.stdin.
 */
#include "fsguest.h"

#include <signal.h>

static char buf[256];

static int reopen(int fd, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, flags);
}

static void memfd(void)
{
	int fd = memfd_create("m", 0), again;
	struct stat a, b;
	char link[64];

	CHECK_EQ(write(fd, "memfd data", 10), 10, "write to a memfd");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	CHECK_EQ(readlink(link, buf, sizeof(buf) - 1), 18, "readlink of its fd link");
	buf[18] = 0;
	CHECK(strcmp(buf, "/memfd:m (deleted)") == 0, "names /memfd:m (deleted)");
	again = reopen(fd, O_RDWR);
	CHECK(again >= 0, "reopen the memfd O_RDWR");
	CHECK(fstat(fd, &a) == 0 && fstat(again, &b) == 0 && a.st_ino == b.st_ino &&
		      a.st_dev == b.st_dev,
	      "the same inode");
	CHECK_EQ(lseek(again, 0, SEEK_CUR), 0, "with an offset of its own");
	CHECK_EQ(read(again, buf, sizeof(buf)), 10, "read it through the new file");
	CHECK(memcmp(buf, "memfd data", 10) == 0, "the same bytes");
	CHECK_EQ(pwrite(again, "M", 1, 0), 1, "write through the new file");
	CHECK(pread(fd, buf, 1, 0) == 1 && buf[0] == 'M', "the first file sees it");
	close(again);
	again = reopen(fd, O_RDONLY);
	CHECK(again >= 0, "reopen the memfd O_RDONLY");
	CHECK_ERRNO(write(again, "x", 1), EBADF, "which cannot write");
	close(again);
	/* Every memfd is on the same filesystem. */
	again = memfd_create("m/2", MFD_CLOEXEC);
	CHECK(fstat(fd, &a) == 0 && fstat(again, &b) == 0 && a.st_dev == b.st_dev &&
		      a.st_ino != b.st_ino,
	      "another memfd: same device, another inode");
	{
		off_t off = 0;

		CHECK_EQ(copy_file_range(fd, &off, again, NULL, 5, 0), 5,
			 "copy_file_range between two memfds");
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", again);
	CHECK_EQ(readlink(link, buf, sizeof(buf) - 1), 20, "readlink of the second");
	buf[20] = 0;
	CHECK(strcmp(buf, "/memfd:m/2 (deleted)") == 0, "names /memfd:m/2 (deleted), slash and all");
	close(again);
	close(fd);
}

static void pipes(void)
{
	char link[64];
	int p[2], r, w;

	CHECK_EQ(pipe(p), 0, "pipe");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", p[0]);
	CHECK(readlink(link, buf, sizeof(buf)) > 6 && strncmp(buf, "pipe:[", 6) == 0,
	      "its fd link reads pipe:[...]");
	r = reopen(p[0], O_RDONLY | O_NONBLOCK);
	CHECK(r >= 0, "reopen the read end O_RDONLY");
	CHECK_ERRNO(read(r, buf, 1), EAGAIN, "nothing to read yet");
	CHECK_EQ(write(p[1], "pipe", 4), 4, "write to the pipe");
	CHECK_EQ(read(r, buf, sizeof(buf)), 4, "read it from the reopened end");
	w = reopen(p[0], O_WRONLY);
	CHECK(w >= 0, "reopen the read end O_WRONLY");
	CHECK_EQ(write(w, "back", 4), 4, "write through it");
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 4, "the pipe's read end gets it");
	CHECK(memcmp(buf, "back", 4) == 0, "the same bytes");
	close(w);
	close(r);
	r = reopen(p[1], O_RDWR);
	CHECK(r >= 0, "reopen the write end O_RDWR");
	close(r);
	CHECK_EQ(write(p[1], "x", 1), 1, "the write end still works");
	close(p[0]);
	close(p[1]);

	/* Unlike a fifo's, neither waits for the other end. */
	CHECK_EQ(pipe(p), 0, "another pipe");
	close(p[0]);
	w = reopen(p[1], O_WRONLY | O_NONBLOCK);
	CHECK(w >= 0, "reopen for writing with no reader left, O_NONBLOCK");
	CHECK_ERRNO(write(w, "x", 1), EPIPE, "writing to it is EPIPE");
	close(w);
	w = reopen(p[1], O_RDONLY);
	CHECK(w >= 0, "reopen for reading with no writer but this one");
	close(w);
	close(p[1]);
}

static void stdin_links(void)
{
	int fd, p[2], saved = dup(0);

	fd = open("/dev/stdin", O_RDONLY);
	CHECK(fd >= 0, "open /dev/stdin (a file)");
	CHECK_EQ(read(fd, buf, 11), 11, "read it");
	CHECK(memcmp(buf, "stdin data\n", 11) == 0, "what the file holds");
	close(fd);

	CHECK_EQ(pipe(p), 0, "pipe");
	CHECK_EQ(dup2(p[0], 0), 0, "make it stdin");
	CHECK_EQ(write(p[1], "piped", 5), 5, "write to it");
	close(p[1]);
	fd = open("/dev/stdin", O_RDONLY);
	CHECK(fd >= 0, "open /dev/stdin (a pipe)");
	CHECK_EQ(read(fd, buf, sizeof(buf)), 5, "read it");
	CHECK(memcmp(buf, "piped", 5) == 0, "what was written");
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0, "then the end");
	close(fd);
	close(p[0]);
	dup2(saved, 0);
	close(saved);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	memfd();
	pipes();
	stdin_links();
	return GUEST_DONE();
}
