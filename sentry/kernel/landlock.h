/*
 * Landlock (Linux's security/landlock, ABI 2 as in Linux 6.1): rulesets a
 * task builds with landlock_create_ruleset/landlock_add_rule and enforces
 * on itself with landlock_restrict_self, checked by the sentry's own VFS.
 *
 * A ruleset (the object behind a ruleset fd) is one layer: the access
 * rights it handles and its rules, each a file hierarchy (an inode, found
 * by the dentry it was added through) with the rights allowed beneath it.
 * A domain is an immutable stack of such layers (at most 16), newest
 * first, shared by the tasks that inherit it (clone, exec). An access is
 * allowed when every layer that handles it has a rule on the file or on
 * one of its ancestors (walked up through the mounts to the real root)
 * that allows it.
 *
 * Locking: a task's domain pointer changes only on its own thread, under
 * the kernel's task lock; other threads read it under that lock.
 */
#ifndef RUNG_LANDLOCK_H
#define RUNG_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct task;
struct path;
struct dentry;
struct file;

#define LANDLOCK_ABI_VERSION 2
#define LANDLOCK_MAX_LAYERS  16

/* uapi linux/landlock.h (ABI 2: up to LANDLOCK_ACCESS_FS_REFER). */
#define LL_FS_EXECUTE	  (1u << 0)
#define LL_FS_WRITE_FILE  (1u << 1)
#define LL_FS_READ_FILE	  (1u << 2)
#define LL_FS_READ_DIR	  (1u << 3)
#define LL_FS_REMOVE_DIR  (1u << 4)
#define LL_FS_REMOVE_FILE (1u << 5)
#define LL_FS_MAKE_CHAR	  (1u << 6)
#define LL_FS_MAKE_DIR	  (1u << 7)
#define LL_FS_MAKE_REG	  (1u << 8)
#define LL_FS_MAKE_SOCK	  (1u << 9)
#define LL_FS_MAKE_FIFO	  (1u << 10)
#define LL_FS_MAKE_BLOCK  (1u << 11)
#define LL_FS_MAKE_SYM	  (1u << 12)
#define LL_FS_REFER	  (1u << 13)
#define LL_FS_ALL	  ((1u << 14) - 1)
#define LL_NUM_ACCESS	  14
/* The rights that make sense on a non-directory. */
#define LL_FS_FILE (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE)

struct landlock_ruleset;
struct landlock_domain;

/* --- rulesets (the syscalls') ------------------------------------------------ */

/* A new, empty ruleset handling handled (non-empty, within LL_FS_ALL). */
struct landlock_ruleset *landlock_ruleset_new(uint32_t handled);
void landlock_ruleset_put(struct landlock_ruleset *rs);
uint32_t landlock_ruleset_handled(const struct landlock_ruleset *rs);
/* Add "allowed beneath p" (checked by the caller against the handled
 * rights): 0, -EINVAL (directory rights on a file), -E2BIG. */
int landlock_ruleset_add(struct landlock_ruleset *rs, const struct path *p, uint32_t allowed);
/* Enforce rs on t (its own thread) on top of its domain: 0 or -E2BIG. */
int landlock_restrict(struct task *t, struct landlock_ruleset *rs);

/* --- tasks ------------------------------------------------------------------- */

/* clone: the child shares the parent's domain. */
void landlock_fork(struct task *child, struct task *parent);
/* The task is done with its domain (exit, or a clone that never ran). */
void landlock_task_exit(struct task *t);
/* May tracer reach target as ptrace would (kcmp, process_vm_*, pidfd_getfd)?
 * A landlocked tracer only reaches tasks of its domain or nested in it.
 * Under the kernel's task lock. */
bool landlock_may_ptrace(const struct task *tracer, const struct task *target);
/* Mount changes (mount, umount, pivot_root ...): -EPERM in a domain. */
int landlock_check_mount(const struct task *t);

/* --- the VFS's checks: 0, -EACCES (or -EXDEV for refer) ----------------------- */

/* open(2) of p with flags (O_PATH never comes here). */
int landlock_check_open(struct task *t, const struct path *p, int flags);
/* execve of p (also READ_FILE: exec opens it for reading). */
int landlock_check_exec(struct task *t, const struct path *p);
/* Make a file of mode's type (mkdir, mknod, symlink, O_CREAT) in dir. */
int landlock_check_make(struct task *t, const struct path *dir, uint32_t mode);
/* unlink or rmdir in dir. */
int landlock_check_remove(struct task *t, const struct path *dir, bool isdir);
/* link old (a path) as a new name in newdir. */
int landlock_check_link(struct task *t, const struct path *old, const struct path *newdir);
/* rename od (in olddir) to nd (in newdir; negative when it does not exist). */
int landlock_check_rename(struct task *t, const struct path *olddir, struct dentry *od,
			  const struct path *newdir, struct dentry *nd, bool exchange);

#endif
