/*
 * The initial process stack, laid out as Linux's execve lays it out
 * (fs/exec.c and fs/binfmt_elf.c), from the top down:
 *
 *   [8 zero bytes] execfn | envp strings | argv strings   (arg_start..)
 *   "x86_64" | 16 AT_RANDOM bytes | padding to 16
 *   auxv pairs, NULL | envp[], NULL | argv[], NULL | argc  <- sp (16-aligned)
 */
#include "config.h"
#include "sentry/loader/elf.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PLATFORM_STRING "x86_64"
/* Linux's stack_expand: the initial stack VMA has room beyond the arguments. */
#define STACK_EXPAND (128u * 1024u)
/* Linux's ARG_MAX, the least argument space any stack limit allows. */
#define ARG_MIN_SPACE (128u * 1024u)

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int stack_build(struct mm *mm, uint64_t stack_top, uint64_t stack_limit,
		const struct stack_params *p, uint64_t *sp_out)
{
	size_t argc = count(p->argv), envc = count(p->envp), strings = 0, limit;
	size_t argbytes = 0, envbytes = 0;
	uint64_t aux[64], str, sp, vma_len, platform, random;
	unsigned na = 0;
	uint64_t *vec;
	size_t nvec, i;
	char *blob;
	int ret;

	/* Linux counts each string against MAX_ARG_STRLEN and all of them, with
	 * their pointers, against a quarter of the stack limit (at least ARG_MAX). */
	for (i = 0; i < argc + envc; i++) {
		size_t len = strlen(i < argc ? p->argv[i] : p->envp[i - argc]) + 1;
		if (len > EXEC_MAX_ARG_STRLEN)
			return -E2BIG;
		if (i < argc)
			argbytes += len;
		else
			envbytes += len;
	}
	strings = argbytes + envbytes;
	strings += strlen(p->execfn) + 1;
	limit = MAX(MIN(stack_limit / 4, EXEC_MAX_ARG_TOTAL * 3), ARG_MIN_SPACE);
	if (strings + (argc + envc + 2) * sizeof(uint64_t) > limit)
		return -E2BIG;

	/* The strings, in the order they end up in memory. */
	blob = xmalloc(strings);
	{
		size_t off = 0;
		for (i = 0; i < argc; i++) {
			size_t len = strlen(p->argv[i]) + 1;
			memcpy(blob + off, p->argv[i], len);
			off += len;
		}
		for (i = 0; i < envc; i++) {
			size_t len = strlen(p->envp[i]) + 1;
			memcpy(blob + off, p->envp[i], len);
			off += len;
		}
		memcpy(blob + off, p->execfn, strlen(p->execfn) + 1);
	}
	str = stack_top - sizeof(uint64_t) - strings;
	platform = ALIGN_DOWN(str - sizeof(PLATFORM_STRING), 16);
	random = platform - 16;

#define AUX(type, val)                       \
	do {                                 \
		aux[na++] = (type);          \
		aux[na++] = (uint64_t)(val); \
	} while (0)
	if (p->sysinfo_ehdr)
		AUX(AT_SYSINFO_EHDR, p->sysinfo_ehdr);
	AUX(AT_MINSIGSTKSZ, p->minsigstksz);
	AUX(AT_HWCAP, p->hwcap);
	AUX(AT_PAGESZ, PAGE_SIZE);
	AUX(AT_CLKTCK, 100);
	AUX(AT_PHDR, p->phdr);
	AUX(AT_PHENT, sizeof(Elf64_Phdr));
	AUX(AT_PHNUM, p->phnum);
	AUX(AT_BASE, p->base);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, p->entry);
	AUX(AT_UID, p->uid);
	AUX(AT_EUID, p->euid);
	AUX(AT_GID, p->gid);
	AUX(AT_EGID, p->egid);
	AUX(AT_SECURE, p->secure);
	AUX(AT_RANDOM, random);
	AUX(AT_HWCAP2, p->hwcap2);
	AUX(AT_EXECFN, stack_top - sizeof(uint64_t) - strlen(p->execfn) - 1);
	AUX(AT_PLATFORM, platform);
	AUX(AT_NULL, 0);
#undef AUX

	/* argc, argv[], NULL, envp[], NULL, auxv: sp must be 16-byte aligned. */
	nvec = 1 + argc + 1 + envc + 1 + na;
	sp = ALIGN_DOWN(random - nvec * sizeof(uint64_t), 16);
	if (stack_top - sp > stack_limit) {
		free(blob);
		return -E2BIG;
	}
	vec = xmalloc(nvec * sizeof(uint64_t));
	{
		size_t k = 0;
		uint64_t s = str;
		vec[k++] = argc;
		for (i = 0; i < argc; i++) {
			vec[k++] = s;
			s += strlen(p->argv[i]) + 1;
		}
		vec[k++] = 0;
		for (i = 0; i < envc; i++) {
			vec[k++] = s;
			s += strlen(p->envp[i]) + 1;
		}
		vec[k++] = 0;
		memcpy(&vec[k], aux, na * sizeof(uint64_t));
	}

	vma_len = MIN(ALIGN_UP(stack_top - sp, PAGE_SIZE) + STACK_EXPAND,
		      ALIGN_DOWN(stack_limit, PAGE_SIZE));
	ret = mm_map_stack(mm, stack_top, vma_len, stack_limit);
	if (ret == 0)
		ret = mm_copy_out(mm, str, blob, strings);
	if (ret == 0)
		ret = mm_copy_out(mm, platform, PLATFORM_STRING, sizeof(PLATFORM_STRING));
	if (ret == 0)
		ret = mm_copy_out(mm, random, p->random, 16);
	if (ret == 0)
		ret = mm_copy_out(mm, sp, vec, nvec * sizeof(uint64_t));
	if (ret == 0) {
		mm->start_stack = sp;
		mm->stack_top = stack_top;
		mm->arg_start = str;
		mm->arg_end = mm->env_start = str + argbytes;
		mm->env_end = mm->env_start + envbytes;
		memcpy(mm->saved_auxv, aux, na * sizeof(uint64_t));
		mm->saved_auxv_words = na;
		*sp_out = sp;
	}
	free(vec);
	free(blob);
	return ret;
}
