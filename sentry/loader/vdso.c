/*
 * rung's own vDSO, sentry side.
 *
 * The image (sentry/loader/vdso/, built freestanding and embedded) and its
 * data page live in a page store of the memory file: [data page][image].
 * Every exec maps both, shared and never writable (VMA_NOWRITE: mprotect
 * cannot add PROT_WRITE to them), so all guests read the one data page.
 *
 * The guest clocks are the host's, carried forward with the TSC: a segment
 * (tsc0, base[], mult) says what each clock reads at tsc0 and how fast it
 * runs. A sentry thread starts a new segment every 50 ms, continuing the
 * old one where it ends (CLOCK_MONOTONIC and CLOCK_BOOTTIME never step
 * back) at a rate that brings it onto the host's clock by the next update
 * (within 500 ppm of the TSC's measured rate, as NTP slews); CLOCK_REALTIME
 * and CLOCK_TAI keep the host's distance from CLOCK_MONOTONIC, so they step
 * when the host's do. The sentry's own clock_gettime and friends read the
 * same segment (vclock_now), so a guest sees one clock whether it asks the
 * vDSO or the kernel. Without an invariant TSC the page says so and both
 * read the host's clocks.
 */
#include "config.h"
#include "sentry/loader/vdso.h"
#include "sentry/loader/vdso_data.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/pagestore.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The image (sentry/loader/vdso/image.S). */
extern const char rung_vdso_image[], rung_vdso_image_end[];

#define UPDATE_NS	 50000000ll
#define MAX_SLEW	 0.0005 /* 500 ppm */
#define FAST_SLEW	 0.05	/* when more than FAST_SLEW_NS apart */
#define FAST_SLEW_NS	 1000000ll
#define SAMPLE_TRIES	 8
#define SAMPLE_GAP_NS	 20000ll
#define REALTIME_STEP_NS 1000000ll

struct vdso {
	struct pagestore ps;
	pthread_mutex_t lock;
	struct vdso_data *page; /* the data page, in the sentry */
	uint64_t image_len;
};

/* The guest clocks of this sentry: one segment, copied to every data page. */
static struct {
	pthread_mutex_t lock; /* writers */
	bool started;
	struct vdso_data cur;
	uint64_t anchor_tsc; /* the first sample: the TSC's rate is measured from it */
	int64_t anchor_mono;
	struct vdso_data *pages[4];
	unsigned npages;
} vc = {.lock = PTHREAD_MUTEX_INITIALIZER};

static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

static int64_t host_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void cpuid(unsigned leaf, unsigned *a, unsigned *b, unsigned *c, unsigned *d)
{
	*a = leaf;
	*c = 0;
	__asm__ volatile("cpuid" : "+a"(*a), "=b"(*b), "+c"(*c), "=d"(*d));
}

/* A TSC that runs at one rate on every CPU, in every power state. */
static bool tsc_invariant(void)
{
	unsigned a, b, c, d;

	cpuid(0x80000000, &a, &b, &c, &d);
	if (a < 0x80000007)
		return false;
	cpuid(0x80000007, &a, &b, &c, &d);
	return d & (1u << 8);
}

static bool have_rdtscp(void)
{
	unsigned a, b, c, d;

	cpuid(0x80000001, &a, &b, &c, &d);
	return d & (1u << 27);
}

/* The TSC and the host's clocks at (about) the same moment: CLOCK_MONOTONIC
 * read on both sides of the TSC, the others as distances from it. A thread
 * preempted between the reads would tie the TSC to a time milliseconds off
 * (and the first segment's rate to a wrong one, the guest's clock then running
 * ahead of the host's by far more than the slew can take back), so the
 * tightest of a few tries is kept. */
static void sample(uint64_t *tsc, int64_t h[VDSO_NCLOCKS])
{
	static const clockid_t ids[VDSO_NCLOCKS] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME,
						    CLOCK_TAI};
	int64_t best = INT64_MAX;

	for (int i = 0; i < SAMPLE_TRIES && best > SAMPLE_GAP_NS; i++) {
		int64_t m0 = host_ns(CLOCK_MONOTONIC), m1;
		uint64_t t = rdtsc_ordered();
		m1 = host_ns(CLOCK_MONOTONIC);
		if (m1 - m0 < best) {
			best = m1 - m0;
			*tsc = t;
			h[VDSO_MONOTONIC] = m0 + (m1 - m0) / 2;
		}
	}
	for (int c = 0; c < VDSO_NCLOCKS; c++) {
		int64_t x, y;
		if (c == VDSO_MONOTONIC)
			continue;
		x = host_ns(ids[c]);
		y = host_ns(CLOCK_MONOTONIC);
		h[c] = h[VDSO_MONOTONIC] + (x - y);
	}
}

static int64_t eval(const struct vdso_data *d, enum vdso_clock c, uint64_t tsc)
{
	uint64_t delta = tsc - d->tsc0;

	if ((int64_t)delta < 0)
		delta = 0;
	return d->base[c] + (int64_t)(((unsigned __int128)delta * d->mult) >> 32);
}

