/* The container state directory: state.json, its lock, liveness. */
#include "config.h"
#include "runsc-compat/state.h"
#include "lib/error.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool state_valid_id(const char *id)
{
	if (!*id || strcmp(id, ".") == 0 || strcmp(id, "..") == 0 || strlen(id) > 1024)
		return false;
	for (const char *c = id; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '+' || *c == '-' || *c == '.'))
			return false;
	return true;
}

char *state_path(const char *root, const char *id, const char *name)
{
	return name ? xasprintf("%s/%s/%s", root, id, name) : xasprintf("%s/%s", root, id);
}

/* mkdir -p for the root (0700, as runc makes it). */
static int make_root(const char *root)
{
	char *copy = xstrdup(root);
	int ret = 0;

	for (char *p = copy + 1; *p && ret == 0; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0711) < 0 && errno != EEXIST)
			ret = -errno;
		*p = '/';
	}
	if (ret == 0 && mkdir(copy, 0700) < 0 && errno != EEXIST)
		ret = -errno;
	free(copy);
	return ret;
}

/*
 * Lock <root>/<id>/lock (made by create only). A delete that held it before
 * us may have removed the container meanwhile: the lock we got is then of a
 * file no longer there, and the container does not exist.
 */
static int lock_dir(const char *root, const char *id, bool create, int *lockfd,
		    struct rung_error *err)
{
	char *path = state_path(root, id, "lock");
	int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0600);
	struct stat a, b;

	if (fd < 0) {
		int e = errno;
		free(path);
		if (e == ENOENT && !create)
			return rung_error_make(err, 0, "container does not exist");
		return rung_error_make(err, e, "lock the state of `%s`", id);
	}
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			int e = errno;
			close(fd);
			free(path);
			return rung_error_make(err, e, "lock the state of `%s`", id);
		}
	if (fstat(fd, &a) < 0 || stat(path, &b) < 0 || a.st_ino != b.st_ino ||
	    a.st_dev != b.st_dev) {
		close(fd);
		free(path);
		return rung_error_make(err, 0, "container does not exist");
	}
	free(path);
	*lockfd = fd;
	return 0;
}

int state_create(const char *root, const char *id, int *lockfd, struct rung_error *err)
{
	char *dir;
	int ret;

	if (!state_valid_id(id))
		return rung_error_make(err, EINVAL, "invalid container id `%s`", id);
	ret = make_root(root);
	if (ret < 0)
		return rung_error_make(err, -ret, "create the state root `%s`", root);
	dir = state_path(root, id, NULL);
	if (mkdir(dir, 0700) < 0) {
		int e = errno;
		free(dir);
		if (e == EEXIST)
			return rung_error_make(err, 0, "container with id exists: %s", id);
		return rung_error_make(err, e, "create the state of `%s`", id);
	}
	free(dir);
	return lock_dir(root, id, true, lockfd, err);
}

int state_lock(const char *root, const char *id, int *lockfd, struct rung_error *err)
{
	char *dir;
	struct stat st;
	int ret;

	if (!state_valid_id(id))
		return rung_error_make(err, 0, "container does not exist");
	dir = state_path(root, id, NULL);
	ret = stat(dir, &st);
	free(dir);
	if (ret < 0)
		return rung_error_make(err, 0, "container does not exist");
	ret = lock_dir(root, id, false, lockfd, err);
	if (ret < 0)
		return ret;
	/* A delete may have removed it while we waited for the lock. */
	dir = state_path(root, id, "state.json");
	if (stat(dir, &st) < 0) {
		free(dir);
		close(*lockfd);
		return rung_error_make(err, 0, "container does not exist");
	}
	free(dir);
	return 0;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v ? v : ""));
}

int state_save(const char *root, const struct container_state *st, struct rung_error *err)
{
	struct json_object *o = json_object_new_object(), *ann;
	char *tmp = state_path(root, st->id, ".state.json.tmp");
	char *path = state_path(root, st->id, "state.json");
	const char *text;
	int fd, ret = 0;

	add_str(o, "id", st->id);
	json_object_object_add(o, "pid", json_object_new_int(st->pid));
	json_object_object_add(o, "pid_start", json_object_new_uint64(st->pid_start));
	add_str(o, "bundle", st->bundle);
	add_str(o, "rootfs", st->rootfs);
	add_str(o, "created", st->created);
	add_str(o, "owner", st->owner);
	if (st->cgroup)
		add_str(o, "cgroup", st->cgroup);
	if (st->isolation)
		add_str(o, "isolation", st->isolation);
	json_object_object_add(o, "started", json_object_new_boolean(st->started));
	json_object_object_add(o, "paused", json_object_new_boolean(st->paused));
	ann = json_tokener_parse(st->annotations ? st->annotations : "{}");
	json_object_object_add(o, "annotations", ann ? ann : json_object_new_object());
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fsync(fd) < 0 ||
	    rename(tmp, path) < 0)
		ret = rung_error_make(err, errno, "save the state of `%s`", st->id);
	if (fd >= 0)
		close(fd);
	json_object_put(o);
	free(tmp);
	free(path);
	return ret;
}

