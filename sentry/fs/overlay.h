/* An overlay of a writable upper filesystem on a read-only lower one. */
#ifndef RUNG_OVERLAY_H
#define RUNG_OVERLAY_H

#include "sentry/vfs/vfs.h"

/* The merged view of upper (written) over lower (never written). */
struct super_block *overlay_new(struct super_block *upper, struct super_block *lower);
/* The same for two directories (a guest's mount: upperdir over lowerdir). */
struct super_block *overlay_new_at(struct inode *upper_dir, struct inode *lower_dir);

#endif
