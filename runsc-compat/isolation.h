/*
 * The isolation ladder's levels as the CLI names them (--isolation, the
 * dev.rung.isolation annotation), and the choice for `auto`. Level 1 runs
 * the bundle as a plain namespaces + cgroups + seccomp container (level1.h).
 */
#ifndef RUNG_ISOLATION_H
#define RUNG_ISOLATION_H

#include <stdbool.h>

struct global_args;
struct rung_error;
struct container_state;

enum isolation {
	ISOLATION_SENTRY,	/* level 2, the default */
	ISOLATION_MICROVM,	/* level 3: QEMU microvm */
	ISOLATION_VM,		/* level 4: QEMU q35 */
	ISOLATION_AUTO,		/* the sentry unless the workload is known to need a kernel */
	ISOLATION_CONFIDENTIAL, /* level 5: refused, naming what the host lacks */
	ISOLATION_CONTAINER,	/* level 1: namespaces, cgroups, seccomp (as crun) */
};

#define ISOLATION_ANNOTATION "dev.rung.isolation"

/* "container", "sentry", "microvm", "vm", "confidential", "auto": 0, or -1
 * for anything else. */
int isolation_parse(const char *s, enum isolation *out);
const char *isolation_name(enum isolation i);

/* The workload a level is chosen for. */
struct isolation_workload {
	const char *annotations; /* the spec's, as JSON, or NULL */
	const char *rootfs;	 /* with argv: what the `auto` records are kept by */
	char *const *argv;
};

/*
 * The level a workload runs at: the higher of --isolation and the
 * annotation (which describes the workload) when both name one; neither
 * lowers the other (so --isolation=sentry keeps an annotation's `container`
 * in the sentry, and an annotation's `sentry` keeps an operator's
 * runtimeArgs --isolation=container there too). Without --isolation the
 * annotation decides, else the sentry; an annotation that names no level
 * is an error (< 0, with err), never a fallback below what it asked for. `auto` chooses the microVM level when the annotation says
 * so or when the workload's record (compat.h) lists system calls the
 * sentry does not support, the sentry otherwise; then *record is set: the
 * sentry run should keep a record. The decision and its reason are logged.
 * 0 with *out set, or < 0 with err.
 */
int isolation_choose(const struct global_args *g, const struct isolation_workload *w,
		     enum isolation *out, bool *record, struct rung_error *err);

/* Level 5's refusal (always < 0, with err): what this host lacks, or that
 * rung cannot start such a VM yet where nothing is missing. */
int isolation_refuse_confidential(struct rung_error *err);

/* Does st describe a level-1 container (its pid is the container's init)? */
bool isolation_is_container(const struct container_state *st);

/* Is this a VM level (microvm or vm)? */
static inline bool isolation_is_vm(enum isolation i)
{
	return i == ISOLATION_MICROVM || i == ISOLATION_VM;
}

#endif
