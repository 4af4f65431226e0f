/*
 * Unit tests: the system call table's invariants (syscalls/syscall.h): every
 * number's name, handler, argument formats, status and notes, checked against
 * the host's <sys/syscall.h> numbering and the first slice's required calls.
 */
#include "config.h"
#include "syscalls/syscall.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <ctype.h>
#include <string.h>
#include <sys/syscall.h>

/* Lookups outside the table, x32 numbers included, find nothing (so they get ENOSYS). */
START_TEST(test_bounds)
{
	static const uint64_t outside[] = {
		SYSCALL_TABLE_SIZE,
		SYSCALL_TABLE_SIZE + 1,
		1023,
		1024,
		0x40000000u,	   /* x32 read */
		0x40000000u | 1,   /* x32 write */
		0x40000000u | 512, /* x32 rt_sigaction */
		0x80000000u,
		0xffffffffu,
		0x100000000ull,
		~0ull,
		~0ull - 1,
	};

	ck_assert_uint_gt(SYSCALL_TABLE_SIZE, 400);
	ck_assert_uint_lt(SYSCALL_TABLE_SIZE, 0x40000000u);
	for (uint64_t nr = 0; nr < SYSCALL_TABLE_SIZE; nr++)
		ck_assert_ptr_nonnull(syscall_lookup(nr));
	for (unsigned i = 0; i < ARRAY_SIZE(outside); i++) {
		ck_assert_ptr_null(syscall_lookup(outside[i]));
		ck_assert_ptr_null(syscall_name(outside[i]));
	}
}
END_TEST

/* Names: identifiers, unique, present for every assigned number and only for those. */
START_TEST(test_names)
{
	unsigned named = 0;

	for (uint64_t nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const char *name = syscall_name(nr);
		/* x86-64 assigns 0..334 and 424 on; 335..423 were never used. */
		bool assigned = nr <= 334 || nr >= 424;

		ck_assert_msg((name != NULL) == assigned, "syscall %lu: name %s", (unsigned long)nr,
			      name ? name : "(none)");
		if (!name)
			continue;
		named++;
		ck_assert_uint_gt(strlen(name), 0);
		ck_assert_uint_lt(strlen(name), 32);
		for (const char *c = name; *c; c++)
			ck_assert_msg(islower((unsigned char)*c) || isdigit((unsigned char)*c) ||
					      *c == '_',
				      "syscall %lu: bad name %s", (unsigned long)nr, name);
		for (uint64_t other = 0; other < nr; other++) {
			const char *o = syscall_name(other);
			ck_assert_msg(!o || strcmp(o, name) != 0, "%s is both %lu and %lu", name,
				      (unsigned long)other, (unsigned long)nr);
		}
	}
	ck_assert_uint_eq(named, 335 + (SYSCALL_TABLE_SIZE - 424));
}
END_TEST

