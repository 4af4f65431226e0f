/*
 * The socket system calls. Every guest argument is copied in once and
 * checked here, in Linux's order (net/socket.c, net/core/scm.c): msghdrs,
 * iovecs (at most UIO_MAXIOV), addresses (at most sockaddr_storage),
 * control messages (at most optmem_max, each cmsg_len checked against the
 * buffer), descriptors in SCM_RIGHTS (at most SCM_MAX_FD). Families then
 * see only sentry copies (sentry/net/socket.h).
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "syscalls/util.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/net/net.h"
#include "sentry/net/socket.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_RW_COUNT (INT_MAX & ~(PAGE_SIZE - 1))
/* What the kernel writes into a receive's control buffer, at most: credentials and SCM_MAX_FD descriptors. */
#define RECV_CTL_MAX \
	(CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(SCM_MAX_FD * sizeof(int)) + SCM_INET_MAX)

/* The socket behind fd, with a reference on its file in *fp: EBADF, ENOTSOCK. */
static struct socket *sock_lookup(struct task *t, int fd, struct file **fp, int *err)
{
	struct file *f = fd_get(t->files, fd);
	struct socket *s;

	if (!f) {
		*err = -EBADF;
		return NULL;
	}
	s = socket_from_file(f);
	if (!s) {
		file_put(f);
		*err = -ENOTSOCK;
		return NULL;
	}
	*fp = f;
	return s;
}

/* An AF_INET or AF_INET6 socket (either network mode). */
static bool is_inet(const struct socket *s)
{
	return s->ops->family == AF_INET || s->ops->family == AF_INET6;
}

/* Linux's move_addr_to_kernel: 0 or -errno; buf holds SOCK_ADDR_MAX bytes. */
static int addr_in(struct task *t, uint64_t uaddr, int64_t len, void *buf)
{
	if (len < 0 || len > SOCK_ADDR_MAX)
		return -EINVAL;
	memset(buf, 0, SOCK_ADDR_MAX + 1);
	if (len == 0)
		return 0;
	return mm_copy_in(t->mm, buf, uaddr, (size_t)len) < 0 ? -EFAULT : 0;
}

/* Linux's move_addr_to_user: copy min(*ulen, klen) bytes, store klen in *ulen. */
static int addr_out(struct task *t, const void *kaddr, int klen, uint64_t uaddr, uint64_t ulen)
{
	int len;

	if (mm_copy_in(t->mm, &len, ulen, sizeof(len)) < 0)
		return -EFAULT;
	if (len > klen)
		len = klen;
	if (len < 0)
		return -EINVAL;
	if (len && mm_copy_out(t->mm, uaddr, kaddr, (size_t)len) < 0)
		return -EFAULT;
	return mm_copy_out(t->mm, ulen, &klen, sizeof(klen)) < 0 ? -EFAULT : 0;
}

/* Install a new socket's file as an fd (flags: SOCK_NONBLOCK | SOCK_CLOEXEC). */
static long install_socket(struct task *t, struct socket *s, int flags)
{
	struct file *f = socket_file_new(s, flags & O_NONBLOCK);
	long fd = fd_install(t->files, f, 0, flags & O_CLOEXEC, task_nofile(t));

	file_put(f);
	return fd;
}

