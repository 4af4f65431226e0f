/* A growable string, for files whose content is generated (procfs). */
#ifndef RUNG_STRBUF_H
#define RUNG_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
};

void strbuf_init(struct strbuf *s);
void strbuf_release(struct strbuf *s);
void strbuf_printf(struct strbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_append(struct strbuf *s, const void *data, size_t len);
/* Hand the buffer over (NUL-terminated); s is empty afterwards. */
char *strbuf_steal(struct strbuf *s, size_t *len);

#endif
