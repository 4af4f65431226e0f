/* The sysctls the guest kernel models (see sysctl.h). */
#include "config.h"
#include "sentry/kernel/sysctl.h"
#include "sentry/kernel/kernel.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void sysctl_init(struct net_sysctl *n)
{
	n->unprivileged_port_start = 1024;
	n->ping_group_lo = 1;
	n->ping_group_hi = 0;
}

/* A decimal in [lo, hi], the whole of s but surrounding blanks. */
static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out, const char **end)
{
	char *e;
	unsigned long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || v < lo || v > hi)
		return -EINVAL;
	*out = (uint32_t)v;
	if (end) {
		*end = e;
		return 0;
	}
	while (*e == ' ' || *e == '\t' || *e == '\n')
		e++;
	return *e ? -EINVAL : 0;
}

/* A UTS name: at most 64 bytes (a trailing newline is not part of it). */
static int set_name(struct kernel *k, char *dst, const char *value)
{
	size_t len = strlen(value);

	if (len && value[len - 1] == '\n')
		len--;
	if (len > 64)
		return -EINVAL;
	pthread_mutex_lock(&k->lock);
	memcpy(dst, value, len);
	dst[len] = '\0';
	pthread_mutex_unlock(&k->lock);
	return 0;
}

static int set_hostname(struct kernel *k, const char *v)
{
	return set_name(k, k->hostname, v);
}

static int set_domainname(struct kernel *k, const char *v)
{
	return set_name(k, k->domainname, v);
}

static int set_unpriv_port(struct kernel *k, const char *v)
{
	uint32_t n;
	int ret = parse_u32(v, 0, 65535, &n, NULL);

	if (ret == 0)
		k->net_sysctl.unprivileged_port_start = n;
	return ret;
}

/* "lo hi": gids in [0, 2^31 - 1]; lo > hi means nobody (Linux's "1 0"). */
static int set_ping_range(struct kernel *k, const char *v)
{
	uint32_t lo, hi;
	const char *rest;
	int ret = parse_u32(v, 0, INT32_MAX, &lo, &rest);

	if (ret == 0)
		ret = parse_u32(rest, 0, INT32_MAX, &hi, NULL);
	if (ret == 0) {
		k->net_sysctl.ping_group_lo = lo;
		k->net_sysctl.ping_group_hi = hi;
	}
	return ret;
}

static const struct {
	const char *name;
	int (*set)(struct kernel *k, const char *value);
} table[] = {
	{"kernel.domainname", set_domainname},
	{"kernel.hostname", set_hostname},
	{"net.ipv4.ip_unprivileged_port_start", set_unpriv_port},
	{"net.ipv4.ping_group_range", set_ping_range},
};

const char *kernel_sysctl_name(size_t i)
{
	return i < ARRAY_SIZE(table) ? table[i].name : NULL;
}

int kernel_sysctl_set(struct kernel *k, const char *key, const char *value)
{
	char name[128];
	size_t len = strlen(key);

	/* "net/ipv4/x" is the same as "net.ipv4.x" (runc takes both). */
	if (len >= sizeof(name))
		return -ENOENT;
	for (size_t i = 0; i <= len; i++)
		name[i] = key[i] == '/' ? '.' : key[i];
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (strcmp(name, table[i].name) == 0)
			return table[i].set(k, value);
	return -ENOENT;
}
