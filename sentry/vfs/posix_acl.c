/* POSIX access control lists (see posix_acl.h). */
#include "config.h"
#include "sentry/vfs/posix_acl.h"
#include "sentry/vfs/vfs.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/task.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* struct posix_acl_xattr_header and _entry (little-endian, as x86-64). */
struct acl_xattr_entry {
	uint16_t tag, perm;
	uint32_t id;
};

#define ACL_HEADER_SIZE 4
#define ACL_PERM_BITS	(ACL_READ | ACL_WRITE | ACL_EXECUTE)

int posix_acl_type(const char *name)
{
	if (strcmp(name, POSIX_ACL_XATTR_ACCESS) == 0)
		return ACL_TYPE_ACCESS;
	if (strcmp(name, POSIX_ACL_XATTR_DEFAULT) == 0)
		return ACL_TYPE_DEFAULT;
	return -1;
}

static const char *acl_name(int type)
{
	return type == ACL_TYPE_DEFAULT ? POSIX_ACL_XATTR_DEFAULT : POSIX_ACL_XATTR_ACCESS;
}

static struct posix_acl *acl_alloc(unsigned count)
{
	struct posix_acl *acl = xzalloc(sizeof(*acl) + count * sizeof(acl->e[0]));

	acl->count = count;
	return acl;
}

size_t posix_acl_xattr_size(unsigned count)
{
	return ACL_HEADER_SIZE + (size_t)count * sizeof(struct acl_xattr_entry);
}

int posix_acl_from_xattr(const struct user_ns *ns, const void *value, size_t size,
			 struct posix_acl **out)
{
	const uint8_t *p = value;
	struct posix_acl *acl;
	uint32_t version;
	unsigned count;

	*out = NULL;
	if (size < ACL_HEADER_SIZE)
		return -EINVAL;
	memcpy(&version, p, sizeof(version));
	if (version != POSIX_ACL_XATTR_VERSION)
		return -EOPNOTSUPP;
	if ((size - ACL_HEADER_SIZE) % sizeof(struct acl_xattr_entry))
		return -EINVAL;
	count = (unsigned)((size - ACL_HEADER_SIZE) / sizeof(struct acl_xattr_entry));
	if (count == 0)
		return 0;
	acl = acl_alloc(count);
	for (unsigned k = 0; k < count; k++) {
		struct acl_xattr_entry x;
		struct posix_acl_entry *e = &acl->e[k];
		bool ok = true;

		memcpy(&x, p + posix_acl_xattr_size(k), sizeof(x));
		e->tag = x.tag;
		e->perm = x.perm;
		e->id = ACL_UNDEFINED_ID;
		switch (x.tag) {
		case ACL_USER_OBJ:
		case ACL_GROUP_OBJ:
		case ACL_MASK:
		case ACL_OTHER:
			break;
		case ACL_USER:
			ok = x.id != ACL_UNDEFINED_ID && uid_in(ns, x.id, &e->id);
			break;
		case ACL_GROUP:
			ok = x.id != ACL_UNDEFINED_ID && gid_in(ns, x.id, &e->id);
			break;
		default:
			ok = false;
		}
		if (!ok) {
			free(acl);
			return -EINVAL;
		}
	}
	*out = acl;
	return 0;
}

void posix_acl_to_xattr(const struct user_ns *ns, const struct posix_acl *acl, void *buf)
{
	uint8_t *p = buf;
	uint32_t version = POSIX_ACL_XATTR_VERSION;

	memcpy(p, &version, sizeof(version));
	for (unsigned k = 0; k < acl->count; k++) {
		const struct posix_acl_entry *e = &acl->e[k];
		struct acl_xattr_entry x = {.tag = e->tag, .perm = e->perm, .id = ACL_UNDEFINED_ID};

		if (e->tag == ACL_USER)
			x.id = uid_out(ns, e->id);
		else if (e->tag == ACL_GROUP)
			x.id = gid_out(ns, e->id);
		memcpy(p + posix_acl_xattr_size(k), &x, sizeof(x));
	}
}

