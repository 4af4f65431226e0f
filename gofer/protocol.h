/*
 * The gofer protocol: how the sentry asks the gofer (the only process that
 * touches host files) to look up, open, create and change files.
 *
 * Transport: SOCK_SEQPACKET socketpairs ("channels"). Each channel carries
 * one request at a time: the sentry sends a request and waits for its reply
 * on the same channel; the gofer serves all channels concurrently. Host file
 * descriptors travel as SCM_RIGHTS with the reply that creates them.
 *
 * Every message starts with struct gofer_hdr; hdr.size is the whole message
 * (header + fixed part + variable part) and must equal the datagram length.
 * Replies carry the request's op and, in hdr.err, 0 or a positive errno; on
 * error the reply has no body. All integers are host-endian; all structures
 * have fixed sizes and no implicit padding. Strings in a variable part are
 * NUL-terminated and their lengths are checked against the message size.
 *
 * Nodes are named by handles: 64-bit ids the gofer hands out (never 0,
 * never reused in a session) for files it holds an O_PATH descriptor for.
 * The sentry releases them with GOFER_OP_CLOSE. Names in requests are single
 * path components: never "", ".", "..", and never containing '/'. The gofer
 * never follows a symlink on the sentry's behalf: WALK stops at one, and the
 * sentry reads it with READLINK and resolves the target itself.
 *
 * Everything the gofer receives is hostile: a malformed request gets an
 * EINVAL (or EBADF for unknown handles) reply, or, when it cannot be parsed
 * at all, the channel is closed; the gofer keeps serving the other channels.
 */
#ifndef RUNG_GOFER_PROTOCOL_H
#define RUNG_GOFER_PROTOCOL_H

#include <stdint.h>

#define GOFER_PROTOCOL_VERSION 1
/* Largest datagram either side sends or accepts. */
#define GOFER_MAX_MSG (128u * 1024u)
/* Largest data payload of READ/WRITE (gofer file-access mode) and READLINK. */
#define GOFER_MAX_IO (64u * 1024u)
/* Most names in one WALK. */
#define GOFER_MAX_WALK 64
#define GOFER_NAME_MAX 255

enum gofer_op {
	GOFER_OP_ATTACH = 1, /* the root of one served tree */
	GOFER_OP_WALK,	     /* look up names under a directory */
	GOFER_OP_STAT,
	GOFER_OP_OPEN,	 /* open a node for I/O */
	GOFER_OP_CREATE, /* create and open a regular file */
	GOFER_OP_MKDIR,
	GOFER_OP_MKNOD, /* regular files, fifos and socket placeholders */
	GOFER_OP_SYMLINK,
	GOFER_OP_LINK,
	GOFER_OP_UNLINK,
	GOFER_OP_RENAME,
	GOFER_OP_READLINK,
	GOFER_OP_GETDENTS,
	GOFER_OP_SETATTR,
	GOFER_OP_STATFS,
	GOFER_OP_GETXATTR,
	GOFER_OP_SETXATTR,
	GOFER_OP_LISTXATTR,
	GOFER_OP_REMOVEXATTR,
	GOFER_OP_FSYNC,
	GOFER_OP_READ, /* gofer file-access mode: data through the gofer */
	GOFER_OP_WRITE,
	GOFER_OP_FALLOCATE,
	GOFER_OP_CLOSE, /* release handles and open files */
	GOFER_OP_MAX,
};

struct gofer_hdr {
	uint32_t size;	/* of the whole message, header included */
	uint16_t op;	/* enum gofer_op */
	uint16_t flags; /* 0 */
	int32_t err;	/* replies: 0 or a positive errno; requests: 0 */
	uint32_t pad;	/* 0 */
};

/* What the gofer knows about a node (a statx subset). */
struct gofer_stat {
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint32_t pad;
	uint64_t ino;
	uint64_t dev; /* host st_dev, folded by the sentry */
	uint64_t nlink;
	uint64_t size;
	uint64_t blocks;
	uint64_t blksize;
	uint64_t rdev;
	int64_t atime_sec, mtime_sec, ctime_sec;
	uint32_t atime_nsec, mtime_nsec, ctime_nsec, pad2;
};

