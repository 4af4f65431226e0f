/* System V message queues (msg.h), as Linux's ipc/msg.c. */
#include "config.h"
#include "sentry/ipc/msg.h"
#include "sentry/ipc/ipc.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/mm.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/stat.h>
#include <time.h>

#ifndef MSG_STAT_ANY
#define MSG_STAT_ANY 13
#endif
#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

/* x86-64's struct msqid64_ds (glibc's struct msqid_ds). */
struct msqid64_ds_guest {
	struct ipc64_perm_guest perm;
	int64_t stime, rtime, ctime;
	uint64_t cbytes, qnum, qbytes;
	int32_t lspid, lrpid;
	uint64_t unused4, unused5;
};
_Static_assert(sizeof(struct msqid64_ds_guest) == 120, "msqid64_ds layout");

struct msginfo_guest {
	int32_t msgpool, msgmap, msgmax, msgmnb, msgmni, msgssz, msgtql;
	uint16_t msgseg;
};

struct msg {
	struct list_head node;
	int64_t type;
	size_t len;
	char text[];
};

struct msg_queue {
	struct ipc_obj o;
	struct ipc_ns *ns;
	struct memacct *acct;
	struct list_head msgs;
	uint64_t cbytes, qnum, qbytes;
	int32_t lspid, lrpid;
	int64_t stime, rtime, ctime;
};

static void msg_drop(struct msg_queue *q, struct msg *m)
{
	list_del(&m->node);
	q->cbytes -= m->len;
	q->qnum--;
	q->ns->msg_bytes -= m->len;
	q->ns->msg_count--;
	memacct_uncharge(q->acct, sizeof(*m) + m->len);
	free(m);
}

static void queue_free(struct ipc_obj *o)
{
	struct msg_queue *q = (struct msg_queue *)o;
	struct msg *m, *n;

	list_for_each_entry_safe(m, n, &q->msgs, node)
		msg_drop(q, m);
	free(q);
}

long msg_get(struct task *t, int32_t key, int flags)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct msg_queue *q;
	struct ipc_obj *o;
	long ret;

	pthread_mutex_lock(&ns->lock);
	ret = ipc_get_key(ns, IPC_KIND_MSG, key, flags, &o);
	if (ret == 0 && o) {
		ret = ipc_get_found(o, flags, &t->creds);
	} else if (ret == 0) {
		q = xzalloc(sizeof(*q));
		list_init(&q->msgs);
		q->ns = ns;
		q->acct = &t->k->mf->acct;
		q->qbytes = ns->lim.msgmnb;
		q->ctime = ipc_now();
		q->o.kind = IPC_KIND_MSG;
		q->o.key = key;
		q->o.mode = (uint16_t)(flags & 0777);
		q->o.free = queue_free;
		ret = ipc_add(ns, &q->o, ns->lim.msgmni, &t->creds);
		if (ret)
			free(q);
		else
			ret = q->o.id;
	}
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

/*
 * Wait on q's queue until woken, with ns->lock dropped meanwhile: 0 (look
 * again), -EIDRM (q was removed), -EINTR.
 */
static int queue_wait(struct task *t, struct msg_queue *q)
{
	struct waiter w = {0};
	uint32_t snap = waiter_prepare(&q->o.wq, &w, t);
	int ret;

	pthread_mutex_unlock(&q->ns->lock);
	ret = task_block(t, snap, 0);
	pthread_mutex_lock(&q->ns->lock);
	waiter_finish(&q->o.wq, &w);
	if (q->o.removed)
		return -EIDRM;
	return ret == -EINTR ? -EINTR : 0;
}

/* The queue of id with the rights want, a reference taken; under ns->lock. */
static long queue_find(struct task *t, struct ipc_ns *ns, int id, int want, struct msg_queue **out)
{
	struct msg_queue *q = (struct msg_queue *)ipc_find_id(ns, IPC_KIND_MSG, id);

	if (!q)
		return -EINVAL;
	if (!ipc_permitted(&q->o, &t->creds, want))
		return -EACCES;
	ipc_get(&q->o);
	*out = q;
	return 0;
}