/* socket() and socketpair() type argument: the type, and the flags apart. */
static int split_type(int *type, int *flags)
{
	*flags = *type & ~SOCK_TYPE_MASK;
	*type &= SOCK_TYPE_MASK;
	if (*flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	return 0;
}

SYSCALL(socket)
{
	int family = (int)a->a[0], type = (int)a->a[1], protocol = (int)a->a[2], flags;
	struct socket *s;
	int ret = split_type(&type, &flags);

	if (ret)
		return ret;
	if (family < 0 || family >= AF_MAX)
		return -EAFNOSUPPORT;
	if (type >= SOCK_MAX_TYPE)
		return -EINVAL;
	ret = socket_create(t, family, type, protocol, &s);
	if (ret)
		return ret;
	return install_socket(t, s, flags);
}

SYSCALL(socketpair)
{
	int family = (int)a->a[0], type = (int)a->a[1], protocol = (int)a->a[2], flags;
	struct socket *s1, *s2;
	int ret = split_type(&type, &flags), fds[2];
	long fd1, fd2;

	if (ret)
		return ret;
	/* __sys_socketpair stores the two descriptors before it makes the sockets. */
	if (!mm_access_ok(t->mm, a->a[3], sizeof(fds), true))
		return -EFAULT;
	if (family < 0 || family >= AF_MAX)
		return -EAFNOSUPPORT;
	if (type >= SOCK_MAX_TYPE)
		return -EINVAL;
	ret = socket_create_pair(t, family, type, protocol, &s1, &s2);
	if (ret)
		return ret;
	fd1 = install_socket(t, s1, flags);
	if (fd1 < 0) {
		file_put(socket_file_new(s2, 0));
		return fd1;
	}
	fd2 = install_socket(t, s2, flags);
	if (fd2 < 0) {
		fd_close(t->files, (int)fd1);
		return fd2;
	}
	fds[0] = (int)fd1;
	fds[1] = (int)fd2;
	if (mm_copy_out(t->mm, a->a[3], fds, sizeof(fds)) < 0) {
		fd_close(t->files, fds[0]);
		fd_close(t->files, fds[1]);
		return -EFAULT;
	}
	return 0;
}

SYSCALL(bind)
{
	char addr[SOCK_ADDR_MAX + 1];
	struct file *f;
	int ret;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &ret);

	if (!s)
		return ret;
	ret = addr_in(t, a->a[1], (int)a->a[2], addr);
	if (!ret)
		ret = s->ops->bind(s, addr, (int)a->a[2]);
	file_put(f);
	return ret;
}

SYSCALL(connect)
{
	char addr[SOCK_ADDR_MAX + 1];
	struct file *f;
	int ret;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &ret);

	if (!s)
		return ret;
	ret = addr_in(t, a->a[1], (int)a->a[2], addr);
	/* The egress policy first, whatever backs the socket (sentry/net/egress.h). */
	if (!ret && is_inet(s))
		ret = net_egress_check(t->k, addr, (int)a->a[2], true);
	if (!ret)
		ret = s->ops->connect(s, addr, (int)a->a[2], file_getfl(f) & O_NONBLOCK);
	file_put(f);
	return ret;
}

SYSCALL(listen)
{
	int backlog = (int)a->a[1], ret;
	struct file *f;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &ret);

	if (!s)
		return ret;
	if ((unsigned)backlog > SOCK_SOMAXCONN)
		backlog = SOCK_SOMAXCONN;
	ret = s->ops->listen(s, backlog);
	file_put(f);
	return ret;
}

static long do_accept(struct task *t, int fd, uint64_t uaddr, uint64_t ulen, int flags)
{
	char addr[SOCK_ADDR_MAX + 1];
	struct socket *s, *ns;
	struct file *f, *nf;
	long ret;
	int err;

	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	s = sock_lookup(t, fd, &f, &err);
	if (!s)
		return err;
	err = s->ops->accept(s, file_getfl(f) & O_NONBLOCK, &ns);
	file_put(f);
	if (err)
		return err;
	nf = socket_file_new(ns, flags & O_NONBLOCK);
	if (uaddr) {
		int len = ns->ops->getname(ns, addr, true);
		err = len < 0 ? len : addr_out(t, addr, len, uaddr, ulen);
		if (err) {
			file_put(nf);
			return err;
		}
	}
	ret = fd_install(t->files, nf, 0, flags & O_CLOEXEC, task_nofile(t));
	file_put(nf);
	return ret;
}

SYSCALL(accept)
{
	return do_accept(t, (int)a->a[0], a->a[1], a->a[2], 0);
}

SYSCALL(accept4)
{
	return do_accept(t, (int)a->a[0], a->a[1], a->a[2], (int)a->a[3]);
}

static long do_getname(struct task *t, const struct syscall_args *a, bool peer)
{
	char addr[SOCK_ADDR_MAX + 1];
	struct file *f;
	int ret;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &ret);

	if (!s)
		return ret;
	ret = s->ops->getname(s, addr, peer);
	file_put(f);
	if (ret < 0)
		return ret;
	return addr_out(t, addr, ret, a->a[1], a->a[2]);
}