/* A node the reply hands out: its handle and what it is. */
struct gofer_node {
	uint64_t handle;
	struct gofer_stat stat;
};

/* Most trees one gofer serves: the rootfs and its bind mounts. */
#define GOFER_MAX_ROOTS 64

/* ATTACH: no body (root 0, the rootfs) or struct gofer_attach_req. Reply:
 * struct gofer_node (the root of that tree, which is a regular file for a
 * bind mount of one file). Each tree is served alone: no walk leaves it,
 * whichever tree a handle came from. */
struct gofer_attach_req {
	uint32_t root; /* 0: the rootfs; 1...: the bind mounts, in the gofer's order */
	uint32_t pad;
};

/* WALK: names follow as nnames NUL-terminated strings. */
struct gofer_walk_req {
	uint64_t dir;
	uint32_t nnames;
	uint32_t pad;
};
/* Reply: nodes for the names walked, in order. The walk stops early after
 * a symlink (which is included), at a component that is not a directory
 * when more follow (status ENOTDIR), or at one that does not exist (status
 * ENOENT); status is 0 when every name was walked.
 * In detail: a symlink stop has status 0 and nwalked < nnames (the last node
 * is the symlink); the non-directory of ENOTDIR is included (it was walked);
 * any other lookup error stops the walk the same way with that errno as
 * status. nnames is 1..GOFER_MAX_WALK, and every name is checked before any
 * lookup: one bad name fails the whole request with EINVAL. */
struct gofer_walk_reply {
	uint32_t nwalked;
	int32_t status;
	/* struct gofer_node nodes[nwalked]; */
};

/* STAT, READLINK, STATFS, LISTXATTR: struct gofer_handle_req. */
struct gofer_handle_req {
	uint64_t handle;
};
/* STAT reply: struct gofer_stat. READLINK reply: the target (NUL-terminated).
 * LISTXATTR reply: the names, each NUL-terminated. */

/* The file-access mode of an opened file. */
#define GOFER_OPEN_DONATE 0x1 /* reply with the host fd (SCM_RIGHTS) */

/* OPEN: flags are the guest's O_* access mode plus O_TRUNC, O_APPEND,
 * O_DIRECTORY, O_NONBLOCK, O_DSYNC, O_SYNC, O_DIRECT, O_NOATIME; anything
 * else is refused (EINVAL). O_CREAT is CREATE's business. */
struct gofer_open_req {
	uint64_t handle;
	uint32_t flags;
	uint32_t mode; /* GOFER_OPEN_* */
};
/* Reply: the open file's id (for READ/WRITE/GETDENTS/FSYNC/FALLOCATE/CLOSE);
 * with GOFER_OPEN_DONATE the host fd comes as SCM_RIGHTS, the gofer keeps
 * nothing and fid is 0. Symlinks are never opened (ELOOP), directories not
 * for writing (EISDIR), device nodes not at all (EACCES). */
struct gofer_open_reply {
	uint64_t fid;
};

/* CREATE: a new regular file, opened with flags (O_EXCL is implied);
 * the name follows. */
struct gofer_create_req {
	uint64_t dir;
	uint32_t flags;
	uint32_t mode; /* permission bits */
	uint32_t uid, gid;
	uint32_t open_mode; /* GOFER_OPEN_* */
	uint32_t pad;
};
struct gofer_create_reply {
	struct gofer_node node;
	uint64_t fid;
};

/* MKDIR, MKNOD, SYMLINK: the name follows (for SYMLINK: name, then target). */
struct gofer_mknod_req {
	uint64_t dir;
	uint32_t mode; /* MKNOD: S_IFREG, S_IFIFO or S_IFSOCK (S_IFCHR/S_IFBLK: EPERM) plus bits */
	uint32_t uid, gid;
	uint32_t pad;
	uint64_t rdev;
};
/* Reply: struct gofer_node. */

