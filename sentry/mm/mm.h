/*
 * A guest address space (mm): the VMA tree that says what the guest mapped,
 * the memory objects behind it, and the platform address space that mirrors
 * it. Every change goes to the tree first, then to the platform (when one is
 * attached), so the stub never maps anything the sentry does not know about.
 *
 * Anonymous memory is mapped into the stub when its VMA is created (the
 * memory file's untouched pages cost nothing), so the only guest faults the
 * sentry sees are real protection errors, stack growth, and the pages of a
 * file mapping past the file's end (sentry/mm/eof.c).
 *
 * All functions return 0 (or a value) on success and -errno on failure, as
 * the syscalls they implement do. Locking: mm->lock, taken inside.
 */
#ifndef RUNG_MM_H
#define RUNG_MM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "lib/list.h"
#include "lib/rbtree.h"
#include "platform/platform.h"

struct memfile;
struct mobj;
struct pagestore;
struct aio_table;

/* <sys/user.h> may already define these, with the same values. */
#ifndef PAGE_SIZE
#define PAGE_SIZE GUEST_PAGE_SIZE
#endif
#ifndef PAGE_MASK
#define PAGE_MASK (~(PAGE_SIZE - 1))
#endif

/* Linux's stack_guard_gap: no mapping may be placed this close below a stack. */
#define STACK_GUARD_GAP (256ul * PAGE_SIZE)
/* The most a main stack reserves in the memory file for growing down. */
#define MM_STACK_RESERVE_MAX (1ul << 30)
/* Linux's default vm.max_map_count. */
#define MM_MAX_VMAS 65530

/* vma->flags */
#define VMA_SHARED     0x01u /* MAP_SHARED */
#define VMA_GROWSDOWN  0x02u /* expands downward on faults below it */
#define VMA_STACK      0x04u /* the main thread's stack ("[stack]") */
#define VMA_HEAP       0x08u /* the brk area ("[heap]") */
#define VMA_DONTFORK   0x10u
#define VMA_WIPEONFORK 0x20u
#define VMA_NORESERVE  0x40u
#define VMA_LOCKED     0x80u
#define VMA_NOWRITE    0x100u /* shared file mapping without write access: mprotect may not add it */
#define VMA_VDSO       0x200u /* rung's vDSO ("[vdso]") */
#define VMA_VVAR       0x400u /* its data page ("[vvar]") */
#define VMA_NOEXEC     0x800u /* a file on a noexec mount: mprotect may not add PROT_EXEC */

/*
 * What a file mapping maps (a struct file: sentry/fs/filemap.c; mm does not
 * know files). Each VMA of the mapping holds a reference on obj.
 */
struct mm_backing_ops {
	/* A VMA at offset pgoff of obj starts or stops using it. */
	void (*get)(void *obj, uint64_t pgoff);
	void (*put)(void *obj, uint64_t pgoff);
	/* Private mappings: read len bytes at off into dst (short at end of file). */
	long (*read)(void *obj, void *dst, size_t len, uint64_t off);
	/* Shared mappings: the page store that holds the file's bytes
	 * [off, off+len), filled, and the lock that guards it. writable: the
	 * mapping may be written (its pages must go back to the file). */
	int (*pages)(void *obj, uint64_t off, uint64_t len, bool writable, struct pagestore **ps,
		     pthread_mutex_t **lock);
	/* Write the shared pages of [off, off+len) back to the file. Optional. */
	int (*writeback)(void *obj, uint64_t off, uint64_t len);
	/* The struct file the mapping shows in /proc (maps, map_files), when
	 * obj is not one itself (a System V segment). Optional. */
	struct file *(*file)(void *obj);
	/* The file's size now (mappings past its end: sentry/mm/eof.c).
	 * Optional. */
	uint64_t (*size)(void *obj);
};

struct vma {
	struct rb_node node;
	uint64_t start, end; /* [start, end), page aligned */
	int prot;	     /* PROT_READ | PROT_WRITE | PROT_EXEC */
	unsigned flags;	     /* VMA_* */
	struct mobj *mobj;   /* backing memory; NULL for a private PROT_NONE reservation */
	uint64_t mobj_off;   /* offset of start within mobj */
	/* A file mapping: the file (referenced) and the file offset of start. */
	const struct mm_backing_ops *bops;
	void *bobj;
	uint64_t pgoff;
	/* mmap(2) of a file: the file offset (page aligned) where the file
	 * ended when last asked; the pages from there on SIGBUS
	 * (sentry/mm/eof.c). VMA_NO_EOF for every other VMA. */
	uint64_t eof_off;
};

