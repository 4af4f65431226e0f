/*
 * ELF parsing and segment loading. Validation follows what Linux's
 * binfmt_elf accepts. What it rejects before exec's point of no return (the
 * headers, PT_INTERP) is an error with a reason; what it finds only while
 * mapping the segments, after it (a segment misaligned, outside the address
 * space, with more file than memory bytes), is noted in info->doomed: the
 * exec goes on and the process dies of SIGSEGV, as in Linux. Nothing a
 * header says makes the sentry do unbounded work.
 */
#include "config.h"
#include "sentry/loader/elf.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define BAD(reason)              \
	do {                     \
		*why = (reason); \
		ret = -ENOEXEC;  \
		goto fail;       \
	} while (0)

/* Found by Linux only past the point of no return: note the first. */
#define DOOMED(reason)                          \
	do {                                    \
		if (!out->doomed)               \
			out->doomed = (reason); \
	} while (0)

static int read_exact(const struct elf_file *f, void *buf, size_t len, uint64_t off)
{
	long n;

	if (off > f->size || len > f->size - off)
		return -ENOEXEC;
	n = f->pread(f->opaque, buf, len, off);
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EIO;
}

int elf_parse(const struct elf_file *f, struct elf_info *out, const char **why)
{
	Elf64_Ehdr *eh = &out->ehdr;
	bool have_load = false;
	size_t phsize;
	int ret;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (f->size < sizeof(*eh))
		BAD("file too short for an ELF header");
	ret = read_exact(f, eh, sizeof(*eh), 0);
	if (ret < 0) {
		*why = "cannot read the ELF header";
		goto fail;
	}
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		BAD("not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		BAD("not a 64-bit ELF file");
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		BAD("not a little-endian ELF file");
	if (eh->e_ident[EI_VERSION] != EV_CURRENT || eh->e_version != EV_CURRENT)
		BAD("unknown ELF version");
	if (eh->e_machine != EM_X86_64)
		BAD("wrong architecture (not x86-64)");
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		BAD("not an executable (ELF type is neither EXEC nor DYN)");
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		BAD("bad program header entry size");
	if (eh->e_phnum == 0 || eh->e_phnum > ELF_MAX_PHNUM)
		BAD("bad number of program headers");
	phsize = (size_t)eh->e_phnum * sizeof(Elf64_Phdr);
	if (eh->e_phoff > f->size || phsize > f->size - eh->e_phoff)
		BAD("program headers lie outside the file");
	out->pie = eh->e_type == ET_DYN;

	out->phdrs = xmalloc(phsize);
	ret = read_exact(f, out->phdrs, phsize, eh->e_phoff);
	if (ret < 0) {
		*why = "cannot read the program headers";
		goto fail;
	}

	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &out->phdrs[i];
		uint64_t start, end;

		switch (ph->p_type) {
		case PT_LOAD:
			if (ph->p_memsz == 0)
				continue;
			/* (A segment past the file's end maps zeros there, as
			 * the part of a file mapping's last page past the end.) */
			if (ph->p_filesz > ph->p_memsz)
				DOOMED("segment has more file bytes than memory bytes");
			if (ph->p_filesz &&
			    (ph->p_offset > INT64_MAX || ph->p_filesz > INT64_MAX - ph->p_offset))
				DOOMED("segment's file range past the largest file");
			if (ph->p_filesz && (ph->p_vaddr - ph->p_offset) % PAGE_SIZE)
				DOOMED("segment address and file offset disagree modulo the "
				       "page size");
			if (ph->p_vaddr >= GUEST_MAX_ADDR ||
			    ph->p_memsz > GUEST_MAX_ADDR - ph->p_vaddr) {
				DOOMED("segment too large or beyond the guest address space");
				continue;
			}
			/* Overlapping and out-of-order segments are Linux's too:
			 * each is mapped over what came before. */
			start = ALIGN_DOWN(ph->p_vaddr, PAGE_SIZE);
			end = ALIGN_UP(ph->p_vaddr + ph->p_memsz, PAGE_SIZE);
			out->lo = have_load ? MIN(out->lo, start) : start;
			out->hi = have_load ? MAX(out->hi, end) : end;
			have_load = true;
			break;
		case PT_INTERP:
			if (out->interp)
				BAD("more than one PT_INTERP");
			if (ph->p_filesz < 2 || ph->p_filesz > ELF_MAX_INTERP)
				BAD("bad PT_INTERP size");
			out->interp = xmalloc(ph->p_filesz);
			ret = read_exact(f, out->interp, ph->p_filesz, ph->p_offset);
			if (ret < 0) {
				*why = "PT_INTERP lies outside the file";
				goto fail;
			}
			/* The path ends at its first NUL; only the last byte
			 * must be one. */
			if (out->interp[ph->p_filesz - 1] != '\0')
				BAD("PT_INTERP is not a NUL-terminated path");
			break;
		case PT_GNU_STACK:
			out->exec_stack = ph->p_flags & PF_X;
			break;
		case PT_PHDR:
			out->phdr_vaddr = ph->p_vaddr;
			break;
		default:
			break;
		}
	}
	if (!have_load && !out->doomed)
		BAD("no loadable segments");
	if (have_load && !out->pie && out->lo < GUEST_MIN_ADDR)
		DOOMED("segment below the lowest guest address");
	if (have_load && out->pie && out->hi - out->lo > GUEST_MAX_ADDR / 2)
		DOOMED("position-independent image too large");
	if (!out->phdr_vaddr) {
		/* No PT_PHDR: find the headers inside a loaded segment, as Linux does. */
		for (unsigned i = 0; i < eh->e_phnum; i++) {
			const Elf64_Phdr *ph = &out->phdrs[i];
			if (ph->p_type == PT_LOAD && ph->p_offset <= eh->e_phoff &&
			    eh->e_phoff + phsize <= ph->p_offset + ph->p_filesz) {
				out->phdr_vaddr = ph->p_vaddr + (eh->e_phoff - ph->p_offset);
				break;
			}
		}
	}
	return 0;
fail:
	elf_info_release(out);
	return ret;
}

