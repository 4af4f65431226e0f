/*
 * Unit tests: rung's vDSO (sentry/loader/vdso.c, sentry/loader/vdso/).
 * The embedded image is what a loader can map as it is (one segment from
 * offset 0, no relocations) and exports the symbols glibc looks for; the
 * guest clocks the sentry reads never go back and stay on the host's.
 */
#include "config.h"
#include "sentry/loader/vdso.h"
#include "sentry/mm/memfile.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const char rung_vdso_image[], rung_vdso_image_end[];

static const Elf64_Ehdr *image(size_t *size)
{
	*size = (size_t)(rung_vdso_image_end - rung_vdso_image);
	return (const Elf64_Ehdr *)rung_vdso_image;
}

START_TEST(test_image_shape)
{
	size_t size;
	const Elf64_Ehdr *eh = image(&size);
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(rung_vdso_image + eh->e_phoff);
	unsigned loads = 0, dynamics = 0;

	ck_assert_uint_ge(size, sizeof(*eh));
	ck_assert_uint_le(size, 16384);
	ck_assert_int_eq(memcmp(eh->e_ident, ELFMAG, SELFMAG), 0);
	ck_assert_uint_eq(eh->e_ident[EI_CLASS], ELFCLASS64);
	ck_assert_uint_eq(eh->e_type, ET_DYN);
	ck_assert_uint_eq(eh->e_machine, EM_X86_64);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			loads++;
			/* The file is the image: mapped as it is, from its first byte. */
			ck_assert_uint_eq(ph[i].p_offset, 0);
			ck_assert_uint_eq(ph[i].p_vaddr, 0);
			ck_assert_uint_eq(ph[i].p_filesz, ph[i].p_memsz);
			ck_assert_uint_le(ph[i].p_filesz, size);
			ck_assert(!(ph[i].p_flags & PF_W));
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dynamics++;
			ck_assert_uint_eq(ph[i].p_offset, ph[i].p_vaddr);
			ck_assert_uint_le(ph[i].p_offset + ph[i].p_filesz, size);
		}
	}
	ck_assert_uint_eq(loads, 1);
	ck_assert_uint_eq(dynamics, 1);
}
END_TEST

/* No relocations of any kind, and the symbols glibc looks up, versioned. */
START_TEST(test_image_symbols)
{
	static const char *const want[] = {"__vdso_clock_gettime", "__vdso_gettimeofday",
					   "__vdso_time",	   "__vdso_getcpu",
					   "clock_gettime",	   "__kernel_rt_sigreturn"};
	size_t size;
	const Elf64_Ehdr *eh = image(&size);
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(rung_vdso_image + eh->e_phoff);
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Sym *sym = NULL;
	const uint32_t *hash = NULL;
	const char *str = NULL;
	const Elf64_Verdef *vd = NULL;
	bool version = false;

	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(rung_vdso_image + ph[i].p_offset);
	ck_assert_ptr_nonnull(dyn);
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_REL:
		case DT_RELA:
		case DT_JMPREL:
		case DT_TEXTREL:
#ifdef DT_RELR
		case DT_RELR:
#endif
			ck_abort_msg("a relocation entry: tag %ld", (long)dyn->d_tag);
			break;
		case DT_SYMTAB:
			sym = (const Elf64_Sym *)(rung_vdso_image + dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			str = rung_vdso_image + dyn->d_un.d_ptr;
			break;
		case DT_HASH:
			hash = (const uint32_t *)(rung_vdso_image + dyn->d_un.d_ptr);
			break;
		case DT_VERDEF:
			vd = (const Elf64_Verdef *)(rung_vdso_image + dyn->d_un.d_ptr);
			break;
		}
	}
	ck_assert(sym && str && hash && vd);
	for (;;) {
		const Elf64_Verdaux *aux = (const Elf64_Verdaux *)((const char *)vd + vd->vd_aux);
		version |= strcmp(str + aux->vda_name, "LINUX_2.6") == 0;
		if (!vd->vd_next)
			break;
		vd = (const Elf64_Verdef *)((const char *)vd + vd->vd_next);
	}
	ck_assert(version);
	for (unsigned w = 0; w < ARRAY_SIZE(want); w++) {
		bool found = false;
		for (uint32_t i = 0; i < hash[1]; i++)
			if (strcmp(str + sym[i].st_name, want[w]) == 0 && sym[i].st_value &&
			    sym[i].st_value < size && ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC)
				found = true;
		ck_assert_msg(found, "%s", want[w]);
	}
}
END_TEST

static int64_t host(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The guest clocks: never back, and on the host's (within a millisecond),
 * across several of the sentry's updates. */
START_TEST(test_clocks)
{
	struct rung_error err = {0};
	struct memfile *mf;
	struct vdso *v;
	uint64_t last = 0;
	int64_t end;

	ck_assert_int_eq(memfile_create(1ull << 30, &mf, &err), 0);
	ck_assert_int_eq(vdso_create(mf, 2, &v), 0);
	end = host(CLOCK_MONOTONIC) + 300000000;
	while (host(CLOCK_MONOTONIC) < end) {
		/* Each guest reading between two host readings (a preemption
		 * in between only widens the bracket). */
		int64_t h0 = host(CLOCK_MONOTONIC), r0 = host(CLOCK_REALTIME);
		uint64_t m = vclock_now(CLOCK_MONOTONIC), r = vclock_now(CLOCK_REALTIME);
		int64_t h1 = host(CLOCK_MONOTONIC), r1 = host(CLOCK_REALTIME);
		ck_assert_uint_ge(m, last);
		last = m;
		ck_assert_int_ge((int64_t)m, h0 - 1000000);
		ck_assert_int_le((int64_t)m, h1 + 1000000);
		ck_assert_int_ge((int64_t)r, r0 - 1000000);
		ck_assert_int_le((int64_t)r, r1 + 1000000);
	}
	vdso_destroy(v);
	memfile_destroy(mf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vdso");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_image_shape);
	tcase_add_test(tc, test_image_symbols);
	tcase_add_test(tc, test_clocks);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
