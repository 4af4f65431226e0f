/*
 * An OCI linux.seccomp profile (defaultAction, defaultErrnoRet,
 * architectures, flags, syscalls with names, action, errnoRet and args)
 * compiled with libseccomp into a classic-BPF program, as a guest filter:
 * the sentry runs it on the container's processes (sentry/kernel/seccomp.h),
 * nothing is installed on the host. Semantics follow runc: syscall names
 * this libseccomp does not know are skipped, rules whose action is the
 * default action are dropped, several conditions on one argument become
 * one rule each. What rung cannot honour (SCMP_ACT_NOTIFY, a listener) and
 * what it does not know (an action, an operator, a flag, an architecture)
 * is an error that names the field.
 */
#ifndef RUNG_SECCOMP_PROFILE_H
#define RUNG_SECCOMP_PROFILE_H

struct rung_error;
struct seccomp_filter;

/*
 * Compile json (the linux.seccomp object as JSON text) into a filter:
 * 0 and *out (NULL when json is NULL: no profile), or -1 with err set.
 * Call it before the sandbox confines itself (libseccomp exports the
 * program through a memfd).
 */
int seccomp_profile_load(const char *json, struct seccomp_filter **out, struct rung_error *err);

#endif