/* The names agree with the host's numbering (<sys/syscall.h>) and the ones everyone knows. */
START_TEST(test_known_numbers)
{
#define K(name)                   \
	{                         \
		SYS_##name, #name \
	}
	static const struct {
		long nr;
		const char *name;
	} known[] = {
		K(read),
		K(write),
		K(open),
		K(close),
		K(stat),
		K(fstat),
		K(lstat),
		K(poll),
		K(lseek),
		K(mmap),
		K(mprotect),
		K(munmap),
		K(brk),
		K(rt_sigaction),
		K(rt_sigprocmask),
		K(rt_sigreturn),
		K(ioctl),
		K(pread64),
		K(pwrite64),
		K(readv),
		K(writev),
		K(access),
		K(pipe),
		K(select),
		K(sched_yield),
		K(mremap),
		K(msync),
		K(madvise),
		K(dup),
		K(dup2),
		K(nanosleep),
		K(getpid),
		K(socket),
		K(clone),
		K(fork),
		K(vfork),
		K(execve),
		K(exit),
		K(wait4),
		K(kill),
		K(uname),
		K(fcntl),
		K(getcwd),
		K(chdir),
		K(mkdir),
		K(unlink),
		K(readlink),
		K(umask),
		K(gettimeofday),
		K(getrlimit),
		K(getuid),
		K(getgid),
		K(setuid),
		K(geteuid),
		K(getegid),
		K(getppid),
		K(sigaltstack),
		K(arch_prctl),
		K(setrlimit),
		K(mount),
		K(reboot),
		K(gettid),
		K(time),
		K(futex),
		K(sched_getaffinity),
		K(getdents64),
		K(set_tid_address),
		K(clock_gettime),
		K(clock_getres),
		K(clock_nanosleep),
		K(exit_group),
		K(tgkill),
		K(openat),
		K(newfstatat),
		K(set_robust_list),
		K(pipe2),
		K(dup3),
		K(prlimit64),
		K(getcpu),
		K(getrandom),
		K(memfd_create),
		K(execveat),
		K(statx),
#ifdef SYS_rseq
		K(rseq),
#endif
#ifdef SYS_clone3
		K(clone3),
#endif
#ifdef SYS_close_range
		K(close_range),
#endif
#ifdef SYS_openat2
		K(openat2),
#endif
#ifdef SYS_epoll_pwait2
		K(epoll_pwait2),
#endif
	};
#undef K

	for (unsigned i = 0; i < ARRAY_SIZE(known); i++) {
		const char *name = syscall_name((uint64_t)known[i].nr);
		ck_assert_msg(name && strcmp(name, known[i].name) == 0,
			      "%ld: want %s, table has %s", known[i].nr, known[i].name,
			      name ? name : "(none)");
	}
	ck_assert_str_eq(syscall_name(0), "read");
	ck_assert_str_eq(syscall_name(1), "write");
	ck_assert_str_eq(syscall_name(60), "exit");
	ck_assert_str_eq(syscall_name(231), "exit_group");
	ck_assert_str_eq(syscall_name(334), "rseq");
	ck_assert_str_eq(syscall_name(435), "clone3");
}
END_TEST

static bool is_length_fmt(uint8_t f)
{
	return f == A_UINT || f == A_INT || f == A_HEX;
}

/* Every entry: status, handler, argument formats and notes are consistent. */
START_TEST(test_entries_consistent)
{
	unsigned implemented = 0, partial = 0;

	for (uint64_t nr = 0; nr < SYSCALL_TABLE_SIZE; nr++) {
		const struct syscall_desc *d = syscall_lookup(nr);
		const char *name = syscall_name(nr);
		const char *n = name ? name : "(unassigned)";

		ck_assert_msg(d->status == SYS_UNSUPPORTED || d->status == SYS_PARTIAL ||
				      d->status == SYS_FULL,
			      "%s: status %d", n, d->status);
		ck_assert_msg(d->nargs <= 6, "%s: %u arguments", n, d->nargs);
		if (!name) {
			ck_assert_msg(!d->fn && d->status == SYS_UNSUPPORTED && !d->note,
				      "unassigned %lu has an entry", (unsigned long)nr);
			continue;
		}
		/* A handler exactly when the status says it is implemented. */
		ck_assert_msg((d->fn != NULL) == (d->status != SYS_UNSUPPORTED),
			      "%s: handler %p with status %s", n, (void *)d->fn,
			      syscall_status_name(d->status));
		if (d->status == SYS_PARTIAL) {
			partial++;
			ck_assert_msg(d->note && *d->note, "%s is partial without a note", n);
		}
		if (d->note) {
			ck_assert_msg(*d->note && strlen(d->note) < 200 && !strchr(d->note, '\n'),
				      "%s: note is not one short line", n);
		}
		if (!d->fn)
			continue;
		implemented++;
		for (unsigned i = 0; i < 6; i++) {
			if (i < d->nargs) {
				ck_assert_msg(d->fmt[i] != A_NONE, "%s: argument %u has format %u",
					      n, i, d->fmt[i]);
			} else {
				ck_assert_msg(d->fmt[i] == A_NONE,
					      "%s: format for argument %u beyond nargs %u", n, i,
					      d->nargs);
			}
			/* A buffer's length is the next argument. */
			if (i < d->nargs && (d->fmt[i] == A_BUF_IN || d->fmt[i] == A_BUF_OUT))
				ck_assert_msg(i + 1 < d->nargs && is_length_fmt(d->fmt[i + 1]),
					      "%s: buffer argument %u without a length after it", n,
					      i);
		}
		ck_assert_msg(d->ret == A_NONE || d->ret == A_INT || d->ret == A_HEX,
			      "%s: result format %u", n, d->ret);
	}
	ck_assert_uint_ge(implemented, 50);
	ck_assert_uint_gt(partial, 0);
}
END_TEST

