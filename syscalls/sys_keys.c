/* add_key, request_key, keyctl (sentry/kernel/keys.c). */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/keys.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A key type name (Linux's key_get_type_from_user): EINVAL when empty or
 * too long, EPERM for the internal ones ("."). */
static long type_in(struct task *t, uint64_t addr, char *buf)
{
	long n = mm_strncpy_in(t->mm, buf, addr, KEY_TYPE_MAX);

	if (n == -ENAMETOOLONG || n == 0)
		return -EINVAL;
	if (n < 0)
		return n;
	return buf[0] == '.' ? -EPERM : 0;
}

/* A description of at most KEY_DESC_MAX bytes (NUL included), in *out. */
static long desc_in(struct task *t, uint64_t addr, char **out)
{
	char *d = xmalloc(KEY_DESC_MAX);
	long n = mm_strncpy_in(t->mm, d, addr, KEY_DESC_MAX);

	if (n < 0) {
		free(d);
		return n == -ENAMETOOLONG ? -EINVAL : n;
	}
	*out = d;
	return 0;
}

SYSCALL(add_key)
{
	char type[KEY_TYPE_MAX], *desc = NULL;
	uint64_t plen = a->a[3];
	void *payload = NULL;
	long ret;

	ret = type_in(t, a->a[0], type);
	if (ret < 0)
		return ret;
	if (a->a[1]) {
		ret = desc_in(t, a->a[1], &desc);
		if (ret < 0)
			return ret;
	}
	if (plen > KEY_PAYLOAD_MAX) {
		ret = -EINVAL;
		goto out;
	}
	if (plen) {
		if (!a->a[2]) {
			ret = -EFAULT;
			goto out;
		}
		payload = xmalloc(plen);
		ret = mm_copy_in(t->mm, payload, a->a[2], plen);
		if (ret < 0)
			goto out;
	}
	ret = keys_add(t, type, desc, payload, plen, (int32_t)a->a[4]);
out:
	free(payload);
	free(desc);
	return ret;
}

SYSCALL(request_key)
{
	char type[KEY_TYPE_MAX], *desc = NULL;
	long ret;

	ret = type_in(t, a->a[0], type);
	if (ret < 0)
		return ret;
	ret = desc_in(t, a->a[1], &desc);
	if (ret < 0)
		return ret;
	/* The callout info (a[2]) would go to an upcall; there is none: a key
	 * not found is ENOKEY either way. */
	ret = keys_request(t, type, desc, (int32_t)a->a[3]);
	free(desc);
	return ret;
}

SYSCALL(keyctl)
{
	return keys_keyctl(t, (int)a->a[0], a->a[1], a->a[2], a->a[3], a->a[4]);
}
