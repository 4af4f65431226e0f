/*
 * Unit tests: the ELF loader's parser and segment loading (sentry/loader/elf.h).
 * Images are built in memory and read through a struct elf_file over a buffer;
 * hostile images (hand-made and a few thousand fuzzed ones) must only ever get
 * an error back, never crash the sentry or leak its memory.
 */
#include "config.h"
#include "sentry/loader/elf.h"
#include "sentry/mm/mm.h"
#include "sentry/mm/memfile.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PG	  PAGE_SIZE
#define IMG_MAX	  0x4000
#define EXEC_BASE 0x400000ul
#define PIE_BIAS  0x555555554000ul
#define INTERP	  "/lib64/ld-linux-x86-64.so.2"

/* An ELF image in memory, and how the loader reads it. */
struct img {
	unsigned char buf[IMG_MAX];
	size_t size; /* what the elf_file claims */
	int fail;    /* pread returns -fail when set */
	struct elf_file f;
};

static long img_pread(void *opaque, void *dst, size_t len, uint64_t off)
{
	struct img *im = opaque;

	if (im->fail)
		return -im->fail;
	if (off >= sizeof(im->buf))
		return 0;
	len = MIN(len, sizeof(im->buf) - off);
	memcpy(dst, im->buf + off, len);
	return (long)len;
}

static Elf64_Ehdr *eh(struct img *im)
{
	return (Elf64_Ehdr *)im->buf;
}

static Elf64_Phdr *ph(struct img *im, unsigned i)
{
	return (Elf64_Phdr *)(im->buf + sizeof(Elf64_Ehdr)) + i;
}

enum { PH_PHDR, PH_TEXT, PH_DATA, PH_STACK, PH_INTERP, NPH };

/*
 * A static executable: program headers, a text segment (R+X, file offset 0,
 * holding the headers), a data segment whose BSS starts mid-page (the file has
 * 0xaa garbage after p_filesz that must not show), and PT_GNU_STACK. The
 * PT_INTERP slot stays PT_NULL unless with_interp.
 */
static void build(struct img *im, bool pie, bool with_interp)
{
	uint64_t base = pie ? 0 : EXEC_BASE;
	Elf64_Ehdr *e = eh(im);

	memset(im, 0, sizeof(*im));
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS64;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_type = pie ? ET_DYN : ET_EXEC;
	e->e_machine = EM_X86_64;
	e->e_version = EV_CURRENT;
	e->e_entry = base + 0x1000;
	e->e_phoff = sizeof(Elf64_Ehdr);
	e->e_ehsize = sizeof(Elf64_Ehdr);
	e->e_phentsize = sizeof(Elf64_Phdr);
	e->e_phnum = NPH;

	*ph(im, PH_PHDR) = (Elf64_Phdr){.p_type = PT_PHDR,
					.p_flags = PF_R,
					.p_offset = 64,
					.p_vaddr = base + 64,
					.p_filesz = NPH * sizeof(Elf64_Phdr),
					.p_memsz = NPH * sizeof(Elf64_Phdr),
					.p_align = 8};
	*ph(im, PH_TEXT) = (Elf64_Phdr){.p_type = PT_LOAD,
					.p_flags = PF_R | PF_X,
					.p_offset = 0,
					.p_vaddr = base,
					.p_filesz = 0x1100,
					.p_memsz = 0x1100,
					.p_align = PG};
	*ph(im, PH_DATA) = (Elf64_Phdr){.p_type = PT_LOAD,
					.p_flags = PF_R | PF_W,
					.p_offset = 0x2000,
					.p_vaddr = base + 0x2000,
					.p_filesz = 0x800,
					.p_memsz = 0x3000,
					.p_align = PG};
	*ph(im, PH_STACK) = (Elf64_Phdr){.p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W};
	if (with_interp) {
		*ph(im, PH_INTERP) = (Elf64_Phdr){.p_type = PT_INTERP,
						  .p_flags = PF_R,
						  .p_offset = 0x800,
						  .p_vaddr = base + 0x800,
						  .p_filesz = sizeof(INTERP),
						  .p_memsz = sizeof(INTERP)};
		memcpy(im->buf + 0x800, INTERP, sizeof(INTERP));
	}
	/* Recognizable bytes: text, data, and garbage past the data's p_filesz. */
	for (unsigned i = 0; i < 0x100; i++)
		im->buf[0x1000 + i] = (unsigned char)(0x90 ^ i);
	for (unsigned i = 0; i < 0x800; i++)
		im->buf[0x2000 + i] = (unsigned char)(i * 7 + 1);
	memset(im->buf + 0x2800, 0xaa, 0x800);
	im->size = 0x3000;
	im->f = (struct elf_file){.pread = img_pread, .opaque = im, .size = im->size};
}