static char *json_str(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return xstrdup(json_object_get_string(v));
}

int state_load(const char *root, const char *id, struct container_state *st, struct rung_error *err)
{
	char *path = state_path(root, id, "state.json");
	struct json_object *o = json_object_from_file(path), *v;

	free(path);
	memset(st, 0, sizeof(*st));
	if (!o)
		return rung_error_make(err, 0, "container does not exist");
	st->id = json_str(o, "id");
	if (json_object_object_get_ex(o, "pid", &v))
		st->pid = json_object_get_int(v);
	if (json_object_object_get_ex(o, "pid_start", &v))
		st->pid_start = json_object_get_uint64(v);
	st->bundle = json_str(o, "bundle");
	st->rootfs = json_str(o, "rootfs");
	st->created = json_str(o, "created");
	st->owner = json_str(o, "owner");
	st->cgroup = json_str(o, "cgroup");
	st->isolation = json_str(o, "isolation");
	if (json_object_object_get_ex(o, "started", &v))
		st->started = json_object_get_boolean(v);
	if (json_object_object_get_ex(o, "paused", &v))
		st->paused = json_object_get_boolean(v);
	st->annotations =
		xstrdup(json_object_object_get_ex(o, "annotations", &v)
				? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN)
				: "{}");
	json_object_put(o);
	if (!st->id) {
		state_release(st);
		return rung_error_make(err, EINVAL, "the state of `%s` is damaged", id);
	}
	return 0;
}

void state_release(struct container_state *st)
{
	free(st->id);
	free(st->bundle);
	free(st->rootfs);
	free(st->created);
	free(st->owner);
	free(st->annotations);
	free(st->cgroup);
	free(st->isolation);
	memset(st, 0, sizeof(*st));
}

/* Remove dir and what it holds (a few levels: the VM levels keep a run
 * directory with share mount points in the state directory). */
static void remove_tree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
				char *p = xasprintf("%s/%s", dir, e->d_name);
				if (unlink(p) < 0 && errno == EISDIR && depth < 3)
					remove_tree(p, depth + 1);
				free(p);
			}
		closedir(d);
	}
	rmdir(dir);
}

void state_remove(const char *root, const char *id)
{
	char *dir = state_path(root, id, NULL);

	remove_tree(dir, 0);
	free(dir);
}

uint64_t state_pid_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	char state;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* After the last ')' (comm may hold anything): state, then 18 fields,
	 * then the start time (field 22). */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2,
			 "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			 "%*d %*d %*d %llu",
			 &state, &start) != 2)
		return 0;
	if (state == 'Z' || state == 'X')
		return 0;
	return start;
}

enum container_status state_status(const struct container_state *st)
{
	uint64_t start = state_pid_start(st->pid);

	if (!start || start != st->pid_start)
		return STATUS_STOPPED;
	if (st->paused)
		return STATUS_PAUSED;
	return st->started ? STATUS_RUNNING : STATUS_CREATED;
}

const char *state_status_name(enum container_status s)
{
	switch (s) {
	case STATUS_CREATING:
		return "creating";
	case STATUS_CREATED:
		return "created";
	case STATUS_RUNNING:
		return "running";
	case STATUS_PAUSED:
		return "paused";
	default:
		return "stopped";
	}
}

char *state_json(const struct container_state *st)
{
	struct json_object *o = json_object_new_object(), *ann;
	enum container_status s = state_status(st);
	char *out;

	add_str(o, "ociVersion", "1.0.2-dev");
	add_str(o, "id", st->id);
	/* runc reports 0 once the container stopped. */
	json_object_object_add(o, "pid", json_object_new_int(s == STATUS_STOPPED ? 0 : st->pid));
	add_str(o, "status", state_status_name(s));
	add_str(o, "bundle", st->bundle);
	add_str(o, "rootfs", st->rootfs);
	add_str(o, "created", st->created);
	ann = json_tokener_parse(st->annotations ? st->annotations : "{}");
	if (ann && json_object_object_length(ann) > 0)
		json_object_object_add(o, "annotations", ann);
	else if (ann)
		json_object_put(ann);
	add_str(o, "owner", st->owner);
	out = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_SPACED |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return out;
}

char *state_now_rfc3339(void)
{
	struct timespec ts;
	struct tm tm;
	char buf[64];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec);
	return xstrdup(buf);
}

int state_list(const char *root, char ***ids, size_t *n)
{
	DIR *d = opendir(root);
	struct dirent *e;
	size_t cap = 0;

	*ids = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		char *p;
		struct stat st;
		if (!state_valid_id(e->d_name))
			continue;
		p = state_path(root, e->d_name, "state.json");
		if (stat(p, &st) == 0) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 16;
				*ids = xrealloc(*ids, cap * sizeof(**ids));
			}
			(*ids)[(*n)++] = xstrdup(e->d_name);
		}
		free(p);
	}
	closedir(d);
	return 0;
}
