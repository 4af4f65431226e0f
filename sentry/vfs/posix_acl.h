/*
 * POSIX access control lists, as Linux's fs/posix_acl.c: the
 * "system.posix_acl_access" and "system.posix_acl_default" extended
 * attributes of a filesystem whose superblock says posix_acl.
 *
 * A filesystem stores an ACL as an ordinary attribute of that name, in the
 * xattr form (struct posix_acl_xattr_header + entries, version 2) with the
 * sandbox's ids; everything else is here: the guest's value is parsed (ids
 * through its user namespace), checked (posix_acl_valid), folded into the
 * mode when it says no more than the mode (then not stored), kept in step
 * with chmod, inherited from a directory's default ACL on creation (the
 * umask then ignored), and consulted by the permission check for the
 * group class (named users, groups, the mask).
 */
#ifndef RUNG_POSIX_ACL_H
#define RUNG_POSIX_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct creds;
struct dentry;
struct inode;
struct task;
struct user_ns;

#define POSIX_ACL_XATTR_ACCESS	"system.posix_acl_access"
#define POSIX_ACL_XATTR_DEFAULT "system.posix_acl_default"
#define POSIX_ACL_XATTR_VERSION 2

/* Entry tags and permission bits (<linux/posix_acl.h>). */
#define ACL_USER_OBJ	 0x01
#define ACL_USER	 0x02
#define ACL_GROUP_OBJ	 0x04
#define ACL_GROUP	 0x08
#define ACL_MASK	 0x10
#define ACL_OTHER	 0x20
#define ACL_READ	 0x04
#define ACL_WRITE	 0x02
#define ACL_EXECUTE	 0x01
#define ACL_UNDEFINED_ID ((uint32_t)-1)

enum posix_acl_type { ACL_TYPE_ACCESS, ACL_TYPE_DEFAULT };

struct posix_acl_entry {
	uint16_t tag, perm;
	uint32_t id; /* the sandbox's uid/gid (ACL_USER, ACL_GROUP) */
};

struct posix_acl {
	unsigned count;
	struct posix_acl_entry e[];
};

/* --- the list itself ---------------------------------------------------------- */

/* The type an attribute name is, or -1 when it is not an ACL's. */
int posix_acl_type(const char *name);
/* Parse an xattr value; ids of ns (NULL: the sandbox's). *out is NULL for a
 * header with no entries. -EINVAL (short, ragged, unknown tag, unmapped id)
 * or -EOPNOTSUPP (another version). */
int posix_acl_from_xattr(const struct user_ns *ns, const void *value, size_t size,
			 struct posix_acl **out);
size_t posix_acl_xattr_size(unsigned count);
/* The xattr form of acl (posix_acl_xattr_size bytes) with ns's ids. */
void posix_acl_to_xattr(const struct user_ns *ns, const struct posix_acl *acl, void *buf);
/* Linux's posix_acl_valid: entries in order (USER_OBJ, USER..., GROUP_OBJ,
 * GROUP..., MASK, OTHER), one of each object, a mask when named entries
 * are, perms rwx only. 0 or -EINVAL. */
int posix_acl_valid(const struct posix_acl *acl);
/* Fold acl into the permission bits of *mode; 0 when acl says no more than
 * the mode (no named entries, no mask), 1 when it does. */
int posix_acl_equiv_mode(const struct posix_acl *acl, uint32_t *mode);
/* chmod: USER_OBJ, the mask (GROUP_OBJ when there is none) and OTHER take
 * the new mode's bits. */
void posix_acl_chmod_entries(struct posix_acl *acl, uint32_t mode);
/* A new file's access ACL from its directory's default one (acl, changed
 * in place) and the mode asked for (*mode, its bits limited by acl's).
 * 1 when the result needs an ACL, 0 when the mode says it all. */
int posix_acl_create_masq(struct posix_acl *acl, uint32_t *mode);
/* Linux's posix_acl_permission for a caller that does not own the file
 * (uid, gid): 0 or -EACCES for want (MAY_READ | MAY_WRITE | MAY_EXEC). */
int posix_acl_permission(const struct creds *c, uint32_t uid, uint32_t gid,
			 const struct posix_acl *acl, int want);

/* --- the VFS's use ------------------------------------------------------------ */

/* getxattr of an ACL: its xattr form in buf (size 0: the size only). */
long posix_acl_xattr_get(struct task *t, struct inode *inode, int type, void *buf, size_t size);
/* setxattr (value, size; size 0 or a bare header removes) or removexattr
 * (remove) of an ACL on d, with Linux's checks, the mode updated and ctime. */
int posix_acl_xattr_set(struct task *t, struct dentry *d, int type, const void *value, size_t size,
			bool remove);
/* The group class check of an inode with an access ACL: 0, -EACCES, or
 * -EAGAIN when it has none (the mode decides). */
int posix_acl_check(const struct creds *c, struct inode *inode, int mask);
/* chmod of inode to mode: its access ACL follows. */
void posix_acl_chmod(struct inode *inode, uint32_t mode);

/* A file about to be made in dir with mode (S_IFMT included): the mode it
 * gets (umask applied unless dir has a default ACL) and the ACLs to give
 * it once made (posix_acl_inherit_apply, which frees them). */
struct posix_acl_inherit {
	void *access, *dflt;
	size_t access_size, dflt_size;
};
uint32_t posix_acl_create(struct inode *dir, uint32_t mode, uint32_t umask,
			  struct posix_acl_inherit *inh);
/* inode NULL (the creation failed): only free them. */
void posix_acl_inherit_apply(struct inode *inode, struct posix_acl_inherit *inh);

#endif
