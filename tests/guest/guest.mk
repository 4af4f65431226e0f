# Guest tests: small C programs under tests/guest/, each built -static and
# -static-pie, run natively and under `rung do` on every usable platform by
# tests/guest/run.sh, which compares stdout and exit status. A program NAME
# whose tests/guest/NAME.stdin exists gets that file as stdin, others
# /dev/null. The file system tests (fs_*) run in rung with each
# --file-access mode, the network tests (net_*) with each --network mode
# of GUEST_NET_MODES (run.sh).
GUEST_TESTS = \
	hello \
	args \
	bigalloc \
	brk \
	clock \
	efault \
	enosys \
	epoll_basic \
	epoll_edge \
	epoll_nested \
	epoll_exclusive \
	aio_basic \
	aio_poll \
	process_mm \
	sysfs_ustat \
	adjtimex_read \
	remap_file_pages \
	sigio_basic \
	eventfd \
	exitcode \
	fds \
	fd_close_range \
	filemap \
	memfd_attr \
	memfd_seals \
	mmap \
	mremap \
	mm_shared_access \
	poll_pipe \
	pipe_splice \
	pipe_size \
	fs_splice \
	fs_lease \
	poll_select \
	poll_signal \
	poll_wake \
	proc_fork \
	ptrace_basic \
	ptrace_syscall \
	ptrace_events \
	ptrace_seize_stopped \
	dnotify \
	ptrace_breakpoint \
	proc_cow \
	proc_tasks \
	proc_task_dir \
	proc_stat_state \
	proc_cmdline \
	proc_auxv \
	proc_fdinfo \
	proc_fd_walk \
	proc_sys_kernel \
	proc_pid_more \
	proc_pid_access \
	proc_mem \
	proc_files \
	sysinfo \
	process \
	rw \
	segv_exec \
	segv_null \
	segv_rowrite \
	segv_stack \
	sig_deliver \
	sig_signalfd \
	sig_spin \
	sig_altstack \
	sig_core \
	thr_basic \
	futex_wake \
	futex_pi \
	mm_sigbus \
	exec_elf_edge \
	futex_waitv \
	futex2 \
	timerfd \
	tls \
	timer_alarm \
	timer_itimer \
	timer_posix \
	timer_cpu \
	timer_exec \
	timer_overrun \
	vdso \
	fs_open \
	fs_rw \
	rw_large \
	fs_stat \
	fs_dir \
	fs_lock \
	fs_xattr \
	fchmodat2 \
	xattrat \
	lsm_syscalls \
	fs_inotify \
	fs_special \
	fs_mmap \
	fs_exec \
	cred_ids \
	cred_caps \
	cred_threads \
	prctl_basic \
	prctl_pdeath \
	sched_policy \
	sched_nice \
	sched_rusage \
	sched_membarrier \
	pty_open \
	pty_ldisc \
	pty_poll \
	tty_jobctl \
	unix_block \
	unix_dgram \
	unix_errors \
	unix_listen \
	unix_poll \
	unix_scm \
	unix_sigpipe \
	unix_stream \
	fs_opath \
	fs_dead \
	fs_io \
	fs_fsize \
	fs_reopen \
	fs_tmpfile \
	fs_pending \
	fs_exec_nest \
	fs_hardlink \
	fs_nofollow \
	fs_unixbind \
	seccomp_arch \
	seccomp_basic \
	seccomp_inherit \
	seccomp_invalid \
	seccomp_kill \
	seccomp_perm \
	seccomp_strict \
	seccomp_trap \
	seccomp_vsyscall \
	landlock_basic \
	kcmp \
	ioprio \
	landlock_sandbox \
	landlock_refer \
	ipc_shm \
	ipc_sem \
	ipc_msg \
	mqueue_basic \
	mqueue_notify \
	mm_lock \
	mm_populate \
	pkeys \
	numa_policy \
	proc_pidfd \
	pidfd_procdir \
	sched_attr \
	fs_hints \
	proc_vm \
	net_tcp \
	net_udp \
	nstack_raw \
	net_nonblock \
	net_bulk \
	net_ifaddrs \
	net_reuseaddr \
	net_errqueue \
	net_socketpair \
	net_proc_sockets \
	nstack_many \
	nstack_dual \
	nstack_proc_sysctl \
	nstack_sockopt_opts \
	nstack_sockopt_conn \
	nstack_sockopt_cmsg \
	nstack_sockopt_perm \
	nstack_udp_icmp \
	nstack_sockfilter \
	nstack_udp_opts \
	nstack_tcp_recv \
	keys_basic \
	keys_fork \
	ns_mount \
	mount_propagation \
	mount_pivot_root \
	mount_fd_detached \
	mount_events \
	mount_userns \
	mount_fdapi \
	posix_acl \
	ns_userns \
	ns_overflow \
	ns_pid \
	ns_setns

# Built like the others but not run by `make check` until rung passes them:
# `GUEST_LIST=pending.list tests/guest/run.sh` runs them (see each one's
# comment for what rung does differently). None at the moment.
GUEST_PENDING =

GUEST_STDIN = \
	tests/guest/efault.stdin \
	tests/guest/fs_reopen.stdin \
	tests/guest/rw.stdin

GUEST_ALL = $(GUEST_TESTS) $(GUEST_PENDING)
GUEST_BINS = $(GUEST_ALL:%=tests/guest/bin/%-static) $(GUEST_ALL:%=tests/guest/bin/%-pie)
GUEST_H_DEPS = $(srcdir)/tests/guest/guest.h $(srcdir)/tests/guest/fsguest.h \
	$(srcdir)/tests/guest/ttyguest.h \
	$(srcdir)/tests/guest/seccompguest.h \
	$(srcdir)/tests/guest/netguest.h \
	$(srcdir)/tests/guest/ipcguest.h $(srcdir)/tests/guest/mountguest.h
GUEST_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter

tests/guest/bin/%-static: $(srcdir)/tests/guest/%.c $(GUEST_H_DEPS)
	@mkdir -p tests/guest/bin
	$(AM_V_CC)$(CC) $(GUEST_CFLAGS) -I$(srcdir)/tests/guest -static -o $@ $<

tests/guest/bin/%-pie: $(srcdir)/tests/guest/%.c $(GUEST_H_DEPS)
	@mkdir -p tests/guest/bin
	$(AM_V_CC)$(CC) $(GUEST_CFLAGS) -I$(srcdir)/tests/guest -fPIE -static-pie -o $@ $<

# The list run.sh runs: taking a name out of GUEST_TESTS takes it out of the run.
tests/guest/bin/tests.list: Makefile
	@mkdir -p tests/guest/bin
	$(AM_V_GEN)for t in $(GUEST_TESTS); do echo $$t; done > $@

tests/guest/bin/pending.list: Makefile
	@mkdir -p tests/guest/bin
	$(AM_V_GEN)for t in $(GUEST_PENDING); do echo $$t; done > $@

check_DATA += $(GUEST_BINS) tests/guest/bin/tests.list tests/guest/bin/pending.list
TESTS += tests/guest/run.sh
EXTRA_DIST += tests/guest/run.sh tests/guest/guest.h tests/guest/fsguest.h tests/guest/ttyguest.h \
	tests/guest/seccompguest.h tests/guest/netguest.h tests/guest/ipcguest.h tests/guest/mountguest.h \
	$(GUEST_ALL:%=tests/guest/%.c) $(GUEST_STDIN)

# (and the e2e tests' programs: Makefile.am's clean-local runs this one)
clean-local-guest:
	rm -rf tests/guest/bin tests/e2e/bin
