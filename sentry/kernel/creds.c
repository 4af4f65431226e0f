#include "config.h"
#include "sentry/kernel/creds.h"

#include <string.h>

void creds_init(struct creds *c, uint32_t uid, uint32_t gid)
{
	memset(c, 0, sizeof(*c));
	c->uid = c->euid = c->suid = c->fsuid = uid;
	c->gid = c->egid = c->sgid = c->fsgid = gid;
	c->cap_bounding = CAP_ALL_MASK;
	if (uid == 0)
		c->cap_effective = c->cap_permitted = CAP_ALL_MASK;
}
