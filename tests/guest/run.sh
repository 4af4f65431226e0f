#!/bin/sh
# Differential guest tests (TAP): every program in $GUEST_BIN runs natively
# and under `rung do` on every platform `rung help platforms` calls usable;
# stdout and the exit status must be identical.
set -u
: "${RUNG:?RUNG must point at the rung binary}"
: "${GUEST_BIN:?GUEST_BIN must point at the built guest tests}"

platforms=$("$RUNG" help platforms | awk '$2 == "usable" { print $1 }')
skipped=$("$RUNG" help platforms | awk '$2 != "usable"')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
fail=0
total=0
for bin in "$GUEST_BIN"/*; do
	[ -x "$bin" ] || continue
	for p in $platforms; do total=$((total + 1)); done
done
echo "1..$total"
[ -n "$skipped" ] && echo "# platforms skipped: $skipped"

for bin in "$GUEST_BIN"/*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	# A fixed environment, so that what the program prints is the same both ways.
	env -i PATH=/usr/bin:/bin HOME=/ LANG=C RUNG_GUEST_TEST=1 "$bin" a1 "two words" \
		</dev/null >"$tmp/native.out" 2>"$tmp/native.err"
	native=$?
	for p in $platforms; do
		n=$((n + 1))
		env -i PATH=/usr/bin:/bin HOME=/ LANG=C RUNG_GUEST_TEST=1 \
			"$RUNG" do --platform "$p" "$bin" a1 "two words" \
			</dev/null >"$tmp/rung.out" 2>"$tmp/rung.err"
		got=$?
		if [ "$got" = "$native" ] && cmp -s "$tmp/native.out" "$tmp/rung.out"; then
			echo "ok $n - $name on $p (status $got)"
		else
			echo "not ok $n - $name on $p: status native $native, rung $got"
			diff "$tmp/native.out" "$tmp/rung.out" | sed 's/^/# /' | head -40
			sed 's/^/# rung stderr: /' "$tmp/rung.err" | head -20
			fail=$((fail + 1))
		fi
	done
done
exit 0
