/* A writer of cpio "newc" archives: the format of a Linux initramfs. */
#ifndef RUNG_MICROVM_CPIO_H
#define RUNG_MICROVM_CPIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* One entry: a directory, a device node (rdev), or a file with data. 0 or -errno. */
int cpio_add(FILE *out, const char *name, mode_t mode, dev_t rdev, const void *data, size_t len);
/* The trailer that ends the archive. */
int cpio_finish(FILE *out);

#endif
