#include "config.h"
#include "platform/platform.h"
#include "lib/error.h"

#include <asm/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The size of the XSAVE area for the features the host enabled (CPUID 0xd, 0: EBX). */
static unsigned xstate_size(void)
{
	unsigned a = 0xd, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (b < 576 || b > 16384)
		return 4096; /* no XSAVE, or something odd: room for legacy state */
	return b;
}

/* Can a process here make CPUID fault (ARCH_SET_CPUID)? Tried in a child. */
static bool cpuid_faulting_works(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) < 0)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void platform_probe_cpu(struct platform *p)
{
	p->fpu_size = xstate_size();
	p->cpuid_faulting = cpuid_faulting_works();
}
