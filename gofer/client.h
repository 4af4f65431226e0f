/*
 * The sentry's side of the gofer protocol: one synchronous call per request.
 * A client owns several channels; a calling thread takes a free one, sends
 * its request, waits for the reply on it and gives the channel back, so
 * requests from different sentry threads run concurrently.
 *
 * Every function returns 0 (or a length) on success and -errno on failure,
 * as the kernel paths that call them do. A channel that breaks (the gofer
 * died, or answered nonsense) makes calls fail with -EIO.
 */
#ifndef RUNG_GOFER_CLIENT_H
#define RUNG_GOFER_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gofer/protocol.h"

struct gofer_client;

/* Take ownership of nchan connected channel fds (one reference). */
int gofer_client_new(const int *fds, unsigned nchan, struct gofer_client **out);
/* Another reference (each filesystem served through c holds one). */
struct gofer_client *gofer_client_get(struct gofer_client *c);
/* Drop a reference; the last one closes the channels. */
void gofer_client_free(struct gofer_client *c);

/* The root of the rootfs (tree 0). */
int gofer_attach(struct gofer_client *c, struct gofer_node *root);
/* The root of tree index (0: the rootfs, 1...: the bind mounts). */
int gofer_attach_root(struct gofer_client *c, uint32_t index, struct gofer_node *root);
/* Walk names under dir; fills nodes[0..*nwalked) and *status (see protocol.h). */
int gofer_walk(struct gofer_client *c, uint64_t dir, const char *const *names, unsigned n,
	       struct gofer_node *nodes, unsigned *nwalked, int *status);
int gofer_stat(struct gofer_client *c, uint64_t handle, struct gofer_stat *st);
/* Open handle; *fd is the donated host fd (donate) or -1. */
int gofer_open(struct gofer_client *c, uint64_t handle, uint32_t flags, bool donate, uint64_t *fid,
	       int *fd);
int gofer_create(struct gofer_client *c, uint64_t dir, const char *name, uint32_t flags,
		 uint32_t mode, uint32_t uid, uint32_t gid, bool donate, struct gofer_node *node,
		 uint64_t *fid, int *fd);
int gofer_mkdir(struct gofer_client *c, uint64_t dir, const char *name, uint32_t mode, uint32_t uid,
		uint32_t gid, struct gofer_node *node);
int gofer_mknod(struct gofer_client *c, uint64_t dir, const char *name, uint32_t mode,
		uint64_t rdev, uint32_t uid, uint32_t gid, struct gofer_node *node);
int gofer_symlink(struct gofer_client *c, uint64_t dir, const char *name, const char *target,
		  uint32_t uid, uint32_t gid, struct gofer_node *node);
int gofer_link(struct gofer_client *c, uint64_t dir, const char *name, uint64_t target,
	       struct gofer_node *node);
int gofer_unlink(struct gofer_client *c, uint64_t dir, const char *name, uint32_t flags);
int gofer_rename(struct gofer_client *c, uint64_t olddir, const char *oldname, uint64_t newdir,
		 const char *newname, uint32_t flags);
/* Returns the target's length (copied NUL-terminated into buf, truncated to size). */
long gofer_readlink(struct gofer_client *c, uint64_t handle, char *buf, size_t size);
/* Returns the bytes of struct gofer_dirent records placed in buf (0 at the end). */
long gofer_getdents(struct gofer_client *c, uint64_t fid, uint64_t cookie, void *buf, size_t count);
int gofer_setattr(struct gofer_client *c, const struct gofer_setattr_req *req,
		  struct gofer_stat *st);
int gofer_statfs(struct gofer_client *c, uint64_t handle, struct gofer_statfs *out);
long gofer_getxattr(struct gofer_client *c, uint64_t handle, const char *name, void *buf,
		    size_t size);
int gofer_setxattr(struct gofer_client *c, uint64_t handle, const char *name, const void *value,
		   size_t size, uint32_t flags);
long gofer_listxattr(struct gofer_client *c, uint64_t handle, char *buf, size_t size);
int gofer_removexattr(struct gofer_client *c, uint64_t handle, const char *name);
int gofer_fsync(struct gofer_client *c, uint64_t fid, bool datasync);
long gofer_read(struct gofer_client *c, uint64_t fid, uint64_t offset, void *buf, size_t len);
long gofer_write(struct gofer_client *c, uint64_t fid, uint64_t offset, const void *buf,
		 size_t len);
int gofer_fallocate(struct gofer_client *c, uint64_t fid, uint32_t mode, uint64_t offset,
		    uint64_t len);
int gofer_close(struct gofer_client *c, const uint64_t *handles, unsigned nhandles,
		const uint64_t *fids, unsigned nfids);

#endif
