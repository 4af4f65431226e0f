/*
 * The sandbox's character devices. Every device a guest can open is one of
 * these, implemented in the sentry, whatever device numbers a rootfs
 * carries: the host's devices are never opened for the guest.
 */
#ifndef RUNG_DEVICES_H
#define RUNG_DEVICES_H

#include <stdint.h>

#include "sentry/vfs/vfs.h"

struct file;

#define DEV_MAKE(major, minor) ((((uint64_t)(major)) << 8) | (minor))
#define DEV_MEM_NULL	       DEV_MAKE(1, 3)
#define DEV_MEM_ZERO	       DEV_MAKE(1, 5)
#define DEV_MEM_FULL	       DEV_MAKE(1, 7)
#define DEV_MEM_RANDOM	       DEV_MAKE(1, 8)
#define DEV_MEM_URANDOM	       DEV_MAKE(1, 9)
#define DEV_TTY		       DEV_MAKE(5, 0)
#define DEV_CONSOLE	       DEV_MAKE(5, 1)
#define DEV_PTMX	       DEV_MAKE(5, 2)

/* Open a character device by inode->rdev; ENXIO for devices we do not have
 * (pty nodes are devpts', found only there). */
int chrdev_open(struct inode *inode, int flags, struct file **out);
/* The "Character devices:" lines of /proc/devices ("%3d name"), by major. */
struct strbuf;
void chrdev_show(struct strbuf *o);
/* Is f the sandbox's /dev/zero (mmap of it is anonymous memory)? */
bool file_is_dev_zero(struct file *f);

#endif