long msg_send(struct task *t, int id, uint64_t msgp, uint64_t size, int flags)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct msg_queue *q;
	struct msg *m;
	long ret;

	int64_t type;

	if (mm_copy_in(t->mm, &type, msgp, sizeof(type)))
		return -EFAULT;
	if (size > ns->lim.msgmax || id < 0 || type < 1)
		return -EINVAL;
	m = xmalloc(sizeof(*m) + size);
	m->type = type;
	m->len = size;
	if (mm_copy_in(t->mm, m->text, msgp + sizeof(type), size)) {
		free(m);
		return -EFAULT;
	}
	pthread_mutex_lock(&ns->lock);
	ret = queue_find(t, ns, id, IPC_W, &q);
	if (ret)
		goto out;
	for (;;) {
		/* Room: the bytes fit and so many messages (qbytes of them). */
		if (size + q->cbytes <= q->qbytes && 1 + q->qnum <= q->qbytes) {
			if (memacct_charge(q->acct, sizeof(*m) + size) < 0) {
				ret = -ENOMEM;
				break;
			}
			list_add_tail(&m->node, &q->msgs);
			m = NULL;
			q->cbytes += size;
			q->qnum++;
			ns->msg_bytes += size;
			ns->msg_count++;
			q->lspid = t->tgid;
			q->stime = ipc_now();
			waitq_wake_all(&q->o.wq);
			ret = 0;
			break;
		}
		if (flags & IPC_NOWAIT) {
			ret = -EAGAIN;
			break;
		}
		ret = queue_wait(t, q);
		if (ret)
			break;
	}
	ipc_put(&q->o);
out:
	pthread_mutex_unlock(&ns->lock);
	free(m);
	return ret;
}

/* Linux's msgtyp rules: 0 the first; > 0 the first of that type (or, with
 * MSG_EXCEPT, of another); < 0 the first of the lowest type <= -type. */
static struct msg *pick(struct msg_queue *q, int64_t type, int flags)
{
	struct msg *m, *best = NULL;

	list_for_each_entry(m, &q->msgs, node) {
		if (type == 0)
			return m;
		if (type > 0) {
			if ((m->type == type) != ((flags & MSG_EXCEPT) != 0))
				return m;
		} else if (m->type <= -type && (!best || m->type < best->type)) {
			best = m;
			if (m->type == 1)
				break;
		}
	}
	return best;
}

long msg_receive(struct task *t, int id, uint64_t msgp, uint64_t size, int64_t type, int flags)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct msg_queue *q;
	struct msg *m;
	long ret;

	if (id < 0 || (int64_t)size < 0)
		return -EINVAL;
	if (flags & MSG_COPY)
		return -ENOSYS; /* checkpoint/restore's peek: not offered */
	pthread_mutex_lock(&ns->lock);
	ret = queue_find(t, ns, id, IPC_R, &q);
	if (ret)
		goto out;
	for (;;) {
		m = pick(q, type, flags);
		if (m && m->len > size && !(flags & MSG_NOERROR)) {
			ret = -E2BIG;
			break;
		}
		if (m) {
			size_t n = MIN(size, m->len);
			if (mm_copy_out(t->mm, msgp, &m->type, sizeof(m->type)) ||
			    mm_copy_out(t->mm, msgp + sizeof(int64_t), m->text, n)) {
				ret = -EFAULT; /* the message stays queued */
				break;
			}
			msg_drop(q, m);
			q->lrpid = t->tgid;
			q->rtime = ipc_now();
			waitq_wake_all(&q->o.wq);
			ret = (long)n;
			break;
		}
		if (flags & IPC_NOWAIT) {
			ret = -ENOMSG;
			break;
		}
		ret = queue_wait(t, q);
		if (ret)
			break;
	}
	ipc_put(&q->o);
out:
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

