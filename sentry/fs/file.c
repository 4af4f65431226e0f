#include "config.h"
#include "sentry/fs/file.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct file *file_alloc(const struct file_ops *ops, int flags, void *priv)
{
	struct file *f = xzalloc(sizeof(*f));

	f->refs = 1;
	f->ops = ops;
	f->flags = flags;
	f->priv = priv;
	return f;
}

struct file *file_get(struct file *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
	return f;
}

void file_put(struct file *f)
{
	if (!f || __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (f->ops->release)
		f->ops->release(f);
	free(f);
}

int file_getfl(struct file *f)
{
	return f->ops->getfl ? f->ops->getfl(f) : f->flags;
}
