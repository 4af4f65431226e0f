/*
 * Guest test: the initial stack. argv and envp as the runner passes them
 * (argv "a1" "two words", a fixed environment with RUNG_GUEST_TEST=1), and
 * the auxiliary vector: the values a static program relies on, checked
 * against the program's own ELF headers and symbols.
 */
#include "guest.h"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

extern const ElfW(Ehdr) __ehdr_start;
extern char _start[];

/* What dl_iterate_phdr reports for the main program. */
static const ElfW(Phdr) * dl_phdr;
static size_t dl_phnum;
static uintptr_t dl_addr;

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	if (!dl_phdr) {
		dl_phdr = info->dlpi_phdr;
		dl_phnum = info->dlpi_phnum;
		dl_addr = info->dlpi_addr;
	}
	return 0;
}

static int has_type(const ElfW(auxv_t) * auxv, unsigned long type)
{
	for (; auxv->a_type != AT_NULL; auxv++)
		if (auxv->a_type == type)
			return 1;
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	const ElfW(Ehdr) *eh = &__ehdr_start;
	const ElfW(Phdr) * ph;
	const ElfW(auxv_t) * auxv;
	char **e;
	int nenv = 0, seen_test = 0;
	uintptr_t bias = 0;

	/* argv */
	CHECK_EQ(argc, 3, "argc is 3");
	CHECK(argv[0] && argv[0][0] == '/', "argv[0] is the absolute program path");
	CHECK(argv[1] && strcmp(argv[1], "a1") == 0, "argv[1] is a1");
	CHECK(argv[2] && strcmp(argv[2], "two words") == 0, "argv[2] is 'two words'");
	CHECK(argv[argc] == NULL, "argv[argc] is NULL");
	for (int i = 1; i < argc; i++)
		printf("argv[%d]=%s\n", i, argv[i]);
	argv[1][0] = 'A';
	CHECK(strcmp(argv[1], "A1") == 0, "argv strings are writable");
	CHECK((char *)argv[1] > (char *)&argv[argc], "argv strings lie above the argv array");

	/* envp follows argv's NULL on the stack */
	CHECK(envp == argv + argc + 1, "envp follows argv on the stack");
	for (e = envp; *e; e++) {
		printf("env: %s\n", *e);
		nenv++;
		if (strcmp(*e, "RUNG_GUEST_TEST=1") == 0)
			seen_test = 1;
	}
	CHECK(seen_test, "RUNG_GUEST_TEST=1 is in envp");
	CHECK(getenv("RUNG_GUEST_TEST") && strcmp(getenv("RUNG_GUEST_TEST"), "1") == 0,
	      "getenv(RUNG_GUEST_TEST) is 1");
	CHECK(getenv("RUNG_NOT_SET") == NULL, "an unset variable is absent");
	printf("envc=%d\n", nenv);

	/* auxv follows envp's NULL */
	auxv = (const ElfW(auxv_t) *)(e + 1);
	CHECK(has_type(auxv, AT_PHDR) && has_type(auxv, AT_PHENT) && has_type(auxv, AT_PHNUM) &&
		      has_type(auxv, AT_PAGESZ) && has_type(auxv, AT_ENTRY) &&
		      has_type(auxv, AT_UID) && has_type(auxv, AT_EUID) && has_type(auxv, AT_GID) &&
		      has_type(auxv, AT_EGID) && has_type(auxv, AT_SECURE) &&
		      has_type(auxv, AT_RANDOM) && has_type(auxv, AT_HWCAP) &&
		      has_type(auxv, AT_CLKTCK) && has_type(auxv, AT_EXECFN) &&
		      has_type(auxv, AT_PLATFORM),
	      "auxv holds every entry a static program needs");
	CHECK(has_type(auxv, AT_BASE), "auxv holds AT_BASE");

	CHECK_EQ(getauxval(AT_PAGESZ), 4096, "AT_PAGESZ is 4096");
	CHECK_EQ(sysconf(_SC_PAGESIZE), 4096, "sysconf(_SC_PAGESIZE) is 4096");
	CHECK_EQ(getauxval(AT_SECURE), 0, "AT_SECURE is 0");
	CHECK_EQ(getauxval(AT_BASE), 0, "AT_BASE is 0 (no interpreter)");
	CHECK_EQ(getauxval(AT_UID), getuid(), "AT_UID is getuid()");
	CHECK_EQ(getauxval(AT_EUID), geteuid(), "AT_EUID is geteuid()");
	CHECK_EQ(getauxval(AT_GID), getgid(), "AT_GID is getgid()");
	CHECK_EQ(getauxval(AT_EGID), getegid(), "AT_EGID is getegid()");
	CHECK_EQ(getauxval(AT_CLKTCK), 100, "AT_CLKTCK is 100");
	CHECK(getauxval(AT_HWCAP) != 0, "AT_HWCAP is not 0");
	CHECK(getauxval(AT_PLATFORM) && strcmp((char *)getauxval(AT_PLATFORM), "x86_64") == 0,
	      "AT_PLATFORM is x86_64");
	CHECK(getauxval(AT_EXECFN) && strcmp((char *)getauxval(AT_EXECFN), argv[0]) == 0,
	      "AT_EXECFN equals argv[0]");

	{
		const unsigned char *rnd = (const unsigned char *)getauxval(AT_RANDOM);
		int nonzero = 0;

		CHECK(rnd != NULL, "AT_RANDOM is not NULL");
		if (rnd)
			for (int i = 0; i < 16; i++)
				nonzero |= rnd[i];
		CHECK(nonzero, "AT_RANDOM's 16 bytes are readable and not all zero");
	}

	/* AT_PHDR/AT_PHNUM/AT_PHENT/AT_ENTRY against the program's own ELF header. */
	CHECK_EQ(getauxval(AT_PHENT), sizeof(ElfW(Phdr)), "AT_PHENT is sizeof(Elf64_Phdr)");
	CHECK_EQ(getauxval(AT_PHNUM), eh->e_phnum, "AT_PHNUM is the ELF header's e_phnum");
	CHECK_EQ(getauxval(AT_PHDR), (uintptr_t)eh + eh->e_phoff,
		 "AT_PHDR is the loaded program headers");
	CHECK_EQ(getauxval(AT_ENTRY), (uintptr_t)_start, "AT_ENTRY is the address of _start");
	ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	for (size_t i = 0; ph && i < getauxval(AT_PHNUM); i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) {
			bias = (uintptr_t)eh - ph[i].p_vaddr;
			break;
		}
	CHECK_EQ(getauxval(AT_ENTRY), eh->e_entry + bias, "AT_ENTRY is e_entry plus the load bias");
	CHECK_EQ(eh->e_type == ET_DYN, bias != 0, "only a PIE program is loaded with a bias");

	dl_iterate_phdr(phdr_cb, NULL);
	CHECK(dl_phdr == (const ElfW(Phdr) *)getauxval(AT_PHDR),
	      "dl_iterate_phdr agrees with AT_PHDR");
	CHECK_EQ(dl_phnum, getauxval(AT_PHNUM), "dl_iterate_phdr agrees with AT_PHNUM");
	CHECK_EQ(dl_addr, bias, "dl_iterate_phdr's load address is the bias");

	/* The loaded segments carry the permissions of their program headers. */
	{
		int text = 0, data = 0;
		for (size_t i = 0; i < eh->e_phnum; i++) {
			const ElfW(Phdr) *p = &ph[i];
			if (p->p_type != PT_LOAD)
				continue;
			if ((p->p_flags & PF_X) && (uintptr_t)_start >= p->p_vaddr + bias &&
			    (uintptr_t)_start < p->p_vaddr + bias + p->p_memsz)
				text = 1;
			if (p->p_flags & PF_W)
				data = 1;
		}
		CHECK(text, "_start lies in an executable PT_LOAD segment");
		CHECK(data, "the program has a writable PT_LOAD segment");
	}

	return GUEST_DONE();
}