/* Parse im (with f.size = im->size); on failure, the result must be released and explained. */
static int parse(struct img *im, struct elf_info *info, const char **why)
{
	int ret;

	im->f.size = im->size;
	*why = "unset";
	ret = elf_parse(&im->f, info, why);
	if (ret < 0) {
		ck_assert_msg(*why != NULL, "error %d without a reason", ret);
		ck_assert_ptr_null(info->phdrs);
		ck_assert_ptr_null(info->interp);
	} else {
		ck_assert_ptr_null(*why);
	}
	return ret;
}

static struct memfile *mf;
static struct mm *mm;

static void new_mm(uint64_t limit)
{
	ck_assert_int_eq(mm_new(mf, limit, &mm), 0);
}

static void setup(void)
{
	struct rung_error err = {0};

	ck_assert_int_eq(memfile_create(512ull << 20, &mf, &err), 0);
	new_mm(64ull << 20);
}

/* Drop the mm: nothing of what the loader mapped may stay allocated. */
static void drop_mm(void)
{
	mm_put(mm);
	mm = NULL;
	ck_assert_uint_eq(mf->allocated, 0);
}

static void teardown(void)
{
	if (mm)
		drop_mm();
	memfile_destroy(mf);
}

struct vlist {
	unsigned n;
	struct {
		uint64_t start, end;
		int prot;
	} v[16];
};

static void vlist_fn(const struct vma *v, void *arg)
{
	struct vlist *l = arg;

	if (l->n < ARRAY_SIZE(l->v)) {
		l->v[l->n].start = v->start;
		l->v[l->n].end = v->end;
		l->v[l->n].prot = v->prot;
	}
	l->n++;
}

/* A valid static ET_EXEC parses with the expected span, headers and flags. */
START_TEST(test_parse_valid_exec)
{
	static struct img im;
	struct elf_info info;
	const char *why;

	build(&im, false, false);
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	ck_assert(!info.pie);
	ck_assert_ptr_null(info.interp);
	ck_assert(!info.exec_stack);
	ck_assert_uint_eq(info.lo, EXEC_BASE);
	ck_assert_uint_eq(info.hi, EXEC_BASE + 0x5000);
	ck_assert_uint_eq(info.phdr_vaddr, EXEC_BASE + 64);
	ck_assert_uint_eq(info.ehdr.e_entry, EXEC_BASE + 0x1000);
	ck_assert_uint_eq(info.ehdr.e_phnum, NPH);
	ck_assert_int_eq(memcmp(info.phdrs, ph(&im, 0), NPH * sizeof(Elf64_Phdr)), 0);
	elf_info_release(&info);
	ck_assert_ptr_null(info.phdrs);
	elf_info_release(&info); /* twice is harmless */
}
END_TEST

/* ET_DYN (static-pie) parses as pie with an unbiased span from 0. */
START_TEST(test_parse_valid_dyn)
{
	static struct img im;
	struct elf_info info;
	const char *why;

	build(&im, true, false);
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	ck_assert(info.pie);
	ck_assert_uint_eq(info.lo, 0);
	ck_assert_uint_eq(info.hi, 0x5000);
	ck_assert_uint_eq(info.phdr_vaddr, 64);
	elf_info_release(&info);
}
END_TEST

/* Without PT_PHDR the headers are found inside the PT_LOAD that holds them, as Linux does. */
START_TEST(test_phdr_from_load_segment)
{
	static struct img im;
	struct elf_info info;
	const char *why;

	build(&im, false, false);
	ph(&im, PH_PHDR)->p_type = PT_NULL;
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	ck_assert_uint_eq(info.phdr_vaddr, EXEC_BASE + 64);
	elf_info_release(&info);
	/* Headers in no loaded segment: no AT_PHDR address at all. */
	build(&im, false, false);
	ph(&im, PH_PHDR)->p_type = PT_NULL;
	ph(&im, PH_TEXT)->p_offset = 0x1000;
	ph(&im, PH_TEXT)->p_vaddr = EXEC_BASE + 0x1000;
	ph(&im, PH_TEXT)->p_filesz = ph(&im, PH_TEXT)->p_memsz = 0x100;
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	ck_assert_uint_eq(info.phdr_vaddr, 0);
	ck_assert_uint_eq(info.lo, EXEC_BASE + 0x1000);
	elf_info_release(&info);
}
END_TEST

/* PT_GNU_STACK with PF_X asks for an executable stack; PT_INTERP is read and kept. */
START_TEST(test_exec_stack_and_interp)
{
	static struct img im;
	struct elf_info info;
	const char *why;

	build(&im, true, true);
	ph(&im, PH_STACK)->p_flags |= PF_X;
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	ck_assert(info.exec_stack);
	ck_assert_ptr_nonnull(info.interp);
	ck_assert_str_eq(info.interp, INTERP);
	elf_info_release(&info);
	ck_assert_ptr_null(info.interp);
}
END_TEST

