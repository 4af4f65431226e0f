/*
 * The isolation ladder's levels as the CLI names them (--isolation, the
 * dev.rung.isolation annotation), and the choice for `auto`.
 */
#ifndef RUNG_ISOLATION_H
#define RUNG_ISOLATION_H

#include <stdbool.h>

struct global_args;
struct rung_error;

enum isolation {
	ISOLATION_SENTRY,	/* level 2, the default */
	ISOLATION_MICROVM,	/* level 3: QEMU microvm */
	ISOLATION_VM,		/* level 4: QEMU q35 */
	ISOLATION_AUTO,		/* the sentry unless the workload is known to need a kernel */
	ISOLATION_CONFIDENTIAL, /* level 5: refused, naming what the host lacks */
};

#define ISOLATION_ANNOTATION "dev.rung.isolation"

/* "sentry", "microvm", "vm", "auto": 0, or -1 for anything else. */
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
 * lowers the other. `auto` chooses the microVM level when the annotation says
 * so or when the workload's record (compat.h) lists system calls the
 * sentry does not support, the sentry otherwise; then *record is set: the
 * sentry run should keep a record. The decision and its reason are logged.
 */
enum isolation isolation_choose(const struct global_args *g, const struct isolation_workload *w,
				bool *record);

/* Level 5's refusal (always < 0, with err): what this host lacks, or that
 * rung cannot start such a VM yet where nothing is missing. */
int isolation_refuse_confidential(struct rung_error *err);

/* Is this a VM level (microvm or vm)? */
static inline bool isolation_is_vm(enum isolation i)
{
	return i == ISOLATION_MICROVM || i == ISOLATION_VM;
}

#endif