SYSCALL(getsockname)
{
	return do_getname(t, a, false);
}

SYSCALL(getpeername)
{
	return do_getname(t, a, true);
}

SYSCALL(shutdown)
{
	struct file *f;
	int ret;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &ret);

	if (!s)
		return ret;
	ret = s->ops->shutdown(s, (int)a->a[1]);
	file_put(f);
	return ret;
}

SYSCALL(setsockopt)
{
	int level = (int)a->a[1], name = (int)a->a[2], optlen = (int)a->a[4], ret;
	char val[64] = {0};
	struct file *f;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &ret);

	if (!s)
		return ret;
	if (optlen < 0) {
		ret = -EINVAL;
	} else if (level == SOL_SOCKET && name == SO_BINDTODEVICE && is_inet(s)) {
		/* sock_setsockopt: a name, not an int */
		size_t n = MIN((size_t)optlen, (size_t)IFNAMSIZ);
		ret = mm_copy_in(t->mm, val, a->a[3], n) < 0
			      ? -EFAULT
			      : s->ops->setsockopt(s, level, name, val, (unsigned)n);
	} else if (level != SOL_SOCKET && is_inet(s)) {
		/* IP, IPv6 and TCP options: the family checks the length. */
		size_t n = MIN((size_t)optlen, sizeof(val));
		ret = mm_copy_in(t->mm, val, a->a[3], n) < 0
			      ? -EFAULT
			      : s->ops->setsockopt(s, level, name, val, (unsigned)n);
	} else if (level != SOL_SOCKET) {
		ret = -EOPNOTSUPP;
	} else if (optlen < (int)sizeof(int)) {
		ret = -EINVAL;
	} else {
		/* As sock_setsockopt: an int first, the rest of a larger option after. */
		size_t n = MIN((size_t)optlen, sizeof(val));
		if (mm_copy_in(t->mm, val, a->a[3], sizeof(int)) < 0 ||
		    (n > sizeof(int) && mm_copy_in(t->mm, val + sizeof(int), a->a[3] + sizeof(int),
						   n - sizeof(int)) < 0))
			ret = -EFAULT;
		else
			ret = s->ops->setsockopt(s, level, name, val, (unsigned)optlen);
	}
	file_put(f);
	return ret;
}

SYSCALL(getsockopt)
{
	int level = (int)a->a[1], name = (int)a->a[2], len, ret;
	char val[256]; /* TCP_INFO is the largest */
	unsigned n;
	struct file *f;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &ret);

	if (!s)
		return ret;
	if (level != SOL_SOCKET && !is_inet(s)) {
		file_put(f);
		return -EOPNOTSUPP;
	}
	if (mm_copy_in(t->mm, &len, a->a[4], sizeof(len)) < 0) {
		file_put(f);
		return -EFAULT;
	}
	if (len < 0) {
		file_put(f);
		return -EINVAL;
	}
	n = (unsigned)MIN(len, (int)sizeof(val));
	ret = s->ops->getsockopt(s, level, name, val, &n);
	file_put(f);
	if (ret)
		return ret;
	if (n && mm_copy_out(t->mm, a->a[3], val, n) < 0)
		return -EFAULT;
	len = (int)n;
	return mm_copy_out(t->mm, a->a[4], &len, sizeof(len)) < 0 ? -EFAULT : 0;
}

/* --- messages ----------------------------------------------------------------------------- */

/* import_iovec: the guest's iovecs, checked and clipped to MAX_RW_COUNT in all. */
static int iov_in(struct task *t, uint64_t uiov, uint64_t cnt, struct iovec *iov)
{
	size_t total = 0;

	if (cnt > SOCK_UIO_MAXIOV)
		return -EMSGSIZE;
	if (cnt && mm_copy_in(t->mm, iov, uiov, cnt * sizeof(*iov)) < 0)
		return -EFAULT;
	for (size_t i = 0; i < cnt; i++) {
		if ((ssize_t)iov[i].iov_len < 0)
			return -EINVAL;
		if (!mm_range_ok((uint64_t)(uintptr_t)iov[i].iov_base, iov[i].iov_len))
			return -EFAULT;
		if (iov[i].iov_len > MAX_RW_COUNT - total)
			iov[i].iov_len = MAX_RW_COUNT - total;
		total += iov[i].iov_len;
	}
	return 0;
}

