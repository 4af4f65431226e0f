/*
 * The systrap platform: guest threads run natively in stub processes; their
 * system calls become SIGSYS (Syscall User Dispatch, with a seccomp filter
 * behind it), their faults ordinary signals, and the stub's signal handler
 * hands each to the task's sentry thread through a shared slot and resumes
 * the guest with whatever the sentry wrote back (see layout.h, stub.S).
 *
 * This file: the platform object, its probe, the stub region (code mapped
 * once into the sentry at a random address, so that every stub forked from
 * it has it at the same place, sealed), the slot file and the CPUs tasks
 * are paired on.
 */
#include "config.h"
#include "platform/systrap/systrap.h"
#include "platform/systrap/filter.h"
#include "platform/systrap/pairing.h"
#include "sentry/mm/memfile.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF	     0
#endif
#ifndef SYS_mseal
#define SYS_mseal 462
#endif
#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

_Static_assert(STUB_REGION_SIZE % SLOT_SIZE == 0, "slots are aligned");
_Static_assert(STUB_DATA_OFF % SLOT_SIZE == 0, "slots are aligned");

/* The stub code, in the rung binary (stub.S). */
extern const char systrap_stub_start[], systrap_stub_end[];

/* The stub region: one per sentry process, made by the first platform. */
static uint64_t region_text;
static bool region_fsgsbase;

static bool have_fsgsbase(void)
{
	const char *off = getenv("RUNG_SYSTRAP_NO_FSGSBASE");

	if (off && *off == '1')
		return false;
	return (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
}

/* Fill the code and read-only data of the region at base (mapped writable). */
static int region_fill(uint64_t base, bool fsgsbase, struct rung_error *err)
{
	size_t len = (size_t)(systrap_stub_end - systrap_stub_start);
	uint8_t *code = (uint8_t *)base, *ro = code + STUB_TEXT_SIZE;
	struct systrap_filter_params fp = {.text = base, .data = base + STUB_DATA_OFF};
	struct sock_filter *insn = (struct sock_filter *)(ro + RO_GUEST_FILTER);
	struct sock_fprog *fprog = (struct sock_fprog *)(ro + RO_GUEST_FPROG);
	uint32_t flag = fsgsbase;
	unsigned short n;

	if (len > STUB_TEXT_SIZE)
		return rung_error_make(err, E2BIG, "systrap: the stub code is too big");
	memset(code, 0xcc, STUB_TEXT_SIZE); /* int3 */
	memcpy(code, systrap_stub_start, len);
	n = systrap_guest_filter(&fp, insn);
	if (n == 0 || n > RO_FILTER_MAX)
		return rung_error_make(err, EINVAL, "systrap: cannot build the guest filter");
	fprog->len = n;
	fprog->filter = insn;
	memcpy(ro + RO_FSGSBASE, &flag, sizeof(flag));
	return 0;
}

/*
 * Reserve the stub region at a random address in the platform's part of the
 * address space (above the guests'), within one 4 GiB window (the filters
 * compare low halves), fill its code and seal it.
 */
static int region_init(struct rung_error *err)
{
	const uint64_t lo = GUEST_MAX_ADDR,
		       span = HOST_TASK_SIZE - GUEST_MAX_ADDR - STUB_REGION_SIZE - (1ull << 32);
	bool fsgsbase = have_fsgsbase();

	if (region_text)
		return 0;
	for (int i = 0; i < 256; i++) {
		uint64_t r = 0, base;
		void *p;
		int ret;
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = monotonic_ns() * 0x9e3779b97f4a7c15ull;
		base = lo + ALIGN_DOWN(r % span, SLOT_SIZE);
		if (!systrap_filter_layout_ok(base, base + STUB_DATA_OFF))
			continue;
		p = mmap((void *)base, STUB_REGION_SIZE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			continue;
		if ((uint64_t)p != base) {
			munmap(p, STUB_REGION_SIZE);
			continue;
		}
		if (mprotect(p, STUB_CODE_SIZE, PROT_READ | PROT_WRITE) < 0)
			return rung_error_make(err, errno, "systrap: map the stub code");
		ret = region_fill(base, fsgsbase, err);
		if (ret < 0)
			return ret;
		if (mprotect(p, STUB_TEXT_SIZE, PROT_READ | PROT_EXEC) < 0 ||
		    mprotect((char *)p + STUB_TEXT_SIZE, STUB_CODE_SIZE - STUB_TEXT_SIZE,
			     PROT_READ) < 0)
			return rung_error_make(err, errno, "systrap: protect the stub code");
		/* Sealed: neither the sentry nor any stub forked from it (seals are
		 * inherited) can remap, unmap or unprotect the code. Hosts before
		 * Linux 6.10 lack mseal; the stub filter keeps mprotect and mmap
		 * over it away from guests there too. */
		if (syscall(SYS_mseal, base, STUB_CODE_SIZE, 0) < 0 && errno != ENOSYS)
			return rung_error_make(err, errno, "systrap: seal the stub code");
		region_text = base;
		region_fsgsbase = fsgsbase;
		return 0;
	}
	return rung_error_make(err, ENOMEM, "systrap: no free address for the stub region");
}

/* --- slot file ------------------------------------------------------------- */

int systrap_chunk_alloc(struct systrap_platform *sp)
{
	int c = -1;

	pthread_mutex_lock(&sp->lock);
	for (unsigned w = 0; w < SYSTRAP_CHUNKS / 64 && c < 0; w++)
		if (~sp->chunk_used[w]) {
			int b = __builtin_ctzll(~sp->chunk_used[w]);
			sp->chunk_used[w] |= 1ull << b;
			c = (int)(w * 64 + (unsigned)b);
		}
	pthread_mutex_unlock(&sp->lock);
	return c < 0 ? -EAGAIN : c;
}

/* A chunk no stub maps any more: zeroed (its pages go back), then reusable. */
void systrap_chunk_free(struct systrap_platform *sp, int c)
{
	fallocate(sp->slotfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)c * SLOT_SIZE,
		  SLOT_SIZE);
	pthread_mutex_lock(&sp->lock);
	sp->chunk_used[c / 64] &= ~(1ull << (c % 64));
	pthread_mutex_unlock(&sp->lock);
}

/* --- CPUs ------------------------------------------------------------------ */

int systrap_pick_cpu(struct systrap_platform *sp, int exclude)
{
	int best = -1;

	pthread_mutex_lock(&sp->lock);
	for (unsigned i = 0; i < sp->ncpus; i++)
		if (sp->cpus[i] != exclude && (best < 0 || sp->load[i] < sp->load[best]))
			best = (int)i;
	if (best >= 0)
		sp->load[best]++;
	pthread_mutex_unlock(&sp->lock);
	return best < 0 ? -1 : sp->cpus[best];
}

void systrap_unpick_cpu(struct systrap_platform *sp, int cpu)
{
	pthread_mutex_lock(&sp->lock);
	for (unsigned i = 0; i < sp->ncpus; i++)
		if (sp->cpus[i] == cpu && sp->load[i] > 0)
			sp->load[i]--;
	pthread_mutex_unlock(&sp->lock);
}

/* --- platform -------------------------------------------------------------- */

static int systrap_probe(struct rung_error *err)
{
	/* Syscall User Dispatch (Linux 5.11) is what turns the guest's system
	 * calls into SIGSYS before seccomp sees them; without it they would
	 * meet the sentry's own filter, inherited by the stubs, which kills. */
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0) < 0)
		return rung_error_make(err, errno,
				       "systrap: this host has no Syscall User Dispatch "
				       "(Linux 5.11 or later)");
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		return rung_error_make(err, errno, "systrap: this host has no seccomp");
	return 0;
}

