/* rung spec [--bundle B]: write a default config.json (as runc spec does). */
#include "config.h"
#include "runsc-compat/cli.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char default_spec[] =
	"{\n"
	"\t\"ociVersion\": \"1.0.2-dev\",\n"
	"\t\"process\": {\n"
	"\t\t\"terminal\": true,\n"
	"\t\t\"user\": {\"uid\": 0, \"gid\": 0},\n"
	"\t\t\"args\": [\"sh\"],\n"
	"\t\t\"env\": [\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\", "
	"\"TERM=xterm\"],\n"
	"\t\t\"cwd\": \"/\",\n"
	"\t\t\"capabilities\": {\n"
	"\t\t\t\"bounding\": [\"CAP_AUDIT_WRITE\", \"CAP_KILL\", \"CAP_NET_BIND_SERVICE\"],\n"
	"\t\t\t\"effective\": [\"CAP_AUDIT_WRITE\", \"CAP_KILL\", \"CAP_NET_BIND_SERVICE\"],\n"
	"\t\t\t\"permitted\": [\"CAP_AUDIT_WRITE\", \"CAP_KILL\", \"CAP_NET_BIND_SERVICE\"]\n"
	"\t\t},\n"
	"\t\t\"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": 1024, \"soft\": 1024}],\n"
	"\t\t\"noNewPrivileges\": true\n"
	"\t},\n"
	"\t\"root\": {\"path\": \"rootfs\", \"readonly\": true},\n"
	"\t\"hostname\": \"rung\",\n"
	"\t\"mounts\": [\n"
	"\t\t{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"},\n"
	"\t\t{\"destination\": \"/dev\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", "
	"\"options\": [\"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\"]},\n"
	"\t\t{\"destination\": \"/dev/pts\", \"type\": \"devpts\", \"source\": \"devpts\"},\n"
	"\t\t{\"destination\": \"/dev/shm\", \"type\": \"tmpfs\", \"source\": \"shm\", "
	"\"options\": [\"nosuid\", \"noexec\", \"nodev\", \"mode=1777\", \"size=65536k\"]},\n"
	"\t\t{\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\", "
	"\"options\": [\"nosuid\", \"noexec\", \"nodev\", \"ro\"]}\n"
	"\t],\n"
	"\t\"linux\": {\n"
	"\t\t\"namespaces\": [{\"type\": \"pid\"}, {\"type\": \"network\"}, {\"type\": \"ipc\"}, "
	"{\"type\": \"uts\"}, {\"type\": \"mount\"}],\n"
	"\t\t\"maskedPaths\": [\"/proc/kcore\", \"/proc/keys\", \"/sys/firmware\"],\n"
	"\t\t\"readonlyPaths\": [\"/proc/bus\", \"/proc/fs\", \"/proc/irq\", \"/proc/sys\", "
	"\"/proc/sysrq-trigger\"]\n"
	"\t}\n"
	"}\n";

static const struct option spec_options[] = {
	{"bundle", required_argument, NULL, 'b'},
	{"rootless", no_argument, NULL, 'r'},
	{NULL, 0, NULL, 0},
};

int cmd_spec(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	const char *bundle = ".";
	char *path;
	int opt, fd;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+b:", spec_options, NULL)) != -1) {
		if (opt == 'b')
			bundle = optarg;
		else if (opt != 'r')
			return rung_error_make(err, 0, "spec: unknown option `%s`",
					       argv[optind - 1]);
	}
	path = xasprintf("%s/config.json", bundle);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		free(path);
		if (e == EEXIST)
			return rung_error_make(err, 0, "File config.json exists. Remove it first");
		return rung_error_make(err, e, "write config.json");
	}
	free(path);
	if (write(fd, default_spec, sizeof(default_spec) - 1) < 0) {
		close(fd);
		return rung_error_make(err, errno, "write config.json");
	}
	close(fd);
	return 0;
}
