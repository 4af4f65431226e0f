# Guest tests: small C programs under tests/guest/, each built -static and
# -static-pie, run natively and under `rung do` on every usable platform by
# tests/guest/run.sh, which compares stdout and exit status.
GUEST_TESTS = \
	hello

GUEST_BINS = $(GUEST_TESTS:%=tests/guest/bin/%-static) $(GUEST_TESTS:%=tests/guest/bin/%-pie)
GUEST_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter

tests/guest/bin/%-static: $(srcdir)/tests/guest/%.c $(srcdir)/tests/guest/guest.h
	@mkdir -p tests/guest/bin
	$(AM_V_CC)$(CC) $(GUEST_CFLAGS) -I$(srcdir)/tests/guest -static -o $@ $<

tests/guest/bin/%-pie: $(srcdir)/tests/guest/%.c $(srcdir)/tests/guest/guest.h
	@mkdir -p tests/guest/bin
	$(AM_V_CC)$(CC) $(GUEST_CFLAGS) -I$(srcdir)/tests/guest -fPIE -static-pie -o $@ $<

check_DATA += $(GUEST_BINS)
TESTS += tests/guest/run.sh
EXTRA_DIST += tests/guest/run.sh tests/guest/guest.h $(GUEST_TESTS:%=tests/guest/%.c)

clean-local-guest:
	rm -rf tests/guest/bin