/* What a guest msghdr says, copied in. */
struct kmsghdr {
	struct msghdr h;
	uint64_t name_ptr; /* the guest's msg_name */
	int namelen;	   /* clipped to SOCK_ADDR_MAX */
	char name[SOCK_ADDR_MAX + 1];
	struct iovec iov[SOCK_UIO_MAXIOV];
};

/* __copy_msghdr + import_iovec; send: copy the name in too. */
static int msghdr_in(struct task *t, uint64_t umsg, struct kmsghdr *k, bool send)
{
	int ret;

	if (mm_copy_in(t->mm, &k->h, umsg, sizeof(k->h)) < 0)
		return -EFAULT;
	k->name_ptr = (uint64_t)(uintptr_t)k->h.msg_name;
	k->namelen = k->name_ptr ? (int)k->h.msg_namelen : 0;
	if (k->namelen < 0)
		return -EINVAL;
	if (k->namelen > SOCK_ADDR_MAX)
		k->namelen = SOCK_ADDR_MAX;
	if (send && k->namelen) {
		ret = addr_in(t, k->name_ptr, k->namelen, k->name);
		if (ret)
			return ret;
	}
	if (k->h.msg_iovlen > SOCK_UIO_MAXIOV)
		return -EMSGSIZE;
	return iov_in(t, (uint64_t)(uintptr_t)k->h.msg_iov, k->h.msg_iovlen, k->iov);
}

/* Linux's scm_check_creds and the pid lookup of __scm_send; *uc (the
 * caller's ids) becomes the sandbox's ids, as the message keeps them. */
static int creds_check(struct task *t, struct ucred *uc)
{
	const struct creds *c = &t->creds;
	uint32_t kuid, kgid;
	struct task *p;

	if (uc->uid == (uid_t)-1 || uc->gid == (gid_t)-1)
		return -EINVAL;
	if (!uid_in(c->user_ns, uc->uid, &kuid) || !gid_in(c->user_ns, uc->gid, &kgid))
		return -EINVAL;
	uc->uid = kuid;
	uc->gid = kgid;
	if (uc->pid > 0)
		uc->pid = pidns_global(t->k, t->pidns, uc->pid);
	if (!((uc->pid == t->tgid || creds_capable(c, KCAP_SYS_ADMIN)) &&
	      (uc->uid == c->uid || uc->uid == c->euid || uc->uid == c->suid ||
	       creds_capable(c, KCAP_SETUID)) &&
	      (uc->gid == c->gid || uc->gid == c->egid || uc->gid == c->sgid ||
	       creds_capable(c, KCAP_SETGID))))
		return -EPERM;
	if (uc->pid == t->tgid)
		return 0;
	p = uc->pid > 0 ? kernel_find_task(t->k, uc->pid) : NULL;
	if (!p)
		return -ESRCH;
	task_put(p);
	return 0;
}

/* The IP-level control messages of a send that the stack acts on, with
 * Linux's checks (ip_cmsg_send, ip6_datagram_send_ctl); others are ignored. */
