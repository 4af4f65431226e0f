/*
 * The OCI runtime spec (config.json, and an exec's process.json) loaded once
 * into typed structures. Fields rung does not know are ignored (the spec
 * allows extensions); fields it knows but cannot honour, or values of the
 * wrong type, are refused with an error that names the field.
 */
#ifndef RUNG_SPEC_H
#define RUNG_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rung_error;

struct oci_rlimit {
	int resource; /* RLIMIT_* */
	uint64_t soft, hard;
};

struct oci_process {
	bool terminal;
	uint32_t console_width, console_height;
	uint32_t uid, gid;
	uint32_t *additional_gids;
	size_t n_additional_gids;
	int umask;   /* -1: not given (the guest's default, 022) */
	char **args; /* NULL-terminated */
	char **env;  /* NULL-terminated */
	char *cwd;
	/* Capability sets as bit masks (bit n = capability n); has_caps false
	 * when the key is absent (Docker's --cap-drop ALL omits it). */
	bool has_caps;
	uint64_t cap_bounding, cap_effective, cap_permitted, cap_inheritable, cap_ambient;
	struct oci_rlimit *rlimits;
	size_t n_rlimits;
	bool no_new_privileges;
	bool has_oom_score_adj;
	int oom_score_adj;
};

struct oci_mount {
	char *destination;
	char *type; /* may be NULL (bind mounts often omit it) */
	char *source;
	char **options; /* NULL-terminated */
};

struct oci_hook {
	char *path;
	char **args; /* NULL-terminated, may be NULL */
	char **env;  /* NULL-terminated, may be NULL */
	int timeout; /* seconds; 0 = none */
};

struct oci_hooks {
	struct oci_hook *prestart, *create_runtime, *create_container, *start_container, *poststart,
		*poststop;
	size_t n_prestart, n_create_runtime, n_create_container, n_start_container, n_poststart,
		n_poststop;
};

struct oci_namespace {
	char *type; /* "pid", "network", "mount", "ipc", "uts", "user", "cgroup" */
	char *path; /* join this one (setns) when set */
};

/* linux.resources.devices: one device cgroup rule. */
struct oci_device_rule {
	bool allow;
	char type;	      /* 'a' (all), 'c' or 'b' */
	int64_t major, minor; /* -1: any */
	char access[4];	      /* some of "rwm" */
};

/* linux.devices: a device node made in the container (isolation level 1). */
struct oci_device {
	char *path;
	char type; /* 'c', 'b', 'u' (unbuffered, a 'c') or 'p' (fifo) */
	int64_t major, minor;
	uint32_t file_mode; /* permission bits; 0666 when absent */
	uint32_t uid, gid;
};

/* linux.resources, as much as rung applies (0 / -1 mean unset as in the spec). */
struct oci_resources {
	int64_t memory_limit, memory_swap, memory_reservation; /* -1: unset */
	uint64_t cpu_shares, cpu_period;
	int64_t cpu_quota; /* -1: unset */
	char *cpuset_cpus, *cpuset_mems;
	int64_t pids_limit; /* -1: unset */
	char *raw;	    /* the resources object as JSON, for cgroup code */
	struct oci_device_rule *devices;
	size_t n_devices;
};

struct oci_spec {
	char *oci_version;
	struct oci_process process;
	char *root_path; /* absolute (made so against the bundle) */
	bool root_readonly;
	char *hostname;
	struct oci_mount *mounts;
	size_t n_mounts;
	struct oci_hooks hooks;
	struct oci_namespace *namespaces;
	size_t n_namespaces;
	char *cgroups_path;
	struct oci_resources resources;
	char *seccomp; /* linux.seccomp as JSON, applied to guest syscalls; NULL: none */
	char **masked_paths, **readonly_paths;
	char **sysctl_keys, **sysctl_values;
	size_t n_sysctl;
	char *annotations;	    /* as JSON ("{}" when absent), passed through to state */
	struct oci_device *devices; /* linux.devices */
	size_t n_devices;
};

/* Load bundle/config.json; root.path is made absolute against bundle. */
int spec_load(const char *bundle, struct oci_spec **out, struct rung_error *err);
/* Parse a process object (an exec's process.json) from the file path. */
int spec_load_process(const char *path, struct oci_process *out, struct rung_error *err);
/* The same from a JSON string (the sandbox's side of exec). */
int spec_parse_process(const char *json, struct oci_process *out, struct rung_error *err);
void spec_free(struct oci_spec *spec);
void spec_process_release(struct oci_process *p);

/* Does the spec ask for a namespace of this type (and which path, if any)? */
const struct oci_namespace *spec_namespace(const struct oci_spec *spec, const char *type);

/* The string value of annotation key (malloc'd), or NULL when absent. */
char *spec_annotation(const struct oci_spec *spec, const char *key);

/* CAP_CHOWN... by name (with or without the CAP_ prefix, any case): its
 * number, or -1. */
int spec_cap_number(const char *name);
/* RLIMIT_NOFILE... by name: its number, or -1. */
int spec_rlimit_number(const char *name);

#endif
