/* rung create [--bundle B] [--pid-file F] [--console-socket S] [--preserve-fds N] ID */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "lib/error.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_BUNDLE = 256, OPT_PID_FILE, OPT_CONSOLE, OPT_PRESERVE, OPT_IGNORED };

static const struct option create_options[] = {
	{"bundle", required_argument, NULL, OPT_BUNDLE},
	{"pid-file", required_argument, NULL, OPT_PID_FILE},
	{"console-socket", required_argument, NULL, OPT_CONSOLE},
	{"preserve-fds", required_argument, NULL, OPT_PRESERVE},
	{"no-pivot", no_argument, NULL, OPT_IGNORED},
	{"no-new-keyring", no_argument, NULL, OPT_IGNORED},
	{"detach", no_argument, NULL, OPT_IGNORED},
	{NULL, 0, NULL, 0},
};

/* Shared with run: the create options, parsed; *id points into argv. */
int parse_create_options(int argc, char **argv, struct create_opts *o, const char **id,
			 bool *detach, struct rung_error *err)
{
	int opt;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+b:p:d", create_options, NULL)) != -1) {
		switch (opt) {
		case 'b':
		case OPT_BUNDLE:
			o->bundle = optarg;
			break;
		case 'p':
		case OPT_PID_FILE:
			o->pid_file = optarg;
			break;
		case OPT_CONSOLE:
			o->console_socket = optarg;
			break;
		case OPT_PRESERVE:
			o->preserve_fds = atoi(optarg);
			break;
		case 'd':
			if (detach)
				*detach = true;
			break;
		case OPT_IGNORED:
			if (detach &&
			    strcmp(argv[optind - 1] + strspn(argv[optind - 1], "-"), "detach") == 0)
				*detach = true;
			break;
		default:
			return rung_error_make(err, 0, "%s: unknown option `%s`", argv[0],
					       argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return rung_error_make(err, 0, "%s: exactly one container id is needed", argv[0]);
	*id = argv[optind];
	return 0;
}

int cmd_create(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct create_opts o;
	const char *id;
	pid_t pid;
	int ret = parse_create_options(argc, argv, &o, &id, NULL, err);

	if (ret < 0)
		return ret;
	ret = oci_create(g, id, &o, &pid, err);
	return ret < 0 ? ret : 0;
}