static int scm_parse_ip(int family, const struct cmsghdr *c, const char *data, struct scm *scm)
{
	bool v6 = family == AF_INET6;
	int v;

	if (c->cmsg_level != (v6 ? IPPROTO_IPV6 : IPPROTO_IP))
		return 0;
	if (!v6 && c->cmsg_type == IP_TOS && c->cmsg_len == CMSG_LEN(1)) {
		scm->tos = (uint8_t)data[0];
		scm->tos_set = true;
		return 0;
	}
	if (c->cmsg_type != (v6 ? IPV6_HOPLIMIT : IP_TTL) &&
	    c->cmsg_type != (v6 ? IPV6_TCLASS : IP_TOS))
		return 0;
	if (c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EINVAL;
	memcpy(&v, data, sizeof(v));
	if (v > 255 || v < (v6 ? -1 : c->cmsg_type == IP_TTL ? 1 : 0))
		return -EINVAL;
	if (v < 0) /* IPv6's -1: the socket's own */
		return 0;
	if (c->cmsg_type == (v6 ? IPV6_HOPLIMIT : IP_TTL)) {
		scm->ttl = (uint8_t)v;
		scm->ttl_set = true;
	} else {
		scm->tos = (uint8_t)v;
		scm->tos_set = true;
	}
	return 0;
}

/* __scm_send: parse the control messages of a send (ctl: clen bytes, copied in). */
static int scm_parse(struct task *t, struct socket *s, const char *ctl, size_t clen,
		     struct scm *scm)
{
	size_t off = 0;

	if (clen < sizeof(struct cmsghdr))
		return 0;
	for (;;) {
		struct cmsghdr c;
		size_t next;

		memcpy(&c, ctl + off, sizeof(c));
		if (c.cmsg_len < sizeof(c) || c.cmsg_len > clen - off)
			return -EINVAL;
		if (c.cmsg_level == SOL_SOCKET) {
			switch (c.cmsg_type) {
			case SCM_RIGHTS: {
				long num = (long)((c.cmsg_len - sizeof(c)) / sizeof(int));
				int have = scm->fds ? scm->fds->count : 0;
				if (s->ops->family != AF_UNIX)
					return -EINVAL;
				if (num <= 0)
					break;
				if (num > SCM_MAX_FD || have + num > SCM_MAX_FD)
					return -EINVAL;
				scm->fds =
					xrealloc(scm->fds,
						 sizeof(*scm->fds) + (size_t)(have + num) *
									     sizeof(struct file *));
				scm->fds->count = have;
				for (long i = 0; i < num; i++) {
					int fd;
					struct file *f;
					memcpy(&fd,
					       ctl + off + CMSG_LEN(0) + (size_t)i * sizeof(int),
					       sizeof(fd));
					f = fd >= 0 ? fd_get(t->files, fd) : NULL;
					if (!f)
						return -EBADF;
					scm->fds->files[scm->fds->count++] = f;
				}
				break;
			}
			case SCM_CREDENTIALS: {
				struct ucred uc;
				int ret;
				if (c.cmsg_len != CMSG_LEN(sizeof(uc)))
					return -EINVAL;
				memcpy(&uc, ctl + off + CMSG_LEN(0), sizeof(uc));
				ret = creds_check(t, &uc);
				if (ret)
					return ret;
				scm->creds = uc;
				scm->creds_set = true;
				break;
			}
			default:
				return -EINVAL;
			}
		} else if (is_inet(s) && s->type != SOCK_STREAM) { /* TCP reads none */
			int ret = scm_parse_ip(s->ops->family, &c, ctl + off + CMSG_LEN(0), scm);
			if (ret)
				return ret;
		}
		next = off + CMSG_ALIGN(c.cmsg_len);
		if (next + sizeof(struct cmsghdr) > clen)
			return 0;
		off = next;
	}
}

static void scm_clear(struct scm *scm)
{
	scm_fds_put(scm->fds);
	scm->fds = NULL;
}

/* ___sys_sendmsg: one message (k already copied in); flags of the call. */
static long send_one(struct task *t, struct socket *s, struct file *f, struct kmsghdr *k, int flags)
{
	struct sock_msg m = {.t = t};
	size_t clen = k->h.msg_controllen;
	char *ctl = NULL;
	long ret;

	if (clen > INT_MAX)
		return -ENOBUFS;
	if (k->namelen && is_inet(s)) {
		ret = net_egress_check(t->k, k->name, k->namelen, false);
		if (ret)
			return ret;
	}
	if (clen) {
		/* sock_kmalloc: anything above the on-stack buffer counts against optmem_max. */
		if (clen > CMSG_SPACE(20) && clen >= SOCK_OPTMEM_MAX)
			return -ENOBUFS;
		ctl = xmalloc(clen);
		if (mm_copy_in(t->mm, ctl, (uint64_t)(uintptr_t)k->h.msg_control, clen) < 0) {
			free(ctl);
			return -EFAULT;
		}
	}
	m.flags = flags;
	if (file_getfl(f) & O_NONBLOCK)
		m.flags |= MSG_DONTWAIT;
	ret = scm_parse(t, s, ctl, clen, &m.scm);
	free(ctl);
	if (ret) {
		scm_clear(&m.scm);
		return ret;
	}
	msg_iter_init(&m.iter, t->mm, k->iov, (unsigned)k->h.msg_iovlen);
	m.name = k->namelen ? k->name : NULL;
	m.namelen = k->namelen;
	ret = s->ops->sendmsg(s, &m);
	scm_clear(&m.scm);
	return ret;
}

/* The control buffer of a receive, filled in the sentry and copied out once. */
struct ctl_out {
	char buf[RECV_CTL_MAX];
	size_t room; /* what the guest gave, clipped to buf */
	size_t used;
	uint64_t uptr;
};

/* put_cmsg: one control message, truncated (MSG_CTRUNC) when short of room. */
static void put_cmsg_level(struct ctl_out *c, int level, int type, const void *data, size_t len,
			   int *flags)
{
	size_t left = c->room - c->used, cmlen = CMSG_LEN(len);
	struct cmsghdr h;

	if (!c->uptr || left < sizeof(h)) {
		*flags |= MSG_CTRUNC;
		return;
	}
	if (left < cmlen) {
		*flags |= MSG_CTRUNC;
		cmlen = left;
	}
	h.cmsg_len = cmlen;
	h.cmsg_level = level;
	h.cmsg_type = type;
	memcpy(c->buf + c->used, &h, sizeof(h));
	memcpy(c->buf + c->used + sizeof(h), data, cmlen - sizeof(h));
	c->used += MIN(CMSG_SPACE(len), left);
}

static void put_cmsg(struct ctl_out *c, int type, const void *data, size_t len, int *flags)
{
	put_cmsg_level(c, SOL_SOCKET, type, data, len, flags);
}

/* scm_detach_fds: install what fits (MSG_CMSG_CLOEXEC), drop the rest. */
static void detach_fds(struct task *t, struct ctl_out *c, struct scm_fds *fds, int *flags)
{
	size_t left = c->room - c->used;
	int fdmax = left <= sizeof(struct cmsghdr)
			    ? 0
			    : (int)((left - sizeof(struct cmsghdr)) / sizeof(int));
	int got[SCM_MAX_FD], i;

	fdmax = MIN(fdmax, fds->count);
	/* A descriptor the guest cannot be told of must not be installed. */
	if (fdmax > 0 &&
	    !mm_access_ok(t->mm, c->uptr + c->used, CMSG_LEN(fdmax * sizeof(int)), true))
		fdmax = 0;
	for (i = 0; i < fdmax; i++) {
		int fd = fd_install(t->files, fds->files[i], 0, *flags & MSG_CMSG_CLOEXEC,
				    task_nofile(t));
		if (fd < 0)
			break;
		got[i] = fd;
	}
	if (i > 0) {
		struct cmsghdr h = {.cmsg_len = CMSG_LEN(i * sizeof(int)),
				    .cmsg_level = SOL_SOCKET,
				    .cmsg_type = SCM_RIGHTS};
		memcpy(c->buf + c->used, &h, sizeof(h));
		memcpy(c->buf + c->used + sizeof(h), got, i * sizeof(int));
		c->used += MIN(CMSG_SPACE(i * sizeof(int)), left);
	}
	if (i < fds->count || (fds->count && fdmax <= 0))
		*flags |= MSG_CTRUNC;
}

/* scm_recv: the received message's ancillary data into c. */
static void scm_deliver(struct task *t, struct ctl_out *c, struct scm *scm, int *flags)
{
	if (!c->uptr) {
		if (scm->passcred || scm->fds || scm->inet_len)
			*flags |= MSG_CTRUNC;
		return;
	}
	if (scm->passcred) {
		struct ucred uc;
		ucred_view(t, &scm->creds, &uc); /* as the receiver's namespaces name them */
		put_cmsg(c, SCM_CREDENTIALS, &uc, sizeof(uc), flags);
	}
	if (scm->fds)
		detach_fds(t, c, scm->fds, flags);
	for (size_t off = 0; off + sizeof(struct cmsghdr) <= scm->inet_len;) {
		struct cmsghdr h;
		memcpy(&h, scm->inet + off, sizeof(h));
		put_cmsg_level(c, h.cmsg_level, h.cmsg_type, scm->inet + off + sizeof(h),
			       h.cmsg_len - sizeof(h), flags);
		off += CMSG_SPACE(h.cmsg_len - sizeof(h));
	}
}

/*
 * sock_recvmsg. MSG_ERRQUEUE reads an inet socket's error queue: the
 * sandbox stack's UDP sockets have one (IP_RECVERR); the others' is
 * always empty: EAGAIN at once, as ip_recv_error answers. Unix and
 * netlink sockets have no error queue and ignore the flag, as Linux's do.
 */
static long sock_recv(struct socket *s, struct sock_msg *m)
{
	if ((m->flags & MSG_ERRQUEUE) && is_inet(s) && !s->ops->errqueue)
		return -EAGAIN;
	return s->ops->recvmsg(s, m);
}

/* ___sys_recvmsg for the msghdr at umsg (k copied in): the length received. */
static long recv_one(struct task *t, struct socket *s, struct file *f, uint64_t umsg,
		     struct kmsghdr *k, int flags)
{
	struct sock_msg m = {.t = t};
	static __thread struct ctl_out c;
	char name[SOCK_ADDR_MAX + 1];
	uint64_t clen;
	long ret;
	int err;

	m.flags = flags;
	if (file_getfl(f) & O_NONBLOCK)
		m.flags |= MSG_DONTWAIT;
	m.out_flags = flags & MSG_CMSG_CLOEXEC;
	m.name_out = k->name_ptr ? name : NULL;
	msg_iter_init(&m.iter, t->mm, k->iov, (unsigned)k->h.msg_iovlen);
	ret = sock_recv(s, &m);
	if (ret < 0) {
		scm_clear(&m.scm);
		return ret;
	}
	c.uptr = (uint64_t)(uintptr_t)k->h.msg_control;
	c.room = MIN((size_t)k->h.msg_controllen, sizeof(c.buf));
	c.used = 0;
	scm_deliver(t, &c, &m.scm, &m.out_flags);
	scm_clear(&m.scm);
	if (c.used && mm_copy_out(t->mm, c.uptr, c.buf, c.used) < 0)
		c.used = 0;
	if (k->name_ptr) {
		err = addr_out(t, name, m.namelen_out, k->name_ptr,
			       umsg + offsetof(struct msghdr, msg_namelen));
		if (err)
			return err;
	}
	clen = c.used;
	if (mm_copy_out(t->mm, umsg + offsetof(struct msghdr, msg_flags), &m.out_flags,
			sizeof(int)) < 0 ||
	    mm_copy_out(t->mm, umsg + offsetof(struct msghdr, msg_controllen), &clen,
			sizeof(clen)) < 0)
		return -EFAULT;
	return ret;
}

SYSCALL(sendmsg)
{
	struct kmsghdr *k;
	struct file *f;
	int err;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &err);
	long ret;

	if (!s)
		return err;
	k = xmalloc(sizeof(*k));
	ret = msghdr_in(t, a->a[1], k, true);
	if (!ret)
		ret = send_one(t, s, f, k, (int)a->a[2]);
	free(k);
	file_put(f);
	return ret;
}

