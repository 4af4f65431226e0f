/* Choosing a container's isolation level (see isolation.h). */
#include "config.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/state.h"
#include "lib/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int isolation_parse(const char *name, enum isolation_level *out, struct rung_error *err)
{
	static const char *const later[] = {"microvm", "vm", "confidential", "auto"};

	if (strcmp(name, "sentry") == 0) {
		*out = ISOLATION_SENTRY;
		return 0;
	}
	if (strcmp(name, "container") == 0) {
		*out = ISOLATION_CONTAINER;
		return 0;
	}
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++)
		if (strcmp(name, later[i]) == 0)
			return rung_error_make(err, 0, "isolation `%s` is not available yet", name);
	return rung_error_make(err, EINVAL, "unknown isolation `%s` (sentry or container)", name);
}

const char *isolation_name(enum isolation_level level)
{
	return level == ISOLATION_CONTAINER ? "container" : "sentry";
}

int isolation_select(const char *flag, const struct oci_spec *spec, enum isolation_level *out,
		     struct rung_error *err)
{
	char *ann;
	int ret;

	if (flag)
		return isolation_parse(flag, out, err);
	ann = spec ? spec_annotation(spec, ISOLATION_ANNOTATION) : NULL;
	if (!ann) {
		*out = ISOLATION_SENTRY;
		return 0;
	}
	ret = isolation_parse(ann, out, err);
	free(ann);
	if (ret < 0)
		rung_error_wrap(err, "config: annotation `%s`", ISOLATION_ANNOTATION);
	return ret;
}

bool isolation_is_container(const struct container_state *st)
{
	return st->isolation && strcmp(st->isolation, "container") == 0;
}
