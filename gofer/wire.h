/*
 * Reading a request body: a cursor over the bytes after the header that
 * never reads past the datagram. Every helper returns 0 or a positive errno
 * (EINVAL for anything malformed), so op handlers can return it as is.
 */
#ifndef RUNG_GOFER_WIRE_H
#define RUNG_GOFER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gofer_wire {
	const uint8_t *p;
	size_t left;
};

/* Copy the next n bytes into dst. */
int wire_take(struct gofer_wire *w, void *dst, size_t n);
/* Point *out at the next n bytes (no copy). */
int wire_bytes(struct gofer_wire *w, size_t n, const void **out);
/* A single path component: NUL-terminated inside the message, 1..GOFER_NAME_MAX
 * bytes, not "." or "..", no '/'. */
int wire_name(struct gofer_wire *w, const char **out);
/* A NUL-terminated string of 1..max-1 bytes (max counts the NUL). */
int wire_string(struct gofer_wire *w, size_t max, const char **out);
/* The body must have been consumed exactly. */
int wire_end(const struct gofer_wire *w);

/* Is s (len bytes, no NUL among them) an acceptable single component? */
bool gofer_name_ok(const char *s, size_t len);

#endif
