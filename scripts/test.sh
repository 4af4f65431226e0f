#!/bin/sh
# Set everything up and run every test: unit, guest (differential), end-to-end,
# plus the formatting check.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
make format-check
make -j"$(nproc)" check || { cat test-suite.log 2>/dev/null | tail -200; exit 1; }