/* LINK: a new name in dir for target; the name follows. Reply: gofer_node. */
struct gofer_link_req {
	uint64_t dir;
	uint64_t target;
};

/* UNLINK: flags 0 or AT_REMOVEDIR; the name follows. Reply: no body. */
struct gofer_unlink_req {
	uint64_t dir;
	uint32_t flags;
	uint32_t pad;
};

/* RENAME: flags 0, RENAME_NOREPLACE or RENAME_EXCHANGE; old name, then new
 * name follow. Reply: no body. */
struct gofer_rename_req {
	uint64_t olddir;
	uint64_t newdir;
	uint32_t flags;
	uint32_t pad;
};

/* GETDENTS: entries of the open directory fid from the position cookie. */
struct gofer_getdents_req {
	uint64_t fid;
	uint64_t cookie; /* 0 for the start, else the next field of the last entry */
	uint32_t count;	 /* most bytes of entries to return (<= GOFER_MAX_IO) */
	uint32_t pad;
};
/* Reply: entries packed back to back, each 8-byte aligned. An empty reply
 * is the end of the directory. "." and ".." are not returned. */
struct gofer_dirent {
	uint64_t ino;
	uint64_t next;	 /* cookie of the following entry */
	uint16_t reclen; /* of this entry, aligned to 8 */
	uint8_t type;	 /* DT_* */
	uint8_t namelen;
	uint32_t pad;
	/* char name[namelen + 1]; NUL-terminated */
};

/* SETATTR: the fields named in mask, in one request (utimensat's UTIME_NOW
 * and UTIME_OMIT are expressed with the *_NOW bits and the mask). */
#define GOFER_SETATTR_MODE	0x01
#define GOFER_SETATTR_UID	0x02
#define GOFER_SETATTR_GID	0x04
#define GOFER_SETATTR_SIZE	0x08
#define GOFER_SETATTR_ATIME	0x10
#define GOFER_SETATTR_MTIME	0x20
#define GOFER_SETATTR_ATIME_NOW 0x40
#define GOFER_SETATTR_MTIME_NOW 0x80
struct gofer_setattr_req {
	uint64_t handle;
	uint32_t mask;
	uint32_t mode;
	uint32_t uid, gid;
	uint64_t size;
	int64_t atime_sec, mtime_sec;
	uint32_t atime_nsec, mtime_nsec;
};
/* Reply: struct gofer_stat after the change. */

struct gofer_statfs {
	uint64_t type, bsize, blocks, bfree, bavail, files, ffree, namelen, frsize, flags;
};

/* GETXATTR: name follows; REMOVEXATTR: name follows; SETXATTR: name, then
 * size bytes of value. Only the "user." namespace is served; others: EOPNOTSUPP. */
struct gofer_xattr_req {
	uint64_t handle;
	uint32_t size;	/* GETXATTR: most bytes wanted (0: just the size); SETXATTR: value size */
	uint32_t flags; /* SETXATTR: XATTR_CREATE / XATTR_REPLACE */
};
/* GETXATTR reply: uint32_t size, then the value (none when size was 0). */

/* FSYNC: fid, datasync. Reply: no body. */
struct gofer_fsync_req {
	uint64_t fid;
	uint32_t datasync;
	uint32_t pad;
};

/* READ: reply is the data (possibly short; empty at EOF).
 * WRITE: the data follows; reply is struct gofer_io_reply. */
struct gofer_io_req {
	uint64_t fid;
	uint64_t offset;
	uint32_t count; /* READ: bytes wanted (<= GOFER_MAX_IO); WRITE: bytes that follow */
	uint32_t pad;
};
struct gofer_io_reply {
	uint64_t count;
};

struct gofer_fallocate_req {
	uint64_t fid;
	uint32_t mode;
	uint32_t pad;
	uint64_t offset, len;
};

/* CLOSE: release handles and fids (each a uint64_t), in one message.
 * Reply: no body (unknown ids are ignored). */
struct gofer_close_req {
	uint32_t nhandles;
	uint32_t nfids;
	/* uint64_t handles[nhandles]; uint64_t fids[nfids]; */
};

#endif
