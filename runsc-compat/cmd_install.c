/*
 * rung install [--runtime NAME] [--config FILE] / rung uninstall [...]:
 * add runtimes.NAME = {"path": <this rung binary's absolute path>} to
 * Docker's daemon.json (default /etc/docker/daemon.json, NAME "rung"), or
 * remove it. Every other key of the file stays as it was; the new file is
 * written beside the old one and renamed over it, so that dockerd never
 * reads half a file. dockerd reads it when it starts (or on SIGHUP).
 */
#include "config.h"
#include "runsc-compat/cli.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DOCKER_DAEMON_JSON "/etc/docker/daemon.json"

static const struct option install_options[] = {
	{"runtime", required_argument, NULL, 'r'},
	{"config", required_argument, NULL, 'c'},
	{NULL, 0, NULL, 0},
};

/* mkdir -p of path's directory. */
static int make_parent(const char *path)
{
	char *copy = xstrdup(path);
	int ret = 0;

	for (char *p = copy + 1; *p && ret == 0; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			ret = -errno;
		*p = '/';
	}
	free(copy);
	return ret;
}

/* The file's JSON object; a missing or empty file is an empty object. */
static int load(const char *path, struct json_object **out, mode_t *mode, struct rung_error *err)
{
	struct stat st;
	struct json_object *o;

	*mode = 0644;
	if (stat(path, &st) < 0) {
		if (errno != ENOENT)
			return rung_error_make(err, errno, "read `%s`", path);
		*out = json_object_new_object();
		return 0;
	}
	*mode = st.st_mode & 07777;
	if (st.st_size == 0) {
		*out = json_object_new_object();
		return 0;
	}
	o = json_object_from_file(path);
	if (!o || !json_object_is_type(o, json_type_object)) {
		if (o)
			json_object_put(o);
		return rung_error_make(err, EINVAL, "`%s` is not a JSON object; left as it is",
				       path);
	}
	*out = o;
	return 0;
}

/* Write o to path atomically: a temporary in the same directory, then rename. */
static int save(const char *path, struct json_object *o, mode_t mode, struct rung_error *err)
{
	char *tmp = xasprintf("%s.rung-XXXXXX", path);
	const char *text = json_object_to_json_string_ext(
		o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(text);
	int fd = mkostemp(tmp, O_CLOEXEC), ret = 0;

	if (fd < 0) {
		ret = rung_error_make(err, errno, "write `%s`", path);
		free(tmp);
		return ret;
	}
	if (fchmod(fd, mode) < 0 || write(fd, text, len) != (ssize_t)len ||
	    write(fd, "\n", 1) != 1 || fsync(fd) < 0 || rename(tmp, path) < 0)
		ret = rung_error_make(err, errno, "write `%s`", path);
	close(fd);
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

int cmd_install(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	bool install = strcmp(argv[0], "install") == 0;
	const char *name = "rung", *path = DOCKER_DAEMON_JSON;
	struct json_object *o = NULL, *runtimes, *rt;
	char self[PATH_MAX];
	mode_t mode;
	ssize_t n;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+", install_options, NULL)) != -1) {
		if (opt == 'r')
			name = optarg;
		else if (opt == 'c')
			path = optarg;
		else
			return rung_error_make(err, 0, "%s: unknown option `%s`", argv[0],
					       argv[optind - 1]);
	}
	if (optind != argc)
		return rung_error_make(err, 0, "%s: usage: %s [--runtime NAME] [--config FILE]",
				       argv[0], argv[0]);
	if (!*name)
		return rung_error_make(err, 0, "%s: the runtime needs a name", argv[0]);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return rung_error_make(err, errno, "where is the rung binary");
	self[n] = '\0';
	ret = load(path, &o, &mode, err);
	if (ret < 0)
		return ret;
	if (!json_object_object_get_ex(o, "runtimes", &runtimes) ||
	    !json_object_is_type(runtimes, json_type_object)) {
		if (!install) {
			json_object_put(o);
			printf("%s: no runtime `%s`, nothing to do\n", path, name);
			return 0;
		}
		runtimes = json_object_new_object();
		json_object_object_add(o, "runtimes", runtimes);
	}
	if (install) {
		rt = json_object_new_object();
		json_object_object_add(rt, "path", json_object_new_string(self));
		json_object_object_add(runtimes, name, rt);
	} else if (!json_object_object_get_ex(runtimes, name, NULL)) {
		json_object_put(o);
		printf("%s: no runtime `%s`, nothing to do\n", path, name);
		return 0;
	} else {
		json_object_object_del(runtimes, name);
	}
	ret = make_parent(path);
	if (ret < 0)
		ret = rung_error_make(err, -ret, "create the directory of `%s`", path);
	else
		ret = save(path, o, mode, err);
	json_object_put(o);
	if (ret == 0)
		printf("%s: runtime `%s` %s; restart dockerd (or send it SIGHUP) to use it\n", path,
		       name, install ? "added" : "removed");
	return ret;
}