/* Publish d in every data page and as the sentry's own (vc.lock held). */
static void publish(const struct vdso_data *d)
{
	struct vdso_data *dst[ARRAY_SIZE(vc.pages) + 1];
	unsigned n = 0;

	dst[n++] = &vc.cur;
	for (unsigned i = 0; i < vc.npages; i++)
		dst[n++] = vc.pages[i];
	for (unsigned i = 0; i < n; i++) {
		volatile struct vdso_data *p = dst[i];
		uint32_t seq = p->seq;
		__atomic_store_n(&dst[i]->seq, seq + 1, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		p->ok = d->ok;
		p->tsc0 = d->tsc0;
		p->mult = d->mult;
		for (int c = 0; c < VDSO_NCLOCKS; c++)
			p->base[c] = d->base[c];
		p->getcpu_ok = d->getcpu_ok;
		p->ncpus = d->ncpus;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&dst[i]->seq, seq + 2, __ATOMIC_RELEASE);
	}
}

/* A new segment that continues the current one (vc.lock held). */
static void update_locked(void)
{
	struct vdso_data d = vc.cur;
	int64_t h[VDSO_NCLOCKS], g, e, rate_ns, boot_off;
	uint64_t t;
	double nominal, mult, slew;

	sample(&t, h);
	if (t <= vc.anchor_tsc || t <= d.tsc0)
		return;
	rate_ns = h[VDSO_MONOTONIC] - vc.anchor_mono;
	nominal = (double)rate_ns * 4294967296.0 / (double)(t - vc.anchor_tsc);
	g = eval(&d, VDSO_MONOTONIC, t);
	e = h[VDSO_MONOTONIC] - g;
	/* Catch up with the host by the next update, slewing at most MAX_SLEW
	 * (FAST_SLEW when more than a millisecond apart: a guest clock ahead
	 * cannot step back, and its timers are the host's); a guest clock far
	 * behind (a stalled update) jumps forward. */
	slew = llabs(e) > FAST_SLEW_NS ? FAST_SLEW : MAX_SLEW;
	mult = nominal * (1.0 + MAX(MIN((double)e / UPDATE_NS, slew), -slew));
	if (e > UPDATE_NS)
		g = h[VDSO_MONOTONIC];
	boot_off = MAX(h[VDSO_BOOTTIME] - h[VDSO_MONOTONIC],
		       d.base[VDSO_BOOTTIME] - d.base[VDSO_MONOTONIC]);
	d.tsc0 = t;
	d.mult = (uint64_t)mult;
	d.base[VDSO_MONOTONIC] = g;
	d.base[VDSO_BOOTTIME] = g + boot_off;
	d.base[VDSO_REALTIME] = g + (h[VDSO_REALTIME] - h[VDSO_MONOTONIC]);
	d.base[VDSO_TAI] = g + (h[VDSO_TAI] - h[VDSO_MONOTONIC]);
	publish(&d);
}

static void *updater(void *arg)
{
	sigset_t all;
	struct timespec ts = {0, UPDATE_NS};

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&vc.lock);
		update_locked();
		pthread_mutex_unlock(&vc.lock);
	}
	return NULL;
}

/* The first segment: the TSC's rate from two samples a millisecond apart. */
static void clock_start_locked(unsigned ncpus)
{
	struct vdso_data d = {0};
	int64_t h0[VDSO_NCLOCKS], h1[VDSO_NCLOCKS];
	uint64_t t0, t1;
	pthread_t thr;

	d.ncpus = ncpus ? ncpus : 1;
	d.getcpu_ok = have_rdtscp();
	if (tsc_invariant()) {
		sample(&t0, h0);
		do
			sample(&t1, h1);
		while (h1[VDSO_MONOTONIC] - h0[VDSO_MONOTONIC] < 1000000);
		if (t1 > t0) {
			d.ok = 1;
			d.tsc0 = t1;
			d.mult = (uint64_t)((double)(h1[VDSO_MONOTONIC] - h0[VDSO_MONOTONIC]) *
					    4294967296.0 / (double)(t1 - t0));
			memcpy(d.base, h1, sizeof(d.base));
			vc.anchor_tsc = t0;
			vc.anchor_mono = h0[VDSO_MONOTONIC];
		}
	}
	publish(&d);
	vc.started = true;
	if (d.ok && pthread_create(&thr, NULL, updater, NULL) == 0)
		pthread_detach(thr);
	else if (d.ok) {
		d.ok = 0;
		publish(&d);
	}
	log_debug("vdso: clocks %s", d.ok ? "from the TSC" : "through system calls");
}

