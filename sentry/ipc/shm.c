/* System V shared memory (shm.h), as Linux's ipc/shm.c. */
#include "config.h"
#include "sentry/ipc/shm.h"
#include "sentry/ipc/ipc.h"
#include "sentry/fs/file.h"
#include "sentry/fs/filemap.h"
#include "sentry/fs/memfd.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/pagestore.h"
#include "sentry/vfs/vfs.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <time.h>

#ifndef SHM_EXEC
#define SHM_EXEC 0100000
#endif
#ifndef SHM_STAT_ANY
#define SHM_STAT_ANY 15
#endif

/* x86-64's struct shmid64_ds (glibc's struct shmid_ds). */
struct shmid64_ds_guest {
	struct ipc64_perm_guest perm;
	uint64_t segsz;
	int64_t atime, dtime, ctime;
	int32_t cpid, lpid;
	uint64_t nattch, unused4, unused5;
};
_Static_assert(sizeof(struct shmid64_ds_guest) == 112, "shmid64_ds layout");

struct shminfo64_guest {
	uint64_t shmmax, shmmin, shmmni, shmseg, shmall, unused[4];
};

struct shm_info_guest {
	int32_t used_ids, pad;
	uint64_t shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};

struct shm_seg {
	struct ipc_obj o;
	struct ipc_ns *ns;
	struct file *file;
	uint64_t size;
	uint64_t nattch; /* VMAs that map it */
	int32_t cpid, lpid;
	int64_t atime, dtime, ctime;
};

static void seg_free(struct ipc_obj *o)
{
	struct shm_seg *s = (struct shm_seg *)o;

	s->ns->shm_pages -= ALIGN_UP(s->size, PAGE_SIZE) / PAGE_SIZE;
	file_put(s->file);
	free(s);
}

/* --- the segment as a mapping's backing: counts its attaches ---------------------------- */

/*
 * Does a VMA at pgoff count as an attach? Linux counts every VMA (a split
 * by mprotect counts again); a shared mapping here is also cut into one
 * VMA per page store chunk, and those pieces do not count. (A split that
 * falls exactly on a chunk boundary is then not counted either.)
 */
static bool counts_as_attach(uint64_t pgoff)
{
	return pgoff == 0 || pgoff % PS_CHUNK_SIZE != 0;
}

static void seg_vma_get(void *obj, uint64_t pgoff)
{
	struct shm_seg *s = obj;

	pthread_mutex_lock(&s->ns->lock);
	if (counts_as_attach(pgoff))
		s->nattch++;
	ipc_get(&s->o);
	pthread_mutex_unlock(&s->ns->lock);
}

static void seg_vma_put(void *obj, uint64_t pgoff)
{
	struct shm_seg *s = obj;
	struct ipc_ns *ns = s->ns;

	pthread_mutex_lock(&ns->lock);
	if (counts_as_attach(pgoff) && --s->nattch == 0) {
		s->dtime = ipc_now();
		/* Removed while attached: it goes with the last detach. */
		if (s->o.mode & SHM_DEST)
			ipc_remove(ns, &s->o);
	}
	ipc_put(&s->o);
	pthread_mutex_unlock(&ns->lock);
}

static long seg_read(void *obj, void *dst, size_t len, uint64_t off)
{
	struct shm_seg *s = obj;

	return file_backing_ops.read(s->file, dst, len, off);
}

static int seg_pages(void *obj, uint64_t off, uint64_t len, bool writable, struct pagestore **ps,
		     pthread_mutex_t **lock)
{
	struct shm_seg *s = obj;

	return file_backing_ops.pages(s->file, off, len, writable, ps, lock);
}

static struct file *seg_file(void *obj)
{
	return ((struct shm_seg *)obj)->file;
}

static const struct mm_backing_ops seg_backing_ops = {
	.get = seg_vma_get,
	.put = seg_vma_put,
	.read = seg_read,
	.pages = seg_pages,
	.file = seg_file,
};

/* --- shmget -------------------------------------------------------------------------- */

