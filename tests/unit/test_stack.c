/*
 * Unit tests: the initial process stack (stack_build in sentry/loader/stack.c),
 * read back from guest memory the way a program's startup code reads it:
 * argc, argv, envp, the auxiliary vector and the strings they point to.
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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PG	 PAGE_SIZE
#define TOP	 (GUEST_MAX_ADDR - 0x10000) /* as exec places it, page aligned */
#define LIMIT_8M (8ul << 20)

static struct memfile *mf;
static struct mm *mm;

static void setup(void)
{
	struct rung_error err = {0};

	ck_assert_int_eq(memfile_create(256ull << 20, &mf, &err), 0);
	ck_assert_int_eq(mm_new(mf, 128ull << 20, &mm), 0);
}

static void teardown(void)
{
	mm_put(mm);
	ck_assert_uint_eq(mf->allocated, 0);
	memfile_destroy(mf);
}

static uint64_t read_u64(uint64_t addr)
{
	uint64_t v;

	ck_assert_msg(mm_copy_in(mm, &v, addr, sizeof(v)) == 0, "unreadable stack word at %#lx",
		      (unsigned long)addr);
	return v;
}

/* The guest string at addr (which must be NUL-terminated within max bytes). */
static char *read_str(uint64_t addr, size_t max)
{
	char *s = xmalloc(max);
	long n = mm_strncpy_in(mm, s, addr, max);

	ck_assert_msg(n >= 0, "bad guest string at %#lx: %ld", (unsigned long)addr, n);
	return s;
}

static void default_params(struct stack_params *p, const char *const *argv, const char *const *envp)
{
	memset(p, 0, sizeof(*p));
	p->argv = argv;
	p->envp = envp;
	p->execfn = "/bin/prog";
	p->phdr = 0x400040;
	p->phnum = 9;
	p->entry = 0x401000;
	p->base = 0;
	p->uid = 1000;
	p->euid = 1001;
	p->gid = 100;
	p->egid = 101;
	p->secure = false;
	p->hwcap = 0x178bfbff;
	p->hwcap2 = 0x2;
	p->minsigstksz = 3632;
	for (int i = 0; i < 16; i++)
		p->random[i] = (uint8_t)(0xc0 + i);
}

/* What the stack says, as parsed from guest memory. */
struct parsed {
	uint64_t sp, argc, argv[16], envc, envp[16];
	uint64_t auxv_addr;
	unsigned naux;
	uint64_t aux[64][2];
};

static void parse_stack(uint64_t sp, struct parsed *ps)
{
	uint64_t a = sp, v;

	memset(ps, 0, sizeof(*ps));
	ps->sp = sp;
	ps->argc = read_u64(a);
	a += 8;
	ck_assert_uint_le(ps->argc, ARRAY_SIZE(ps->argv));
	for (uint64_t i = 0; i < ps->argc; i++, a += 8)
		ps->argv[i] = read_u64(a);
	ck_assert_uint_eq(read_u64(a), 0); /* argv[argc] */
	a += 8;
	while ((v = read_u64(a)) != 0) {
		ck_assert_uint_lt(ps->envc, ARRAY_SIZE(ps->envp));
		ps->envp[ps->envc++] = v;
		a += 8;
	}
	a += 8;
	ps->auxv_addr = a;
	for (;;) {
		ck_assert_uint_lt(ps->naux, ARRAY_SIZE(ps->aux));
		ps->aux[ps->naux][0] = read_u64(a);
		ps->aux[ps->naux][1] = read_u64(a + 8);
		a += 16;
		if (ps->aux[ps->naux++][0] == AT_NULL)
			break;
	}
}

/* The value of auxv entry type; it must appear exactly once. */
static uint64_t aux(const struct parsed *ps, uint64_t type)
{
	int found = 0;
	uint64_t val = 0;

	for (unsigned i = 0; i < ps->naux; i++)
		if (ps->aux[i][0] == type) {
			found++;
			val = ps->aux[i][1];
		}
	ck_assert_msg(found == 1, "auxv type %lu appears %d times", (unsigned long)type, found);
	return val;
}

static bool has_aux(const struct parsed *ps, uint64_t type)
{
	for (unsigned i = 0; i < ps->naux; i++)
		if (ps->aux[i][0] == type)
			return true;
	return false;
}

