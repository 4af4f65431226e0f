#include "config.h"
#include "platform/platform.h"

#include <string.h>

extern const struct platform_ops ptrace_platform_ops;

static const struct platform_ops *const platforms[] = {
	&ptrace_platform_ops,
	NULL,
};

const struct platform_ops *const *platform_list(void)
{
	return platforms;
}

const struct platform_ops *platform_lookup(const char *name)
{
	for (const struct platform_ops *const *p = platforms; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}
