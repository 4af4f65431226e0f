/*
 * Mount propagation (Linux's shared subtrees): peer groups of shared
 * mounts, master and slave mounts, and the copies that a mount or an
 * unmount on one mount makes in every mount that receives its events.
 *
 * A shared mount is in a peer group (a ring of mounts with one id): what
 * is mounted on one peer is mounted on all of them. A slave receives the
 * events of its master's group but sends none back; a slave may be shared
 * too (a group of its own whose members all have the same master). The
 * mounts that receive an event of a mount m are its peers, their slaves,
 * the peers and slaves of those, and so on: m's propagation tree.
 *
 * Everything here runs under mount.c's mount_lock; the tree operations
 * propagation needs from mount.c are declared at the end.
 */
#ifndef RUNG_VFS_PROPAGATION_H
#define RUNG_VFS_PROPAGATION_H

#include "sentry/vfs/vfs.h"

/* How a copy of a mount relates to the original (Linux's CL_ flags). */
#define CL_SLAVE	   0x01 /* a slave of the original */
#define CL_MAKE_SHARED	   0x02 /* shared: the original's peer, or a new group */
#define CL_PRIVATE	   0x04 /* no relation at all */
#define CL_SHARED_TO_SLAVE 0x08 /* a slave when the original is shared */
#define CL_COPY_UNBINDABLE 0x10 /* a tree copy takes unbindable mounts too */

/* A growing array of mount pointers. */
struct mount_vec {
	struct mount **v;
	size_t n, cap;
};

void mount_vec_push(struct mount_vec *mv, struct mount *m);
void mount_vec_free(struct mount_vec *mv);

/* A new mount's propagation state: none. */
void prop_init(struct mount *m);
bool prop_is_shared(const struct mount *m);
/* Not (yet) in a namespace of tasks: being built, or a detached tree. */
bool prop_is_new(const struct mount *m);
/* Relate the copy c of old as cl says (before c is used anywhere). */
void prop_inherit(struct mount *c, struct mount *old, int cl);
/* Make m shared with a new group id (nothing if it has one). */
void prop_make_shared(struct mount *m);
/* mount(2)'s MS_SHARED, MS_SLAVE, MS_PRIVATE or MS_UNBINDABLE on m. */
void prop_change(struct mount *m, unsigned long ms_type);
/* to (private) takes from's peer group and master (MOVE_MOUNT_SET_GROUP). */
void prop_join(struct mount *to, struct mount *from);
/* The group id of m's master (0: not a slave). */
unsigned prop_master_id(const struct mount *m);
/* The id of the nearest group m receives from that has a member under
 * root, when it is not m's master's (mountinfo's propagate_from). */
unsigned prop_dominating_id(const struct mount *m, const struct path *root);

/*
 * A mount of the tree source (not yet attached) goes on mp of dest, a
 * shared mount: make a copy of source for every other mount of dest's
 * propagation tree that mp is visible in, attached nowhere yet but with
 * its parent and mountpoint set (references taken), in *copies. -ENOSPC
 * when a namespace would hold more than mount-max mounts (the copies made
 * so far are still in *copies, for the caller to free).
 */
int prop_mount(struct mount *dest, struct dentry *mp, struct mount *source,
	       struct mount_vec *copies);

/* Would unmounting m (no submounts) also meet a busy mount where its
 * unmount propagates to? */
bool prop_umount_busy(struct mount *m);

/*
 * list: mounts being unmounted (each marked by mount_umounting). Add the
 * mounts the unmount propagates to: in each mount of the propagation
 * tree of the parent of a listed mount, the mount on the same mountpoint
 * goes too when it has nothing mounted under it but what goes with it
 * (or a mount that covers it whole, which moves down in its place).
 */
void prop_umount(struct mount_vec *list);

/* --- mount.c's tree operations (mount_lock held) -------------------------------- */

extern unsigned vfs_mount_max; /* /proc/sys/fs/mount-max */

/* A copy of src's subtree from root (with the submounts under root; not
 * unbindable ones unless CL_COPY_UNBINDABLE), in no namespace, each
 * related to its original as cl says. Each original's ->copy is its copy. */
struct mount *mount_copy_tree(struct mount *src, struct dentry *root, int cl);
/* The next mount after p in a pre-order walk of the tree at top. */
struct mount *mount_next(struct mount *p, struct mount *top);
/* The mount on dentry of parent (the topmost), or NULL; no reference. */
struct mount *mount_child_at(struct mount *parent, struct dentry *dentry);
/* m's references beyond its namespace's (and its unmounted submounts'). */
int mount_extra_refs(struct mount *m);
/* Is m being unmounted by the current operation? */
bool mount_umounting(const struct mount *m);
void mount_set_umounting(struct mount *m);
/* Move m (attached) onto mp of parent. Its old parent and mountpoint
 * references are dropped: the caller makes sure they are not the last. */
void mount_reattach(struct mount *m, struct mount *parent, struct dentry *mp);
/* Room in ns for n more mounts (counting those this operation already
 * added to ns->pending)? Adds them, or -ENOSPC. */
int mount_count_add(struct mnt_namespace *ns, unsigned n);

#endif