/* The full layout: argc, argv, envp, auxv values, the strings and the mm's bookkeeping. */
START_TEST(test_layout)
{
	static const char *const argv[] = {"prog", "-x", "hello world", "", NULL};
	static const char *const envp[] = {"A=1", "PATH=/bin:/usr/bin", NULL};
	static const uint64_t required[] = {AT_PHDR,  AT_PHENT,	 AT_PHNUM,  AT_PAGESZ,
					    AT_ENTRY, AT_BASE,	 AT_UID,    AT_EUID,
					    AT_GID,   AT_EGID,	 AT_SECURE, AT_RANDOM,
					    AT_HWCAP, AT_CLKTCK, AT_EXECFN, AT_PLATFORM};
	struct stack_params p;
	struct parsed ps;
	uint8_t rnd[16];
	uint64_t sp = 0, zero;
	char *s;

	default_params(&p, argv, envp);
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), 0);
	ck_assert_uint_eq(sp % 16, 0);
	ck_assert_uint_lt(sp, TOP);
	ck_assert_uint_gt(sp, TOP - 64 * 1024);
	parse_stack(sp, &ps);

	ck_assert_uint_eq(ps.argc, 4);
	for (unsigned i = 0; i < 4; i++) {
		s = read_str(ps.argv[i], 256);
		ck_assert_str_eq(s, argv[i]);
		ck_assert_uint_gt(ps.argv[i], sp);
		ck_assert_uint_lt(ps.argv[i], TOP);
		free(s);
	}
	ck_assert_uint_eq(ps.envc, 2);
	for (unsigned i = 0; i < 2; i++) {
		s = read_str(ps.envp[i], 256);
		ck_assert_str_eq(s, envp[i]);
		free(s);
	}

	for (unsigned i = 0; i < ARRAY_SIZE(required); i++)
		aux(&ps, required[i]);
	ck_assert_uint_eq(ps.aux[ps.naux - 1][0], AT_NULL);
	ck_assert_uint_eq(aux(&ps, AT_PAGESZ), 4096);
	ck_assert_uint_eq(aux(&ps, AT_PHDR), 0x400040);
	ck_assert_uint_eq(aux(&ps, AT_PHENT), sizeof(Elf64_Phdr));
	ck_assert_uint_eq(aux(&ps, AT_PHNUM), 9);
	ck_assert_uint_eq(aux(&ps, AT_ENTRY), 0x401000);
	ck_assert_uint_eq(aux(&ps, AT_BASE), 0);
	ck_assert_uint_eq(aux(&ps, AT_UID), 1000);
	ck_assert_uint_eq(aux(&ps, AT_EUID), 1001);
	ck_assert_uint_eq(aux(&ps, AT_GID), 100);
	ck_assert_uint_eq(aux(&ps, AT_EGID), 101);
	ck_assert_uint_eq(aux(&ps, AT_SECURE), 0);
	ck_assert_uint_eq(aux(&ps, AT_HWCAP), 0x178bfbff);
	ck_assert_uint_eq(aux(&ps, AT_HWCAP2), 2);
	ck_assert_uint_eq(aux(&ps, AT_CLKTCK), 100);
	ck_assert_uint_eq(aux(&ps, AT_MINSIGSTKSZ), 3632);
	/* No vDSO was given: no AT_SYSINFO_EHDR (a program would try to use it). */
	ck_assert(!has_aux(&ps, AT_SYSINFO_EHDR));

	/* AT_RANDOM: 16 readable bytes, the ones given. */
	ck_assert_int_eq(mm_copy_in(mm, rnd, aux(&ps, AT_RANDOM), 16), 0);
	ck_assert_int_eq(memcmp(rnd, p.random, 16), 0);
	ck_assert_uint_gt(aux(&ps, AT_RANDOM), sp);
	s = read_str(aux(&ps, AT_EXECFN), 256);
	ck_assert_str_eq(s, "/bin/prog");
	free(s);
	s = read_str(aux(&ps, AT_PLATFORM), 256);
	ck_assert_str_eq(s, "x86_64");
	free(s);
	/* The top 8 bytes are zero, and execfn ends right below them (as on Linux). */
	ck_assert_int_eq(mm_copy_in(mm, &zero, TOP - 8, 8), 0);
	ck_assert_uint_eq(zero, 0);
	ck_assert_uint_eq(aux(&ps, AT_EXECFN), TOP - 8 - sizeof("/bin/prog"));

	/* The mm knows where everything is: argv strings then envp strings, back to back. */
	ck_assert_uint_eq(mm->start_stack, sp);
	ck_assert_uint_eq(mm->stack_top, TOP);
	ck_assert_uint_eq(mm->arg_start, ps.argv[0]);
	ck_assert_uint_eq(mm->arg_end, mm->env_start);
	ck_assert_uint_eq(mm->env_start, ps.envp[0]);
	ck_assert_uint_eq(mm->arg_end - mm->arg_start, 5 + 3 + 12 + 1);
	ck_assert_uint_eq(mm->env_end - mm->env_start, 4 + 19);
	/* The strings lie above the vectors. */
	ck_assert_uint_gt(ps.argv[0], ps.auxv_addr + ps.naux * 16);
}
END_TEST

