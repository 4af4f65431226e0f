# End-to-end tests: shell scripts (TAP) that drive the real rung binary.
# Each sources tests/e2e/lib.sh and ends by checking that it left no rung
# process and no zombie behind; make check's host guard (tests/guard/)
# checks the host around them all, host_guard.sh checks the guard.
E2E_TESTS = \
	tests/e2e/cli.sh \
	tests/e2e/busybox.sh \
	tests/e2e/hostpoll.sh \
	tests/e2e/isolation.sh \
	tests/e2e/lifecycle.sh \
	tests/e2e/level1.sh \
	tests/e2e/rootfs_write.sh \
	tests/e2e/escape.sh \
	tests/e2e/programs.sh \
	tests/e2e/git_local.sh \
	tests/e2e/bwrap.sh \
	tests/e2e/postgres.sh \
	tests/e2e/pipelines.sh \
	tests/e2e/ptrace_tools.sh \
	tests/e2e/inotify.sh \
	tests/e2e/fs_host.sh \
	tests/e2e/tty.sh \
	tests/e2e/multiproc.sh \
	tests/e2e/robustness.sh \
	tests/e2e/limits.sh \
	tests/e2e/sigall.sh \
	tests/e2e/proc_walk.sh \
	tests/e2e/proc_compat.sh \
	tests/e2e/inherited_fds.sh \
	tests/e2e/mounts.sh \
	tests/e2e/bundle_mounts.sh \
	tests/e2e/docker.sh \
	tests/e2e/docker_container.sh \
	tests/e2e/oci_seccomp.sh \
	tests/e2e/oci_cli.sh \
	tests/e2e/microvm.sh \
	tests/e2e/microvm_net.sh \
	tests/e2e/microvm_tty.sh \
	tests/e2e/microvm_virtiofs.sh \
	tests/e2e/docker_microvm.sh \
	tests/e2e/net_egress.sh \
	tests/e2e/net_dns.sh \
	tests/e2e/nstack_veth.sh \
	tests/e2e/net_host.sh \
	tests/e2e/net_programs.sh \
	tests/e2e/netns.sh \
	tests/e2e/docker_net.sh \
	tests/e2e/docker_netns.sh \
	tests/e2e/host_guard.sh

# Guest programs of the e2e tests, built static like the guest tests (and
# swapper, which escape.sh runs on the host, and oci_cli.sh's host
# helpers recvtty and reaper).
E2E_PROGS = \
	bomb \
	dnsserve \
	hostpoll \
	isolation \
	fsops \
	membomb \
	netconnect \
	nstackpeer \
	ocitest \
	recvtty \
	reaper \
	seccomp_probe \
	sigall \
	swapper \
	kernel_only \
	ttyfg \
	ptrace_prog

E2E_BINS = $(E2E_PROGS:%=tests/e2e/bin/%)

tests/e2e/bin/%: $(srcdir)/tests/e2e/%.c
	@mkdir -p tests/e2e/bin
	$(AM_V_CC)$(CC) $(GUEST_CFLAGS) -static -o $@ $<

check_DATA += $(E2E_BINS)
TESTS += $(E2E_TESTS)
EXTRA_DIST += tests/e2e/lib.sh tests/e2e/dockerd.sh tests/e2e/vmlib.sh $(E2E_TESTS) $(E2E_PROGS:%=tests/e2e/%.c)
