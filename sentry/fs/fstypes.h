/* The filesystem types the sandbox offers, in the order /proc/filesystems
 * lists them and sysfs(2) numbers them. */
#ifndef RUNG_FSTYPES_H
#define RUNG_FSTYPES_H

#include <stdbool.h>

struct fs_type_name {
	const char *name;
	bool nodev; /* needs no block device ("nodev" in /proc/filesystems) */
};

/* The i-th type, or NULL past the last. */
const struct fs_type_name *fs_type_at(unsigned i);

#endif
