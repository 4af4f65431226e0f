/*
 * Guest test: a thread's directory /proc/<pid>/task/<tid> is Linux's
 * tid_base_stuff: no task directory in it (which would nest forever), a
 * children file that /proc/<pid> lacks, a stat that names the thread; and
 * a walk of /proc/self, links not followed, ends a few levels down.
 */
#include "guest.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

/* Deeper than any directory of Linux's /proc/self. */
#define WALK_LIMIT 12

static pthread_barrier_t started, done;
static volatile pid_t worker_tid;

static void *worker(void *arg)
{
	worker_tid = gettid();
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&done);
	return arg;
}

static int has_entry(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, name) == 0)
			found = 1;
	closedir(d);
	return found;
}

/* The deepest level the walk reached below path (0: path itself), going
 * no further than WALK_LIMIT. */
static int walk(int dirfd, int depth)
{
	DIR *d;
	struct dirent *e;
	int deepest = depth;

	if (depth >= WALK_LIMIT) {
		close(dirfd);
		return depth;
	}
	d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return depth;
	}
	while ((e = readdir(d))) {
		int fd, got;
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0)
			continue;
		fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			continue;
		got = walk(fd, depth + 1);
		if (got > deepest)
			deepest = got;
	}
	closedir(d);
	return deepest;
}

int main(void)
{
	char dir[96], path[160];
	pthread_t th;
	struct stat st;
	int id = 0, fd;
	FILE *f;

	pthread_barrier_init(&started, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&th, NULL, worker, NULL);
	pthread_barrier_wait(&started);

	for (int i = 0; i < 2; i++) {
		pid_t tid = i ? worker_tid : getpid();
		const char *who = i ? "a thread" : "the main thread";

		snprintf(dir, sizeof(dir), "/proc/%d/task/%d", getpid(), tid);
		snprintf(path, sizeof(path), "%s: no task entry in task/<tid>", who);
		CHECK_EQ(has_entry(dir, "task"), 0, path);
		snprintf(path, sizeof(path), "%s/task", dir);
		CHECK_ERRNO(stat(path, &st), ENOENT, "task/<tid>/task");
		snprintf(path, sizeof(path), "%s/task/%d/task", dir, tid);
		CHECK_ERRNO(stat(path, &st), ENOENT, "task/<tid>/task/<tid>/task");
		CHECK_EQ(has_entry(dir, "children"), 1, "task/<tid> lists children");
		CHECK_EQ(has_entry(dir, "fd"), 1, "task/<tid> lists fd");
		snprintf(path, sizeof(path), "%s/stat", dir);
		f = fopen(path, "r");
		CHECK(f && fscanf(f, "%d", &id) == 1 && id == tid, "task/<tid>/stat names the thread");
		if (f)
			fclose(f);
	}
	CHECK_EQ(has_entry("/proc/self", "task"), 1, "/proc/<pid> lists task");
	CHECK_EQ(has_entry("/proc/self", "children"), 0, "/proc/<pid> has no children file");
	CHECK_ERRNO(stat("/proc/self/children", &st), ENOENT, "/proc/<pid>/children");
	f = fopen("/proc/self/stat", "r");
	CHECK(f && fscanf(f, "%d", &id) == 1 && id == getpid(), "/proc/<pid>/stat names the process");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stat", worker_tid);
	f = fopen(path, "r");
	CHECK(f && fscanf(f, "%d", &id) == 1 && id == worker_tid,
	      "/proc/<tid>/stat (unlisted) names the thread");
	if (f)
		fclose(f);
	fd = open("/proc/self", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && walk(fd, 0) < WALK_LIMIT, "a walk of /proc/self ends");

	pthread_barrier_wait(&done);
	pthread_join(th, NULL);
	return GUEST_DONE();
}
