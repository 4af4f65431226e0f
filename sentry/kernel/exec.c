/*
 * execve: find the program, follow "#!" interpreters, load the ELF image and
 * its PT_INTERP (the dynamic loader), build the stack, and swap the task
 * onto the new address space. Nothing of the old image is touched until the
 * new one is complete (the point of no return is the mm swap).
 */
#include "config.h"
#include "sentry/kernel/keys.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/futex.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/rusage.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/timers.h"
#include "sentry/loader/elf.h"
#include "sentry/loader/vdso.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "sentry/fs/filemap.h"
#include "platform/platform.h"
#include "lib/cleanup.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/personality.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdlib.h>
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
/* Linux's BINPRM_BUF_SIZE: how much of a file exec looks at first. */
#define BINPRM_BUF 256
/* How many times a program may be replaced by its "#!" interpreter (Linux's
 * exec_binprm: five script levels, ELOOP at the sixth). */
#define MAX_INTERP_DEPTH 5

struct exec_ctx {
	struct task *t;
	const char *filename; /* AT_EXECFN: the path as execve got it (or /dev/fd/N...) */
	char *interp;	      /* owned: the name of the file being loaded (Linux's
				 bprm->interp): filename, then each "#!" path */
	char **argv;	      /* owned: rewritten by "#!" */
	char *const *envp;
	const char **why;
};

static long file_pread(void *opaque, void *buf, size_t len, uint64_t off)
{
	struct file *f = opaque;
	int64_t pos = (int64_t)off;

	if (!f->ops->read)
		return -EACCES;
	return f->ops->read(f, buf, len, &pos);
}

static int file_size(struct file *f, uint64_t *size)
{
	struct kstat st;
	int ret = f->ops->fstat ? f->ops->fstat(f, &st) : -EACCES;

	if (ret == 0)
		*size = st.size;
	return ret;
}

/* A random number below n, or 0 for a process whose personality asks for
 * no address randomization (ADDR_NO_RANDOMIZE: gdb runs its programs so). */
static uint64_t random_below(const struct task *t, uint64_t n)
{
	uint64_t r = 0;

	if (t->tg->personality & ADDR_NO_RANDOMIZE)
		return 0;
	if (n == 0 || getrandom(&r, sizeof(r), 0) != sizeof(r))
		return 0;
	return r % n;
}

