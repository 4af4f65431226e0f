/*
 * Guest test: per-process files of /proc as Linux keeps them:
 * coredump_filter (read, written, inherited by fork, a child's change
 * leaves the parent's), comm written through task/<tid>/comm (15 bytes
 * kept; another process's thread: EINVAL), io counting a thread's write
 * calls (and the process keeping an exited thread's), task/'s link count
 * (2 + threads) and SEEK_END on it, and what is left of a process: a file
 * opened while it ran reads ESRCH once it is reaped, its task directory
 * lists ENOENT, its exe link reads ENOENT while a zombie and ESRCH after.
 */
#include "guest.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char *read_path(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

static int write_path(const char *path, const char *s, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static unsigned long filter(void)
{
	char buf[32];

	return read_path("/proc/self/coredump_filter", buf, sizeof(buf)) ? strtoul(buf, NULL, 16)
									  : ~0ul;
}

static void check_coredump_filter(void)
{
	char buf[32];
	pid_t pid;
	int status;

	CHECK(read_path("/proc/self/coredump_filter", buf, sizeof(buf)) && strlen(buf) == 9 &&
		      buf[8] == '\n',
	      "coredump_filter is 8 hex digits");
	CHECK(write_path("/proc/self/coredump_filter", "0x3f", 4) == 0 && filter() == 0x3f,
	      "coredump_filter takes 0x3f");
	CHECK(write_path("/proc/self/coredump_filter", "7\n", 2) == 0 && filter() == 7,
	      "coredump_filter takes a decimal with a newline");
	errno = 0;
	CHECK(write_path("/proc/self/coredump_filter", "x", 1) < 0 && errno == EINVAL,
	      "coredump_filter refuses a non-number");
	{
		int fd = open("/proc/self/coredump_filter", O_RDWR);
		char got[32] = {0};
		CHECK(fd >= 0 && pread(fd, got, sizeof(got) - 1, 0) == 9 && write(fd, "0x23", 4) == 4 &&
			      pread(fd, got, sizeof(got) - 1, 0) == 9 && strcmp(got, "00000023\n") == 0,
		      "a read after a write on the same descriptor sees the new value");
		CHECK(write(fd, "7", 1) == 1, "set back to 7");
		close(fd);
	}
	pid = fork();
	if (pid == 0) {
		int ok = filter() == 7;
		write_path("/proc/self/coredump_filter", "0x21", 4);
		_exit(ok && filter() == 0x21 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a child inherits coredump_filter");
	CHECK(filter() == 7, "the child's change leaves the parent's");
	CHECK(access("/proc/thread-self/coredump_filter", F_OK) < 0,
	      "a thread's directory has no coredump_filter");
}

static pthread_barrier_t ready, finish;
static pid_t worker_tid;

static void *worker(void *arg)
{
	int fd = open("/dev/null", O_WRONLY);

	worker_tid = gettid();
	for (int i = 0; i < 25; i++)
		if (write(fd, "x", 1) != 1)
			break;
	close(fd);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&finish);
	return arg;
}

static unsigned long long io_field(const char *path, const char *name)
{
	char buf[512], *p;

	if (!read_path(path, buf, sizeof(buf)) || !(p = strstr(buf, name)))
		return ~0ull;
	return strtoull(p + strlen(name), NULL, 10);
}

static void check_threads(void)
{
	char path[96], buf[64];
	struct stat st, st2;
	unsigned long long before;
	pthread_t th;
	int fd;

	CHECK(stat("/proc/self/task", &st) == 0 && st.st_nlink == 3, "task/ of one thread: 3 links");
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&finish, NULL, 2);
	before = io_field("/proc/self/io", "syscw: ");
	pthread_create(&th, NULL, worker, NULL);
	pthread_barrier_wait(&ready);
	CHECK(stat("/proc/self/task", &st2) == 0 && st2.st_nlink == 4, "a second thread: 4 links");
	snprintf(path, sizeof(path), "/proc/self/task/%d/io", worker_tid);
	CHECK(io_field(path, "syscw: ") == 25 && io_field(path, "wchar: ") == 25,
	      "the thread's io counts its 25 one-byte writes");
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", worker_tid);
	CHECK(write_path(path, "renamed-worker-thread", 21) == 0, "write a thread's comm");
	CHECK(read_path(path, buf, sizeof(buf)) && strcmp(buf, "renamed-worker-\n") == 0,
	      "comm keeps 15 bytes");
	pthread_barrier_wait(&finish);
	pthread_join(th, NULL);
	CHECK(io_field("/proc/self/io", "syscw: ") >= before + 25,
	      "the process's io keeps the exited thread's writes");
	fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && lseek(fd, 0, SEEK_END) >= 0, "lseek(SEEK_END) on task/");
	close(fd);
	/* a /proc file is a seq_file: from the start or the position only */
	fd = open("/proc/self/stat", O_RDONLY);
	CHECK_ERRNO(lseek(fd, 0, SEEK_END), EINVAL, "lseek(SEEK_END) on /proc/self/stat");
	CHECK_EQ(lseek(fd, 5, SEEK_SET), 5, "lseek(SEEK_SET) on it");
	CHECK_EQ(lseek(fd, 2, SEEK_CUR), 7, "lseek(SEEK_CUR) on it");
	close(fd);
	fd = open("/proc/sys/kernel/ostype", O_RDONLY);
	CHECK_EQ(lseek(fd, 0, SEEK_END), 0, "a sysctl seeks from its end (size 0)");
	close(fd);
}

static void check_other_process(void)
{
	char path[96], buf[64];
	int pfd[2], status, fd, dirfd, piddir;
	pid_t pid;

	if (pipe(pfd))
		return;
	pid = fork();
	if (pid == 0) {
		char c;
		close(pfd[1]);
		if (read(pfd[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(pfd[0]);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, pid);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0, "open another process's thread's comm for writing");
	CHECK_ERRNO(write(fd, "y", 1), EINVAL, "writing another process's comm");
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "/proc/%d", pid);
	piddir = open(path, O_RDONLY | O_DIRECTORY);
	close(pfd[1]); /* the child exits */
	{
		siginfo_t si;
		waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	}
	CHECK_ERRNO(readlinkat(piddir, "exe", buf, sizeof(buf)), ENOENT, "readlink exe of a zombie");
	CHECK(pread(fd, buf, sizeof(buf), 0) == 0, "a zombie's cmdline is empty");
	waitpid(pid, &status, 0);
	CHECK_ERRNO(readlinkat(piddir, "exe", buf, sizeof(buf)), ESRCH,
		    "readlink exe of a reaped process");
	CHECK_ERRNO(pread(fd, buf, sizeof(buf), 0), ESRCH,
		    "reading a file opened while it ran, once reaped");
	CHECK_ERRNO(syscall(SYS_getdents64, dirfd, buf, sizeof(buf)), ENOENT,
		    "listing its task directory, once reaped");
	close(fd);
	close(dirfd);
	close(piddir);
}

int main(void)
{
	check_coredump_filter();
	check_threads();
	check_other_process();
	return GUEST_DONE();
}
