#!/bin/sh
# Set everything up, then run a real program in a rung sandbox: Debian's
# static busybox, whose every system call is served by rung's user-space kernel.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh >/dev/null
set -x
./rung do -- /bin/busybox sh -c 'echo "hello from $(uname -s) $(uname -r) on $(uname -m), pid $$"'
