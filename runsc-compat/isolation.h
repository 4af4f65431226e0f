/*
 * The isolation ladder (DESIGN.md): which level runs a container's
 * workload. Level 2, the sentry, is the default; level 1 runs the same
 * bundle as a plain namespaces + cgroups + seccomp container (level1.h).
 */
#ifndef RUNG_ISOLATION_H
#define RUNG_ISOLATION_H

#include <stdbool.h>

struct rung_error;
struct oci_spec;
struct container_state;

enum isolation_level {
	ISOLATION_SENTRY,    /* level 2: the user-space kernel */
	ISOLATION_CONTAINER, /* level 1: namespaces, cgroups, seccomp (as crun) */
};

/* The annotation in config.json that asks for a level. */
#define ISOLATION_ANNOTATION "dev.rung.isolation"

/* A level by name ("sentry", "container"); a level rung does not have (yet)
 * is refused with an error that names it. */
int isolation_parse(const char *name, enum isolation_level *out, struct rung_error *err);
const char *isolation_name(enum isolation_level level);

/* The level of a new container: the global --isolation flag when given (so
 * that an operator's runtimeArgs pin it), else the annotation, else the
 * sentry. */
int isolation_select(const char *flag, const struct oci_spec *spec, enum isolation_level *out,
		     struct rung_error *err);

/* Does st describe a level-1 container (its pid is the container's init)? */
bool isolation_is_container(const struct container_state *st);

#endif
