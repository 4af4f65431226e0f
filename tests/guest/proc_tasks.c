/*
 * Guest test: /proc reflects the process tree. /proc/<pid>/task lists every
 * thread, status counts them, /proc/<tid> of a thread resolves (unlisted),
 * task/<tid>/children names a child, stat shows the parent and the process
 * group, /proc/self and /proc/thread-self point at the caller.
 */
#include "guest.h"

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

static pthread_barrier_t start, stop;
static volatile pid_t worker_tid;

static void *worker(void *arg)
{
	if (arg)
		worker_tid = gettid();
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&stop);
	return NULL;
}

static int count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* The value of a "Key:" line of a /proc status file, or -1. */
static long status_field(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

int main(void)
{
	pthread_t th[3];
	char path[128], link[64];
	struct stat st;
	pid_t child;
	int fds[2], ppid = 0, pgrp = 0, n;
	char c;
	FILE *f;

	pthread_barrier_init(&start, NULL, 4);
	pthread_barrier_init(&stop, NULL, 4);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, i == 0 ? (void *)1 : NULL);
	pthread_barrier_wait(&start);

	snprintf(path, sizeof(path), "/proc/%d/task", getpid());
	CHECK_EQ(count_entries(path), 4, "/proc/<pid>/task lists the four threads");
	CHECK_EQ(status_field("/proc/self/status", "Threads:"), 4, "status says Threads: 4");
	snprintf(path, sizeof(path), "/proc/%d", worker_tid);
	CHECK_EQ(stat(path, &st), 0, "/proc/<tid> of a thread resolves");
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", getpid(), worker_tid);
	CHECK_EQ(status_field(path, "Pid:"), worker_tid, "task/<tid>/status is the thread's");
	CHECK_EQ(status_field(path, "Tgid:"), getpid(), "and names its process");
	n = (int)readlink("/proc/thread-self", link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "%d/task/%d", getpid(), gettid());
	CHECK(strcmp(link, path) == 0, "/proc/thread-self is <pid>/task/<tid>");

	pipe(fds);
	child = fork();
	if (child == 0) {
		read(fds[0], &c, 1);
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", getpid(), getpid());
	f = fopen(path, "r");
	CHECK(f && fscanf(f, "%d", &n) == 1 && n == child, "task/<tid>/children names the child");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stat", child);
	f = fopen(path, "r");
	CHECK(f && fscanf(f, "%*d %*s %*c %d %d", &ppid, &pgrp) == 2, "the child's stat parses");
	if (f)
		fclose(f);
	CHECK(ppid == getpid() && pgrp == getpgrp(), "it names its parent and process group");
	write(fds[1], "x", 1);
	waitpid(child, NULL, 0);

	pthread_barrier_wait(&stop);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	/* A joined thread's tid is cleared before Linux has taken it out of
	 * /proc: give its exit a moment to finish. */
	snprintf(path, sizeof(path), "/proc/%d/task", getpid());
	n = count_entries(path);
	for (int i = 0; i < 100 && n != 1; i++) {
		usleep(10000);
		n = count_entries(path);
	}
	CHECK_EQ(n, 1, "after the joins only the main thread is listed");
	return GUEST_DONE();
}