/* Loading ET_EXEC: segments at their addresses with their protections, BSS zeroed. */
START_TEST(test_load_exec)
{
	static struct img im;
	struct elf_load_result res;
	struct elf_info info;
	unsigned char buf[0x800];
	struct vlist l = {0};
	const char *why;

	build(&im, false, false);
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	ck_assert_int_eq(elf_load(mm, &im.f, &info, PIE_BIAS, false, &res),
			 -EINVAL); /* no bias for EXEC */
	ck_assert_uint_eq(mm->nr_vmas, 0);
	ck_assert_int_eq(elf_load(mm, &im.f, &info, 0, false, &res), 0);
	ck_assert_uint_eq(res.bias, 0);
	ck_assert_uint_eq(res.entry, EXEC_BASE + 0x1000);
	ck_assert_uint_eq(res.phdr, EXEC_BASE + 64);
	ck_assert_uint_eq(res.end, EXEC_BASE + 0x5000);

	mm_for_each_vma(mm, vlist_fn, &l);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.v[0].start, EXEC_BASE);
	ck_assert_uint_eq(l.v[0].end, EXEC_BASE + 0x2000);
	ck_assert_int_eq(l.v[0].prot, PROT_READ | PROT_EXEC);
	ck_assert_uint_eq(l.v[1].start, EXEC_BASE + 0x2000);
	ck_assert_uint_eq(l.v[1].end, EXEC_BASE + 0x5000);
	ck_assert_int_eq(l.v[1].prot, PROT_READ | PROT_WRITE);

	/* The file's bytes, where the headers say. */
	ck_assert_int_eq(mm_copy_in(mm, buf, EXEC_BASE, 0x100), 0);
	ck_assert_int_eq(memcmp(buf, im.buf, 0x100), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, EXEC_BASE + 0x1000, 0x100), 0);
	ck_assert_int_eq(memcmp(buf, im.buf + 0x1000, 0x100), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, EXEC_BASE + 0x2000, 0x800), 0);
	ck_assert_int_eq(memcmp(buf, im.buf + 0x2000, 0x800), 0);
	/* Past p_filesz in the text page and in the data page: zero, not the file's garbage. */
	ck_assert_int_eq(mm_copy_in(mm, buf, EXEC_BASE + 0x1100, 0x100), 0);
	for (unsigned i = 0; i < 0x100; i++)
		ck_assert_int_eq(buf[i], 0);
	for (uint64_t a = EXEC_BASE + 0x2800; a < EXEC_BASE + 0x5000; a += sizeof(buf)) {
		ck_assert_int_eq(mm_copy_in(mm, buf, a, sizeof(buf)), 0);
		for (unsigned i = 0; i < sizeof(buf); i++)
			ck_assert_int_eq(buf[i], 0);
	}
	/* Text is not writable, data and BSS are. */
	ck_assert_int_eq(mm_copy_out(mm, EXEC_BASE + 0x1000, "x", 1), -EFAULT);
	ck_assert_int_eq(mm_copy_out(mm, EXEC_BASE + 0x4fff, "x", 1), 0);
	ck_assert_int_eq(mm_copy_in(mm, buf, EXEC_BASE + 0x5000, 1), -EFAULT);

	/* Loading again over itself: the first segment is not replaced. */
	ck_assert_int_eq(elf_load(mm, &im.f, &info, 0, false, &res), -EEXIST);
	elf_info_release(&info);
}
END_TEST

/* Loading ET_DYN at a bias: every address moves by it. */
START_TEST(test_load_dyn)
{
	static struct img im;
	struct elf_load_result res;
	struct elf_info info;
	unsigned char buf[4];
	struct vlist l = {0};
	const char *why;

	build(&im, true, false);
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	ck_assert_int_eq(elf_load(mm, &im.f, &info, GUEST_MAX_ADDR - 0x4000, false, &res), -ENOMEM);
	ck_assert_int_eq(elf_load(mm, &im.f, &info, PIE_BIAS, false, &res), 0);
	ck_assert_uint_eq(res.bias, PIE_BIAS);
	ck_assert_uint_eq(res.entry, PIE_BIAS + 0x1000);
	ck_assert_uint_eq(res.phdr, PIE_BIAS + 64);
	ck_assert_uint_eq(res.end, PIE_BIAS + 0x5000);
	mm_for_each_vma(mm, vlist_fn, &l);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.v[0].start, PIE_BIAS);
	ck_assert_uint_eq(l.v[1].end, PIE_BIAS + 0x5000);
	ck_assert_int_eq(mm_copy_in(mm, buf, PIE_BIAS, 4), 0);
	ck_assert_int_eq(memcmp(buf, ELFMAG, 4), 0);
	elf_info_release(&info);
}
END_TEST

