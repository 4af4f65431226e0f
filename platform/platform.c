#include "config.h"
#include "platform/platform.h"
#include "lib/error.h"

#include <string.h>

extern const struct platform_ops ptrace_platform_ops;
extern const struct platform_ops systrap_platform_ops;

/* In order of preference (platform_default()). */
static const struct platform_ops *const platforms[] = {
	&systrap_platform_ops,
	&ptrace_platform_ops,
	NULL,
};

const struct platform_ops *const *platform_list(void)
{
	return platforms;
}

static bool usable(const struct platform_ops *p)
{
	struct rung_error err = {0};
	int ret = p->probe(&err);

	rung_error_release(&err);
	return ret == 0;
}

/* The first platform that probes usable here and is the faster choice; else
 * the first usable one; else the first of all (its probe then says why it
 * cannot run). */
static const struct platform_ops *platform_default(void)
{
	static const struct platform_ops *chosen;
	const struct platform_ops *first_usable = NULL;

	if (chosen)
		return chosen;
	for (const struct platform_ops *const *p = platforms; *p && !chosen; p++) {
		if (!usable(*p))
			continue;
		if (!first_usable)
			first_usable = *p;
		if (!(*p)->preferred || (*p)->preferred())
			chosen = *p;
	}
	if (!chosen)
		chosen = first_usable ? first_usable : platforms[0];
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
