# End-to-end tests: shell scripts (TAP) that drive the real rung binary.
E2E_TESTS = \
	tests/e2e/busybox.sh

TESTS += $(E2E_TESTS)
EXTRA_DIST += tests/e2e/lib.sh $(E2E_TESTS)
