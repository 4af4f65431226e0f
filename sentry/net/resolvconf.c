/* The nameservers of the guest's resolv.conf (resolvconf.h). */
#include "config.h"
#include "sentry/net/resolvconf.h"
#include "sentry/kernel/kernel.h"
#include "lib/log.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The address of a nameserver line's rest (s, up to end) into ns. */
static bool parse_addr(const char *s, const char *end, struct resolv_nameserver *ns)
{
	static const uint8_t zero[16];
	char buf[INET6_ADDRSTRLEN + 1];
	size_t n = 0;

	while (s < end && blank(*s))
		s++;
	while (s + n < end && !blank(s[n]) && s[n] != '%' && s[n] != '\r' && s[n] != '\0')
		n++;
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	memset(ns->addr, 0, sizeof(ns->addr));
	if (inet_pton(AF_INET, buf, ns->addr) == 1)
		ns->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, ns->addr) == 1)
		ns->family = AF_INET6;
	else
		return false;
	return memcmp(ns->addr, zero, ns->family == AF_INET ? 4 : 16) != 0;
}

void resolv_conf_parse(const char *text, size_t len, struct resolv_conf *out)
{
	static const char kw[] = "nameserver";
	const char *s = text, *end = text + len;

	memset(out, 0, sizeof(*out));
	while (s < end && out->n < RESOLV_MAXNS) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;

		if ((size_t)(eol - s) > sizeof(kw) && memcmp(s, kw, sizeof(kw) - 1) == 0 &&
		    blank(s[sizeof(kw) - 1]) &&
		    parse_addr(s + sizeof(kw) - 1, eol, &out->ns[out->n]))
			out->n++;
		s = nl ? nl + 1 : end;
	}
}

void resolv_conf_read(struct kernel *k, struct resolv_conf *out)
{
	char *buf = xmalloc(RESOLV_CONF_MAX);
	long n = kernel_read_file(k, "/etc/resolv.conf", buf, RESOLV_CONF_MAX);

	if (n < 0) {
		log_debug("network: no /etc/resolv.conf in the guest (%s)", strerror((int)-n));
		n = 0;
	}
	resolv_conf_parse(buf, (size_t)n, out);
	free(buf);
}