static long seg_new(struct task *t, struct ipc_ns *ns, int32_t key, uint64_t size, int flags)
{
	uint64_t pages = ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE;
	struct shm_seg *s;
	char name[32];
	long ret;

	if (ns->shm_pages + pages < ns->shm_pages || ns->shm_pages + pages > ns->lim.shmall)
		return -ENOSPC;
	s = xzalloc(sizeof(*s));
	snprintf(name, sizeof(name), "SYSV%08x", (unsigned)key);
	ret = memfd_file_new(t->k, name, size, &t->creds, &s->file);
	if (ret) {
		free(s);
		return ret;
	}
	s->o.kind = IPC_KIND_SHM;
	s->o.key = key;
	s->o.mode = (uint16_t)(flags & 0777);
	s->o.free = seg_free;
	s->ns = ns;
	s->size = size;
	s->cpid = t->tgid;
	s->ctime = ipc_now();
	ret = ipc_add(ns, &s->o, ns->lim.shmmni, &t->creds);
	if (ret) {
		file_put(s->file);
		free(s);
		return ret;
	}
	ns->shm_pages += pages;
	return s->o.id;
}

long shm_get(struct task *t, int32_t key, uint64_t size, int flags)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct ipc_obj *o;
	long ret;

	if (flags & SHM_HUGETLB)
		return -ENOMEM; /* no huge pages in the sandbox */
	pthread_mutex_lock(&ns->lock);
	ret = ipc_get_key(ns, IPC_KIND_SHM, key, flags, &o);
	if (ret == 0 && o)
		ret = size > ((struct shm_seg *)o)->size ? -EINVAL
							 : ipc_get_found(o, flags, &t->creds);
	else if (ret == 0)
		ret = size < 1 || size > ns->lim.shmmax ? -EINVAL
							: seg_new(t, ns, key, size, flags);
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

/* --- shmat, shmdt -------------------------------------------------------------------- */

struct overlap {
	uint64_t start, end;
	bool found;
};

static void find_overlap(const struct vma *v, void *arg)
{
	struct overlap *r = arg;

	if (v->start < r->end && v->end > r->start)
		r->found = true;
}

long shm_attach(struct task *t, int id, uint64_t addr, int flags)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct mmap_req req = {.flags = MAP_SHARED, .bops = &seg_backing_ops};
	int want = IPC_R;
	struct shm_seg *s;
	long ret;

	if (id < 0)
		return -EINVAL;
	if (addr) {
		if (addr & (PAGE_SIZE - 1)) { /* SHMLBA is a page on x86 */
			if (!(flags & SHM_RND))
				return -EINVAL;
			addr &= PAGE_MASK;
			if (!addr && (flags & SHM_REMAP))
				return -EINVAL;
		}
		if (addr)
			req.flags |= MAP_FIXED;
	} else if (flags & SHM_REMAP) {
		return -EINVAL;
	}
	req.prot = PROT_READ;
	if (!(flags & SHM_RDONLY)) {
		req.prot |= PROT_WRITE;
		want |= IPC_W;
	} else {
		req.vma_flags = VMA_NOWRITE; /* mprotect may not add PROT_WRITE */
	}
	if (flags & SHM_EXEC) {
		req.prot |= PROT_EXEC;
		want |= IPC_X;
	}

	pthread_mutex_lock(&ns->lock);
	s = (struct shm_seg *)ipc_find_id(ns, IPC_KIND_SHM, id);
	if (!s) {
		pthread_mutex_unlock(&ns->lock);
		return -EINVAL;
	}
	if (!ipc_permitted(&s->o, &t->creds, want)) {
		pthread_mutex_unlock(&ns->lock);
		return -EACCES;
	}
	/* The mapping takes its own references (seg_vma_get), without the
	 * namespace's lock: an unmap takes the mm's lock, then this one. */
	ipc_get(&s->o);
	pthread_mutex_unlock(&ns->lock);

	req.addr = addr;
	req.len = s->size;
	req.bobj = s;
	ret = 0;
	if (addr && !(flags & SHM_REMAP)) {
		/* Without SHM_REMAP, no mapping may be in the way. */
		struct overlap r = {addr, addr + ALIGN_UP(s->size, PAGE_SIZE), false};
		if (r.end > addr)
			mm_for_each_vma(t->mm, find_overlap, &r);
		if (r.found || r.end <= addr)
			ret = -EINVAL;
	}
	if (ret == 0)
		ret = mm_mmap(t->mm, &req);

	pthread_mutex_lock(&ns->lock);
	if (ret >= 0) {
		s->atime = ipc_now();
		s->lpid = t->tgid;
	}
	ipc_put(&s->o);
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

