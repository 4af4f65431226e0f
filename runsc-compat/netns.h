/*
 * Whether a sandbox may take over the network namespace it joined. In
 * `sandbox` mode the user-space stack takes every Ethernet interface of
 * its namespace and removes the host kernel's addresses from them; that
 * is only right in a namespace no other process uses. A namespace only a
 * bind mount keeps alive (`ip netns add`, a CNI namespace before its
 * pod's first process) is the sandbox's own; the host's initial namespace,
 * a runc container's, or another sandbox's is not (sharing one between
 * rung containers, pods, is not supported yet: refused, not half done).
 */
#ifndef RUNG_NETNS_H
#define RUNG_NETNS_H

struct rung_error;

/*
 * Call in the joined namespace, before anything of the sandbox forks:
 * 0 when no process but this one (and the rung command that started it)
 * has a thread in it and it is not pid 1's; else an error naming path
 * (under what: "--netns", "linux.namespaces"), who uses it, and the
 * choices (a sentence of the caller's).
 */
int netns_check_own(const char *path, const char *what, const char *choices,
		    struct rung_error *err);

#endif