void elf_info_release(struct elf_info *info)
{
	free(info->phdrs);
	free(info->interp);
	info->phdrs = NULL;
	info->interp = NULL;
}

static int prot_of(uint32_t flags)
{
	return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
	       ((flags & PF_X) ? PROT_EXEC : 0);
}

/* Copy [off, off+len) of the file to guest address addr (which is writable). */
static int copy_file_to_guest(struct mm *mm, const struct elf_file *f, uint64_t addr, uint64_t off,
			      uint64_t len)
{
	char *buf = xmalloc(65536);
	int ret = 0;

	/* Past the file's end: the zeros already there. */
	len = off >= f->size ? 0 : MIN(len, f->size - off);
	while (len) {
		size_t chunk = MIN(len, 65536);
		ret = read_exact(f, buf, chunk, off);
		if (ret < 0)
			break;
		ret = mm_copy_out(mm, addr, buf, chunk);
		if (ret < 0)
			break;
		addr += chunk;
		off += chunk;
		len -= chunk;
	}
	free(buf);
	return ret;
}

int elf_load(struct mm *mm, const struct elf_file *f, const struct elf_info *info, uint64_t bias,
	     bool interp, struct elf_load_result *out)
{
	bool first = true;

	memset(out, 0, sizeof(*out));
	if (info->doomed)
		return -EINVAL;
	if (!info->pie && bias)
		return -EINVAL;
	if (bias > GUEST_MAX_ADDR - info->hi)
		return -ENOMEM;
	for (unsigned i = 0; i < info->ehdr.e_phnum; i++) {
		const Elf64_Phdr *ph = &info->phdrs[i];
		uint64_t start, end, fend;
		struct mmap_req req = {0};
		long addr;
		int ret, prot;

		if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
			continue;
		start = ALIGN_DOWN(ph->p_vaddr + bias, PAGE_SIZE);
		end = ALIGN_UP(ph->p_vaddr + bias + ph->p_memsz, PAGE_SIZE);
		prot = prot_of(ph->p_flags);
		req.addr = start;
		req.len = end - start;
		req.prot = PROT_READ | PROT_WRITE;
		/* As Linux: a program's first segment may not land on anything;
		 * its later ones, and an interpreter's, map over what is there. */
		req.flags = MAP_PRIVATE | MAP_ANONYMOUS |
			    (first && !interp ? MAP_FIXED_NOREPLACE : MAP_FIXED);
		first = false;
		addr = mm_mmap(mm, &req);
		if (addr < 0)
			return (int)addr;
		/* Memory past p_filesz (the BSS) is already zero. */
		ret = copy_file_to_guest(mm, f, ph->p_vaddr + bias, ph->p_offset, ph->p_filesz);
		if (ret < 0)
			return ret;
		/* The pages that hold file bytes are (a copy of) the file's. */
		if (f->bops && ph->p_filesz && ph->p_offset >= ph->p_vaddr + bias - start)
			mm_set_backing(
				mm, start, ALIGN_UP(ph->p_vaddr + bias + ph->p_filesz, PAGE_SIZE),
				f->bops, f->opaque, ph->p_offset - (ph->p_vaddr + bias - start));
		/* The pages past the file's part are anonymous memory, readable and
		 * writable whatever p_flags says (Linux maps them as brk does). */
		fend = ph->p_filesz ? ALIGN_UP(ph->p_vaddr + bias + ph->p_filesz, PAGE_SIZE)
				    : start;
		if (prot != (PROT_READ | PROT_WRITE) && fend > start) {
			ret = mm_mprotect(mm, start, MIN(fend, end) - start, prot);
			if (ret < 0)
				return ret;
		}
		if ((prot & PROT_EXEC) && fend < end) {
			ret = mm_mprotect(mm, fend, end - fend, PROT_READ | PROT_WRITE | PROT_EXEC);
			if (ret < 0)
				return ret;
		}
		out->end = MAX(out->end, end);
	}
	out->bias = bias;
	out->entry = info->ehdr.e_entry + bias;
	out->phdr = info->phdr_vaddr ? info->phdr_vaddr + bias : 0;
	return 0;
}
