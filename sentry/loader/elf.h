/*
 * The ELF loader: parse an x86-64 executable (static, static-pie; dynamic
 * programs come with the filesystem), map its PT_LOAD segments into an mm,
 * and build the initial stack (argv, envp, auxv) that Linux would build.
 *
 * Every field of the file is hostile: parsing validates it all before
 * anything is mapped, and failures are -errno with a one-line reason.
 */
#ifndef RUNG_ELF_H
#define RUNG_ELF_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mm;

/* Where the bytes come from: a host file now, a gofer file later. */
struct mm_backing_ops;

struct elf_file {
	/* Read up to len bytes at off; returns the count (short at EOF) or -errno. */
	long (*pread)(void *opaque, void *buf, size_t len, uint64_t off);
	void *opaque;
	uint64_t size;
	/* Optional: opaque as a mapping backing, to name the segments in maps. */
	const struct mm_backing_ops *bops;
};

/* Limits that keep a hostile header from costing the sentry anything. */
#define ELF_MAX_PHNUM  (65536 / sizeof(Elf64_Phdr))
#define ELF_MAX_INTERP 4096

struct elf_info {
	Elf64_Ehdr ehdr;
	Elf64_Phdr *phdrs;   /* ehdr.e_phnum entries */
	bool pie;	     /* ET_DYN: loaded at a chosen bias */
	char *interp;	     /* PT_INTERP, or NULL */
	bool exec_stack;     /* PT_GNU_STACK asked for an executable stack */
	uint64_t lo, hi;     /* page-aligned span of the PT_LOAD segments (unbiased) */
	uint64_t phdr_vaddr; /* where the program headers are in memory (unbiased), 0 if not */
	/* A defect Linux finds only past exec's point of no return, while it
	 * maps the segments: the exec goes on, the process dies of SIGSEGV
	 * (elf_load is not to be called). NULL for a sound image. */
	const char *doomed;
};

/* Parse and validate. On failure returns -ENOEXEC (or -EIO, -ENOMEM) and sets
 * *why to a static description. */
int elf_parse(const struct elf_file *f, struct elf_info *out, const char **why);
void elf_info_release(struct elf_info *info);

struct elf_load_result {
	uint64_t bias;	/* added to every vaddr */
	uint64_t entry; /* biased e_entry */
	uint64_t phdr;	/* AT_PHDR */
	uint64_t end;	/* page-aligned end of the highest segment */
};

/* Map info's segments into mm at bias (0 for ET_EXEC); interp: it is a
 * program interpreter (mapped over whatever is there). Returns 0 or
 * -errno (-EINVAL for a doomed image). */
int elf_load(struct mm *mm, const struct elf_file *f, const struct elf_info *info, uint64_t bias,
	     bool interp, struct elf_load_result *out);

/* Everything the initial stack says about the process. */
struct stack_params {
	const char *const *argv;
	const char *const *envp;
	const char *execfn; /* AT_EXECFN string */
	uint64_t phdr, phnum, entry, base;
	uint32_t uid, euid, gid, egid;
	bool secure;
	uint64_t hwcap, hwcap2;
	uint8_t random[16];    /* AT_RANDOM bytes */
	uint64_t sysinfo_ehdr; /* vDSO, 0 for none */
	uint64_t minsigstksz;
};

/* Limits of Linux's execve: MAX_ARG_STRLEN per string, and the argument space. */
#define EXEC_MAX_ARG_STRLEN (32u * 4096u)
#define EXEC_MAX_ARG_TOTAL  (2u * 1024u * 1024u)

/*
 * Create the main stack VMA ending at stack_top (sized for stack_limit) and
 * write argc, argv, envp, auxv and their strings onto it. Returns 0 with the
 * initial stack pointer in *sp, or -E2BIG / -ENOMEM / -EFAULT.
 */
int stack_build(struct mm *mm, uint64_t stack_top, uint64_t stack_limit,
		const struct stack_params *p, uint64_t *sp);

#endif
