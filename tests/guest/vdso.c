/*
 * Guest test: the vDSO. AT_SYSINFO_EHDR points at an ELF image whose
 * dynamic symbols include __vdso_clock_gettime, __vdso_gettimeofday,
 * __vdso_time and __vdso_getcpu (version LINUX_2.6); what they return
 * agrees with the system calls (a vDSO reading between two system call
 * readings, and the other way round), CLOCK_MONOTONIC never goes back
 * across either, getcpu names a CPU the process may use, and the image and
 * its data page are named in /proc/self/maps. Natively this is the host's
 * vDSO; in rung, rung's own.
 */
#include "guest.h"

#include <elf.h>
#include <stdbool.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <time.h>

typedef long (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef long (*gettimeofday_fn)(struct timeval *, void *);
typedef long (*time_fn)(time_t *);
typedef long (*getcpu_fn)(unsigned *, unsigned *, void *);

/* The address of dynamic symbol name in the vDSO at base (DT_HASH walk). */
static void *vdso_sym(const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	const uint32_t *hash = NULL;
	uintptr_t base, load = 0;

	if (!eh)
		return NULL;
	base = (uintptr_t)eh;
	ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !load)
			load = base + ph[i].p_offset - ph[i].p_vaddr;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(base + ph[i].p_offset);
	}
	if (!dyn || !load)
		return NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)(load + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)(load + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const uint32_t *)(load + dyn->d_un.d_ptr);
	}
	if (!sym || !str || !hash)
		return NULL;
	for (uint32_t i = 0; i < hash[1]; i++)
		if (sym[i].st_name && strcmp(str + sym[i].st_name, name) == 0 && sym[i].st_value &&
		    ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC)
			return (void *)(load + sym[i].st_value);
	return NULL;
}

static int64_t ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static void clocks(clock_gettime_fn vgt)
{
	static const struct {
		clockid_t id;
		const char *name;
	} ids[] = {{CLOCK_MONOTONIC, "CLOCK_MONOTONIC"}, {CLOCK_BOOTTIME, "CLOCK_BOOTTIME"},
		   {CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW"}};
	char what[128];

	for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct timespec a, b, c, d;
		bool ordered = true;
		/* Many rounds: a clock that drifts or steps back shows somewhere. */
		for (int r = 0; r < 2000 && ordered; r++) {
			vgt(ids[i].id, &a);
			syscall(SYS_clock_gettime, ids[i].id, &b);
			vgt(ids[i].id, &c);
			syscall(SYS_clock_gettime, ids[i].id, &d);
			ordered = ns(&a) <= ns(&b) && ns(&b) <= ns(&c) && ns(&c) <= ns(&d);
		}
		snprintf(what, sizeof(what), "%s: vDSO and system call readings interleave in order",
			 ids[i].name);
		CHECK(ordered, what);
	}
	{
		/* CLOCK_REALTIME may be stepped by the host: only close, and sane. */
		struct timespec a, b;
		vgt(CLOCK_REALTIME, &a);
		syscall(SYS_clock_gettime, CLOCK_REALTIME, &b);
		CHECK(ns(&b) - ns(&a) >= -1000000 && ns(&b) - ns(&a) < 1000000000 &&
			      a.tv_sec > 1500000000,
		      "CLOCK_REALTIME: the vDSO agrees with the system call");
		CHECK(a.tv_nsec >= 0 && a.tv_nsec < 1000000000, "tv_nsec is normalized");
	}
	{
		struct timespec a, b;
		int64_t last = 0;
		bool mono = true;
		for (int r = 0; r < 200000; r++) {
			vgt(CLOCK_MONOTONIC, &a);
			mono &= ns(&a) >= last;
			last = ns(&a);
		}
		CHECK(mono, "CLOCK_MONOTONIC through the vDSO never goes back");
		/* A clock the vDSO leaves to the kernel still answers. */
		CHECK(vgt(CLOCK_PROCESS_CPUTIME_ID, &b) == 0,
		      "CLOCK_PROCESS_CPUTIME_ID through the vDSO");
		CHECK(vgt(12345, &b) == -EINVAL, "an unknown clock: -EINVAL through the vDSO");
	}
}

int main(void)
{
	clock_gettime_fn vgt = vdso_sym("__vdso_clock_gettime");
	gettimeofday_fn vtod = vdso_sym("__vdso_gettimeofday");
	time_fn vtime = vdso_sym("__vdso_time");
	getcpu_fn vcpu = vdso_sym("__vdso_getcpu");
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	char line[512];
	bool named = false, data = false;
	FILE *maps;

	CHECK(eh && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_type == ET_DYN,
	      "AT_SYSINFO_EHDR is an ELF shared object");
	CHECK(vgt && vtod && vtime && vcpu, "it exports the four __vdso_ functions");
	if (!vgt || !vtod || !vtime || !vcpu)
		return 1;
	clocks(vgt);
	{
		struct timeval tv;
		struct timezone tz = {1, 1};
		time_t t1, t2;
		CHECK(vtod(&tv, &tz) == 0 && tv.tv_sec > 1500000000 && tv.tv_usec >= 0 &&
			      tv.tv_usec < 1000000,
		      "gettimeofday through the vDSO");
		t1 = vtime(&t2);
		/* time() is the coarse clock: it may lag gettimeofday by a tick. */
		CHECK(t1 == t2 && t1 + 1 >= tv.tv_sec && t1 - tv.tv_sec < 5, "time through the vDSO");
		CHECK(vtime(NULL) >= t1, "time(NULL) through the vDSO");
	}
	{
		unsigned cpu = 9999, node = 9999;
		cpu_set_t set;
		sched_getaffinity(0, sizeof(set), &set);
		CHECK(vcpu(&cpu, &node, NULL) == 0 && cpu < (unsigned)CPU_SETSIZE && node == 0,
		      "getcpu through the vDSO");
		CHECK(vcpu(NULL, NULL, NULL) == 0, "getcpu with no pointers");
	}
	maps = fopen("/proc/self/maps", "r");
	while (maps && fgets(line, sizeof(line), maps)) {
		named |= strstr(line, "[vdso]") != NULL;
		data |= strstr(line, "[vvar]") != NULL;
	}
	if (maps)
		fclose(maps);
	CHECK(named && data, "/proc/self/maps names [vdso] and [vvar]");
	return guest_failures ? 1 : 0;
}
