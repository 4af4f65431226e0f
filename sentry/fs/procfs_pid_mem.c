/*
 * The memory figures of /proc/<pid>: statm, smaps, smaps_rollup, and the
 * sizes status and stat show. All come from one walk of the VMAs, so they
 * agree with each other and with maps: smaps has one entry per maps line,
 * its Size and Rss add up to status's VmSize and VmRSS and to
 * smaps_rollup's Rss, and statm counts the same in pages.
 *
 * Resident is what the host holds pages for (sentry/mm/rss.c). The sandbox
 * knows neither which pages are dirty nor how many address spaces share a
 * page: anonymous and private memory counts as dirty, a file's shared
 * pages as clean, and Pss equals Rss.
 */
#include "config.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/fs/filemap.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <string.h>
#include <sys/mman.h>

/* One VMA's, or a whole address space's, figures in bytes. */
struct mem_stats {
	uint64_t size, rss;
	uint64_t anon, file, shmem; /* rss by kind */
	uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
	uint64_t text, data, stack; /* sizes, as statm and status count them */
	uint64_t locked;
};

static void vma_stats(struct mm *mm, const struct vma *v, struct mem_stats *s)
{
	uint64_t size = v->end - v->start, rss = vma_resident(mm, v);
	bool file = vma_file(v) != NULL, shared = v->flags & VMA_SHARED;

	s->size += size;
	s->rss += rss;
	if (file && shared) {
		s->file += rss;
		s->shared_clean += rss;
	} else if (shared) {
		s->shmem += rss;
		s->shared_dirty += rss;
	} else {
		s->anon += rss;
		s->private_dirty += rss;
	}
	if (v->flags & VMA_LOCKED)
		s->locked += rss;
	/* Linux's is_stack_mapping, is_exec_mapping and is_data_mapping. */
	if (v->flags & (VMA_STACK | VMA_GROWSDOWN))
		s->stack += size;
	else if ((v->prot & (PROT_EXEC | PROT_WRITE)) == PROT_EXEC && !shared)
		s->text += size;
	else if ((v->prot & PROT_WRITE) && !shared)
		s->data += size;
}

struct walk {
	struct mem_stats total;
	struct strbuf *smaps; /* one entry per VMA; NULL: totals only */
	struct mm *mm;
	uint64_t first, last; /* the range the VMAs span */
};

static void kb(struct strbuf *o, const char *name, uint64_t bytes)
{
	strbuf_printf(o, "%-16s%8llu kB\n", name, (unsigned long long)(bytes >> 10));
}

/* The lines smaps and smaps_rollup share, from Rss to Locked. */
static void smap_lines(struct strbuf *o, const struct mem_stats *s, bool rollup)
{
	kb(o, "Rss:", s->rss);
	kb(o, "Pss:", s->rss);
	kb(o, "Pss_Dirty:", s->shared_dirty + s->private_dirty);
	if (rollup) {
		kb(o, "Pss_Anon:", s->anon);
		kb(o, "Pss_File:", s->file);
		kb(o, "Pss_Shmem:", s->shmem);
	}
	kb(o, "Shared_Clean:", s->shared_clean);
	kb(o, "Shared_Dirty:", s->shared_dirty);
	kb(o, "Private_Clean:", s->private_clean);
	kb(o, "Private_Dirty:", s->private_dirty);
	kb(o, "Referenced:", s->rss);
	kb(o, "Anonymous:", s->anon);
	kb(o, "LazyFree:", 0);
	kb(o, "AnonHugePages:", 0);
	kb(o, "ShmemPmdMapped:", 0);
	kb(o, "FilePmdMapped:", 0);
	kb(o, "Shared_Hugetlb:", 0);
	strbuf_printf(o, "Private_Hugetlb:       0 kB\n");
	kb(o, "Swap:", 0);
	kb(o, "SwapPss:", 0);
	kb(o, "Locked:", s->locked);
}