#define VMA_NO_EOF UINT64_MAX

struct mm {
	int refs;
	struct list_head all_node; /* in the list of every mm (mm_for_each) */
	/* Another process shrank a file this mm maps, and the platform let
	 * only the mm's own threads unmap (ptrace): they do, before they run
	 * guest code again (mm_eof_sync). Atomic. */
	int eof_unmap_due;
	int users; /* tasks running in it (atomic): threads, CLONE_VM children */
	struct memfile *mf;
	struct address_space *as; /* NULL until mm_attach() */
	pthread_rwlock_t lock;
	struct rb_root vmas;
	unsigned long nr_vmas;

	uint64_t mmap_base;	     /* top-down searches start below here */
	uint64_t start_brk, brk;     /* heap: [start_brk, brk) */
	uint64_t stack_top;	     /* end of the main stack */
	uint64_t start_stack;	     /* initial stack pointer */
	uint64_t arg_start, arg_end; /* argv strings */
	uint64_t env_start, env_end; /* envp strings */
	/* The auxiliary vector exec built, AT_NULL pair included (Linux's
	 * saved_auxv, what /proc/<pid>/auxv shows). */
	uint64_t saved_auxv[64];
	unsigned saved_auxv_words;

	uint64_t committed; /* bytes of VMAs that have memory behind them */
	uint64_t limit;	    /* the sandbox's guest memory limit */

	/* Per address space flags of the process (kept over fork). */
	bool thp_disable;	 /* PR_SET_THP_DISABLE (kept over exec too) */
	bool lock_future;	 /* mlockall(MCL_FUTURE): new mappings are locked */
	unsigned membarrier_reg; /* MEMBARRIER_CMD_REGISTER_* done (reset by exec) */
	uint64_t committed_peak; /* committed before its last decrease (getrusage's maxrss) */
	/* Its native AIO contexts (sentry/kernel/aio.c), NULL until io_setup:
	 * not inherited by fork, ended by mm_put through mm_aio_exit. */
	struct aio_table *aio;
};

/* Set by the AIO code: ends an address space's AIO contexts before its
 * mappings go (Linux's exit_aio). */
extern void (*mm_aio_exit)(struct mm *mm);

/* The most memory mm has had committed (a racy read is fine). */
static inline uint64_t mm_committed_peak(const struct mm *mm)
{
	return mm->committed > mm->committed_peak ? mm->committed : mm->committed_peak;
}

/* An mmap: the guest's arguments, plus what the memory holds. */
struct mmap_req {
	uint64_t addr;
	uint64_t len;
	int prot;
	int flags;	    /* MAP_* */
	unsigned vma_flags; /* extra VMA_* (VMA_STACK, VMA_HEAP, VMA_NOWRITE) */
	/*
	 * A file mapping: the file and the offset. A private one starts as a
	 * copy of the file's bytes (read once, when the mapping is made); a
	 * shared one is a window onto the file's page store.
	 */
	const struct mm_backing_ops *bops;
	void *bobj;
	uint64_t off;
	/* Pages past the file's end SIGBUS, as mmap(2)'s do (bops->size). */
	bool sigbus_past_eof;
};

int mm_new(struct memfile *mf, uint64_t limit, struct mm **out);
/* Call fn on every live address space, holding a reference, no lock. */
void mm_for_each(void (*fn)(struct mm *mm, void *arg), void *arg);
/* A file shrank to size: the pages of its mmap(2) mappings (the VMAs whose
 * backing match says is it) past its new end are the guest's no more,
 * private copies too, as Linux's truncate_pagecache unmaps them (SIGBUS
 * from then on: sentry/mm/eof.c). In every address space. */
void mm_backing_shrunk(bool (*match)(const void *bobj, const void *arg), const void *arg,
		       uint64_t size);
