#include "config.h"
#include "gofer/wire.h"
#include "gofer/protocol.h"

#include <errno.h>
#include <string.h>

int wire_take(struct gofer_wire *w, void *dst, size_t n)
{
	const void *p;
	int err = wire_bytes(w, n, &p);

	if (err)
		return err;
	memcpy(dst, p, n);
	return 0;
}

int wire_bytes(struct gofer_wire *w, size_t n, const void **out)
{
	if (n > w->left)
		return EINVAL;
	*out = w->p;
	w->p += n;
	w->left -= n;
	return 0;
}

int wire_string(struct gofer_wire *w, size_t max, const char **out)
{
	size_t scan = w->left < max ? w->left : max;
	const char *s = (const char *)w->p;
	const char *nul = memchr(s, '\0', scan);

	if (!nul || nul == s)
		return EINVAL;
	*out = s;
	w->p += (size_t)(nul - s) + 1;
	w->left -= (size_t)(nul - s) + 1;
	return 0;
}

bool gofer_name_ok(const char *s, size_t len)
{
	if (len == 0 || len > GOFER_NAME_MAX)
		return false;
	if (s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')))
		return false;
	return memchr(s, '/', len) == NULL && memchr(s, '\0', len) == NULL;
}

int wire_name(struct gofer_wire *w, const char **out)
{
	const char *s;
	int err = wire_string(w, GOFER_NAME_MAX + 1, &s);

	if (err)
		return err;
	if (!gofer_name_ok(s, strlen(s)))
		return EINVAL;
	*out = s;
	return 0;
}

int wire_end(const struct gofer_wire *w)
{
	return w->left ? EINVAL : 0;
}