SYSCALL(recvmsg)
{
	struct kmsghdr *k;
	struct file *f;
	int err;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &err);
	long ret;

	if (!s)
		return err;
	k = xmalloc(sizeof(*k));
	ret = msghdr_in(t, a->a[1], k, false);
	if (!ret)
		ret = recv_one(t, s, f, a->a[1], k, (int)a->a[2]);
	free(k);
	file_put(f);
	return ret;
}

SYSCALL(sendto)
{
	struct kmsghdr *k;
	struct file *f;
	struct socket *s;
	size_t len = a->a[2];
	long ret;
	int err;

	if (!mm_range_ok(a->a[1], len))
		return -EFAULT;
	s = sock_lookup(t, (int)a->a[0], &f, &err);
	if (!s)
		return err;
	k = xzalloc(sizeof(*k));
	k->iov[0] = (struct iovec){(void *)(uintptr_t)a->a[1], MIN(len, (size_t)MAX_RW_COUNT)};
	k->h.msg_iovlen = 1;
	ret = 0;
	if (a->a[4]) {
		k->namelen = (int)a->a[5];
		ret = addr_in(t, a->a[4], k->namelen, k->name);
	}
	if (!ret)
		ret = send_one(t, s, f, k, (int)a->a[3]);
	free(k);
	file_put(f);
	return ret;
}

