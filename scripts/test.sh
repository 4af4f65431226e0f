#!/bin/sh
# Set everything up and run every test: unit, guest (differential), end-to-end,
# plus the formatting check; make check's host guard (tests/guard/) proves
# the tests left the host as it was.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
make format-check
if ! make -j"$(nproc)" check; then
	tail -200 test-suite.log 2>/dev/null || true
	# A failed test stops make check before its host guard compares (the
	# guard's report is tests/guard/state/now/report): compare now.
	[ -e tests/guard/state/now ] || make host-guard-compare
	exit 1
fi
