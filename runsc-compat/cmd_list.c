/* rung list [--format table|json] [--quiet] */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "lib/error.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option list_options[] = {
	{"format", required_argument, NULL, 'f'},
	{"quiet", no_argument, NULL, 'q'},
	{NULL, 0, NULL, 0},
};

int cmd_list(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	const char *format = "table";
	bool quiet = false, first = true;
	char **ids;
	size_t n;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+f:q", list_options, NULL)) != -1) {
		if (opt == 'f')
			format = optarg;
		else if (opt == 'q')
			quiet = true;
		else
			return rung_error_make(err, 0, "list: unknown option `%s`",
					       argv[optind - 1]);
	}
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
		return rung_error_make(err, 0, "list: format is table or json, not `%s`", format);
	if (state_list(oci_root(g), &ids, &n) < 0)
		return rung_error_make(err, 0, "cannot list `%s`", oci_root(g));
	if (strcmp(format, "json") == 0)
		printf("[");
	else if (!quiet)
		printf("%-12s %-8s %-10s %-40s %-30s %s\n", "ID", "PID", "STATUS", "BUNDLE",
		       "CREATED", "OWNER");
	for (size_t i = 0; i < n; i++) {
		struct container_state st;
		struct rung_error e = {0};
		if (state_load(oci_root(g), ids[i], &st, &e) < 0) {
			rung_error_release(&e);
			free(ids[i]);
			continue;
		}
		if (strcmp(format, "json") == 0) {
			char *j = state_json(&st);
			printf("%s%s", first ? "" : ",", j);
			free(j);
		} else if (quiet) {
			printf("%s\n", st.id);
		} else {
			enum container_status s = state_status(&st);
			printf("%-12s %-8d %-10s %-40s %-30s %s\n", st.id,
			       s == STATUS_STOPPED ? 0 : st.pid, state_status_name(s), st.bundle,
			       st.created, *st.owner ? st.owner : "root");
		}
		first = false;
		state_release(&st);
		free(ids[i]);
	}
	if (strcmp(format, "json") == 0)
		printf("]\n");
	free(ids);
	return 0;
}