SYSCALL(recvfrom)
{
	struct sock_msg m = {.t = t};
	char name[SOCK_ADDR_MAX + 1];
	struct iovec iov;
	struct file *f;
	struct socket *s;
	size_t len = a->a[2];
	long ret;
	int err;

	if (!mm_range_ok(a->a[1], len))
		return -EFAULT;
	s = sock_lookup(t, (int)a->a[0], &f, &err);
	if (!s)
		return err;
	iov = (struct iovec){(void *)(uintptr_t)a->a[1], MIN(len, (size_t)MAX_RW_COUNT)};
	msg_iter_init(&m.iter, t->mm, &iov, 1);
	m.flags = (int)a->a[3];
	if (file_getfl(f) & O_NONBLOCK)
		m.flags |= MSG_DONTWAIT;
	m.name_out = a->a[4] ? name : NULL;
	ret = sock_recv(s, &m);
	scm_clear(&m.scm);
	file_put(f);
	if (ret >= 0 && a->a[4]) {
		err = addr_out(t, name, m.namelen_out, a->a[4], a->a[5]);
		if (err)
			ret = err;
	}
	return ret;
}

SYSCALL(sendmmsg)
{
	unsigned vlen = (unsigned)MIN(a->a[2], (uint64_t)SOCK_UIO_MAXIOV), done = 0;
	uint64_t vec = a->a[1];
	struct kmsghdr *k;
	struct file *f;
	int err;
	struct socket *s = sock_lookup(t, (int)a->a[0], &f, &err);
	long ret = 0;

	if (!s)
		return err;
	k = xmalloc(sizeof(*k));
	for (; done < vlen; done++) {
		uint64_t um = vec + done * sizeof(struct mmsghdr);
		unsigned n;
		ret = msghdr_in(t, um, k, true);
		if (!ret)
			ret = send_one(t, s, f, k, (int)a->a[3]);
		if (ret < 0)
			break;
		n = (unsigned)ret;
		if (mm_copy_out(t->mm, um + offsetof(struct mmsghdr, msg_len), &n, sizeof(n)) < 0) {
			ret = -EFAULT;
			break;
		}
	}
	free(k);
	file_put(f);
	return done ? (long)done : ret;
}