void mm_eof_unmap(struct mm *mm);
/* Before a thread of mm runs guest code. */
static inline void mm_eof_sync(struct mm *mm)
{
	if (__builtin_expect(__atomic_load_n(&mm->eof_unmap_due, __ATOMIC_ACQUIRE), 0))
		mm_eof_unmap(mm);
}
/* fork: a copy of old (private memory copied, shared memory shared, DONTFORK
 * left out, WIPEONFORK fresh), with no platform address space yet. */
int mm_fork(struct mm *old, struct mm **out);
struct mm *mm_get(struct mm *mm);
void mm_put(struct mm *mm);

/* The bytes of mm's memory the host holds pages for (its resident set:
 * sentry/mm/rss.c; it walks every page, not for hot paths). */
uint64_t mm_resident(struct mm *mm);
/* The same for one VMA of mm (the caller holds mm->lock, as mm_for_each_vma
 * does). */
uint64_t vma_resident(struct mm *mm, const struct vma *v);

/* Give mm a platform address space and map every existing VMA into it. */
int mm_attach(struct mm *mm, struct address_space *as);

/* Anonymous mmap. Returns the address or -errno. */
long mm_mmap(struct mm *mm, const struct mmap_req *req);
int mm_munmap(struct mm *mm, uint64_t addr, uint64_t len);
int mm_mprotect(struct mm *mm, uint64_t addr, uint64_t len, int prot);
long mm_mremap(struct mm *mm, uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags,
	       uint64_t new_addr);
int mm_madvise(struct mm *mm, uint64_t addr, uint64_t len, int advice);
/* Name the private memory of [start, end) as a copy of bobj from file offset
 * pgoff (the ELF loader's segments, for /proc/pid/maps). */
void mm_set_backing(struct mm *mm, uint64_t start, uint64_t end, const struct mm_backing_ops *bops,
		    void *bobj, uint64_t pgoff);
/* msync(2): write the shared file pages of [addr, addr+len) back. */
int mm_msync(struct mm *mm, uint64_t addr, uint64_t len, int flags);
/* The main stack: a GROWSDOWN VMA [top - len, top) whose memory object
 * reserves reserve bytes, so that growing down stays one VMA. */
int mm_map_stack(struct mm *mm, uint64_t top, uint64_t len, uint64_t reserve);
/* brk(2): returns the new (or unchanged) break; never fails. */
uint64_t mm_brk(struct mm *mm, uint64_t addr);
/* Set up the heap at start (page aligned by the caller's choice). */
void mm_set_brk(struct mm *mm, uint64_t start);

/*
 * A guest fault at addr with access (ACCESS_*): grow a stack when that is what
 * the fault asks for. Returns 0 when the guest may retry, the si_code of
 * the SIGSEGV it must get (SEGV_MAPERR or SEGV_ACCERR), or MM_FAULT_SIGBUS
 * for a page of a file mapping past the file's end (SIGBUS, BUS_ADRERR).
 */
#define MM_FAULT_SIGBUS 0x100
int mm_handle_fault(struct mm *mm, uint64_t addr, unsigned access, uint64_t stack_limit);

/* Make [addr, addr+len) the guest's own (copied if a fork shares it) before
 * the sentry writes it, and map it writable. 0, or -EFAULT where the guest
 * may not write, or the platform's error. */
int mm_prepare_write(struct mm *mm, uint64_t addr, size_t len);

/* Copies between the sentry and guest memory, checked against the guest's
 * protections. Return 0 or -EFAULT; nothing is copied past the first bad byte
 * (copy_out may have written a prefix, as Linux's copy_to_user may). */
int mm_copy_in(struct mm *mm, void *dst, uint64_t addr, size_t len);
int mm_copy_out(struct mm *mm, uint64_t addr, const void *src, size_t len);
int mm_zero_out(struct mm *mm, uint64_t addr, size_t len);
/* Copy a NUL-terminated string of at most max bytes (NUL included) into dst.
 * Returns its length, -EFAULT, or -ENAMETOOLONG when no NUL came within max. */
long mm_strncpy_in(struct mm *mm, char *dst, uint64_t addr, size_t max);
/* Like mm_copy_in but returns how many bytes could be copied before a fault. */
size_t mm_copy_in_partial(struct mm *mm, void *dst, uint64_t addr, size_t len);
/* Linux's copy_struct_from_user: a guest struct of usize bytes at src into
 * dst, a kernel one of ksize: zero-extended when shorter, and when longer
 * its bytes past ksize must be zero (-E2BIG otherwise). 0 or -errno. */
