#include "config.h"
#include "sentry/mm/mobj.h"
#include "sentry/mm/memfile.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>

int mobj_new(struct memfile *mf, uint64_t len, bool shared, struct mobj **out)
{
	uint64_t off;
	struct mobj *m;
	int ret = memfile_alloc(mf, len, &off);

	if (ret < 0)
		return ret;
	m = xmalloc(sizeof(*m));
	m->refs = 1;
	m->shared = shared;
	m->mf = mf;
	m->off = off;
	m->len = len;
	*out = m;
	return 0;
}

struct mobj *mobj_get(struct mobj *m)
{
	__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	return m;
}

void mobj_put(struct mobj *m)
{
	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	memfile_free(m->mf, m->off, m->len);
	free(m);
}

int mobj_grow(struct mobj *m, uint64_t newlen)
{
	int ret = memfile_extend(m->mf, m->off, m->len, newlen);

	if (ret == 0)
		m->len = newlen;
	return ret;
}
