/*
 * execve's core: build a new address space with the program and its stack,
 * give it a stub, and point the task's registers at the entry point.
 * The old address space is dropped only once the new one is complete.
 */
#include "config.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/loader/elf.h"
#include "sentry/mm/mm.h"
#include "platform/platform.h"
#include "lib/cleanup.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* Linux's ELF_ET_DYN_BASE for x86-64 (2/3 of the address space), scaled to the guest's. */
#define ET_DYN_BASE ALIGN_DOWN(GUEST_MAX_ADDR / 3 * 2, PAGE_SIZE)
/* Randomisation ranges, as Linux's defaults: 28 bits of pages for mmap and
 * PIE bases, 22 bits for the stack, 32 MiB for brk. */
#define MMAP_RND_PAGES	(1ul << 28)
#define STACK_RND_PAGES (1ul << 22)
#define BRK_RND_BYTES	(32ul << 20)
/* Linux's mmap_base gap between stack and mmap area: at least 128 MiB. */
#define MIN_STACK_GAP (128ul << 20)
/* The minimum signal stack size the kernel reports (AT_MINSIGSTKSZ) on XSAVE hosts. */
#define MINSIGSTKSZ_AVX 3376

static long hostfile_pread(void *opaque, void *buf, size_t len, uint64_t off)
{
	long n = pread((int)(intptr_t)opaque, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

static uint64_t random_below(uint64_t n)
{
	uint64_t r = 0;

	if (n == 0 || getrandom(&r, sizeof(r), 0) != sizeof(r))
		return 0;
	return r % n;
}

static uint64_t rlim_cur(const struct task *t, int res)
{
	return t->rlim[res].rlim_cur;
}

int task_exec(struct task *t, const char *path, char *const argv[], char *const envp[],
	      const char **why)
{
	cleanup_close int fd = -1;
	struct elf_file file;
	struct elf_info info;
	struct elf_load_result res;
	struct stack_params sp = {0};
	struct address_space *as = NULL;
	struct mm *mm = NULL;
	struct stat st;
	uint64_t stack_limit, stack_top, gap, bias = 0, rsp;
	const char *base;
	int ret;

	*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return -EACCES;
	file = (struct elf_file){.pread = hostfile_pread,
				 .opaque = (void *)(intptr_t)fd,
				 .size = (uint64_t)st.st_size};
	ret = elf_parse(&file, &info, why);
	if (ret < 0)
		return ret;
	if (info.interp) {
		*why = "dynamically linked programs need a root filesystem, which rung does not "
		       "have yet: use a static build";
		ret = -ENOEXEC;
		goto out;
	}

	ret = mm_new(t->k->mf, t->k->cfg.memory_limit, &mm);
	if (ret < 0)
		goto out;
	/* Layout, as Linux: stack at the top (randomised), the mmap area below
	 * it with a gap for the stack limit, PIE images at ET_DYN_BASE. */
	stack_limit = rlim_cur(t, RLIMIT_STACK);
	if (stack_limit == RLIM_INFINITY || stack_limit > MM_STACK_RESERVE_MAX)
		stack_limit = MM_STACK_RESERVE_MAX;
	stack_limit = MAX(stack_limit, 128ul * 1024);
	stack_top = GUEST_MAX_ADDR - random_below(STACK_RND_PAGES) * PAGE_SIZE;
	gap = MAX(stack_limit, MIN_STACK_GAP) + STACK_GUARD_GAP;
	mm->mmap_base =
		ALIGN_DOWN(stack_top - gap - random_below(MMAP_RND_PAGES) * PAGE_SIZE, PAGE_SIZE);
	if (info.pie)
		bias = ET_DYN_BASE - info.lo + random_below(MMAP_RND_PAGES) * PAGE_SIZE;

	ret = elf_load(mm, &file, &info, bias, &res);
	if (ret < 0)
		goto out;
	mm_set_brk(mm, res.end + ALIGN_DOWN(random_below(BRK_RND_BYTES), PAGE_SIZE));

	sp.argv = (const char *const *)argv;
	sp.envp = (const char *const *)envp;
	sp.execfn = path;
	sp.phdr = res.phdr;
	sp.phnum = info.ehdr.e_phnum;
	sp.entry = res.entry;
	sp.base = 0;
	sp.uid = t->creds.uid;
	sp.euid = t->creds.euid;
	sp.gid = t->creds.gid;
	sp.egid = t->creds.egid;
	sp.secure = false;
	sp.hwcap = getauxval(AT_HWCAP);
	sp.hwcap2 = getauxval(AT_HWCAP2);
	sp.minsigstksz = getauxval(AT_MINSIGSTKSZ) ? getauxval(AT_MINSIGSTKSZ) : MINSIGSTKSZ_AVX;
	if (getrandom(sp.random, sizeof(sp.random), 0) != sizeof(sp.random)) {
		ret = -EIO;
		goto out;
	}
	ret = stack_build(mm, stack_top, stack_limit, &sp, &rsp);
	if (ret < 0)
		goto out;

	/* The point of no return: a stub for the new image. */
	ret = t->k->plat->ops->as_new(t->k->plat, &as);
	if (ret < 0)
		goto out;
	ret = mm_attach(mm, as);
	if (ret < 0)
		goto out;

	mm_put(t->mm);
	t->mm = mm;
	mm = NULL;
	memset(&t->cpu, 0, sizeof(t->cpu));
	t->cpu.regs.rip = res.entry;
	t->cpu.regs.rsp = rsp;
	t->cpu.regs.cs = 0x33;	    /* __USER_CS */
	t->cpu.regs.ss = 0x2b;	    /* __USER_DS */
	t->cpu.regs.eflags = 0x202; /* IF */
	t->cpu.valid = CPU_REGS_ALL;
	t->cpu.dirty = CPU_DIRTY_ALL;
	t->cpu.fpu_reset = true;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	memset(t->comm, 0, sizeof(t->comm));
	strncpy(t->comm, base, sizeof(t->comm) - 1);
out:
	mm_put(mm); /* on failure: the half-built image, with its stub if it got one */
	elf_info_release(&info);
	return ret;
}