/* I/O errors from the file propagate as they are; a file shorter than it claims is -EIO. */
START_TEST(test_io_errors)
{
	static struct img im;
	struct elf_load_result res;
	struct elf_info info;
	const char *why;

	build(&im, false, false);
	im.fail = EIO;
	ck_assert_int_eq(parse(&im, &info, &why), -EIO);
	im.fail = EACCES;
	ck_assert_int_eq(parse(&im, &info, &why), -EACCES);

	/* The file claims more than it has: PT_INTERP beyond the real end reads short. */
	build(&im, false, true);
	im.size = IMG_MAX + 0x10000;
	ph(&im, PH_INTERP)->p_offset = IMG_MAX + 0x100;
	ck_assert_int_eq(parse(&im, &info, &why), -EIO);

	/* A segment beyond the real end parses, then fails to load with -EIO. */
	build(&im, false, false);
	im.size = IMG_MAX + 0x10000;
	ph(&im, PH_DATA)->p_offset = IMG_MAX + 0x2000;
	ph(&im, PH_DATA)->p_vaddr = EXEC_BASE + IMG_MAX + 0x2000;
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	ck_assert_int_eq(elf_load(mm, &im.f, &info, 0, false, &res), -EIO);
	elf_info_release(&info);
}
END_TEST

/* One hand-made hostile image: a mutation of a valid one. */
/* What Linux makes of it: ENOEXEC from exec, a process killed by SIGSEGV
 * past the point of no return (info.doomed), or a program it runs. */
enum verdict { REFUSED, DOOMED, RUNS };

struct hostile {
	const char *name;
	bool pie, interp;
	void (*mutate)(struct img *im);
	enum verdict verdict;
};

#define MUT(fn, body)                  \
	static void fn(struct img *im) \
	{                              \
		body;                  \
	}

MUT(m_short, im->size = sizeof(Elf64_Ehdr) - 1)
MUT(m_empty, im->size = 0)
MUT(m_magic, im->buf[1] = 'e')
MUT(m_class32, eh(im)->e_ident[EI_CLASS] = ELFCLASS32)
MUT(m_classnone, eh(im)->e_ident[EI_CLASS] = ELFCLASSNONE)
MUT(m_bigendian, eh(im)->e_ident[EI_DATA] = ELFDATA2MSB)
MUT(m_identversion, eh(im)->e_ident[EI_VERSION] = 0)
MUT(m_version, eh(im)->e_version = 2)
MUT(m_i386, eh(im)->e_machine = EM_386)
MUT(m_aarch64, eh(im)->e_machine = EM_AARCH64)
MUT(m_rel, eh(im)->e_type = ET_REL)
MUT(m_core, eh(im)->e_type = ET_CORE)
MUT(m_type_ffff, eh(im)->e_type = 0xffff)
MUT(m_phentsize, eh(im)->e_phentsize = 32)
MUT(m_phnum0, eh(im)->e_phnum = 0)
MUT(m_phnum_huge, eh(im)->e_phnum = 0xffff)
MUT(m_phnum_limit, eh(im)->e_phnum = ELF_MAX_PHNUM + 1)
MUT(m_phnum_past_file, eh(im)->e_phnum = (IMG_MAX - 64) / sizeof(Elf64_Phdr) + 1;
    im->size = IMG_MAX)
MUT(m_phoff_eof, eh(im)->e_phoff = im->size)
MUT(m_phoff_partly, eh(im)->e_phoff = im->size - sizeof(Elf64_Phdr))
MUT(m_phoff_wrap, eh(im)->e_phoff = ~0ull - 8)
MUT(m_filesz_gt_memsz, ph(im, PH_DATA)->p_filesz = ph(im, PH_DATA)->p_memsz + 1)
MUT(m_offset_eof, ph(im, PH_DATA)->p_offset = 0x3000; ph(im, PH_DATA)->p_vaddr = EXEC_BASE + 0x3000)
MUT(m_offset_huge, ph(im, PH_DATA)->p_offset = ~0ull & ~(PG - 1);
    ph(im, PH_DATA)->p_vaddr = EXEC_BASE + 0x2000)
MUT(m_filesz_past_eof, ph(im, PH_DATA)->p_filesz = 0x1001)
MUT(m_filesz_wrap, ph(im, PH_DATA)->p_filesz = ~0ull; ph(im, PH_DATA)->p_memsz = ~0ull)
MUT(m_misaligned, ph(im, PH_DATA)->p_vaddr += 0x10)
MUT(m_misaligned_offset, ph(im, PH_DATA)->p_offset += 0x800)
MUT(m_memsz_huge, ph(im, PH_DATA)->p_memsz = ~0ull - 0x1000)
MUT(m_memsz_past_guest, ph(im, PH_DATA)->p_memsz = GUEST_MAX_ADDR)
MUT(m_vaddr_past_guest, ph(im, PH_DATA)->p_vaddr = GUEST_MAX_ADDR + 0x2000)
MUT(m_vaddr_top, ph(im, PH_DATA)->p_vaddr = ~0ull & ~(PG - 1))
MUT(m_overlap, ph(im, PH_DATA)->p_vaddr = EXEC_BASE + 0x1000; ph(im, PH_DATA)->p_offset = 0x1000)
MUT(m_unsorted, Elf64_Phdr t = *ph(im, PH_TEXT); *ph(im, PH_TEXT) = *ph(im, PH_DATA);
    *ph(im, PH_DATA) = t)
