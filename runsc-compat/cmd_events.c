/*
 * rung events [--stats] [--interval DURATION] ID: the container's resource
 * usage as runc's events, one JSON object a line: {"type":"stats","id":ID,
 * "data":{...}} once with --stats; else one every DURATION (Go's syntax:
 * 500ms, 5s, 1m; default 5s), with an {"type":"oom"} event when the cgroup's
 * OOM kill count grew, until the container stops.
 */
#include "config.h"
#include "runsc-compat/cgroup.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "runsc-compat/stats.h"
#include "lib/error.h"
#include "lib/util.h"

#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct option events_options[] = {
	{"stats", no_argument, NULL, 's'},
	{"interval", required_argument, NULL, 'i'},
	{NULL, 0, NULL, 0},
};

/* A Go duration ("1.5s", "100ms", "2m", "1h"): nanoseconds, or -1. */
static long long parse_duration(const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1},	 {"us", 1e3}, {"µs", 1e3},  {"ms", 1e6},
		     {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strcmp(end, units[i].unit) == 0)
			return (long long)(v * units[i].ns);
	return -1;
}

static void print_event(const char *type, const char *id, struct json_object *data)
{
	struct json_object *e = json_object_new_object();

	json_object_object_add(e, "type", json_object_new_string(type));
	json_object_object_add(e, "id", json_object_new_string(id));
	if (data)
		json_object_object_add(e, "data", data);
	printf("%s\n", json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN));
	fflush(stdout);
	json_object_put(e);
}

/* The cgroup's OOM kill count (v1 memory.oom_control, v2 memory.events). */
static unsigned long long oom_kills(const char *cg)
{
	char *path = cgroup_v2() ? cgroup_file(cg, NULL, "memory.events")
				 : cgroup_file(cg, "memory", "memory.oom_control");
	FILE *f = fopen(path, "re");
	char key[64];
	unsigned long long v, n = 0;

	free(path);
	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", key, &v) == 2)
		if (strcmp(key, "oom_kill") == 0)
			n = v;
	fclose(f);
	return n;
}

int cmd_events(struct global_args *g, int argc, char **argv, struct rung_error *err)
{
	struct container_state st;
	long long interval = 5000000000LL;
	bool once = false;
	unsigned long long ooms;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long_only(argc, argv, "+", events_options, NULL)) != -1) {
		if (opt == 's') {
			once = true;
		} else if (opt == 'i') {
			interval = parse_duration(optarg);
			if (interval <= 0)
				return rung_error_make(err, 0, "events: bad --interval `%s`",
						       optarg);
		} else {
			return rung_error_make(err, 0, "events: unknown option `%s`",
					       argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return rung_error_make(err, 0, "events: exactly one container id is needed");
	if (!state_valid_id(argv[optind]) || state_load(oci_root(g), argv[optind], &st, err) < 0)
		return rung_error_make(err, 0, "container does not exist");
	if (state_status(&st) == STATUS_STOPPED || !st.cgroup) {
		state_release(&st);
		return rung_error_make(err, 0, "container not running");
	}
	if (once) {
		print_event("stats", st.id, stats_read(st.cgroup));
		state_release(&st);
		return 0;
	}
	ooms = oom_kills(st.cgroup);
	while (state_status(&st) != STATUS_STOPPED) {
		struct timespec ts = {interval / 1000000000LL, interval % 1000000000LL};
		unsigned long long now = oom_kills(st.cgroup);
		if (now > ooms)
			print_event("oom", st.id, NULL);
		ooms = now;
		print_event("stats", st.id, stats_read(st.cgroup));
		while (nanosleep(&ts, &ts) < 0)
			;
	}
	state_release(&st);
	return 0;
}