static char **strv_copy(char *const *v)
{
	size_t n = 0;
	char **c;

	while (v && v[n])
		n++;
	c = xzalloc((n + 1) * sizeof(*c));
	for (size_t i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

/* Open a program for execution: a regular file the task may execute, on a
 * mount that allows it. Anything else is refused before it is opened (as
 * Linux's may_open with MAY_EXEC: opening a fifo would block). */
static int open_exec(struct task *t, int dirfd, const char *path, unsigned lookup,
		     struct file **out)
{
	struct inode *inode;
	struct path p;
	int ret = vfs_lookup(t, dirfd, path, lookup, &p);

	if (ret)
		return ret;
	inode = p.dentry->inode;
	if (S_ISLNK(inode->mode))
		ret = -ELOOP; /* AT_SYMLINK_NOFOLLOW */
	else if (!S_ISREG(inode->mode) || (p.mnt->flags & MNT_NOEXEC))
		ret = -EACCES;
	else
		ret = inode_permission(&t->creds, inode, MAY_EXEC);
	if (ret == 0)
		ret = landlock_check_exec(t, &p);
	if (ret == 0)
		ret = vfs_open_path(t, &p, O_RDONLY, out);
	path_put(&p);
	return ret;
}

/* Parse the ELF in f (everything checked). */
static int parse_image(struct file *f, struct elf_file *ef, struct elf_info *info, const char **why)
{
	int ret;

	*ef = (struct elf_file){.pread = file_pread, .opaque = f, .bops = &file_backing_ops};
	ret = file_size(f, &ef->size);
	return ret ? ret : elf_parse(ef, info, why);
}

/*
 * exec in a multi-threaded process: every other thread dies, and the caller
 * takes over the process's id (Linux's de_thread). -EINTR when the process
 * is being killed meanwhile.
 */
static int de_thread(struct task *t)
{
	struct kernel *k = t->k;
	struct thread_group *tg = t->tg;
	struct task *p;
	int ret = 0;

	pthread_mutex_lock(&k->lock);
	if (tg->nr_threads > 1) {
		if (tg->flags & (TG_EXITING | TG_EXECING)) {
			pthread_mutex_unlock(&k->lock);
			return -EINTR;
		}
		tg->flags |= TG_EXECING;
		tg->execer = t;
		list_for_each_entry(p, &tg->threads, tg_node)
			if (p != t)
				task_set_work(p, WORK_KILL);
		while (tg->nr_threads > 1) {
			uint32_t seq = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
			if (t->work & WORK_KILL) {
				ret = -EINTR;
				break;
			}
			pthread_mutex_unlock(&k->lock);
			task_wait_wake(t, seq);
			pthread_mutex_lock(&k->lock);
		}
		tg->flags &= ~TG_EXECING;
		tg->execer = NULL;
	}
	if (ret == 0 && tg->leader != t) {
		/* The old leader is gone: the caller becomes the process's first thread. */
		t->tid = tg->tgid;
		tg->leader = t;
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

/* The caller stops using its address space: a vfork parent (or other
 * CLONE_VM process) may go on using it. */
static void leave_mm(struct task *t)
{
	struct mm *old = t->mm;

	if (!old)
		return;
	if (t->clear_child_tid && __atomic_load_n(&old->users, __ATOMIC_SEQ_CST) > 1) {
		int zero = 0;
		if (mm_copy_out(old, t->clear_child_tid, &zero, sizeof(zero)) == 0)
			futex_wake_addr(t, t->clear_child_tid);
	}
	t->clear_child_tid = 0;
	if (__atomic_sub_fetch(&old->users, 1, __ATOMIC_SEQ_CST) > 0 && old->as)
		old->as->ops->remove_ctx(old->as, t->ctx);
	task_set_mm(t, NULL);
	mm_put(old);
}

/* Handlers do not survive an exec; ignored signals stay ignored. */
static void reset_sighand(struct task *t)
{
	struct sighand *sh = t->sighand;

	pthread_mutex_lock(&t->k->lock);
	if (__atomic_load_n(&sh->refs, __ATOMIC_SEQ_CST) > 1) {
		struct sighand *own = xmalloc(sizeof(*own));
		*own = *sh;
		own->refs = 1;
		t->sighand = own;
		sighand_put(sh);
		sh = own;
	}
	for (int i = 0; i < GUEST_NSIG; i++) {
		struct k_sigaction *sa = &sh->action[i];
		if (sa->handler != (uint64_t)(uintptr_t)SIG_IGN)
			sa->handler = (uint64_t)(uintptr_t)SIG_DFL;
		sa->flags = 0;
		sa->mask = 0;
		sa->restorer = 0;
	}
	pthread_mutex_unlock(&t->k->lock);
}

/* Did loading an image fail past the point of no return? Then *doomed
 * says why (the first reason). */
static bool doomed_load(const struct elf_info *info, int ret, const char **doomed)
{
	if (ret == 0)
		return false;
	if (!*doomed)
		*doomed = info->doomed ? info->doomed : "cannot map its segments";
	return true;
}

/* Build the new image from the ELF file f; on success the task runs it. */
static int exec_elf(struct exec_ctx *x, struct file *f)
{
	struct task *t = x->t;
	struct elf_info info = {0}, iinfo = {0};
	struct elf_load_result res, ires = {0};
	struct elf_file ef, ief;
	uint64_t ibias = 0;
	struct stack_params sp = {0};
	struct address_space *as = NULL;
	struct file *interp = NULL;
	struct mm *mm = NULL;
	struct creds creds = t->creds; /* the new image's (creds_exec) */
	const char *doomed = NULL;
	bool secure;
	uint64_t stack_limit, stack_top, gap, bias = 0, rsp;
	const char *base;
	int ret;

	ret = mm_new(t->k->mf, t->k->cfg.memory_limit, &mm);
	if (ret < 0)
		return ret;
	if (t->mm)
		mm->thp_disable = t->mm->thp_disable; /* PR_SET_THP_DISABLE survives exec */
	/* Layout, as Linux: stack at the top (randomised), the mmap area below
	 * it with a gap for the stack limit, PIE images at ET_DYN_BASE. */
	stack_limit = t->tg->rlim[RLIMIT_STACK].rlim_cur;
	if (stack_limit == RLIM_INFINITY || stack_limit > MM_STACK_RESERVE_MAX)
		stack_limit = MM_STACK_RESERVE_MAX;
	stack_limit = MAX(stack_limit, 128ul * 1024);
	stack_top = GUEST_MAX_ADDR - random_below(t, STACK_RND_PAGES) * PAGE_SIZE;
	gap = MAX(stack_limit, MIN_STACK_GAP) + STACK_GUARD_GAP;
	mm->mmap_base = ALIGN_DOWN(stack_top - gap - random_below(t, MMAP_RND_PAGES) * PAGE_SIZE,
				   PAGE_SIZE);

	ret = parse_image(f, &ef, &info, x->why);
	if (ret)
		goto out;
	/* The interpreter is found and checked before the point of no return;
	 * the segments are mapped after it (info.doomed). */
	if (info.interp) {
		if (t->k->host_exec) {
			*x->why = "dynamically linked programs need a root filesystem "
				  "(rung do --rootfs), or use a static build";
			ret = -ENOEXEC;
			goto out;
		}
		/* An empty path is the working directory (EACCES: not a file). */
		ret = info.interp[0] ? open_exec(t, AT_FDCWD, info.interp, LOOKUP_FOLLOW, &interp)
				     : -EACCES;
		if (ret) {
			*x->why = "cannot open its program interpreter (PT_INTERP)";
			goto out;
		}
		/* Not an ELF file for this machine: ELIBBAD (load_elf_binary). */
		ret = parse_image(interp, &ief, &iinfo, x->why);
		if (ret == -ENOEXEC)
			ret = -ELIBBAD;
		if (ret)
			goto out;
		if (iinfo.interp) {
			*x->why = "the program interpreter has an interpreter itself";
			ret = -ELIBBAD;
			goto out;
		}
	}
	if (info.pie && !info.doomed)
		bias = ET_DYN_BASE - info.lo + random_below(t, MMAP_RND_PAGES) * PAGE_SIZE;
	if (!doomed_load(&info, elf_load(mm, &ef, &info, bias, false, &res), &doomed))
		mm_set_brk(mm, res.end + ALIGN_DOWN(random_below(t, BRK_RND_BYTES), PAGE_SIZE));
	if (info.interp && !doomed) {
		/* The interpreter goes wherever mmap would put an image of its size. */
		if (iinfo.pie && !iinfo.doomed) {
			uint64_t at = mm_unmapped_area(mm, iinfo.hi - iinfo.lo);
			ibias = at ? at - iinfo.lo : 0;
			if (!at)
				doomed = "no room for the program interpreter";
		}
		if (!doomed)
			doomed_load(&iinfo, elf_load(mm, &ief, &iinfo, ibias, true, &ires),
				    &doomed);
	}

	/* rung's vDSO (AT_SYSINFO_EHDR); without one, libc makes system calls. */
	if (t->k->vdso && vdso_map(t->k->vdso, mm, &sp.sysinfo_ehdr) < 0)
		sp.sysinfo_ehdr = 0;

	sp.argv = (const char *const *)x->argv;
	sp.envp = (const char *const *)x->envp;
	sp.execfn = x->filename;
	sp.phdr = res.phdr;
	sp.phnum = info.ehdr.e_phnum;
	sp.entry = res.entry;
	sp.base = info.interp ? ires.bias : 0;
	secure = creds_exec(&creds);
	sp.uid = creds.uid;
	sp.euid = creds.euid;
	sp.gid = creds.gid;
	sp.egid = creds.egid;
	sp.secure = secure;
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

	/* A stub for the new image. */
	ret = t->k->plat->ops->as_new(t->k->plat, &as);
	if (ret < 0)
		goto out;
	ret = mm_attach(mm, as);
	if (ret < 0)
		goto out;

	/* The point of no return: the other threads go first. */
	ret = de_thread(t);
	if (ret < 0)
		goto out;
	if (t->mm)
		rusage_note_mm(t, t->mm);
	task_exec_creds(t, &creds, secure);
	keys_exec(t);
	leave_mm(t);
	mm->users = 1;
	task_set_mm(t, mm);
	mm = NULL;
	timers_exec(t);
	task_vfork_release(t);
	memset(&t->cpu.regs, 0, sizeof(t->cpu.regs));
	t->cpu.regs.rip = info.interp ? ires.entry : res.entry;
	t->cpu.regs.rsp = rsp;
	t->cpu.regs.cs = 0x33;	    /* __USER_CS */
	t->cpu.regs.ss = 0x2b;	    /* __USER_DS */
	t->cpu.regs.eflags = 0x202; /* IF */
	t->cpu.valid = CPU_REGS_ALL;
	t->cpu.dirty = CPU_DIRTY_ALL;
	t->cpu.fpu_reset = true;
	t->cpu.fpu_valid = t->cpu.fpu_dirty = false;
	base = strrchr(x->filename, '/');
	base = base ? base + 1 : x->filename;
	memset(t->comm, 0, sizeof(t->comm));
	strncpy(t->comm, base, sizeof(t->comm) - 1);
	/* Descriptor tables and dispositions shared with other processes are
	 * unshared first (CLONE_FILES, CLONE_SIGHAND without CLONE_THREAD). */
	task_unshare_files(t);
	fd_close_on_exec(t->files);
	reset_sighand(t);
	t->altstack.ss_sp = NULL;
	t->altstack.ss_size = 0;
	t->altstack.ss_flags = SS_DISABLE;
	t->syscall_nr = -1;
	t->cpuid_fault = false; /* ARCH_SET_CPUID does not survive exec */
	pthread_mutex_lock(&t->k->lock);
	t->tg->did_exec = true;
	pthread_mutex_unlock(&t->k->lock);
	t->robust_list = 0;
	t->robust_list_len = 0;
	if (f->path.dentry) {
		path_put(&t->exe);
		t->exe = f->path;
		path_get(&t->exe);
	}
	if (doomed) {
		/* Past the point of no return: the process dies, as Linux's
		 * exec ends (force_fatal_sig) when a segment cannot be mapped. */
		siginfo_t si;
		log_warning("pid %d (%s): exec of %s: %s: killed by SIGSEGV", t->tgid, t->comm,
			    x->filename, doomed);
		siginfo_kernel(&si, SIGSEGV);
		signal_force(t, &si);
	}
out:
	mm_put(mm); /* on failure: the half-built image, with its stub if it got one */
	if (interp)
		file_put(interp);
	elf_info_release(&info);
	elf_info_release(&iinfo);
	return ret;
}

/*
 * A "#!" script: argv becomes interpreter [optional-arg] filename argv[1...],
 * and the interpreter is executed in its place (Linux's binfmt_script).
 */
static int exec_file(struct exec_ctx *x, struct file *f, int depth);

static int exec_script(struct exec_ctx *x, char *buf, size_t n, int depth)
{
	char *line = buf + 2, *end, *interp, *arg = NULL, **argv;
	struct file *f;
	size_t argc = 0, i, k = 0;
	int ret;

	end = memchr(buf, '\n', n);
	if (!end) {
		/* The whole first line must fit (Linux: else ENOEXEC). */
		if (n >= BINPRM_BUF)
			return -ENOEXEC;
		end = buf + n;
	}
	*end = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line)
		return -ENOEXEC;
	interp = line;
	while (*line && *line != ' ' && *line != '\t')
		line++;
	if (*line) {
		*line++ = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		/* The rest of the line, trailing blanks removed, is one argument. */
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*line)
			arg = line;
	}
	while (x->argv[argc])
		argc++;
	argv = xzalloc((argc + 3) * sizeof(*argv));
	argv[k++] = xstrdup(interp);
	if (arg)
		argv[k++] = xstrdup(arg);
	argv[k++] = xstrdup(x->interp);
	for (i = 1; i < argc; i++)
		argv[k++] = xstrdup(x->argv[i]);
	ret = open_exec(x->t, AT_FDCWD, interp, LOOKUP_FOLLOW, &f);
	if (ret) {
		strv_free(argv);
		return ret;
	}
	strv_free(x->argv);
	x->argv = argv;
	/* The interpreter is named by its "#!" path from here on. */
	free(x->interp);
	x->interp = xstrdup(interp);
	ret = exec_file(x, f, depth + 1);
	file_put(f);
	return ret;
}

static int exec_file(struct exec_ctx *x, struct file *f, int depth)
{
	char buf[BINPRM_BUF];
	long n;

	if (depth > MAX_INTERP_DEPTH)
		return -ELOOP;
	n = file_pread(f, buf, sizeof(buf), 0);
	if (n < 0)
		return (int)n;
	if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		if (x->t->k->host_exec) {
			*x->why = "scripts need a root filesystem (rung do --rootfs)";
			return -ENOEXEC;
		}
		return exec_script(x, buf, (size_t)n, depth);
	}
	return exec_elf(x, f);
}

int task_exec(struct task *t, int dirfd, const char *path, char *const argv[], char *const envp[],
	      int flags, const char **why)
{
	struct exec_ctx x = {.t = t, .filename = path, .envp = envp, .why = why};
	char *fdname = NULL;
	struct file *f;
	unsigned lookup = ((flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW) |
			  ((flags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0);
	int ret;

	*why = NULL;
	ret = task_exec_nproc_check(t);
	if (ret)
		return ret;
	ret = open_exec(t, dirfd, path, lookup, &f);
	if (ret)
		return ret;
	/* A path relative to a directory descriptor, or the descriptor's own
	 * file, is named by the descriptor (Linux's alloc_bprm): what a
	 * script's interpreter is given, AT_EXECFN, the process's name. */
	if (dirfd != AT_FDCWD && path[0] != '/')
		fdname = path[0] ? xasprintf("/dev/fd/%d/%s", dirfd, path)
				 : xasprintf("/dev/fd/%d", dirfd);
	if (fdname)
		x.filename = fdname;
	x.interp = xstrdup(x.filename);
	x.argv = strv_copy(argv);
	ret = exec_file(&x, f, 0);
	file_put(f);
	strv_free(x.argv);
	free(x.interp);
	free(fdname);
	return ret;
}

/* The PATH a program is searched in: envp's, or the default execvp uses. */
static const char *search_path(char *const envp[])
{
	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			return *e + 5;
	return "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
}

/*
 * Try each candidate for name as execvp would: the name itself when it has a
 * slash, else each PATH directory in turn. try() returns 0 to stop with that
 * candidate, -ENOENT/-ENOTDIR/-EACCES to go on, anything else to stop with
 * that error (EACCES is reported only when nothing else was found).
 */
static int for_each_candidate(struct task *t, const char *name, char *const envp[],
			      int (*try)(struct task *t, const char *cand, void *arg), void *arg)
{
	const char *path = search_path(envp);
	bool denied = false;
	int ret = -ENOENT;

	if (strchr(name, '/'))
		return try(t, name, arg);
	while (*path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		char *cand = xasprintf("%.*s/%s", (int)len, len ? path : ".", name);
		ret = try(t, cand, arg);
		free(cand);
		if (ret == 0 || (ret != -ENOENT && ret != -ENOTDIR && ret != -EACCES))
			return ret;
		denied |= ret == -EACCES;
		path += len + (end ? 1 : 0);
	}
	return denied ? -EACCES : -ENOENT;
}

static int try_exec(struct task *t, const char *cand, void *arg)
{
	return task_exec(t, AT_FDCWD, cand, t->init_argv, t->init_envp, 0, (const char **)arg);
}

static int try_open(struct task *t, const char *cand, void *arg)
{
	struct file *f;
	int ret = open_exec(t, AT_FDCWD, cand, LOOKUP_FOLLOW, &f);

	if (ret == 0)
		file_put(f);
	return ret;
}

int task_find_program(struct task *t, const char *name, char *const envp[])
{
	return for_each_candidate(t, name, envp, try_open, NULL);
}

/* The init program: a path, or a name looked up in the guest's $PATH as
 * execvp would (EACCES only when nothing else was found). */
static int exec_search_path(struct task *t, const char **why)
{
	return for_each_candidate(t, t->init_path, t->init_envp, try_exec, why);
}

int task_exec_init(struct task *t, const char **why)
{
	struct exec_ctx x = {.t = t, .filename = t->init_path, .envp = t->init_envp, .why = why};
	struct file *f;
	struct stat st;
	int fd, ret;

	*why = NULL;
	if (!t->k->host_exec)
		return exec_search_path(t, why);
	/* No root filesystem: the program is a host file the CLI opened for us
	 * before the sandbox gave up the host's files. */
	fd = t->k->cfg.host_init_fd;
	t->k->cfg.host_init_fd = -1;
	if (fd == -ENOENT || fd == -EACCES || fd == -ENOTDIR)
		return fd;
	if (fd < 0)
		return -EACCES;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EACCES;
	}
	f = hostfile_new(fd);
	x.argv = strv_copy(t->init_argv);
	x.interp = xstrdup(t->init_path);
	ret = exec_file(&x, f, 0);
	file_put(f);
	strv_free(x.argv);
	free(x.interp);
	return ret;
}
