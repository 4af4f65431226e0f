/*
 * fsops: the file system workloads.
 *
 *   fsops mktree DIR NDIRS NFILES SIZE   make DIR/dNNN/fNNN (untimed setup)
 *   fsops mkfile PATH SIZE               make one file of SIZE bytes (untimed setup)
 *   fsops stat PATH N                    stat(PATH) N times
 *   fsops stat-tree DIR NDIRS NFILES     stat every DIR/dNNN/fNNN once
 *   fsops open-read PATH N               open + read + close PATH, N times
 *   fsops read PATH N                    N sequential reads of the whole of PATH
 *   fsops write PATH SIZE N              N sequential writes of SIZE bytes to PATH
 *   fsops write-read PATH SIZE N         write PATH once, then as `read`
 *   fsops walk DIR                       walk the tree under DIR once
 *
 * Each timed command times itself around its loop with
 * clock_gettime(CLOCK_MONOTONIC) and prints one line such as
 *
 *   stat n=20000 ns_per_op=2345.6
 *
 * (read and write also print mib_per_s). The same static binary runs natively
 * and under `rung do`, so every configuration is measured by the same code at
 * the same place: inside the guest. Loops that can be repeated start with an
 * untimed warm-up; stat-tree and walk are deliberately not warmed: they
 * measure the first access to each name. Every result is checked (sizes,
 * counts), and a wrong one fails the run.
 *
 * Sequential I/O moves CHUNK (64 KiB) per read or write call, the gofer's
 * largest single transfer.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (64 * 1024)

static char buf[CHUNK] __attribute__((aligned(4096)));

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "fsops: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
	exit(1);
}

static void fail(const char *msg, const char *arg)
{
	fprintf(stderr, "fsops: %s %s\n", msg, arg ? arg : "");
	exit(1);
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v <= 0)
		fail("not a positive number:", s);
	return v;
}

static long warmup(long n)
{
	return n / 10 < 100 ? 100 : n / 10;
}

static void report(const char *name, long n, double ns, long bytes)
{
	printf("%s n=%ld ns_per_op=%.1f", name, n, ns / (double)n);
	if (bytes)
		printf(" mib_per_s=%.1f",
		       (double)bytes * (double)n / (ns / 1e9) / (1024.0 * 1024.0));
	printf("\n");
}

/* --- setup ------------------------------------------------------------------ */

static void fill(int fd, const char *path, long size)
{
	for (long i = 0; i < (long)sizeof(buf); i++)
		buf[i] = (char)('a' + i % 26);
	for (long done = 0; done < size;) {
		long want = size - done < CHUNK ? size - done : CHUNK;
		long n = write(fd, buf, (size_t)want);
		if (n <= 0)
			die("write", path);
		done += n;
	}
}

static void mkfile(const char *path, long size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die("create", path);
	fill(fd, path, size);
	if (close(fd) < 0)
		die("close", path);
}

static void tree_path(char *out, size_t len, const char *dir, long d, long f)
{
	if (f < 0)
		snprintf(out, len, "%s/d%03ld", dir, d);
	else
		snprintf(out, len, "%s/d%03ld/f%03ld", dir, d, f);
}

static void mktree(const char *dir, long ndirs, long nfiles, long size)
{
	char path[4096];

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("mkdir", dir);
	for (long d = 0; d < ndirs; d++) {
		tree_path(path, sizeof(path), dir, d, -1);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die("mkdir", path);
		for (long f = 0; f < nfiles; f++) {
			tree_path(path, sizeof(path), dir, d, f);
			mkfile(path, size);
		}
	}
}

/* --- metadata ------------------------------------------------------------------ */

static void bench_stat(const char *path, long n)
{
	struct stat st, first;
	long bad = 0;
	double t0, t1;

	if (stat(path, &first) < 0)
		die("stat", path);
	for (long i = 0; i < warmup(n); i++)
		bad += stat(path, &st) < 0 || st.st_ino != first.st_ino;
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		bad += stat(path, &st) < 0 || st.st_ino != first.st_ino;
	t1 = now_ns();
	if (bad)
		fail("stat gave a different answer:", path);
	report("stat", n, t1 - t0, 0);
}

/* Every name is new to this process: the first lookup of each. The tree's
 * own directory is looked up before the clock starts. */
static void bench_stat_tree(const char *dir, long ndirs, long nfiles)
{
	char path[4096];
	struct stat st;
	long bad = 0;
	double t0, t1;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		die("stat", dir);
	t0 = now_ns();
	for (long d = 0; d < ndirs; d++)
		for (long f = 0; f < nfiles; f++) {
			tree_path(path, sizeof(path), dir, d, f);
			bad += stat(path, &st) < 0 || !S_ISREG(st.st_mode);
		}
	t1 = now_ns();
	if (bad)
		fail("stat-tree: missing files under", dir);
	report("stat-tree", ndirs * nfiles, t1 - t0, 0);
}

/* --- data -------------------------------------------------------------------- */