/* shmdt: the segment attached at addr, and the pieces of it an mprotect or
 * munmap left within its size from there (Linux's rule). */
struct detach {
	uint64_t addr;
	struct shm_seg *seg;
	uint64_t limit; /* addr + the segment's size, page aligned */
	uint64_t (*ranges)[2];
	size_t n, cap;
};

static void find_pieces(const struct vma *v, void *arg)
{
	struct detach *d = arg;

	if (v->end <= d->addr || v->bops != &seg_backing_ops || v->start - d->addr != v->pgoff)
		return;
	if (!d->seg) {
		d->seg = v->bobj;
		d->limit = d->addr + ALIGN_UP(d->seg->size, PAGE_SIZE);
	} else if (v->bobj != d->seg || v->end > d->limit) {
		return;
	}
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 4;
		d->ranges = xrealloc(d->ranges, d->cap * sizeof(*d->ranges));
	}
	d->ranges[d->n][0] = v->start;
	d->ranges[d->n][1] = v->end;
	d->n++;
}

long shm_detach(struct task *t, uint64_t addr)
{
	struct detach d = {.addr = addr};
	long ret;

	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	mm_for_each_vma(t->mm, find_pieces, &d);
	ret = d.n ? 0 : -EINVAL;
	if (d.n) {
		struct ipc_ns *ns = d.seg->ns;
		pthread_mutex_lock(&ns->lock);
		d.seg->lpid = t->tgid;
		pthread_mutex_unlock(&ns->lock);
	}
	for (size_t i = 0; i < d.n; i++)
		mm_munmap(t->mm, d.ranges[i][0], d.ranges[i][1] - d.ranges[i][0]);
	free(d.ranges);
	return ret;
}

/* --- shmctl -------------------------------------------------------------------------- */

static void seg_stat(const struct shm_seg *s, struct shmid64_ds_guest *ds)
{
	memset(ds, 0, sizeof(*ds));
	ipc_perm_out(&s->o, &ds->perm);
	ds->segsz = s->size;
	ds->atime = s->atime;
	ds->dtime = s->dtime;
	ds->ctime = s->ctime;
	ds->cpid = s->cpid;
	ds->lpid = s->lpid;
	ds->nattch = s->nattch;
}

static long ctl_info(struct task *t, struct ipc_ns *ns, int cmd, uint64_t buf)
{
	struct shminfo64_guest ii = {
		.shmmax = ns->lim.shmmax,
		.shmmin = 1,
		.shmmni = ns->lim.shmmni,
		.shmseg = ns->lim.shmmni,
		.shmall = ns->lim.shmall,
	};
	struct shm_info_guest si = {
		.used_ids = (int32_t)ns->ids[IPC_KIND_SHM].in_use,
		.shm_tot = ns->shm_pages,
	};

	return cmd == IPC_INFO ? ipc_info_out(t, ns, IPC_KIND_SHM, buf, &ii, sizeof(ii))
			       : ipc_info_out(t, ns, IPC_KIND_SHM, buf, &si, sizeof(si));
}

