#include "config.h"
#include "platform/platform.h"
#include "lib/error.h"

#include <string.h>

extern const struct platform_ops ptrace_platform_ops;
extern const struct platform_ops systrap_platform_ops;

/* The first usable one is the default (bench/README.md: systrap is faster). */
static const struct platform_ops *const platforms[] = {
	&systrap_platform_ops,
	&ptrace_platform_ops,
	NULL,
};

const struct platform_ops *const *platform_list(void)
{
	return platforms;
}

/* The first platform that probes usable here (the first of all if none does:
 * its probe then says why it cannot run). */
static const struct platform_ops *platform_default(void)
{
	static const struct platform_ops *chosen;

	if (!chosen) {
		chosen = platforms[0];
		for (const struct platform_ops *const *p = platforms; *p; p++) {
			struct rung_error err = {0};
			int ret = (*p)->probe(&err);
			rung_error_release(&err);
			if (ret == 0) {
				chosen = *p;
				break;
			}
		}
	}
	return chosen;
}

const struct platform_ops *platform_lookup(const char *name)
{
	if (!name)
		return platform_default();
	for (const struct platform_ops *const *p = platforms; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}