static void vm_flags(struct strbuf *o, const struct vma *v)
{
	bool shared = v->flags & VMA_SHARED;

	strbuf_printf(o, "VmFlags:");
	if (v->prot & PROT_READ)
		strbuf_printf(o, " rd");
	if (v->prot & PROT_WRITE)
		strbuf_printf(o, " wr");
	if (v->prot & PROT_EXEC)
		strbuf_printf(o, " ex");
	if (shared)
		strbuf_printf(o, " sh");
	/* What mprotect may add: everything but write on a read-only shared
	 * file and exec on a noexec mount. */
	strbuf_printf(o, " mr%s%s", (v->flags & VMA_NOWRITE) ? "" : " mw",
		      (v->flags & VMA_NOEXEC) ? "" : " me");
	if (shared)
		strbuf_printf(o, " ms");
	if (v->flags & VMA_GROWSDOWN)
		strbuf_printf(o, " gd");
	if (v->flags & VMA_LOCKED)
		strbuf_printf(o, " lo");
	if (v->flags & VMA_DONTFORK)
		strbuf_printf(o, " dc");
	if (!(v->flags & VMA_NORESERVE) && !shared && (v->prot & PROT_WRITE))
		strbuf_printf(o, " ac");
	if (v->flags & VMA_WIPEONFORK)
		strbuf_printf(o, " wf");
	strbuf_printf(o, "\n");
}

static void walk_one(const struct vma *v, void *arg)
{
	struct walk *w = arg;
	struct mem_stats s;

	memset(&s, 0, sizeof(s));
	vma_stats(w->mm, v, &s);
	if (!w->total.size)
		w->first = v->start;
	w->last = v->end;
	w->total.size += s.size;
	w->total.rss += s.rss;
	w->total.anon += s.anon;
	w->total.file += s.file;
	w->total.shmem += s.shmem;
	w->total.shared_clean += s.shared_clean;
	w->total.shared_dirty += s.shared_dirty;
	w->total.private_clean += s.private_clean;
	w->total.private_dirty += s.private_dirty;
	w->total.text += s.text;
	w->total.data += s.data;
	w->total.stack += s.stack;
	w->total.locked += s.locked;
	if (!w->smaps)
		return;
	proc_maps_line(v, w->smaps);
	kb(w->smaps, "Size:", s.size);
	kb(w->smaps, "KernelPageSize:", PAGE_SIZE);
	kb(w->smaps, "MMUPageSize:", PAGE_SIZE);
	smap_lines(w->smaps, &s, false);
	strbuf_printf(w->smaps, "THPeligible:    0\n");
	vm_flags(w->smaps, v);
}

static void walk(struct mm *mm, struct walk *w, struct strbuf *smaps)
{
	memset(w, 0, sizeof(*w));
	w->smaps = smaps;
	w->mm = mm;
	if (w->mm)
		mm_for_each_vma(w->mm, walk_one, w);
}

void proc_mem_sizes(struct mm *mm, uint64_t *vsize, uint64_t *rss)
{
	struct proc_mem_figures f;

	proc_mem_figures(mm, &f);
	*vsize = f.vsize;
	*rss = f.rss;
}

void proc_mem_figures(struct mm *mm, struct proc_mem_figures *f)
{
	struct walk w;

	walk(mm, &w, NULL);
	*f = (struct proc_mem_figures){.vsize = w.total.size,
				       .rss = w.total.rss,
				       .data = w.total.data,
				       .stack = w.total.stack,
				       .text = w.total.text};
}

void proc_gen_statm(struct proc_ctx *c, struct strbuf *o)
{
	struct walk w;

	walk(c->mm, &w, NULL);
	/* size resident shared text lib data dt, in pages (lib and dt are 0). */
	strbuf_printf(o, "%llu %llu %llu %llu 0 %llu 0\n",
		      (unsigned long long)(w.total.size / PAGE_SIZE),
		      (unsigned long long)(w.total.rss / PAGE_SIZE),
		      (unsigned long long)((w.total.file + w.total.shmem) / PAGE_SIZE),
		      (unsigned long long)(w.total.text / PAGE_SIZE),
		      (unsigned long long)((w.total.data + w.total.stack) / PAGE_SIZE));
}

void proc_gen_smaps(struct proc_ctx *c, struct strbuf *o)
{
	struct walk w;

	walk(c->mm, &w, o);
}

void proc_gen_smaps_rollup(struct proc_ctx *c, struct strbuf *o)
{
	struct walk w;
	int n;

	walk(c->mm, &w, NULL);
	/* The header spans the VMAs, padded as maps pads a line without a name. */
	n = (int)strlen("000000000000-000000000000 ---p 00000000 00:00 0");
	strbuf_printf(o, "%012llx-%012llx ---p 00000000 00:00 0%*s[rollup]\n",
		      (unsigned long long)w.first, (unsigned long long)w.last, 73 - n, "");
	smap_lines(o, &w.total, true);
}
