/*
 * Guest test: files that are not plain files or directories, in a fresh
 * directory under /tmp. mkfifo and mknod (fifos, regular files), a fifo
 * opened O_RDWR and written and read through, pipe2 flags and FIONREAD,
 * ioctl FIOCLEX and FIONCLEX, memfd_create (data, shared mappings, its
 * name in /proc/self/fd).
 */
#include "fsguest.h"

#include <sys/ioctl.h>
#include <sys/sysmacros.h>

static void fifos(void)
{
	struct stat st;
	char buf[16];
	int fd, r, avail = -1;

	CHECK_EQ(mkfifo("fifo", 0640), 0, "mkfifo");
	CHECK_EQ(lstat("fifo", &st), 0, "lstat it");
	CHECK_EQ(st.st_mode, S_IFIFO | 0640, "a fifo, mode 0640");
	CHECK_EQ(st.st_size, 0, "of size 0");
	CHECK_ERRNO(mkfifo("fifo", 0640), EEXIST, "mkfifo of an existing name");
	CHECK_ERRNO(open("fifo", O_WRONLY | O_NONBLOCK), ENXIO,
		    "a non-blocking write open without a reader");
	fd = open("fifo", O_RDWR);
	CHECK(fd >= 0, "open the fifo O_RDWR (does not block)");
	CHECK_EQ(write(fd, "through", 7), 7, "write 7 bytes");
	CHECK_EQ(ioctl(fd, FIONREAD, &avail), 0, "FIONREAD");
	CHECK_EQ(avail, 7, "7 bytes are waiting");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(fd, buf, sizeof(buf)), 7, "read them");
	CHECK(strcmp(buf, "through") == 0, "'through'");
	CHECK_ERRNO(lseek(fd, 0, SEEK_SET), ESPIPE, "lseek on a fifo");
	CHECK_ERRNO(pread(fd, buf, 1, 0), ESPIPE, "pread on a fifo");
	r = open("fifo", O_RDONLY | O_NONBLOCK);
	CHECK(r >= 0, "a second, non-blocking reader");
	CHECK_EQ(write(fd, "xy", 2), 2, "write 2 bytes");
	CHECK_EQ(read(r, buf, sizeof(buf)), 2, "the second reader reads them");
	CHECK_ERRNO(read(r, buf, sizeof(buf)), EAGAIN, "an empty fifo with a writer: EAGAIN");
	close(fd);
	CHECK_EQ(read(r, buf, sizeof(buf)), 0, "without writers: end of file");
	close(r);
	CHECK_EQ(fstatat(AT_FDCWD, "fifo", &st, 0), 0, "stat");
	CHECK_EQ(st.st_size, 0, "a fifo's size stays 0");

	CHECK_EQ(mknod("fifo2", S_IFIFO | 0600, 0), 0, "mknod S_IFIFO");
	CHECK_EQ(lstat("fifo2", &st), 0, "lstat it");
	CHECK_EQ(st.st_mode, S_IFIFO | 0600, "a fifo");
	CHECK_EQ(mknodat(AT_FDCWD, "reg", S_IFREG | 0600, 0), 0, "mknodat S_IFREG");
	CHECK_EQ(lstat("reg", &st), 0, "lstat it");
	CHECK(st.st_mode == (S_IFREG | 0600) && st.st_size == 0, "an empty regular file");
	CHECK_EQ(mknod("reg0", 0600, 0), 0, "mknod with no type");
	CHECK_EQ(lstat("reg0", &st), 0, "lstat it");
	CHECK(S_ISREG(st.st_mode), "makes a regular file");
	CHECK_ERRNO(mknod("bad", S_IFDIR | 0700, 0), EPERM, "mknod S_IFDIR");
	CHECK_ERRNO(mknod("reg", S_IFIFO | 0600, 0), EEXIST, "mknod of an existing name");
	fs_list("made", ".");
}