MUT(m_no_load, ph(im, PH_TEXT)->p_type = PT_NOTE; ph(im, PH_DATA)->p_type = PT_NOTE)
MUT(m_only_empty_loads, ph(im, PH_TEXT)->p_memsz = 0; ph(im, PH_TEXT)->p_filesz = 0;
    ph(im, PH_DATA)->p_memsz = 0; ph(im, PH_DATA)->p_filesz = 0)
MUT(m_below_min, ph(im, PH_TEXT)->p_vaddr = 0; ph(im, PH_DATA)->p_vaddr = 0x2000)
MUT(m_pie_too_large, ph(im, PH_DATA)->p_vaddr = GUEST_MAX_ADDR / 2 + 0x2000)
MUT(m_interp_short, ph(im, PH_INTERP)->p_filesz = 1)
MUT(m_interp_huge, ph(im, PH_INTERP)->p_filesz = ELF_MAX_INTERP + 1)
MUT(m_interp_wrap, ph(im, PH_INTERP)->p_filesz = ~0ull)
MUT(m_interp_no_nul, im->buf[0x800 + sizeof(INTERP) - 1] = 'x')
MUT(m_interp_inner_nul, im->buf[0x805] = 0)
MUT(m_interp_eof, ph(im, PH_INTERP)->p_offset = im->size - 4)
MUT(m_interp_offset_huge, ph(im, PH_INTERP)->p_offset = ~0ull - 4)
MUT(m_interp_twice, *ph(im, PH_STACK) = *ph(im, PH_INTERP))

static const struct hostile hostile[] = {
	{"truncated header", false, false, m_short, REFUSED},
	{"empty file", false, false, m_empty, REFUSED},
	{"bad magic", false, false, m_magic, REFUSED},
	{"32-bit class", false, false, m_class32, REFUSED},
	{"no class", false, false, m_classnone, REFUSED},
	{"big endian", false, false, m_bigendian, REFUSED},
	{"ident version", false, false, m_identversion, REFUSED},
	{"e_version", false, false, m_version, REFUSED},
	{"i386", false, false, m_i386, REFUSED},
	{"aarch64", false, false, m_aarch64, REFUSED},
	{"ET_REL", false, false, m_rel, REFUSED},
	{"ET_CORE", false, false, m_core, REFUSED},
	{"type 0xffff", false, false, m_type_ffff, REFUSED},
	{"phentsize", false, false, m_phentsize, REFUSED},
	{"phnum 0", false, false, m_phnum0, REFUSED},
	{"phnum 0xffff", false, false, m_phnum_huge, REFUSED},
	{"phnum over the limit", false, false, m_phnum_limit, REFUSED},
	{"phdrs past the file", false, false, m_phnum_past_file, REFUSED},
	{"phoff at EOF", false, false, m_phoff_eof, REFUSED},
	{"phoff partly outside", false, false, m_phoff_partly, REFUSED},
	{"phoff wraps", false, false, m_phoff_wrap, REFUSED},
	{"filesz > memsz", false, false, m_filesz_gt_memsz, DOOMED},
	{"segment offset at EOF", false, false, m_offset_eof, RUNS},
	{"segment offset huge", false, false, m_offset_huge, DOOMED},
	{"segment past EOF", false, false, m_filesz_past_eof, RUNS},
	{"segment size wraps", false, false, m_filesz_wrap, DOOMED},
	{"vaddr misaligned to offset", false, false, m_misaligned, DOOMED},
	{"offset misaligned to vaddr", false, false, m_misaligned_offset, DOOMED},
	{"huge memsz", false, false, m_memsz_huge, DOOMED},
	{"memsz past the guest range", false, false, m_memsz_past_guest, DOOMED},
	{"vaddr past the guest range", false, false, m_vaddr_past_guest, DOOMED},
	{"vaddr at the top of memory", false, false, m_vaddr_top, DOOMED},
	{"overlapping segments", false, false, m_overlap, RUNS},
	{"unsorted segments", false, false, m_unsorted, RUNS},
	{"no PT_LOAD", false, false, m_no_load, REFUSED},
	{"only empty PT_LOADs", false, false, m_only_empty_loads, REFUSED},
	{"EXEC below mmap_min_addr", false, false, m_below_min, DOOMED},
	{"PIE larger than half the space", true, false, m_pie_too_large, DOOMED},
	{"PT_INTERP of one byte", true, true, m_interp_short, REFUSED},
	{"PT_INTERP too long", true, true, m_interp_huge, REFUSED},
	{"PT_INTERP size wraps", true, true, m_interp_wrap, REFUSED},
	{"PT_INTERP without NUL", true, true, m_interp_no_nul, REFUSED},
	{"PT_INTERP with inner NUL", true, true, m_interp_inner_nul, RUNS},
	{"PT_INTERP past EOF", true, true, m_interp_eof, REFUSED},
	{"PT_INTERP offset wraps", true, true, m_interp_offset_huge, REFUSED},
	{"two PT_INTERPs", true, true, m_interp_twice, REFUSED},
};

