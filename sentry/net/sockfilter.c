/*
 * Socket filters (see sockfilter.h): the socket flavor of classic BPF
 * (sentry/kernel/cbpf.h). Loads of 1, 2 or 4 bytes in network order at a
 * constant (ABS) or X-relative (IND) offset; BPF_MSH's IP header length;
 * negative offsets into the network or link header; Linux's ancillary
 * words. A load past the end ends the program with 0: the packet goes.
 */
#include "config.h"
#include "sentry/net/sockfilter.h"
#include "sentry/kernel/cbpf.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define ANC_LAST SKF_AD_VLAN_TPID

/* SKF_AD_OFF + n for a word Linux's bpf_anc_helper knows. */
static bool anc_known(uint32_t k)
{
	uint32_t n = k - (uint32_t)SKF_AD_OFF;

	return n <= ANC_LAST && n % 4 == 0;
}

static bool sock_load_ok(const struct sock_filter *f)
{
	switch (f->code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_H | BPF_ABS:
	case BPF_LD | BPF_B | BPF_ABS:
		/* bpf_check_classic: an offset among the ancillary ones must be one */
		return f->k < (uint32_t)SKF_AD_OFF || anc_known(f->k);
	case BPF_LD | BPF_W | BPF_IND:
	case BPF_LD | BPF_H | BPF_IND:
	case BPF_LD | BPF_B | BPF_IND:
	case BPF_LDX | BPF_B | BPF_MSH:
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
		return true;
	default:
		return false;
	}
}

/* size bytes at off (a signed offset: negative ones reach the network or
 * link header, as bpf_internal_load_pointer_neg_helper), or NULL. */
static const unsigned char *at(const struct sockfilter_pkt *pkt, int64_t off, size_t size)
{
	const unsigned char *base = pkt->data;
	size_t len = pkt->len;

	if (off < 0) {
		if (off >= SKF_NET_OFF) {
			base = pkt->net, len = pkt->net_len, off -= SKF_NET_OFF;
		} else if (off >= SKF_LL_OFF) {
			base = pkt->ll, len = pkt->ll_len, off -= SKF_LL_OFF;
		} else {
			return NULL;
		}
	}
	if (!base || (uint64_t)off + size > len)
		return NULL;
	return base + off;
}

static uint32_t ancillary(const struct sockfilter_pkt *pkt, uint32_t n, uint32_t A, uint32_t X)
{
	uint32_t r;

	switch (n) {
	case SKF_AD_PROTOCOL:
		return pkt->protocol;
	case SKF_AD_PKTTYPE:
		return pkt->pkttype;
	case SKF_AD_IFINDEX:
		return pkt->ifindex;
	case SKF_AD_MARK:
		return pkt->mark;
	case SKF_AD_HATYPE:
		return pkt->hatype;
	case SKF_AD_ALU_XOR_X:
		return A ^ X;
	case SKF_AD_PAY_OFFSET:
		return pkt->net ? (uint32_t)(pkt->data - pkt->net) : 0;
	case SKF_AD_RANDOM:
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			r = 0;
		return r;
	default:
		return 0; /* queue, rxhash, cpu, VLAN, netlink attributes: none here */
	}
}

static bool sock_load(const void *ctx, const struct sock_filter *f, uint32_t A, uint32_t X,
		      uint32_t *out)
{
	const struct sockfilter_pkt *pkt = ctx;
	size_t size = BPF_SIZE(f->code) == BPF_W ? 4 : BPF_SIZE(f->code) == BPF_H ? 2 : 1;
	int64_t off = (int32_t)f->k;
	const unsigned char *p;

	switch (BPF_MODE(f->code)) {
	case BPF_LEN:
		*out = (uint32_t)pkt->len;
		return true;
	case BPF_ABS:
		if (f->k >= (uint32_t)SKF_AD_OFF) {
			*out = ancillary(pkt, f->k - (uint32_t)SKF_AD_OFF, A, X);
			return true;
		}
		break;
	case BPF_IND:
		off = (int64_t)(int32_t)(X + f->k);
		break;
	case BPF_MSH:
		p = at(pkt, off, 1);
		if (!p)
			return false;
		*out = (uint32_t)(*p & 0xf) * 4;
		return true;
	}
	p = at(pkt, off, size);
	if (!p)
		return false;
	if (size == 4)
		*out = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	else if (size == 2)
		*out = (uint32_t)p[0] << 8 | p[1];
	else
		*out = p[0];
	return true;
}

static const struct cbpf_flavor sock_flavor = {
	.mod = true,
	.load_ok = sock_load_ok,
	.load = sock_load,
};

int sockfilter_new(struct task *t, const void *val, unsigned len, struct sockfilter **out)
{
	struct sock_fprog fp;
	struct sockfilter *f;
	int ret;

	if (len != sizeof(fp))
		return -EINVAL; /* copy_bpf_fprog_from_user */
	memcpy(&fp, val, sizeof(fp));
	if (!fp.filter || fp.len == 0 || fp.len > CBPF_MAX_INSNS)
		return -EINVAL;
	f = xmalloc(sizeof(*f) + fp.len * sizeof(struct sock_filter));
	f->len = fp.len;
	if (mm_copy_in(t->mm, f->insns, (uint64_t)(uintptr_t)fp.filter,
		       fp.len * sizeof(struct sock_filter)) < 0) {
		free(f);
		return -EFAULT;
	}
	ret = cbpf_check(f->insns, f->len, CBPF_MAX_INSNS, &sock_flavor);
	if (ret < 0) {
		free(f);
		return ret;
	}
	*out = f;
	return 0;
}

void sockfilter_free(struct sockfilter *f)
{
	free(f);
}

size_t sockfilter_run(const struct sockfilter *f, const struct sockfilter_pkt *pkt, size_t cap)
{
	uint32_t keep = cbpf_run(f->insns, f->len, &sock_flavor, pkt);

	if (keep == 0)
		return 0;
	return MIN(pkt->len, MAX((size_t)keep, cap));
}
