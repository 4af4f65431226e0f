#!/bin/sh
# Debian's static busybox in the sandbox: output and exit statuses.
set -u
. "$(dirname "$0")/lib.sh"
: "${RUNG:?}"
BB=/bin/busybox
plan 4
if ! file -L "$BB" 2>/dev/null | grep -q 'statically linked' && ! ldd "$BB" 2>&1 | grep -q 'not a dynamic'; then
	for i in 1 2 3 4; do skip "no static busybox at $BB (apt-get install busybox-static)"; done
	exit 0
fi
out=$("$RUNG" do -- "$BB" echo hello)
check "busybox echo hello prints hello" [ "$out" = hello ]
"$RUNG" do -- "$BB" true
check "busybox true exits 0" [ $? = 0 ]
"$RUNG" do -- "$BB" false
check "busybox false exits 1" [ $? = 1 ]
"$RUNG" do -- "$BB" sh -c 'exit 3'
check "busybox sh -c 'exit 3' exits 3" [ $? = 3 ]
