/* The isolation levels and the choice among them (see isolation.h). */
#include "config.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/compat.h"
#include "runsc-compat/oci.h"
#include "runsc-compat/state.h"
#include "platform/microvm/confidential.h"
#include "lib/error.h"
#include "lib/log.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[ISOLATION_SENTRY] = "sentry",
	[ISOLATION_MICROVM] = "microvm",
	[ISOLATION_VM] = "vm",
	[ISOLATION_AUTO] = "auto",
	[ISOLATION_CONFIDENTIAL] = "confidential",
	[ISOLATION_CONTAINER] = "container",
};

/* The ladder's level number of a concrete level (auto has none). */
static int level(enum isolation i)
{
	switch (i) {
	case ISOLATION_CONTAINER:
		return 1;
	case ISOLATION_SENTRY:
		return 2;
	case ISOLATION_MICROVM:
		return 3;
	case ISOLATION_VM:
		return 4;
	case ISOLATION_CONFIDENTIAL:
		return 5;
	default:
		return 0;
	}
}

int isolation_parse(const char *s, enum isolation *out)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (s && strcmp(s, names[i]) == 0) {
			*out = (enum isolation)i;
			return 0;
		}
	return -1;
}

const char *isolation_name(enum isolation i)
{
	return names[i];
}

int isolation_choose(const struct global_args *g, const struct isolation_workload *w,
		     enum isolation *out, bool *record, struct rung_error *err)
{
	enum isolation flag = ISOLATION_SENTRY, ann = ISOLATION_SENTRY;
	struct json_object *o = w->annotations ? json_tokener_parse(w->annotations) : NULL, *v;
	bool has_ann = false;
	int ret = 0;
	char *why;

	*record = false;
	isolation_parse(g->isolation, &flag);
	if (o && json_object_object_get_ex(o, ISOLATION_ANNOTATION, &v)) {
		/* An unknown level is an error, never a silent fallback below it. */
		if (json_object_is_type(v, json_type_string) &&
		    isolation_parse(json_object_get_string(v), &ann) == 0)
			has_ann = true;
		else
			ret = rung_error_make(
				err, EINVAL, "config: annotation `%s`: unknown isolation `%s`",
				ISOLATION_ANNOTATION, v ? json_object_get_string(v) : "null");
	}
	if (o)
		json_object_put(o);
	if (ret < 0)
		return ret;
	if (has_ann && ann != ISOLATION_AUTO) {
		/* Never below what the flag asked for: the higher of the two. */
		if (g->isolation && flag != ISOLATION_AUTO && level(flag) > level(ann)) {
			log_info("isolation: %s (--isolation; the annotation's %s is lower)",
				 isolation_name(flag), isolation_name(ann));
			*out = flag;
			return 0;
		}
		log_info("isolation: %s (annotation %s)", isolation_name(ann),
			 ISOLATION_ANNOTATION);
		*out = ann;
		return 0;
	}
	if (flag == ISOLATION_AUTO) {
		if (compat_needs_kernel(oci_root(g), w->rootfs, w->argv, &why)) {
			log_info("isolation: auto chose microvm (a sentry run of this workload met "
				 "unsupported system calls: %s)",
				 why);
			free(why);
			*out = ISOLATION_MICROVM;
			return 0;
		}
		free(why);
		log_info("isolation: auto chose sentry (nothing says the workload needs a kernel)");
		*record = true;
		*out = ISOLATION_SENTRY;
		return 0;
	}
	*out = flag;
	return 0;
}

int isolation_refuse_confidential(struct rung_error *err)
{
	struct cc_host h;
	const char *tech;
	int ret;

	cc_probe(&h);
	ret = cc_check(&h, &tech, err);
	cc_host_release(&h);
	if (ret < 0)
		return ret;
	return rung_error_make(err, 0,
			       "level 5 (%s) is available on this host, but rung does not start "
			       "confidential VMs yet",
			       tech);
}

bool isolation_is_container(const struct container_state *st)
{
	return st->isolation && strcmp(st->isolation, names[ISOLATION_CONTAINER]) == 0;
}