long shm_ctl(struct task *t, int id, int cmd, uint64_t buf)
{
	struct ipc_ns *ns = ipc_ns_of(t->k);
	struct shmid64_ds_guest ds;
	struct shm_seg *s;
	long ret = 0;

	if (cmd < 0 || id < 0)
		return -EINVAL;
	if (cmd == IPC_SET && mm_copy_in(t->mm, &ds, buf, sizeof(ds)))
		return -EFAULT;
	pthread_mutex_lock(&ns->lock);
	switch (cmd) {
	case IPC_INFO:
	case SHM_INFO:
		ret = ctl_info(t, ns, cmd, buf);
		goto out;
	case SHM_STAT:
	case SHM_STAT_ANY:
		s = (struct shm_seg *)ipc_find_index(ns, IPC_KIND_SHM, id);
		break;
	case IPC_STAT:
	case IPC_SET:
	case IPC_RMID:
	case SHM_LOCK:
	case SHM_UNLOCK:
		s = (struct shm_seg *)ipc_find_id(ns, IPC_KIND_SHM, id);
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	if (!s) {
		ret = -EINVAL;
		goto out;
	}
	switch (cmd) {
	case SHM_STAT:
	case SHM_STAT_ANY:
	case IPC_STAT:
		if (cmd != SHM_STAT_ANY && !ipc_permitted(&s->o, &t->creds, IPC_R)) {
			ret = -EACCES;
			break;
		}
		seg_stat(s, &ds);
		ret = mm_copy_out(t->mm, buf, &ds, sizeof(ds)) ? -EFAULT
		      : cmd == IPC_STAT			       ? 0
							       : s->o.id;
		break;
	case IPC_SET:
	case IPC_RMID:
		if (!ipc_may_own(&s->o, &t->creds)) {
			ret = -EPERM;
			break;
		}
		if (cmd == IPC_SET) {
			ipc_perm_set(&s->o, &ds.perm);
			s->ctime = ipc_now();
		} else if (s->nattch) {
			/* Gone by key now; by id once the last attach goes. */
			s->o.mode |= SHM_DEST;
			s->o.key = IPC_PRIVATE;
		} else {
			ipc_remove(ns, &s->o);
		}
		break;
	default: /* SHM_LOCK, SHM_UNLOCK: recorded; the sandbox never swaps */
		if (!creds_capable(&t->creds, KCAP_IPC_LOCK) && t->creds.euid != s->o.uid &&
		    t->creds.euid != s->o.cuid) {
			ret = -EPERM;
			break;
		}
		if (cmd == SHM_LOCK)
			s->o.mode |= SHM_LOCKED;
		else
			s->o.mode &= (uint16_t)~SHM_LOCKED;
	}
out:
	pthread_mutex_unlock(&ns->lock);
	return ret;
}

void shm_proc_show(struct ipc_ns *ns, struct strbuf *o)
{
	strbuf_printf(o,
		      "       key      shmid perms                  size  cpid  lpid nattch   uid "
		      "  gid  cuid  cgid      atime      dtime      ctime                   rss "
		      "                 swap\n");
	pthread_mutex_lock(&ns->lock);
	for (int i = 0; i <= ipc_max_index(ns, IPC_KIND_SHM); i++) {
		struct shm_seg *s = (struct shm_seg *)ipc_find_index(ns, IPC_KIND_SHM, i);
		uint64_t rss;
		if (!s)
			continue;
		pthread_mutex_lock(&s->file->inode->lock);
		rss = s->file->inode->blocks * 512;
		pthread_mutex_unlock(&s->file->inode->lock);
		strbuf_printf(o,
			      "%10d %10d  %4o %21llu %5d %5d  %5llu %5u %5u %5u %5u %10lld %10lld "
			      "%10lld %21llu %21d\n",
			      s->o.key, s->o.id, s->o.mode, (unsigned long long)s->size, s->cpid,
			      s->lpid, (unsigned long long)s->nattch, s->o.uid, s->o.gid, s->o.cuid,
			      s->o.cgid, (long long)s->atime, (long long)s->dtime,
			      (long long)s->ctime, (unsigned long long)rss, 0);
	}
	pthread_mutex_unlock(&ns->lock);
}
