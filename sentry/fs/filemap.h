/* Files as the backing of guest mappings (mmap of a file). */
#ifndef RUNG_FILEMAP_H
#define RUNG_FILEMAP_H

#include "sentry/mm/mm.h"

struct file;
struct inode;

/* The backing ops of every file mapping: vma->bobj is then a struct file. */
extern const struct mm_backing_ops file_backing_ops;
/* The same for a shared mapping of a file open for writing (counted in
 * inode->mmap_writable). */
extern const struct mm_backing_ops file_writable_backing_ops;

/* Linux's checks for mapping f with prot and flags (MAP_*): 0 or -errno. */
long file_mmap_check(struct file *f, int prot, int flags);
/* The part of them that is about f's access mode, which /dev/zero's
 * anonymous mappings obey too. */
long file_mmap_access(struct file *f, int prot, int flags);

/* inode's file shrank to size (a truncation in the sandbox): its mappings
 * lose the pages past the new end (mm_backing_shrunk). Call it without the
 * inode's lock. */
void file_mappings_shrunk(struct inode *inode, uint64_t size);

/* The file a VMA maps, or NULL (anonymous memory). */
static inline struct file *vma_file(const struct vma *v)
{
	if (v->bops == &file_backing_ops || v->bops == &file_writable_backing_ops)
		return (struct file *)v->bobj;
	return v->bops && v->bops->file ? v->bops->file(v->bobj) : NULL;
}

#endif