/* The stack VMA: read-write, grows down, ends at the top, and has room to spare. */
START_TEST(test_stack_vma)
{
	static const char *const argv[] = {"a", NULL};
	struct stack_params p;
	uint64_t sp;
	struct vma *v;

	default_params(&p, argv, NULL);
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), 0);
	pthread_rwlock_rdlock(&mm->lock);
	v = mm_find_vma(mm, sp);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v->end, TOP);
	ck_assert_int_eq(v->prot, PROT_READ | PROT_WRITE);
	ck_assert_uint_eq(v->flags & (VMA_GROWSDOWN | VMA_STACK), VMA_GROWSDOWN | VMA_STACK);
	ck_assert_uint_ge(sp - v->start, 64 * 1024); /* Linux's stack_expand leaves 128 KiB */
	ck_assert_uint_eq(mm->nr_vmas, 1);
	pthread_rwlock_unlock(&mm->lock);
	/* Faults below it grow it, up to the stack limit. */
	ck_assert_int_eq(mm_handle_fault(mm, TOP - (1ul << 20), ACCESS_WRITE, LIMIT_8M), 0);
	ck_assert_int_eq(mm_copy_out(mm, TOP - (1ul << 20), "deep", 5), 0);
	ck_assert_int_eq(mm_handle_fault(mm, TOP - LIMIT_8M - PG, ACCESS_WRITE, LIMIT_8M),
			 SEGV_MAPERR);
	/* A second stack at the same place is refused. */
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), -EEXIST);
}
END_TEST

/* With no arguments at all: argc 0, argv[0] NULL, still a complete auxv. */
START_TEST(test_empty_argv_envp)
{
	struct stack_params p;
	struct parsed ps;
	uint64_t sp;

	default_params(&p, NULL, NULL);
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), 0);
	ck_assert_uint_eq(sp % 16, 0);
	parse_stack(sp, &ps);
	ck_assert_uint_eq(ps.argc, 0);
	ck_assert_uint_eq(ps.envc, 0);
	ck_assert_uint_eq(aux(&ps, AT_PAGESZ), 4096);
	ck_assert_uint_eq(mm->arg_start, mm->arg_end);
	ck_assert_uint_eq(mm->env_start, mm->env_end);
}
END_TEST

/* sp is 16-byte aligned whatever the argument counts and string lengths. */
START_TEST(test_alignment_all_shapes)
{
	static const char *const words[] = {"",	     "a",      "bb",	  "ccc",      "dddd",
					    "eeeee", "ffffff", "ggggggg", "hhhhhhhh", "iiiiiiiii"};
	uint64_t seed = 7;

	for (unsigned round = 0; round < 60; round++) {
		const char *argv[8] = {0}, *envp[8] = {0};
		unsigned argc = round % 7, envc = (round / 7) % 7;
		struct stack_params p;
		struct parsed ps;
		uint64_t sp;

		for (unsigned i = 0; i < argc; i++)
			argv[i] = words[unit_rand(&seed) % ARRAY_SIZE(words)];
		for (unsigned i = 0; i < envc; i++)
			envp[i] = words[unit_rand(&seed) % ARRAY_SIZE(words)];
		default_params(&p, argv, envp);
		p.execfn = words[round % ARRAY_SIZE(words)];
		p.sysinfo_ehdr = round & 1 ? 0x7ffff7fc1000ul : 0;
		ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), 0);
		ck_assert_msg(sp % 16 == 0, "argc %u envc %u: sp %#lx", argc, envc,
			      (unsigned long)sp);
		parse_stack(sp, &ps);
		ck_assert_uint_eq(ps.argc, argc);
		ck_assert_uint_eq(ps.envc, envc);
		for (unsigned i = 0; i < argc; i++) {
			char *s = read_str(ps.argv[i], 64);
			ck_assert_str_eq(s, argv[i]);
			free(s);
		}
		if (p.sysinfo_ehdr)
			ck_assert_uint_eq(aux(&ps, AT_SYSINFO_EHDR), p.sysinfo_ehdr);
		else
			ck_assert(!has_aux(&ps, AT_SYSINFO_EHDR));
		ck_assert_int_eq(mm_munmap(mm, TOP - LIMIT_8M, LIMIT_8M), 0);
		ck_assert_uint_eq(mm->nr_vmas, 0);
	}
}
END_TEST