static long ctl_info(struct task *t, struct ipc_ns *ns, int cmd, uint64_t buf)
{
	struct msginfo_guest i = {
		.msgmni = (int32_t)ns->lim.msgmni,
		.msgmax = (int32_t)ns->lim.msgmax,
		.msgmnb = (int32_t)ns->lim.msgmnb,
		.msgssz = 16,
		.msgseg = 0xffff,
		.msgpool = cmd == MSG_INFO ? (int32_t)ns->ids[IPC_KIND_MSG].in_use
					   : (int32_t)(ns->lim.msgmni * ns->lim.msgmnb / 1024),
		.msgmap = cmd == MSG_INFO ? (int32_t)ns->msg_count : (int32_t)ns->lim.msgmnb,
		.msgtql = cmd == MSG_INFO ? (int32_t)ns->msg_bytes : (int32_t)ns->lim.msgmnb,
	};

	return ipc_info_out(t, ns, IPC_KIND_MSG, buf, &i, sizeof(i));
}

long msg_ctl(struct task *t, int id, int cmd, uint64_t buf)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct msqid64_ds_guest ds;
	struct msg_queue *q;
	long ret = 0;

	if (id < 0 || cmd < 0)
		return -EINVAL;
	if (cmd == IPC_SET && mm_copy_in(t->mm, &ds, buf, sizeof(ds)))
		return -EFAULT;
	pthread_mutex_lock(&ns->lock);
	switch (cmd) {
	case IPC_INFO:
	case MSG_INFO:
		ret = ctl_info(t, ns, cmd, buf);
		goto out;
	case MSG_STAT:
	case MSG_STAT_ANY:
		q = (struct msg_queue *)ipc_find_index(ns, IPC_KIND_MSG, id);
		break;
	case IPC_STAT:
	case IPC_SET:
	case IPC_RMID:
		q = (struct msg_queue *)ipc_find_id(ns, IPC_KIND_MSG, id);
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	if (!q) {
		ret = -EINVAL;
		goto out;
	}
	if (cmd == IPC_SET || cmd == IPC_RMID) {
		if (!ipc_may_own(&q->o, &t->creds)) {
			ret = -EPERM;
		} else if (cmd == IPC_RMID) {
			ipc_remove(ns, &q->o);
		} else if (ds.qbytes > ns->lim.msgmnb &&
			   !creds_capable(&t->creds, KCAP_SYS_RESOURCE)) {
			ret = -EPERM;
		} else {
			ipc_perm_set(&q->o, &ds.perm);
			q->qbytes = ds.qbytes;
			q->ctime = ipc_now();
			/* More room: the senders look again. */
			waitq_wake_all(&q->o.wq);
		}
		goto out;
	}
	if (cmd != MSG_STAT_ANY && !ipc_permitted(&q->o, &t->creds, IPC_R)) {
		ret = -EACCES;
		goto out;
	}
	memset(&ds, 0, sizeof(ds));
	ipc_perm_out(&q->o, &ds.perm);
	ds.stime = q->stime;
	ds.rtime = q->rtime;
	ds.ctime = q->ctime;
	ds.cbytes = q->cbytes;
	ds.qnum = q->qnum;
	ds.qbytes = q->qbytes;
	ds.lspid = q->lspid;
	ds.lrpid = q->lrpid;
	ret = mm_copy_out(t->mm, buf, &ds, sizeof(ds)) ? -EFAULT : cmd == IPC_STAT ? 0 : q->o.id;
out:
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

void msg_proc_show(struct ipc_ns *ns, struct strbuf *o)
{
	strbuf_printf(o, "       key      msqid perms      cbytes       qnum lspid lrpid   uid   "
			 "gid  cuid  cgid      stime      rtime      ctime\n");
	pthread_mutex_lock(&ns->lock);
	for (int i = 0; i <= ipc_max_index(ns, IPC_KIND_MSG); i++) {
		struct msg_queue *q = (struct msg_queue *)ipc_find_index(ns, IPC_KIND_MSG, i);
		if (q)
			strbuf_printf(
				o,
				"%10d %10d  %4o  %10llu %10llu %5d %5d %5u %5u %5u %5u %10lld "
				"%10lld %10lld\n",
				q->o.key, q->o.id, q->o.mode, (unsigned long long)q->cbytes,
				(unsigned long long)q->qnum, q->lspid, q->lrpid, q->o.uid, q->o.gid,
				q->o.cuid, q->o.cgid, (long long)q->stime, (long long)q->rtime,
				(long long)q->ctime);
	}
	pthread_mutex_unlock(&ns->lock);
}