static long size_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		die("stat", path);
	if (st.st_size <= 0 || st.st_size > CHUNK)
		fail("open-read wants a file of 1 to 65536 bytes:", path);
	return st.st_size;
}

static void bench_open_read(const char *path, long n)
{
	long size = size_of(path), bad = 0;
	double t0 = 0;

	for (long i = -warmup(n); i < n; i++) {
		int fd;
		if (i == 0)
			t0 = now_ns();
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("open", path);
		bad += read(fd, buf, sizeof(buf)) != size;
		close(fd);
	}
	if (bad)
		fail("open-read: short reads of", path);
	report("open-read", n, now_ns() - t0, 0);
}

/* One pass: the whole file from the start, CHUNK at a time. */
static void read_pass(int fd, const char *path, long size)
{
	if (lseek(fd, 0, SEEK_SET) != 0)
		die("lseek", path);
	for (long done = 0; done < size;) {
		long n = read(fd, buf, CHUNK);
		if (n <= 0)
			die("read", path);
		done += n;
	}
}

static void bench_read(const char *name, const char *path, long n)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	double t0;

	if (fd < 0 || fstat(fd, &st) < 0)
		die("open", path);
	read_pass(fd, path, st.st_size);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		read_pass(fd, path, st.st_size);
	report(name, n, now_ns() - t0, st.st_size);
	close(fd);
}

/* One pass: a new file's data, from empty to SIZE bytes. */
static void write_pass(int fd, const char *path, long size)
{
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) != 0)
		die("truncate", path);
	for (long done = 0; done < size;) {
		long want = size - done < CHUNK ? size - done : CHUNK;
		long n = write(fd, buf, (size_t)want);
		if (n <= 0)
			die("write", path);
		done += n;
	}
}

static void bench_write(const char *path, long size, long n)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct stat st;
	double t0, t1;

	if (fd < 0)
		die("create", path);
	memset(buf, 'w', sizeof(buf));
	write_pass(fd, path, size);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		write_pass(fd, path, size);
	t1 = now_ns();
	if (fstat(fd, &st) < 0 || st.st_size != size)
		fail("write: wrong size of", path);
	close(fd);
	unlink(path);
	report("write", n, t1 - t0, size);
}

/* --- a tree walk ---------------------------------------------------------------- */

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Every entry under dirfd: getdents64, then fstatat of each name (as a
 * `find` that needs the attributes does); directories are descended into
 * with openat. Returns the number of entries. */
static long walk(int dirfd, const char *path)
{
	char dents[32768];
	long count = 0;

	for (;;) {
		long n = syscall(SYS_getdents64, dirfd, dents, sizeof(dents));
		if (n < 0)
			die("getdents64", path);
		if (n == 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(dents + off);
			struct stat st;
			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (fstatat(dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				die("fstatat", d->d_name);
			count++;
			if (S_ISDIR(st.st_mode)) {
				int fd = openat(dirfd, d->d_name,
						O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (fd < 0)
					die("openat", d->d_name);
				count += walk(fd, d->d_name);
				close(fd);
			}
		}
	}
	return count;
}

static void bench_walk(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long count;
	double t0, t1;

	if (fd < 0)
		die("open", dir);
	t0 = now_ns();
	count = walk(fd, dir);
	t1 = now_ns();
	close(fd);
	if (count == 0)
		fail("walk: an empty tree:", dir);
	printf("walk entries=%ld ms=%.3f ns_per_op=%.1f\n", count, (t1 - t0) / 1e6,
	       (t1 - t0) / (double)count);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "mktree") && argc == 6)
		mktree(argv[2], number(argv[3]), number(argv[4]), number(argv[5]));
	else if (!strcmp(cmd, "mkfile") && argc == 4)
		mkfile(argv[2], number(argv[3]));
	else if (!strcmp(cmd, "stat") && argc == 4)
		bench_stat(argv[2], number(argv[3]));
	else if (!strcmp(cmd, "stat-tree") && argc == 5)
		bench_stat_tree(argv[2], number(argv[3]), number(argv[4]));
	else if (!strcmp(cmd, "open-read") && argc == 4)
		bench_open_read(argv[2], number(argv[3]));
	else if (!strcmp(cmd, "read") && argc == 4)
		bench_read("read", argv[2], number(argv[3]));
	else if (!strcmp(cmd, "write") && argc == 5)
		bench_write(argv[2], number(argv[3]), number(argv[4]));
	else if (!strcmp(cmd, "write-read") && argc == 5) {
		mkfile(argv[2], number(argv[3]));
		bench_read("write-read", argv[2], number(argv[4]));
		unlink(argv[2]);
	} else if (!strcmp(cmd, "walk") && argc == 3)
		bench_walk(argv[2]);
	else {
		fprintf(stderr, "usage: fsops mktree|mkfile|stat|stat-tree|open-read|read|write|"
				"write-read|walk ARGS (see the comment at the top of fsops.c)\n");
		return 2;
	}
	return 0;
}