SYSCALL(recvmmsg)
{
	unsigned vlen = (unsigned)MIN(a->a[2], (uint64_t)SOCK_UIO_MAXIOV), done = 0;
	int flags = (int)a->a[3];
	uint64_t vec = a->a[1], deadline = 0;
	struct kmsghdr *k;
	struct file *f;
	struct socket *s;
	long ret = 0;
	int err;

	if (a->a[4]) {
		struct timespec ts, now;
		if (mm_copy_in(t->mm, &ts, a->a[4], sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
			return -EINVAL;
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* Beyond a century it never comes (and the sum cannot wrap). */
		if (ts.tv_sec < 3153600000)
			deadline = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec +
				   (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	s = sock_lookup(t, (int)a->a[0], &f, &err);
	if (!s)
		return err;
	k = xmalloc(sizeof(*k));
	for (; done < vlen; done++) {
		uint64_t um = vec + done * sizeof(struct mmsghdr);
		struct timespec now;
		unsigned n;
		ret = msghdr_in(t, um, k, false);
		if (!ret)
			ret = recv_one(t, s, f, um, k, flags);
		if (ret < 0)
			break;
		n = (unsigned)ret;
		if (mm_copy_out(t->mm, um + offsetof(struct mmsghdr, msg_len), &n, sizeof(n)) < 0) {
			ret = -EFAULT;
			break;
		}
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (deadline &&
		    (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec >= deadline) {
			done++;
			break;
		}
	}
	free(k);
	file_put(f);
	return done ? (long)done : ret;
}