int posix_acl_valid(const struct posix_acl *acl)
{
	/* What may come next: the entries go in the order of the tags. */
	enum { WANT_USER_OBJ, IN_USERS, IN_GROUPS, WANT_OTHER, DONE } state = WANT_USER_OBJ;
	bool named = false;

	for (unsigned k = 0; k < acl->count; k++) {
		const struct posix_acl_entry *e = &acl->e[k];

		if (e->perm & ~ACL_PERM_BITS)
			return -EINVAL;
		switch (e->tag) {
		case ACL_USER_OBJ:
			if (state != WANT_USER_OBJ)
				return -EINVAL;
			state = IN_USERS;
			break;
		case ACL_USER:
			if (state != IN_USERS)
				return -EINVAL;
			named = true;
			break;
		case ACL_GROUP_OBJ:
			if (state != IN_USERS)
				return -EINVAL;
			state = IN_GROUPS;
			break;
		case ACL_GROUP:
			if (state != IN_GROUPS)
				return -EINVAL;
			named = true;
			break;
		case ACL_MASK:
			if (state != IN_GROUPS)
				return -EINVAL;
			state = WANT_OTHER;
			break;
		case ACL_OTHER:
			/* Named entries need a mask before OTHER. */
			if (state != WANT_OTHER && (state != IN_GROUPS || named))
				return -EINVAL;
			state = DONE;
			break;
		default:
			return -EINVAL;
		}
	}
	return state == DONE ? 0 : -EINVAL;
}

int posix_acl_equiv_mode(const struct posix_acl *acl, uint32_t *mode)
{
	uint32_t bits = 0;
	int extended = 0;

	if (!acl)
		return 0;
	for (unsigned k = 0; k < acl->count; k++) {
		uint32_t perm = acl->e[k].perm & ACL_PERM_BITS;

		switch (acl->e[k].tag) {
		case ACL_USER_OBJ:
			bits |= perm << 6;
			break;
		case ACL_GROUP_OBJ:
			bits |= perm << 3;
			break;
		case ACL_OTHER:
			bits |= perm;
			break;
		case ACL_MASK:
			/* The mask is what the group bits show. */
			bits = (bits & ~(uint32_t)0070) | perm << 3;
			extended = 1;
			break;
		default:
			extended = 1;
		}
	}
	*mode = (*mode & ~(uint32_t)0777) | bits;
	return extended;
}

static struct posix_acl_entry *find_tag(struct posix_acl *acl, uint16_t tag)
{
	for (unsigned k = 0; k < acl->count; k++)
		if (acl->e[k].tag == tag)
			return &acl->e[k];
	return NULL;
}

void posix_acl_chmod_entries(struct posix_acl *acl, uint32_t mode)
{
	struct posix_acl_entry *group = find_tag(acl, ACL_MASK);

	if (!group)
		group = find_tag(acl, ACL_GROUP_OBJ);
	for (unsigned k = 0; k < acl->count; k++) {
		if (acl->e[k].tag == ACL_USER_OBJ)
			acl->e[k].perm = (mode >> 6) & 7;
		else if (acl->e[k].tag == ACL_OTHER)
			acl->e[k].perm = mode & 7;
	}
	if (group)
		group->perm = (mode >> 3) & 7;
}

int posix_acl_create_masq(struct posix_acl *acl, uint32_t *mode)
{
	uint32_t m = *mode;
	struct posix_acl_entry *group = NULL, *mask = NULL;
	int extended = 0;

	for (unsigned k = 0; k < acl->count; k++) {
		struct posix_acl_entry *e = &acl->e[k];

		switch (e->tag) {
		case ACL_USER_OBJ:
			e->perm &= (m >> 6) & 7;
			m = (m & ~(uint32_t)0700) | (uint32_t)e->perm << 6;
			break;
		case ACL_OTHER:
			e->perm &= m & 7;
			m = (m & ~(uint32_t)0007) | e->perm;
			break;
		case ACL_GROUP_OBJ:
			group = e;
			break;
		case ACL_MASK:
			mask = e;
			extended = 1;
			break;
		default:
			extended = 1;
		}
	}
	/* The group bits meet the mask (the group entry without one). */
	if (mask)
		group = mask;
	if (group) {
		group->perm &= (m >> 3) & 7;
		m = (m & ~(uint32_t)0070) | (uint32_t)group->perm << 3;
	}
	*mode = (*mode & ~(uint32_t)0777) | (m & 0777);
	return extended;
}

