/*
 * Helpers for the file system guest tests (fs_*.c). Each test works in a
 * directory of its own, /tmp/NAME-PID, made fresh by fs_enter (which also
 * makes it the cwd, so that the test names files relatively and never
 * prints the pid or the path) and removed by fs_leave.
 */
#ifndef RUNG_FSGUEST_H
#define RUNG_FSGUEST_H

#include "guest.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

static char fs_dir[256];

static __attribute__((unused)) int fs_rm_one(const char *path, const struct stat *st, int type,
					     struct FTW *ftw)
{
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Remove PATH and everything under it (not following symlinks). */
static inline int fs_rm_rf(const char *path)
{
	return nftw(path, fs_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Make /tmp/NAME-PID, empty, and enter it, with umask 022. */
static inline void fs_enter(const char *name)
{
	snprintf(fs_dir, sizeof(fs_dir), "/tmp/%s-%d", name, (int)getpid());
	umask(022);
	fs_rm_rf(fs_dir);
	if (mkdir(fs_dir, 0755) != 0 || chdir(fs_dir) != 0) {
		printf("FAIL: cannot make and enter the work directory (errno %d)\n", errno);
		exit(2);
	}
}

/* Leave the work directory and remove it. */
static inline void fs_leave(void)
{
	CHECK_EQ(chdir("/"), 0, "leave the work directory");
	CHECK_EQ(fs_rm_rf(fs_dir), 0, "remove the work directory");
	CHECK(access(fs_dir, F_OK) != 0 && errno == ENOENT, "the work directory is gone");
}

/* Write the string S to a new file PATH (mode 0644 before the umask). */
static inline int fs_put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t len = (ssize_t)strlen(s);

	if (fd < 0)
		return -1;
	if (write(fd, s, len) != len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The contents of the file PATH (up to 255 bytes) as a string in a static
 * buffer, or "<errno name>" when it cannot be read. */
static inline const char *fs_get(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		snprintf(buf, sizeof(buf), "<%s>", strerrorname_np(errno));
		return buf;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		snprintf(buf, sizeof(buf), "<%s>", strerrorname_np(errno));
		return buf;
	}
	buf[n] = 0;
	return buf;
}

static __attribute__((unused)) int fs_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Print "WHAT: name name ..." with the entries of directory PATH, sorted,
 * "." and ".." included, each name once per entry. */
static inline void fs_list(const char *what, const char *path)
{
	char *names[256];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(path);

	if (!d) {
		printf("%s: <%s>\n", what, strerrorname_np(errno));
		return;
	}
	while ((de = readdir(d)) && n < 256)
		names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), fs_cmp_names);
	printf("%s:", what);
	for (int i = 0; i < n; i++) {
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
	fflush(stdout);
}

#endif
