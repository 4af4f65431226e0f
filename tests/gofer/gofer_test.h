/*
 * Shared helpers of the gofer tests (header only). A test binary doubles as
 * the gofer: gofer_spawn() re-executes /proc/self/exe as `... gofer --rootfs`,
 * which GOFER_TEST_MAIN hands to gofer_main().
 */
#ifndef RUNG_TESTS_GOFER_TEST_H
#define RUNG_TESTS_GOFER_TEST_H

#include "gofer/client.h"
#include "gofer/gofer.h"
#include "lib/error.h"
#include "lib/util.h"
#include "tests/unit/unit.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GOFER_TEST_MAIN(suite_fn)                              \
	int main(int argc, char **argv)                        \
	{                                                      \
		if (argc > 1 && strcmp(argv[1], "gofer") == 0) \
			return gofer_main(argc - 1, argv + 1); \
		return unit_run(suite_fn());                   \
	}

#define GT_MAX_CHAN 8

struct gt_gofer {
	pid_t pid;
	unsigned n;		/* channels */
	int raw[GT_MAX_CHAN];	/* channels not given to the client (-1 when closed) */
	struct gofer_client *c; /* the first nclient channels */
	struct gofer_node root;
};

static inline int gt_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static inline void gt_rmtree(const char *path)
{
	nftw(path, gt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * Temporary trees live under one base directory per test run, made and
 * removed by the parent process (an unchecked fixture): a failing test
 * exits without its own teardown.
 */
static char *gt_base;

static inline void gt_base_setup(void)
{
	gt_base = xstrdup("/tmp/rung-gofer-XXXXXX");
	if (!mkdtemp(gt_base))
		abort();
}

static inline void gt_base_teardown(void)
{
	gt_rmtree(gt_base);
	free(gt_base);
	gt_base = NULL;
}

static inline char *gt_tmpdir(const char *what)
{
	char *p = xasprintf("%s/%s-XXXXXX", gt_base, what);

	ck_assert_ptr_nonnull(mkdtemp(p));
	return p;
}

static inline char *gt_path(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static inline void gt_write_file(const char *dir, const char *name, const char *content)
{
	char *p = gt_path(dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	free(p);
}

static inline void gt_mkdir(const char *dir, const char *name)
{
	char *p = gt_path(dir, name);

	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
}

static inline void gt_symlink(const char *target, const char *dir, const char *name)
{
	char *p = gt_path(dir, name);

	ck_assert_int_eq(symlink(target, p), 0);
	free(p);
}

/* Start a gofer as cfg says with nchan channels, the first nclient of them in a client. */
static inline void gt_start_cfg(struct gt_gofer *g, const struct gofer_config *cfg, unsigned nchan,
				unsigned nclient)
{
	struct rung_error err = {0};
	int fds[GT_MAX_CHAN];

	memset(g, 0, sizeof(*g));
	ck_assert_uint_le(nchan, GT_MAX_CHAN);
	ck_assert_uint_le(nclient, nchan);
	if (gofer_spawn(cfg, nchan, &g->pid, fds, &err) < 0) {
		char *s = rung_error_string(&err);
		ck_abort_msg("gofer_spawn: %s", s);
	}
	g->n = nchan;
	for (unsigned i = 0; i < GT_MAX_CHAN; i++)
		g->raw[i] = i >= nclient && i < nchan ? fds[i] : -1;
	if (nclient) {
		ck_assert_int_eq(gofer_client_new(fds, nclient, &g->c), 0);
		ck_assert_int_eq(gofer_attach(g->c, &g->root), 0);
	}
}

/* Start a gofer over root with nchan channels, the first nclient of them in a client. */
static inline void gt_start(struct gt_gofer *g, const char *root, bool ro, unsigned nchan,
			    unsigned nclient)
{
	struct gofer_config cfg = {.rootfs = root, .read_only = ro};

	gt_start_cfg(g, &cfg, nchan, nclient);
}

/* Wait up to timeout_ms for the gofer to exit; returns its wait status or -1. */
static inline int gt_wait(struct gt_gofer *g, int timeout_ms)
{
	int status;

	for (int i = 0; i < timeout_ms; i++) {
		pid_t r = waitpid(g->pid, &status, WNOHANG);

		if (r == g->pid) {
			g->pid = 0;
			return status;
		}
		usleep(1000);
	}
	return -1;
}

/* Close every channel and expect a clean exit. */
static inline void gt_stop(struct gt_gofer *g)
{
	int status;

	gofer_client_free(g->c);
	g->c = NULL;
	for (unsigned i = 0; i < GT_MAX_CHAN; i++)
		if (g->raw[i] >= 0)
			close(g->raw[i]);
	status = gt_wait(g, 5000);
	if (status == -1) {
		kill(g->pid, SIGKILL);
		waitpid(g->pid, NULL, 0);
		ck_abort_msg("the gofer did not exit when its channels closed");
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "gofer exit status %#x",
		      status);
}

/* Walk a '/'-separated relative path from dir. */
static inline int gt_walk(struct gofer_client *c, uint64_t dir, const char *path,
			  struct gofer_node *nodes, unsigned *nwalked, int *status)
{
	char *copy = xstrdup(path), *save = NULL;
	const char *names[GOFER_MAX_WALK];
	unsigned n = 0;
	int ret;

	for (char *t = strtok_r(copy, "/", &save); t && n < GOFER_MAX_WALK;
	     t = strtok_r(NULL, "/", &save))
		names[n++] = t;
	ret = gofer_walk(c, dir, names, n, nodes, nwalked, status);
	free(copy);
	return ret;
}

/* The node at path (which must walk completely). */
static inline struct gofer_node gt_lookup(struct gofer_client *c, uint64_t dir, const char *path)
{
	struct gofer_node nodes[GOFER_MAX_WALK];
	unsigned nwalked = 0;
	int status = -1;

	ck_assert_int_eq(gt_walk(c, dir, path, nodes, &nwalked, &status), 0);
	ck_assert_msg(status == 0 && nwalked > 0, "walk %s: status %d, %u walked", path, status,
		      nwalked);
	return nodes[nwalked - 1];
}

/* How many fds the process holds. */
static inline int gt_fd_count(pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

#endif
