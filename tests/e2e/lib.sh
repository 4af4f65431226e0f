# TAP helpers for end-to-end tests (sourced). Each test file prints a plan,
# then one line per check via ok/not_ok, and exits 0 (the TAP driver counts).
n=0
plan() { echo "1..$1"; }
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# Are any rung processes (sentries or stubs) still alive?
rung_leftovers() { pgrep -x rung || true; }
