/*
 * Reference counts of memory-file pages shared by copy-on-write (fork).
 *
 * Every allocated page of private guest memory has an owner count: one
 * private memory object (mobj) that maps it, or several after a fork shared
 * it. Only counts above one are stored, as ranges of the file with one count
 * each; a page the table does not name has exactly one owner. A page whose
 * count drops to zero goes back to the memory file.
 *
 * Locking: the table's own mutex, taken inside; callers may hold mm locks.
 */
#ifndef RUNG_FRAMES_H
#define RUNG_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

struct memfile;

/* One more owner for each page of [off, off+len) (page aligned). */
void frames_ref(struct memfile *mf, uint64_t off, uint64_t len);
/* One owner fewer for each page of [off, off+len); pages left with none are
 * freed (memfile_free). */
void frames_unref(struct memfile *mf, uint64_t off, uint64_t len);
/* The length of the run from off (at most len) whose pages are all shared
 * (*shared true: count above one) or all exclusive (*shared false). */
uint64_t frames_run(struct memfile *mf, uint64_t off, uint64_t len, bool *shared);
/* The owner count of the page at off (for tests and assertions). */
unsigned frames_count(struct memfile *mf, uint64_t off);
/* Number of stored ranges (for tests and statistics). */
unsigned long frames_ranges(struct memfile *mf);
/* Drop the table (memfile_destroy). */
void frames_destroy(struct memfile *mf);

#endif
