#include "config.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(struct strbuf *s)
{
	s->buf = NULL;
	s->len = s->cap = 0;
}

void strbuf_release(struct strbuf *s)
{
	free(s->buf);
	strbuf_init(s);
}

static void reserve(struct strbuf *s, size_t more)
{
	if (s->len + more + 1 <= s->cap)
		return;
	s->cap = MAX(s->cap * 2, s->len + more + 1);
	s->cap = MAX(s->cap, (size_t)256);
	s->buf = xrealloc(s->buf, s->cap);
}

void strbuf_append(struct strbuf *s, const void *data, size_t len)
{
	reserve(s, len);
	memcpy(s->buf + s->len, data, len);
	s->len += len;
	s->buf[s->len] = '\0';
}

void strbuf_printf(struct strbuf *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	reserve(s, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

char *strbuf_steal(struct strbuf *s, size_t *len)
{
	char *b;

	reserve(s, 0);
	b = s->buf;
	if (len)
		*len = s->len;
	strbuf_init(s);
	return b;
}
