/* The records of `--isolation=auto` (see compat.h). */
#include "config.h"
#include "runsc-compat/compat.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "syscalls/syscall.h"
#include "lib/error.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *compat_key(const char *rootfs, char *const *argv)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *s = rootfs ? rootfs : "";

	/* FNV-1a over the rootfs and each argument, NULs between. */
	for (;;) {
		for (const char *c = s; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		h = (h ^ 0) * 0x100000001b3ull;
		if (!argv || !*argv)
			break;
		s = *argv++;
	}
	return xasprintf("%016llx", (unsigned long long)h);
}

static char *record_path(const char *root, const char *rootfs, char *const *argv)
{
	char *key = compat_key(rootfs, argv), *path = xasprintf("%s/compat/%s", root, key);

	free(key);
	return path;
}

int compat_open(const char *root, const char *rootfs, char *const *argv)
{
	char *dir = xasprintf("%s/compat", root), *path = record_path(root, rootfs, argv);
	int fd;

	mkdir(root, 0711);
	mkdir(dir, 0700);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	free(dir);
	free(path);
	if (fd < 0)
		return -1;
	dprintf(fd, "rootfs %s\n", rootfs ? rootfs : "");
	for (char *const *a = argv; a && *a; a++)
		dprintf(fd, "arg %s\n", *a);
	return fd;
}

void compat_finish(int fd, const uint64_t *seen, unsigned nbits)
{
	char line[128];

	if (fd < 0)
		return;
	for (unsigned nr = 0; nr < nbits; nr++) {
		const char *name;
		int n;
		if (!(seen[nr / 64] & (1ull << (nr % 64))))
			continue;
		name = syscall_name(nr);
		/* snprintf and write: nothing that opens or allocates in a confined sentry. */
		n = name ? snprintf(line, sizeof(line), "unsupported %s\n", name)
			 : snprintf(line, sizeof(line), "unsupported %u\n", nr);
		if (n > 0 && write(fd, line, (size_t)n) < 0)
			break;
	}
	if (write(fd, "done\n", 5) < 0)
		(void)0;
	close(fd);
}

/* The "unsupported" names of a record, space-separated (malloc'd), or NULL
 * without a record. */
static char *read_unsupported(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *out;
	size_t cap = 0;

	if (!f)
		return NULL;
	out = xstrdup("");
	while (getline(&line, &cap, f) > 0) {
		char *more;
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "unsupported ", 12) != 0)
			continue;
		more = xasprintf("%s%s%s", out, *out ? " " : "", line + 12);
		free(out);
		out = more;
	}
	free(line);
	fclose(f);
	return out;
}

bool compat_needs_kernel(const char *root, const char *rootfs, char *const *argv, char **why)
{
	char *path = record_path(root, rootfs, argv), *u = read_unsupported(path);

	free(path);
	*why = u ? u : xstrdup("");
	return u && *u;
}

/* rung compat: the records, one line each. */
int cmd_compat(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	char *dir = xasprintf("%s/compat", oci_root(g));
	DIR *d = opendir(dir);
	struct dirent *e;

	printf("%-16s  %-7s  %s\n", "KEY", "LEVEL", "ROOTFS, COMMAND: UNSUPPORTED CALLS");
	while (d && (e = readdir(d))) {
		char *path, *u, *line = NULL;
		size_t cap = 0;
		FILE *f;
		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		u = read_unsupported(path);
		f = fopen(path, "re");
		printf("%-16s  %-7s ", e->d_name, u && *u ? "microvm" : "sentry");
		while (f && getline(&line, &cap, f) > 0) {
			line[strcspn(line, "\n")] = '\0';
			if (strncmp(line, "rootfs ", 7) == 0 || strncmp(line, "arg ", 4) == 0)
				printf(" %s", strchr(line, ' ') + 1);
		}
		printf("%s%s\n", u && *u ? ": " : "", u && *u ? u : "");
		if (f)
			fclose(f);
		free(line);
		free(u);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
	return 0;
}