int posix_acl_permission(const struct creds *c, uint32_t uid, uint32_t gid,
			 const struct posix_acl *acl, int want)
{
	const struct posix_acl_entry *hit = NULL, *mask = NULL;
	bool in_group = false;

	want &= ACL_PERM_BITS;
	for (unsigned k = 0; k < acl->count && !hit; k++) {
		const struct posix_acl_entry *e = &acl->e[k];

		switch (e->tag) {
		case ACL_USER_OBJ:
			if (c->fsuid == uid)
				return (e->perm & want) == want ? 0 : -EACCES;
			break;
		case ACL_USER:
			if (c->fsuid == e->id)
				hit = e;
			break;
		case ACL_GROUP_OBJ:
		case ACL_GROUP:
			/* Any group of the caller's that grants all of want. */
			if (creds_in_group(c, e->tag == ACL_GROUP ? e->id : gid)) {
				in_group = true;
				if ((e->perm & want) == want)
					hit = e;
			}
			break;
		case ACL_OTHER:
			if (in_group)
				return -EACCES;
			return (e->perm & want) == want ? 0 : -EACCES;
		}
	}
	if (!hit)
		return -EACCES; /* (posix_acl_valid lets no list end so) */
	/* A named entry or a group one: the mask limits it. */
	for (unsigned k = (unsigned)(hit - acl->e) + 1; k < acl->count; k++)
		if (acl->e[k].tag == ACL_MASK)
			mask = &acl->e[k];
	if (mask)
		return (hit->perm & mask->perm & want) == want ? 0 : -EACCES;
	return (hit->perm & want) == want ? 0 : -EACCES;
}

/* --- stored lists -------------------------------------------------------------- */

static bool has_acls(const struct inode *inode)
{
	return inode->sb && inode->sb->posix_acl && !S_ISLNK(inode->mode) && inode->ops->getxattr &&
	       inode->ops->setxattr && inode->ops->removexattr;
}

/* The ACL of type inode keeps (*out NULL: none). */
static int acl_load(struct inode *inode, int type, struct posix_acl **out)
{
	uint8_t small[ACL_HEADER_SIZE + 16 * sizeof(struct acl_xattr_entry)];
	const char *name = acl_name(type);
	void *buf = small;
	long n;
	int ret;

	*out = NULL;
	n = inode->ops->getxattr(inode, name, small, sizeof(small));
	/* Bigger than most: ask its size (it may change meanwhile). */
	for (int tries = 0; n == -ERANGE && tries < 4; tries++) {
		long need = inode->ops->getxattr(inode, name, NULL, 0);
		if (need <= 0) {
			n = need ? need : -ENODATA;
			break;
		}
		if (buf != small)
			free(buf);
		buf = xmalloc((size_t)need);
		n = inode->ops->getxattr(inode, name, buf, (size_t)need);
	}
	if (n >= 0)
		ret = posix_acl_from_xattr(NULL, buf, (size_t)n, out);
	else
		ret = n == -ENODATA || n == -EOPNOTSUPP ? 0 : (int)n;
	if (buf != small)
		free(buf);
	return ret;
}

static void *acl_encode(const struct posix_acl *acl, size_t *size)
{
	void *buf;

	*size = posix_acl_xattr_size(acl->count);
	buf = xmalloc(*size);
	posix_acl_to_xattr(NULL, acl, buf);
	return buf;
}

/* Keep acl as inode's ACL of type (NULL: keep none). */
static int acl_store(struct inode *inode, int type, const struct posix_acl *acl)
{
	size_t size;
	void *buf;
	int ret;

	if (!acl) {
		ret = inode->ops->removexattr(inode, acl_name(type));
		return ret == -ENODATA ? 0 : ret;
	}
	buf = acl_encode(acl, &size);
	ret = inode->ops->setxattr(inode, acl_name(type), buf, size, 0);
	free(buf);
	return ret;
}

long posix_acl_xattr_get(struct task *t, struct inode *inode, int type, void *buf, size_t size)
{
	struct posix_acl *acl;
	long ret;

	if (!has_acls(inode))
		return -EOPNOTSUPP;
	ret = acl_load(inode, type, &acl);
	if (ret)
		return ret;
	if (!acl)
		return -ENODATA;
	ret = (long)posix_acl_xattr_size(acl->count);
	if (size && size < (size_t)ret)
		ret = -ERANGE;
	else if (size)
		posix_acl_to_xattr(t->creds.user_ns, acl, buf);
	free(acl);
	return ret;
}

/*
 * Removing: a file of a layered filesystem still in its lower layer (its
 * removexattr says -EXDEV) is copied up only when it has the ACL; without
 * one there is nothing to remove (ENODATA, as overlayfs says). Elsewhere
 * removing an ACL that is not there is no error (as tmpfs).
 */
static int remove_prepare(struct dentry *d, int type)
{
	struct inode *inode = d->inode;
	struct posix_acl *old;
	int ret = inode->ops->removexattr(inode, acl_name(type));

	if (ret == -EXDEV) {
		ret = acl_load(inode, type, &old);
		if (ret)
			return ret;
		if (!old)
			return -ENODATA;
		free(old);
		ret = vfs_prepare_change(d);
		if (ret == 0)
			ret = inode->ops->removexattr(inode, acl_name(type));
	}
	return ret == -ENODATA ? 0 : ret;
}