uint64_t vclock_now(clockid_t clk)
{
	static const clockid_t host[VDSO_NCLOCKS] = {CLOCK_REALTIME, CLOCK_MONOTONIC,
						     CLOCK_BOOTTIME, CLOCK_TAI};
	enum vdso_clock c;
	struct vdso_data d;
	uint32_t seq;
	int64_t ns;

	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_REALTIME_ALARM:
		c = VDSO_REALTIME;
		break;
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		c = VDSO_BOOTTIME;
		break;
	case CLOCK_TAI:
		c = VDSO_TAI;
		break;
	default:
		c = VDSO_MONOTONIC;
		break;
	}
	do {
		seq = __atomic_load_n(&vc.cur.seq, __ATOMIC_ACQUIRE);
		d = vc.cur;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || __atomic_load_n(&vc.cur.seq, __ATOMIC_ACQUIRE) != seq);
	if (!d.ok)
		return (uint64_t)host_ns(host[c]);
	ns = eval(&d, c, rdtsc_ordered());
	return ns < 0 ? 0 : (uint64_t)ns;
}

/* --- the image and the data page in the memory file ------------------------------ */

static void vb_get(void *obj, uint64_t pgoff)
{
	(void)obj;
	(void)pgoff;
}

static void vb_put(void *obj, uint64_t pgoff)
{
	(void)obj;
	(void)pgoff;
}

static long vb_read(void *obj, void *dst, size_t len, uint64_t off)
{
	struct vdso *v = obj;
	uint64_t size = VDSO_DATA_SIZE + v->image_len;

	if (off >= size)
		return 0;
	len = MIN(len, size - off);
	pthread_mutex_lock(&v->lock);
	ps_read(&v->ps, dst, len, off);
	pthread_mutex_unlock(&v->lock);
	return (long)len;
}

static int vb_pages(void *obj, uint64_t off, uint64_t len, bool writable, struct pagestore **ps,
		    pthread_mutex_t **lock)
{
	struct vdso *v = obj;

	if (writable)
		return -EACCES;
	(void)off;
	(void)len;
	*ps = &v->ps;
	*lock = &v->lock;
	return 0;
}

static const struct mm_backing_ops vdso_backing_ops = {
	.get = vb_get,
	.put = vb_put,
	.read = vb_read,
	.pages = vb_pages,
};

int vdso_create(struct memfile *mf, unsigned ncpus, struct vdso **out)
{
	const char *env = getenv("RUNG_VDSO");
	struct vdso *v;
	uint64_t file_off, avail;
	long r;

	*out = NULL;
	if (env && *env == '0')
		return 0;
	v = xzalloc(sizeof(*v));
	pthread_mutex_init(&v->lock, NULL);
	ps_init(&v->ps, mf);
	v->image_len = (uint64_t)(rung_vdso_image_end - rung_vdso_image);
	r = ps_write(&v->ps, rung_vdso_image, v->image_len, VDSO_DATA_SIZE);
	if (r >= 0)
		r = ps_map(&v->ps, 0, &file_off, &avail);
	if (r < 0) {
		vdso_destroy(v);
		return (int)r;
	}
	v->page = memfile_ptr(mf, file_off);
	pthread_mutex_lock(&vc.lock);
	if (vc.npages == ARRAY_SIZE(vc.pages)) {
		pthread_mutex_unlock(&vc.lock);
		vdso_destroy(v);
		return 0; /* that many sandboxes in one process: the rest do without */
	}
	vc.pages[vc.npages++] = v->page;
	if (!vc.started)
		clock_start_locked(ncpus);
	else
		publish(&vc.cur);
	pthread_mutex_unlock(&vc.lock);
	*out = v;
	return 0;
}

void vdso_destroy(struct vdso *v)
{
	if (!v)
		return;
	pthread_mutex_lock(&vc.lock);
	for (unsigned i = 0; i < vc.npages; i++)
		if (vc.pages[i] == v->page) {
			vc.pages[i] = vc.pages[--vc.npages];
			break;
		}
	pthread_mutex_unlock(&vc.lock);
	ps_release(&v->ps);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

int vdso_map(struct vdso *v, struct mm *mm, uint64_t *ehdr)
{
	uint64_t image = ALIGN_UP(v->image_len, PAGE_SIZE), len = VDSO_DATA_SIZE + image;
	uint64_t addr = mm_unmapped_area(mm, len);
	struct mmap_req data = {.len = VDSO_DATA_SIZE,
				.prot = PROT_READ,
				.flags = MAP_SHARED | MAP_FIXED,
				.vma_flags = VMA_NOWRITE | VMA_VVAR,
				.bops = &vdso_backing_ops,
				.bobj = v,
				.off = 0};
	struct mmap_req text = {.len = image,
				.prot = PROT_READ | PROT_EXEC,
				.flags = MAP_SHARED | MAP_FIXED,
				.vma_flags = VMA_NOWRITE | VMA_VDSO,
				.bops = &vdso_backing_ops,
				.bobj = v,
				.off = VDSO_DATA_SIZE};
	long r;

	if (!addr)
		return -ENOMEM;
	data.addr = addr;
	text.addr = addr + VDSO_DATA_SIZE;
	r = mm_mmap(mm, &data);
	if (r >= 0)
		r = mm_mmap(mm, &text);
	if (r < 0)
		return (int)r;
	*ehdr = text.addr;
	return 0;
}