static void pipes(void)
{
	int p[2], avail = -1;
	char buf[16];

	CHECK_EQ(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0, "pipe2 O_CLOEXEC|O_NONBLOCK");
	CHECK(fcntl(p[0], F_GETFD) == FD_CLOEXEC && fcntl(p[1], F_GETFD) == FD_CLOEXEC,
	      "both ends are close-on-exec");
	CHECK((fcntl(p[0], F_GETFL) & O_NONBLOCK) && (fcntl(p[1], F_GETFL) & O_NONBLOCK),
	      "both are non-blocking");
	CHECK_EQ(fcntl(p[0], F_GETFL) & O_ACCMODE, O_RDONLY, "the read end is read-only");
	CHECK_EQ(fcntl(p[1], F_GETFL) & O_ACCMODE, O_WRONLY, "the write end is write-only");
	CHECK_ERRNO(read(p[0], buf, sizeof(buf)), EAGAIN, "reading an empty pipe");
	CHECK_EQ(ioctl(p[0], FIONREAD, &avail), 0, "FIONREAD");
	CHECK_EQ(avail, 0, "nothing waits");
	CHECK_EQ(write(p[1], "hello", 5), 5, "write 5 bytes");
	CHECK_EQ(write(p[1], "!", 1), 1, "and 1 more");
	CHECK_EQ(ioctl(p[0], FIONREAD, &avail), 0, "FIONREAD");
	CHECK_EQ(avail, 6, "6 bytes wait");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(p[0], buf, 3), 3, "read 3");
	CHECK_EQ(read(p[0], buf + 3, sizeof(buf) - 4), 3, "read the other 3");
	CHECK(strcmp(buf, "hello!") == 0, "'hello!'");
	CHECK_ERRNO(write(p[0], "x", 1), EBADF, "write to the read end");
	CHECK_ERRNO(read(p[1], buf, 1), EBADF, "read from the write end");
	CHECK_EQ(ioctl(p[0], FIONCLEX), 0, "FIONCLEX");
	CHECK_EQ(fcntl(p[0], F_GETFD), 0, "clears FD_CLOEXEC");
	CHECK_EQ(ioctl(p[0], FIOCLEX), 0, "FIOCLEX");
	CHECK_EQ(fcntl(p[0], F_GETFD), FD_CLOEXEC, "sets it");
	close(p[1]);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 0, "without a writer: end of file");
	close(p[0]);
	CHECK_EQ(pipe2(p, 0), 0, "pipe2 with no flags");
	CHECK(fcntl(p[0], F_GETFD) == 0 && !(fcntl(p[1], F_GETFL) & O_NONBLOCK),
	      "neither close-on-exec nor non-blocking");
	close(p[0]);
	close(p[1]);
	CHECK_ERRNO(pipe2(p, O_APPEND), EINVAL, "pipe2 with a bad flag");
}

static void memfds(void)
{
	char link[64], target[256], buf[16];
	struct stat st;
	char *m;
	long n;
	int fd;

	fd = memfd_create("guest-memfd", MFD_CLOEXEC);
	CHECK(fd >= 0, "memfd_create");
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC, "MFD_CLOEXEC sets FD_CLOEXEC");
	CHECK_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR, "opened read-write");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	CHECK(n > 0, "readlink its /proc/self/fd entry");
	target[n > 0 ? n : 0] = 0;
	printf("memfd link: %s\n", target);
	CHECK_EQ(fstat(fd, &st), 0, "fstat");
	CHECK(S_ISREG(st.st_mode) && st.st_size == 0 && st.st_nlink == 0,
	      "an empty regular file with no links");
	CHECK_EQ(write(fd, "memory file", 11), 11, "write 11 bytes");
	CHECK_EQ(ftruncate(fd, 8192), 0, "ftruncate to 8 KiB");
	m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "mmap it MAP_SHARED");
	if (m != MAP_FAILED) {
		CHECK(memcmp(m, "memory file", 11) == 0, "the mapping shows the data");
		memcpy(m + 4096, "mapped", 6);
		memset(buf, 0, sizeof(buf));
		CHECK_EQ(pread(fd, buf, 6, 4096), 6, "pread at 4096");
		CHECK(strcmp(buf, "mapped") == 0, "sees the store through the mapping");
		CHECK_EQ(pwrite(fd, "MEMORY", 6, 0), 6, "pwrite at 0");
		CHECK(memcmp(m, "MEMORY file", 11) == 0, "the mapping sees the write");
		CHECK_EQ(munmap(m, 8192), 0, "munmap");
	}
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(fd, buf, 11), 11, "read");
	CHECK(strcmp(buf, "MEMORY file") == 0, "the data is kept after munmap");
	/* (reopening it through /proc/self/fd: fs_pending) */
	close(fd);
	fd = memfd_create("plain", 0);
	CHECK_EQ(fcntl(fd, F_GETFD), 0, "without MFD_CLOEXEC: not close-on-exec");
	close(fd);
	CHECK_ERRNO(memfd_create("x", 0x1000), EINVAL, "memfd_create with an unknown flag");
	memset(target, 'n', sizeof(target));
	target[250] = 0;
	CHECK_ERRNO(memfd_create(target, 0), EINVAL, "memfd_create with a 250-byte name");
}

int main(void)
{
	fs_enter("fs_special");
	fifos();
	pipes();
	memfds();
	fs_leave();
	return GUEST_DONE();
}