/* Linux's simple_set_acl: an access ACL sets the mode's permission bits
 * (and is not kept when they say it all); the setgid bit goes unless the
 * caller is in the file's group or has CAP_FSETID. ctime changes. */
static int acl_apply(struct task *t, struct inode *inode, int type, struct posix_acl *acl)
{
	const struct creds *c = &t->creds;
	struct iattr a = {.valid = ATTR_CTIME};
	int ret;

	if (type == ACL_TYPE_ACCESS) {
		if (inode->ops->getattr)
			inode->ops->getattr(inode); /* (a layered file's mode after copy-up) */
		a.valid |= ATTR_MODE;
		a.mode = inode->mode & 07777;
		if (posix_acl_equiv_mode(acl, &a.mode) == 0)
			acl = NULL;
		if (!creds_in_group(c, inode->gid) &&
		    !creds_capable_ids(c, KCAP_FSETID, inode->uid, inode->gid))
			a.mode &= ~(uint32_t)S_ISGID;
	}
	ret = acl_store(inode, type, acl);
	if (ret == 0 && inode->ops->setattr)
		ret = inode->ops->setattr(inode, &a);
	return ret;
}

int posix_acl_xattr_set(struct task *t, struct dentry *d, int type, const void *value, size_t size,
			bool remove)
{
	struct inode *inode = d->inode;
	struct posix_acl *acl = NULL;
	int ret = 0;

	if (!remove && size)
		ret = posix_acl_from_xattr(t->creds.user_ns, value, size, &acl);
	if (ret)
		return ret;
	if (!has_acls(inode))
		ret = -EOPNOTSUPP;
	else if (type == ACL_TYPE_DEFAULT && !S_ISDIR(inode->mode))
		ret = acl ? -EACCES : 0; /* none to remove: anyone may */
	else if (!inode_owner_or_capable(&t->creds, inode))
		ret = -EPERM;
	else if (acl && (ret = posix_acl_valid(acl)))
		;
	else if ((ret = acl ? vfs_prepare_change(d) : remove_prepare(d, type)))
		;
	else
		ret = acl_apply(t, inode, type, acl);
	free(acl);
	return ret;
}

int posix_acl_check(const struct creds *c, struct inode *inode, int mask)
{
	struct posix_acl *acl;
	int ret;

	if (!has_acls(inode))
		return -EAGAIN;
	ret = acl_load(inode, ACL_TYPE_ACCESS, &acl);
	if (ret)
		return ret;
	if (!acl)
		return -EAGAIN;
	ret = posix_acl_permission(c, inode->uid, inode->gid, acl, mask);
	free(acl);
	return ret;
}

void posix_acl_chmod(struct inode *inode, uint32_t mode)
{
	struct posix_acl *acl;

	if (!has_acls(inode) || acl_load(inode, ACL_TYPE_ACCESS, &acl) || !acl)
		return;
	posix_acl_chmod_entries(acl, mode);
	acl_store(inode, ACL_TYPE_ACCESS, acl);
	free(acl);
}

uint32_t posix_acl_create(struct inode *dir, uint32_t mode, uint32_t umask,
			  struct posix_acl_inherit *inh)
{
	struct posix_acl *dflt = NULL;

	memset(inh, 0, sizeof(*inh));
	if (S_ISLNK(mode) || !has_acls(dir) || acl_load(dir, ACL_TYPE_DEFAULT, &dflt) || !dflt)
		return mode & ~(umask & 0777);
	/* A directory keeps its parent's default ACL as its own. */
	if (S_ISDIR(mode))
		inh->dflt = acl_encode(dflt, &inh->dflt_size);
	if (posix_acl_create_masq(dflt, &mode))
		inh->access = acl_encode(dflt, &inh->access_size);
	free(dflt);
	return mode;
}

void posix_acl_inherit_apply(struct inode *inode, struct posix_acl_inherit *inh)
{
	if (inode && has_acls(inode)) {
		if (inh->access)
			inode->ops->setxattr(inode, POSIX_ACL_XATTR_ACCESS, inh->access,
					     inh->access_size, 0);
		if (inh->dflt)
			inode->ops->setxattr(inode, POSIX_ACL_XATTR_DEFAULT, inh->dflt,
					     inh->dflt_size, 0);
	}
	free(inh->access);
	free(inh->dflt);
	memset(inh, 0, sizeof(*inh));
}