/* Every hand-made hostile image is refused with -ENOEXEC and a reason, or
 * doomed with a reason (and elf_load refuses it), or runs, as in Linux. */
START_TEST(test_hostile_images)
{
	static struct img im;
	struct elf_info info;
	const struct hostile *h = &hostile[_i];
	const char *why;
	int ret;

	/* The unmutated image is fine: each case fails for its own reason. */
	build(&im, h->pie, h->interp);
	ck_assert_int_eq(parse(&im, &info, &why), 0);
	elf_info_release(&info);
	h->mutate(&im);
	ret = parse(&im, &info, &why);
	if (h->verdict == REFUSED) {
		ck_assert_msg(ret == -ENOEXEC, "%s: got %d (%s)", h->name, ret,
			      why ? why : "no reason");
		return;
	}
	ck_assert_msg(ret == 0, "%s: got %d (%s)", h->name, ret, why ? why : "no reason");
	if (h->verdict == DOOMED) {
		struct elf_load_result res;
		ck_assert_msg(info.doomed != NULL, "%s: not doomed", h->name);
		ck_assert_int_eq(elf_load(mm, &im.f, &info, h->pie ? PIE_BIAS : 0, false, &res),
				 -EINVAL);
	} else {
		ck_assert_msg(info.doomed == NULL, "%s: doomed: %s", h->name, info.doomed);
	}
	elf_info_release(&info);
}
END_TEST

/* An interesting value for a fuzzed field. */
static uint64_t fuzz_value(uint64_t *seed, const struct img *im)
{
	static const uint64_t vals[] = {
		0,
		1,
		2,
		7,
		8,
		56,
		63,
		64,
		0xfff,
		0x1000,
		0x1001,
		0x3000,
		0x7fff,
		0xffff,
		0x10000,
		0x400000,
		0x7fffffff,
		0x80000000,
		0xffffffff,
		0x100000000ull,
		GUEST_MIN_ADDR,
		GUEST_MAX_ADDR - 0x1000,
		GUEST_MAX_ADDR,
		GUEST_MAX_ADDR / 2,
		HOST_TASK_SIZE,
		0x7fffffffffffffffull,
		0x8000000000000000ull,
		~0ull - 0xfff,
		~0ull - 1,
		~0ull,
	};
	uint64_t r = unit_rand(seed);

	switch (r % 4) {
	case 0:
		return unit_rand(seed);
	case 1:
		return im->size + (unit_rand(seed) % 16) - 8;
	default:
		return vals[(r >> 8) % ARRAY_SIZE(vals)];
	}
}

/* Write the low size bytes of v at offset off of the image. */
static void poke(struct img *im, size_t off, unsigned size, uint64_t v)
{
	if (off + size <= sizeof(im->buf))
		memcpy(im->buf + off, &v, size);
}

/* Does a PT_LOAD after the i-th cover part of [vaddr, vaddr+n)? (Linux maps
 * it over what was there.) */
static bool mapped_over(const struct elf_info *info, unsigned i, uint64_t vaddr, uint64_t n)
{
	for (unsigned j = i + 1; j < info->ehdr.e_phnum; j++) {
		const Elf64_Phdr *q = &info->phdrs[j];
		if (q->p_type == PT_LOAD && q->p_memsz && ALIGN_DOWN(q->p_vaddr, PG) < vaddr + n &&
		    ALIGN_UP(q->p_vaddr + q->p_memsz, PG) > vaddr)
			return true;
	}
	return false;
}