int mm_copy_struct_in(struct mm *mm, void *dst, size_t ksize, uint64_t src, uint64_t usize);
size_t mm_copy_out_partial(struct mm *mm, uint64_t addr, const void *src, size_t len);
/*
 * Guest memory pinned for a host system call to read or write directly
 * (no copy): sentry pointers for [addr, addr+len) up to the first byte the
 * guest may not access (want_write: the host writes into it), each segment
 * holding a reference on its memory object so the pages stay the guest's
 * even if the guest unmaps them meanwhile. When not even the first byte is
 * accessible, the one segment points at an address the host cannot touch
 * either, so the host call fails (or not: a read at end of file) exactly as
 * Linux would for the guest. The mm lock is not held after mm_pin returns.
 */
#define MM_PIN_SEGS 16
struct mm_pin {
	struct iovec iov[MM_PIN_SEGS];
	struct mobj *objs[MM_PIN_SEGS];
	int n;
	bool write;
};
void mm_pin(struct mm *mm, uint64_t addr, size_t len, bool want_write, struct mm_pin *pin);
void mm_unpin(struct mm_pin *pin);
/* Linux's access_ok: does [addr, addr+len) lie below the top of user space? */
static inline bool mm_range_ok(uint64_t addr, size_t len)
{
	return len <= HOST_TASK_SIZE && addr <= HOST_TASK_SIZE - len;
}

/* Could the whole of [addr, addr+len) be written (want_write) or read? */
bool mm_access_ok(struct mm *mm, uint64_t addr, size_t len, bool want_write);
/*
 * Linux's access_remote_vm with FOLL_FORCE (/proc/<pid>/mem, and what a
 * tracer's PEEKDATA/POKEDATA need): read any mapped byte whatever its
 * protection; write where the VMA is writable or private (a read-only
 * private mapping gets the process's own copy of the page, its protection
 * unchanged). Returns the bytes done before the first that is not.
 */
size_t mm_access_force(struct mm *mm, uint64_t addr, void *buf, size_t len, bool write);
/* Read guest memory regardless of its protection (instruction bytes for reports). */
int mm_peek(struct mm *mm, void *dst, uint64_t addr, size_t len);

/* A free range of len bytes, top-down from the mmap base (as mmap with no
 * hint would choose), or 0 when there is none. */
uint64_t mm_unmapped_area(struct mm *mm, uint64_t len);

/* Lookup (caller holds mm->lock): the VMA containing addr, or NULL. */
struct vma *mm_find_vma(struct mm *mm, uint64_t addr);
/* The first VMA with end > addr, or NULL. */
struct vma *mm_find_vma_after(struct mm *mm, uint64_t addr);

/* mlock, munlock (sentry/mm/mlock.c): mark [addr, addr+len), rounded out
 * to pages, locked or not; -ENOMEM when part of it is unmapped, or (locked
 * and populate: not MLOCK_ONFAULT) PROT_NONE. */
int mm_set_locked(struct mm *mm, uint64_t addr, uint64_t len, bool locked, bool populate);
/* mlockall: every mapping now (current), and later ones (future). */
void mm_lock_all(struct mm *mm, bool current, bool future);
/* munlockall. */
void mm_unlock_all(struct mm *mm);
/* Is the VMA at addr locked? */
bool mm_is_locked(struct mm *mm, uint64_t addr);
/* The bytes of the locked VMAs (VmLck), of every VMA (VmSize, RLIMIT_AS). */
uint64_t mm_locked_bytes(struct mm *mm);
uint64_t mm_mapped_bytes(struct mm *mm);
/* mincore: one byte per page from page-aligned addr (1: the host holds
 * it), into vec; -ENOMEM when part of the range is unmapped. */
int mm_mincore(struct mm *mm, uint64_t addr, uint64_t pages, unsigned char *vec);

/* For tests and /proc: call fn for each VMA in address order under the read lock. */
void mm_for_each_vma(struct mm *mm, void (*fn)(const struct vma *v, void *arg), void *arg);

#endif
