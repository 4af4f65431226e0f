/*
 * File operations for the e2e tests, run in a sandbox on a host directory
 * (the lower layer of the overlay, or the gofer's files themselves): one
 * process does them in order and prints one line each, so that a shell
 * test can compare what happened with what should have.
 *
 *   fsops DIR OP ARGS... [-- OP ARGS...]...
 *
 * DIR becomes the cwd (names in the output are relative to it). OPs:
 *   cat F          print F's contents
 *   ls D           print D's names, sorted
 *   put F TEXT     write TEXT to F (created or truncated)
 *   mkdir D, rm F, rmdir D
 *   mv A B         rename
 *   xchg A B       renameat2 RENAME_EXCHANGE
 *   tmpfile D N    an O_TMPFILE in D holding "tmp", linked as D/N
 *   deaddir D      make D, open it, remove it, then list and create in it
 *   walk D         stat everything under D; print how many
 *   hold N D       open N regular files under D and keep them open
 *   exhaust F      open F until that fails; print why; close them all
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static long walked, want_open, opened;
static int open_err;

static void result(const char *what, int ret)
{
	if (ret < 0)
		printf("%s: %s\n", what, strerrorname_np(errno));
	else
		printf("%s: ok\n", what);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void ls(const char *dir)
{
	char *names[4096];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d) {
		printf("ls %s: %s\n", dir, strerrorname_np(errno));
		return;
	}
	while ((de = readdir(d)) && n < 4096)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp);
	printf("ls %s:", dir);
	for (int i = 0; i < n; i++) {
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
}

static void cat(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		printf("cat %s: %s\n", path, strerrorname_np(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	printf("cat %s: %s\n", path, buf);
}

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t len = (ssize_t)strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int tmpfile_at(const char *dir, const char *name)
{
	char proc[64], path[4096];
	int fd = open(dir, O_TMPFILE | O_RDWR, 0644), ret;

	if (fd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ret = write(fd, "tmp", 3) == 3 ? linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW)
				       : -1;
	close(fd);
	return ret;
}

static const char *err_of(long ret)
{
	return ret < 0 ? strerrorname_np(errno) : "ok";
}

static void deaddir(const char *dir)
{
	char buf[4096];
	const char *e1, *e2, *e3;
	int fd;

	if (mkdir(dir, 0755) < 0 || (fd = open(dir, O_RDONLY | O_DIRECTORY)) < 0 ||
	    rmdir(dir) < 0) {
		printf("deaddir %s: %s\n", dir, strerrorname_np(errno));
		return;
	}
	e1 = err_of(syscall(SYS_getdents64, fd, buf, sizeof(buf)));
	e2 = err_of(openat(fd, "x", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	e3 = err_of(mkdirat(fd, "y", 0755));
	printf("deaddir %s: getdents %s, create %s, mkdir %s\n", dir, e1, e2, e3);
	close(fd);
}

static void exhaust(const char *path)
{
	static int fds[1 << 16];
	int n = 0;

	while (n < (int)(sizeof(fds) / sizeof(fds[0])) &&
	       (fds[n] = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	printf("exhaust %s: %s\n", path,
	       n < (int)(sizeof(fds) / sizeof(fds[0])) ? strerrorname_np(errno) : "no limit");
	while (n > 0)
		close(fds[--n]);
}

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	walked++;
	return 0;
}

static int hold_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type != FTW_F || opened >= want_open)
		return opened >= want_open;
	if (open(path, O_RDONLY | O_CLOEXEC) < 0) {
		open_err = errno;
		return 1;
	}
	opened++;
	return 0;
}

int main(int argc, char **argv)
{
	char what[512];
	int i = 2;

	if (argc < 3 || chdir(argv[1]) < 0) {
		fprintf(stderr, "usage: fsops DIR OP ARGS... [-- OP ARGS...]...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc) {
		const char *op = argv[i], *a = i + 1 < argc ? argv[i + 1] : "",
			   *b = i + 2 < argc ? argv[i + 2] : "";
		int n = 1;

		while (i + n < argc && strcmp(argv[i + n], "--"))
			n++;
		what[0] = 0;
		for (int k = 0; k < n; k++)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s",
				 k ? " " : "", argv[i + k]);
		if (!strcmp(op, "cat")) {
			cat(a);
		} else if (!strcmp(op, "ls")) {
			ls(a);
		} else if (!strcmp(op, "put")) {
			result(what, put(a, b));
		} else if (!strcmp(op, "mkdir")) {
			result(what, mkdir(a, 0755));
		} else if (!strcmp(op, "rm")) {
			result(what, unlink(a));
		} else if (!strcmp(op, "rmdir")) {
			result(what, rmdir(a));
		} else if (!strcmp(op, "mv")) {
			result(what, rename(a, b));
		} else if (!strcmp(op, "xchg")) {
			result(what, renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE));
		} else if (!strcmp(op, "tmpfile")) {
			result(what, tmpfile_at(a, b));
		} else if (!strcmp(op, "exhaust")) {
			exhaust(a);
		} else if (!strcmp(op, "deaddir")) {
			deaddir(a);
		} else if (!strcmp(op, "walk")) {
			walked = 0;
			if (nftw(a, walk_one, 64, FTW_PHYS) < 0)
				printf("walk %s: %s\n", a, strerrorname_np(errno));
			else
				printf("walk %s: %ld\n", a, walked);
		} else if (!strcmp(op, "hold")) {
			want_open = atol(a);
			opened = 0;
			open_err = 0;
			nftw(b, hold_one, 64, FTW_PHYS);
			if (open_err)
				printf("hold %s: %s after %ld\n", b, strerrorname_np(open_err),
				       opened);
			else
				printf("hold %s: %ld open\n", b, opened);
		} else {
			printf("%s: unknown operation\n", op);
			return 2;
		}
		i += n + 1;
	}
	return 0;
}