/* The first slice's system calls are all implemented; rseq is deliberately ENOSYS. */
START_TEST(test_required_calls)
{
	static const long required[] = {
		SYS_read,
		SYS_write,
		SYS_readv,
		SYS_writev,
		SYS_pread64,
		SYS_pwrite64,
		SYS_lseek,
		SYS_fstat,
		SYS_fcntl,
		SYS_dup,
		SYS_dup2,
		SYS_dup3,
		SYS_close,
		SYS_ioctl,
		SYS_exit,
		SYS_exit_group,
		SYS_brk,
		SYS_mmap,
		SYS_munmap,
		SYS_mprotect,
		SYS_mremap,
		SYS_madvise,
		SYS_arch_prctl,
		SYS_set_tid_address,
		SYS_set_robust_list,
		SYS_uname,
		SYS_getpid,
		SYS_gettid,
		SYS_getppid,
		SYS_getuid,
		SYS_geteuid,
		SYS_getgid,
		SYS_getegid,
		SYS_getrandom,
		SYS_clock_gettime,
		SYS_clock_getres,
		SYS_gettimeofday,
		SYS_time,
		SYS_nanosleep,
		SYS_clock_nanosleep,
		SYS_prlimit64,
		SYS_getrlimit,
		SYS_setrlimit,
		SYS_rt_sigaction,
		SYS_rt_sigprocmask,
		SYS_sched_getaffinity,
		SYS_sched_yield,
		SYS_getcwd,
	};
	/* Calls a sandbox never implements. */
	static const long refused[] = {SYS_init_module, SYS_finit_module, SYS_delete_module,
				       SYS_kexec_load,	SYS_swapon,	  SYS_iopl,
				       SYS_ioperm};
	const struct syscall_desc *d;

	for (unsigned i = 0; i < ARRAY_SIZE(required); i++) {
		d = syscall_lookup((uint64_t)required[i]);
		ck_assert_msg(d->fn && d->status != SYS_UNSUPPORTED, "%s is not implemented",
			      syscall_name((uint64_t)required[i]));
	}
	d = syscall_lookup(334);
	ck_assert_ptr_null(d->fn);
	ck_assert_int_eq(d->status, SYS_UNSUPPORTED);
	ck_assert_ptr_nonnull(d->note);
	for (unsigned i = 0; i < ARRAY_SIZE(refused); i++)
		ck_assert_msg(!syscall_lookup((uint64_t)refused[i])->fn, "%s has a handler",
			      syscall_name((uint64_t)refused[i]));
}
END_TEST

/* Status names as `rung help syscalls` prints them. */
START_TEST(test_status_names)
{
	ck_assert_str_eq(syscall_status_name(SYS_FULL), "full");
	ck_assert_str_eq(syscall_status_name(SYS_PARTIAL), "partial");
	ck_assert_str_eq(syscall_status_name(SYS_UNSUPPORTED), "unsupported");
	ck_assert_str_eq(syscall_status_name((enum sys_status)42), "unsupported");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("syscall_table");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_known_numbers);
	tcase_add_test(tc, test_entries_consistent);
	tcase_add_test(tc, test_required_calls);
	tcase_add_test(tc, test_status_names);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