/*
 * systrap is faster than ptrace where its two threads of a pair can run on
 * two CPUs (no context switch per hand-off); on one CPU both pay two
 * switches per system call and systrap a signal on top (docs/systrap.md).
 */
static bool systrap_preferred(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) >= 2;
}

static void cpus_init(struct systrap_platform *sp)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	sp->cpus = xzalloc(sizeof(*sp->cpus) * (size_t)CPU_COUNT(&set));
	sp->load = xzalloc(sizeof(*sp->load) * (size_t)CPU_COUNT(&set));
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			sp->cpus[sp->ncpus++] = i;
}

static void systrap_destroy(struct platform *p)
{
	struct systrap_platform *sp = to_splat(p);

	if (sp->slots)
		munmap(sp->slots, (size_t)SYSTRAP_CHUNKS * SLOT_SIZE);
	if (sp->slotfd >= 0)
		close(sp->slotfd);
	pthread_mutex_destroy(&sp->lock);
	free(sp->cpus);
	free(sp->load);
	free(sp);
}

static int systrap_create(struct memfile *mf, struct platform **out, struct rung_error *err)
{
	struct systrap_platform *sp;
	int ret = region_init(err);

	if (ret < 0)
		return ret;
	sp = xzalloc(sizeof(*sp));
	sp->slotfd = -1;
	sp->base.ops = &systrap_platform_ops;
	sp->base.mf = mf;
	platform_probe_cpu(&sp->base);
	sp->text = region_text;
	sp->data = region_text + STUB_DATA_OFF;
	sp->fsgsbase = region_fsgsbase;
	sp->next_as_id = 1;
	pthread_mutex_init(&sp->lock, NULL);
	cpus_init(sp);
	pairing_init(sp);
	sp->slotfd = memfd_create("rung-systrap", MFD_CLOEXEC);
	if (sp->slotfd < 0) {
		ret = rung_error_make(err, errno, "systrap: create the slot file");
		goto fail;
	}
	if (ftruncate(sp->slotfd, (off_t)SYSTRAP_CHUNKS * SLOT_SIZE) < 0) {
		ret = rung_error_make(err, errno, "systrap: size the slot file");
		goto fail;
	}
	sp->slots = mmap(NULL, (size_t)SYSTRAP_CHUNKS * SLOT_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_NORESERVE, sp->slotfd, 0);
	if (sp->slots == MAP_FAILED) {
		sp->slots = NULL;
		ret = rung_error_make(err, errno, "systrap: map the slot file");
		goto fail;
	}
	log_debug("systrap: stub code at %#llx, %s, CPUID faulting %s",
		  (unsigned long long)sp->text,
		  sp->fsgsbase ? "FSGSBASE" : "fs/gs bases through arch_prctl",
		  sp->base.cpuid_faulting ? "on" : "unavailable");
	*out = &sp->base;
	return 0;
fail:
	systrap_destroy(&sp->base);
	return ret;
}

const struct platform_ops systrap_platform_ops = {
	.name = "systrap",
	.probe = systrap_probe,
	.preferred = systrap_preferred,
	.create = systrap_create,
	.destroy = systrap_destroy,
	.as_new = systrap_as_new,
	.ctx_new = systrap_ctx_new,
	.thread_exit = systrap_thread_exit,
};
