/* The isolation levels and the choice among them (see isolation.h). */
#include "config.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/compat.h"
#include "runsc-compat/oci.h"
#include "lib/log.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[ISOLATION_SENTRY] = "sentry",
	[ISOLATION_MICROVM] = "microvm",
	[ISOLATION_VM] = "vm",
	[ISOLATION_AUTO] = "auto",
};

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

enum isolation isolation_choose(const struct global_args *g, const struct isolation_workload *w,
				bool *record)
{
	enum isolation flag = ISOLATION_SENTRY, ann;
	struct json_object *o = w->annotations ? json_tokener_parse(w->annotations) : NULL, *v;
	bool has_ann = false;
	char *why;

	*record = false;
	isolation_parse(g->isolation, &flag);
	if (o && json_object_object_get_ex(o, ISOLATION_ANNOTATION, &v) &&
	    json_object_is_type(v, json_type_string)) {
		if (isolation_parse(json_object_get_string(v), &ann) == 0)
			has_ann = true;
		else
			log_warning("annotation %s=`%s`: not a level rung knows; ignored",
				    ISOLATION_ANNOTATION, json_object_get_string(v));
	}
	if (o)
		json_object_put(o);
	if (has_ann && ann != ISOLATION_AUTO) {
		/* Never below what the flag asked for: a VM flag is not lowered. */
		if (isolation_is_vm(flag) && ann == ISOLATION_SENTRY) {
			log_info("isolation: %s (--isolation; the annotation's sentry is lower)",
				 isolation_name(flag));
			return flag;
		}
		log_info("isolation: %s (annotation %s)", isolation_name(ann),
			 ISOLATION_ANNOTATION);
		return ann;
	}
	if (flag == ISOLATION_AUTO) {
		if (compat_needs_kernel(oci_root(g), w->rootfs, w->argv, &why)) {
			log_info("isolation: auto chose microvm (a sentry run of this workload met "
				 "unsupported system calls: %s)",
				 why);
			free(why);
			return ISOLATION_MICROVM;
		}
		free(why);
		log_info("isolation: auto chose sentry (nothing says the workload needs a kernel)");
		*record = true;
		return ISOLATION_SENTRY;
	}
	return flag;
}