/* Check what a successful parse promises, then load it into a fresh mm. */
static void check_parsed(struct img *im, struct elf_info *info, unsigned *loaded)
{
	uint64_t bias = info->pie ? PIE_BIAS : 0;
	struct elf_load_result res;
	bool any = false;
	int ret;

	if (info->doomed) {
		new_mm(64ull << 20);
		ck_assert_int_eq(elf_load(mm, &im->f, info, bias, false, &res), -EINVAL);
		drop_mm();
		return;
	}
	ck_assert_ptr_nonnull(info->phdrs);
	ck_assert(info->ehdr.e_machine == EM_X86_64);
	ck_assert(info->ehdr.e_phnum > 0 && info->ehdr.e_phnum <= ELF_MAX_PHNUM);
	ck_assert(IS_ALIGNED(info->lo, PG) && IS_ALIGNED(info->hi, PG));
	ck_assert_uint_lt(info->lo, info->hi);
	ck_assert_uint_le(info->hi, GUEST_MAX_ADDR);
	if (!info->pie)
		ck_assert_uint_ge(info->lo, GUEST_MIN_ADDR);
	for (unsigned i = 0; i < info->ehdr.e_phnum; i++) {
		const Elf64_Phdr *p = &info->phdrs[i];
		if (p->p_type != PT_LOAD || p->p_memsz == 0)
			continue;
		ck_assert_uint_le(p->p_filesz, p->p_memsz);
		ck_assert_uint_ge(ALIGN_DOWN(p->p_vaddr, PG), info->lo);
		ck_assert_uint_le(p->p_vaddr + p->p_memsz, info->hi);
		any = true;
	}
	ck_assert(any);
	if (info->interp)
		ck_assert_uint_le(strlen(info->interp), ELF_MAX_INTERP);

	new_mm(64ull << 20);
	ret = elf_load(mm, &im->f, info, bias, false, &res);
	ck_assert_msg(ret == 0 || ret == -ENOMEM || ret == -EIO || ret == -EEXIST, "elf_load: %d",
		      ret);
	if (ret == 0) {
		(*loaded)++;
		ck_assert_uint_eq(res.entry, info->ehdr.e_entry + bias);
		/* Each segment's first file bytes are in guest memory where it says. */
		for (unsigned i = 0; i < info->ehdr.e_phnum; i++) {
			const Elf64_Phdr *p = &info->phdrs[i];
			unsigned char got[32];
			size_t n = MIN(p->p_filesz, sizeof(got));
			if (p->p_type != PT_LOAD || p->p_memsz == 0 || !n ||
			    p->p_offset + n > MIN(sizeof(im->buf), im->f.size) ||
			    mapped_over(info, i, p->p_vaddr, n))
				continue;
			ck_assert_int_eq(mm_peek(mm, got, p->p_vaddr + bias, n), 0);
			ck_assert_int_eq(memcmp(got, im->buf + p->p_offset, n), 0);
		}
	}
	drop_mm();
}

/*
 * A few thousand mutations of valid images (header fields set to edge values, bits
 * flipped, the file truncated, program headers added): the parser returns 0 or a
 * clean error, what it accepts holds its promises, and loading it is safe.
 */