/* Oversized arguments: E2BIG, and nothing is left mapped. */
START_TEST(test_e2big)
{
	const char *argv[32] = {0};
	struct stack_params p;
	char *big = xmalloc(EXEC_MAX_ARG_STRLEN + 1), *chunk;
	uint64_t sp = 0x1234;
	struct parsed ps;

	/* One string longer than MAX_ARG_STRLEN (its NUL included). */
	memset(big, 'x', EXEC_MAX_ARG_STRLEN);
	big[EXEC_MAX_ARG_STRLEN] = 0;
	argv[0] = big;
	default_params(&p, argv, NULL);
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), -E2BIG);
	ck_assert_uint_eq(sp, 0x1234);
	ck_assert_uint_eq(mm->nr_vmas, 0);
	/* The same string one byte shorter fits. */
	big[EXEC_MAX_ARG_STRLEN - 1] = 0;
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), 0);
	parse_stack(sp, &ps);
	ck_assert_uint_eq(mm_strncpy_in(mm, big, ps.argv[0], EXEC_MAX_ARG_STRLEN),
			  EXEC_MAX_ARG_STRLEN - 1);
	ck_assert_int_eq(mm_munmap(mm, TOP - LIMIT_8M, LIMIT_8M), 0);

	/* Many strings under the per-string limit but over a quarter of the stack limit. */
	chunk = xmalloc(100 * 1024);
	memset(chunk, 'y', 100 * 1024 - 1);
	chunk[100 * 1024 - 1] = 0;
	for (int i = 0; i < 25; i++)
		argv[i] = chunk;
	default_params(&p, argv, NULL);
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), -E2BIG); /* 2.5 MB > 2 MB */
	ck_assert_uint_eq(mm->nr_vmas, 0);
	argv[15] = NULL; /* 1.5 MB fits */
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), 0);
	parse_stack(sp, &ps);
	ck_assert_uint_eq(ps.argc, 15);
	ck_assert_int_eq(mm_munmap(mm, TOP - LIMIT_8M, LIMIT_8M), 0);
	/* A smaller stack limit allows less (but never less than 128 KiB). */
	argv[2] = NULL;
	ck_assert_int_eq(stack_build(mm, TOP, 512 * 1024, &p, &sp), -E2BIG);
	argv[1] = NULL;
	ck_assert_int_eq(stack_build(mm, TOP, 512 * 1024, &p, &sp), 0);
	ck_assert_uint_le(TOP - sp, 512 * 1024);
	free(chunk);
	free(big);
}
END_TEST

/* A guest memory limit smaller than the stack: -ENOMEM, nothing mapped. */
START_TEST(test_enomem)
{
	static const char *const argv[] = {"prog", NULL};
	struct stack_params p;
	uint64_t sp;

	mm_put(mm);
	ck_assert_int_eq(mm_new(mf, 16 * PG, &mm), 0);
	default_params(&p, argv, NULL);
	ck_assert_int_eq(stack_build(mm, TOP, LIMIT_8M, &p, &sp), -ENOMEM);
	ck_assert_uint_eq(mm->nr_vmas, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stack");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60); /* generous: slow CI machines, sanitizers */
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_stack_vma);
	tcase_add_test(tc, test_empty_argv_envp);
	tcase_add_test(tc, test_alignment_all_shapes);
	tcase_add_test(tc, test_e2big);
	tcase_add_test(tc, test_enomem);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
