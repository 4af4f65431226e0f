# The host-state guard (tests/guard/host-guard.sh): `make check` records
# the host's addresses, routes, network namespaces, mounts, rung's cgroups
# and processes before the tests run, and check-local compares them after
# the last one ended: it fails, naming every difference, when a test
# changed the host or left something behind. Each test gets the run's mark
# in RUNG_GUARD_RUN, which tells the run's processes from others'.
# HOST_GUARD_ARGS passes options (e.g. --settle 30).
HOST_GUARD = $(SHELL) $(top_srcdir)/tests/guard/host-guard.sh
HOST_GUARD_DIR = $(abs_top_builddir)/tests/guard/state
HOST_GUARD_ARGS =

# Before check-TESTS starts any test: check-TESTS's prerequisites are
# $(check_DATA), also under -j. (check-am makes $(check_DATA) once before
# too, in a make whose goals are the programs: no snapshot there.)
host-guard-before:
	@case " $(MAKECMDGOALS) " in *" check-TESTS "*) \
		$(HOST_GUARD) snapshot $(HOST_GUARD_DIR) $(HOST_GUARD_ARGS) ;; esac
check_DATA += host-guard-before

# After check-TESTS: every test has ended.
check-local: check-TESTS
	@$(HOST_GUARD) compare $(HOST_GUARD_DIR) $(HOST_GUARD_ARGS)

# The same comparison by hand, e.g. after a failed make check (whose
# check-local does not run): scripts/test.sh does that.
host-guard-compare:
	@$(HOST_GUARD) compare $(HOST_GUARD_DIR) $(HOST_GUARD_ARGS)

AM_TESTS_ENVIRONMENT += \
	RUNG_GUARD_RUN=`cat $(HOST_GUARD_DIR)/token 2>/dev/null`; export RUNG_GUARD_RUN;

clean-local-guard:
	rm -rf tests/guard/state

EXTRA_DIST += tests/guard/host-guard.sh tests/guard/guard.mk
.PHONY: host-guard-before host-guard-compare clean-local-guard