START_TEST(test_fuzz_headers)
{
	enum { ROUNDS = 6000 };
	static struct img im;
	static const struct {
		unsigned off, size;
	} ehdr_fields[] =
		{
			{EI_CLASS, 1},
			{EI_DATA, 1},
			{EI_VERSION, 1},
			{offsetof(Elf64_Ehdr, e_type), 2},
			{offsetof(Elf64_Ehdr, e_machine), 2},
			{offsetof(Elf64_Ehdr, e_version), 4},
			{offsetof(Elf64_Ehdr, e_entry), 8},
			{offsetof(Elf64_Ehdr, e_phoff), 8},
			{offsetof(Elf64_Ehdr, e_phentsize), 2},
			{offsetof(Elf64_Ehdr, e_phnum), 2},
		},
	  phdr_fields[] = {
		  {offsetof(Elf64_Phdr, p_type), 4},   {offsetof(Elf64_Phdr, p_flags), 4},
		  {offsetof(Elf64_Phdr, p_offset), 8}, {offsetof(Elf64_Phdr, p_vaddr), 8},
		  {offsetof(Elf64_Phdr, p_filesz), 8}, {offsetof(Elf64_Phdr, p_memsz), 8},
	  };
	static const uint32_t types[] = {PT_LOAD, PT_INTERP, PT_PHDR,	 PT_GNU_STACK,
					 PT_NULL, PT_NOTE,   PT_DYNAMIC, PT_TLS};
	unsigned counts[3] = {0}, loaded = 0;
	uint64_t seed = 0x5eed;

	drop_mm(); /* each accepted image gets a fresh mm */
	for (unsigned round = 0; round < ROUNDS; round++) {
		unsigned nmut = 1 + (unsigned)(unit_rand(&seed) % 4);
		struct elf_info info;
		const char *why;
		int ret;

		bool pie = unit_rand(&seed) & 1, interp = unit_rand(&seed) % 3 == 0;

		build(&im, pie, interp);
		for (unsigned m = 0; m < nmut; m++) {
			unsigned phnum = MAX(eh(&im)->e_phnum, 1);
			unsigned i = (unsigned)(unit_rand(&seed) % MIN(phnum, 12u));
			size_t phbase = sizeof(Elf64_Ehdr) + i * sizeof(Elf64_Phdr);
			switch (unit_rand(&seed) % 8) {
			case 0: {
				unsigned f = (unsigned)(unit_rand(&seed) % ARRAY_SIZE(ehdr_fields));
				poke(&im, ehdr_fields[f].off, ehdr_fields[f].size,
				     fuzz_value(&seed, &im));
				break;
			}
			case 1:
			case 2:
			case 3: {
				unsigned f = (unsigned)(unit_rand(&seed) % ARRAY_SIZE(phdr_fields));
				poke(&im, phbase + phdr_fields[f].off, phdr_fields[f].size,
				     fuzz_value(&seed, &im));
				break;
			}
			case 4: /* a new program header of a random type */
				poke(&im, phbase, 4, types[unit_rand(&seed) % ARRAY_SIZE(types)]);
				eh(&im)->e_phnum = (Elf64_Half)MAX(eh(&im)->e_phnum, i + 1);
				break;
			case 5: { /* flip a bit in the headers */
				size_t off = unit_rand(&seed) % (64 + NPH * sizeof(Elf64_Phdr));
				im.buf[off] ^= (unsigned char)(1u << (unit_rand(&seed) % 8));
				break;
			}
			case 6: /* truncate */
				im.size = unit_rand(&seed) % (im.size + 1);
				break;
			default: /* more program headers than were built (zeros: PT_NULL) */
				eh(&im)->e_phnum = (Elf64_Half)(unit_rand(&seed) % 40);
				break;
			}
		}
		ret = parse(&im, &info, &why);
		ck_assert_msg(ret == 0 || ret == -ENOEXEC || ret == -EIO || ret == -ENOMEM,
			      "round %u: elf_parse returned %d", round, ret);
		counts[ret == 0 ? 0 : ret == -ENOEXEC ? 1 : 2]++;
		if (ret == 0) {
			check_parsed(&im, &info, &loaded);
			elf_info_release(&info);
		}
	}
	fprintf(stderr, "# fuzz: %u accepted (%u loaded), %u ENOEXEC, %u other\n", counts[0],
		loaded, counts[1], counts[2]);
	/* The fuzzing reached both sides of the parser. */
	ck_assert_uint_gt(counts[0], ROUNDS / 20);
	ck_assert_uint_gt(counts[1], ROUNDS / 4);
	ck_assert_uint_gt(loaded, ROUNDS / 40);
}
END_TEST

static long fd_pread(void *opaque, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(*(int *)opaque, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

/* Debian's static busybox, when installed: parses as a static EXEC and loads. */
START_TEST(test_busybox)
{
	struct elf_load_result res;
	struct elf_info info;
	const char *why;
	struct stat st;
	struct elf_file f;
	unsigned char magic[4];
	struct vlist l = {0};
	bool entry_exec = false;
	int fd = open("/bin/busybox", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "# /bin/busybox not installed: skipped\n");
		return;
	}
	ck_assert_int_eq(fstat(fd, &st), 0);
	f = (struct elf_file){.pread = fd_pread, .opaque = &fd, .size = (uint64_t)st.st_size};
	ck_assert_int_eq(elf_parse(&f, &info, &why), 0);
	ck_assert_ptr_null(info.interp);
	drop_mm();
	new_mm(256ull << 20);
	ck_assert_int_eq(elf_load(mm, &f, &info, info.pie ? PIE_BIAS : 0, false, &res), 0);
	ck_assert_int_eq(mm_peek(mm, magic, info.lo + res.bias, 4), 0);
	ck_assert_int_eq(memcmp(magic, ELFMAG, 4), 0);
	ck_assert_uint_ne(res.phdr, 0);
	mm_for_each_vma(mm, vlist_fn, &l);
	ck_assert_uint_ge(l.n, 2);
	for (unsigned i = 0; i < MIN(l.n, ARRAY_SIZE(l.v)); i++)
		if (res.entry >= l.v[i].start && res.entry < l.v[i].end)
			entry_exec = l.v[i].prot & PROT_EXEC;
	ck_assert(entry_exec);
	elf_info_release(&info);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("elf");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_parse_valid_exec);
	tcase_add_test(tc, test_parse_valid_dyn);
	tcase_add_test(tc, test_phdr_from_load_segment);
	tcase_add_test(tc, test_exec_stack_and_interp);
	tcase_add_test(tc, test_load_exec);
	tcase_add_test(tc, test_load_dyn);
	tcase_add_test(tc, test_io_errors);
	tcase_add_loop_test(tc, test_hostile_images, 0, ARRAY_SIZE(hostile));
	tcase_add_test(tc, test_fuzz_headers);
	tcase_add_test(tc, test_busybox);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
