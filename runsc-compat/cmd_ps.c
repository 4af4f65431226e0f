/* rung ps [--format table|json] ID [ps options]: the sandbox's host processes. */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "lib/error.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct option ps_options[] = {
	{"format", required_argument, NULL, 'f'},
	{NULL, 0, NULL, 0},
};

int cmd_ps(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	const char *format = "table";
	struct container_state st;
	pid_t *pids;
	size_t n;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+f:", ps_options, NULL)) != -1) {
		if (opt != 'f')
			return rung_error_make(err, 0, "ps: unknown option `%s`", argv[optind - 1]);
		format = optarg;
	}
	if (optind >= argc)
		return rung_error_make(err, 0, "ps: a container id is needed");
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
		return rung_error_make(err, 0, "ps: format is table or json, not `%s`", format);
	if (!state_valid_id(argv[optind]) || state_load(oci_root(g), argv[optind], &st, err) < 0)
		return rung_error_make(err, 0, "container does not exist");
	oci_host_pids(&st, &pids, &n);
	state_release(&st);
	if (strcmp(format, "json") == 0) {
		printf("[");
		for (size_t i = 0; i < n; i++)
			printf("%s%d", i ? "," : "", pids[i]);
		printf("]\n");
	} else {
		/* As runc: the host's ps, limited to these processes. */
		char list[4096] = "";
		size_t len = 0;
		pid_t child;
		int status;
		for (size_t i = 0; i < n && len < sizeof(list) - 16; i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
						i ? "," : "", pids[i]);
		fflush(stdout);
		child = fork();
		if (child == 0) {
			char *args[] = {"ps", "-f", "-p", list, NULL};
			if (n)
				execvp("ps", args);
			_exit(n ? 127 : 0);
		}
		if (child > 0)
			waitpid(child, &status, 0);
	}
	free(pids);
	return 0;
}
