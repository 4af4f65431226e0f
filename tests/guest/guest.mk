# Guest tests: small C programs under tests/guest/, each built -static and
# -static-pie, run natively and under `rung do` on every usable platform by
# tests/guest/run.sh, which compares stdout and exit status. A program NAME
# whose tests/guest/NAME.stdin exists gets that file as stdin, others
# /dev/null.
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
	eventfd \
	exitcode \
	fds \
	filemap \
	mmap \
	mremap \
	poll_pipe \
	poll_select \
	process \
	rw \
	segv_exec \
	segv_null \
	segv_rowrite \
	segv_stack \
	timerfd \
	tls

GUEST_STDIN = \
	tests/guest/efault.stdin \
	tests/guest/rw.stdin

GUEST_BINS = $(GUEST_TESTS:%=tests/guest/bin/%-static) $(GUEST_TESTS:%=tests/guest/bin/%-pie)
GUEST_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter

tests/guest/bin/%-static: $(srcdir)/tests/guest/%.c $(srcdir)/tests/guest/guest.h
	@mkdir -p tests/guest/bin
	$(AM_V_CC)$(CC) $(GUEST_CFLAGS) -I$(srcdir)/tests/guest -static -o $@ $<

tests/guest/bin/%-pie: $(srcdir)/tests/guest/%.c $(srcdir)/tests/guest/guest.h
	@mkdir -p tests/guest/bin
	$(AM_V_CC)$(CC) $(GUEST_CFLAGS) -I$(srcdir)/tests/guest -fPIE -static-pie -o $@ $<

# The list run.sh runs: taking a name out of GUEST_TESTS takes it out of the run.
tests/guest/bin/tests.list: Makefile
	@mkdir -p tests/guest/bin
	$(AM_V_GEN)for t in $(GUEST_TESTS); do echo $$t; done > $@

check_DATA += $(GUEST_BINS) tests/guest/bin/tests.list
TESTS += tests/guest/run.sh
EXTRA_DIST += tests/guest/run.sh tests/guest/guest.h $(GUEST_TESTS:%=tests/guest/%.c) \
	$(GUEST_STDIN)

# (and the e2e tests' programs: Makefile.am's clean-local runs this one)
clean-local-guest:
	rm -rf tests/guest/bin tests/e2e/bin
