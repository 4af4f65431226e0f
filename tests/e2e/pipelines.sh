#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; the pipelines expand in sh -c
# Debian's shell pipelines in rung, with each --file-access mode, printing
# and exiting as they do natively: grep to /dev/null (grep 3.8 splices
# its input there), grep -q ending its writer early, counting, tee into a
# file beside a checksum, sort | uniq -c | sort -rn | head, a chain of
# cats. Each pipeline runs under sh -c, natively and in the sandbox; and
# python3's os.splice between the host pipes rung do's stdio is made of.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
PIPELINES=11
plan $((2 * PIPELINES + 1))
PY=/usr/bin/python3

# A file of 4 MB or so: numbers and a binary.
{
	seq 1 300000
	cat /usr/bin/sh /usr/bin/sh /usr/bin/sh
} >"$T/big"
WORDS=/usr/share/common-licenses/GPL-3
[ -r "$WORDS" ] || WORDS=/etc/services

# same MODE DESCRIPTION SCRIPT: sh -c SCRIPT prints the same and exits the
# same in rung (--file-access=MODE) as natively. SCRIPT finds its files
# in $B (the big file), $W (words) and $X (a file it may write, natively
# in the scratch directory, in rung in the sandbox's overlay).
same() {
	m=$1 d=$2 script=$3
	env -i PATH=/usr/bin:/bin LANG=C B="$T/big" W="$WORDS" X="$T/x-native" \
		sh -c "$script" >"$T/n.out" 2>"$T/n.err" </dev/null
	ns=$?
	env -i PATH=/usr/bin:/bin LANG=C B="$T/big" W="$WORDS" X="/tmp/pipelines-x" \
		timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --file-access="$m" -- sh -c "$script" \
		>"$T/r.out" 2>"$T/r.err" </dev/null
	st=$?
	if [ "$ns" = "$st" ] && cmp -s "$T/n.out" "$T/r.out"; then
		ok "$m: $d (status $st)"
	else
		not_ok "$m: $d: status native $ns, rung $st"
		diff "$T/n.out" "$T/r.out" | sed 's/^/# /' | head -10
		sed 's/^/# rung stderr: /' "$T/r.err" | head -5
	fi
}

# host_pipes MODE: os.splice from the sandbox's stdin to its stdout, both
# host pipes, and with an offset (ESPIPE), prints as natively.
SPLICE_PY='import os, sys
n = os.splice(0, 1, 100)
try:
    os.splice(0, 1, 1, offset_src=0)
except OSError as e:
    print(e.strerror)
print(n)'
host_pipes() {
	m=$1
	if [ ! -x "$PY" ]; then
		skip "$m: os.splice between host pipes: no $PY"
		return
	fi
	printf 'hello\n' | env -i PATH=/usr/bin:/bin LANG=C "$PY" -c "$SPLICE_PY" 2>&1 | cat >"$T/n.out"
	printf 'hello\n' | env -i PATH=/usr/bin:/bin LANG=C timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do \
		--file-access="$m" -- "$PY" -c "$SPLICE_PY" 2>&1 | cat >"$T/r.out"
	if cmp -s "$T/n.out" "$T/r.out"; then
		ok "$m: os.splice between host pipes"
	else
		not_ok "$m: os.splice between host pipes"
		diff "$T/n.out" "$T/r.out" | sed 's/^/# /' | head -10
	fi
}

pipelines() {
	m=$1
	same "$m" 'echo abc | grep b >/dev/null' 'echo abc | grep b >/dev/null; echo rc=$?'
	same "$m" 'a miss to /dev/null' 'echo abc | grep x >/dev/null; echo rc=$?'
	same "$m" 'seq 1 100000 | grep -q 99999' 'seq 1 100000 | grep -q 99999; echo rc=$?'
	same "$m" 'yes | grep -q y (yes ends on SIGPIPE)' 'yes | grep -q y; echo rc=$?'
	same "$m" 'seq 1 200000 | grep -c 7' 'seq 1 200000 | grep -c 7'
	same "$m" 'grep of a 4 MB file to /dev/null' \
		'cat "$B" | grep -a 29999 >/dev/null; echo rc=$?; grep -ac 1 "$B" >/dev/null; echo rc=$?'
	same "$m" 'cat bigfile | tee x | sha256sum' \
		'cat "$B" | tee "$X" | sha256sum; sha256sum <"$X"; rm -f "$X"'
	same "$m" 'sort | uniq -c | sort -rn | head' \
		'tr -cs A-Za-z "\n" <"$W" | sort | uniq -c | sort -rn | head'
	same "$m" 'a chain of cats' 'cat "$B" | cat | cat | cat | wc -c'
	same "$m" 'head ends its writer early' 'seq 1 1000000 | head -3; cat "$B" | head -c 10 | od -c'
	host_pipes "$m"
}

pipelines direct
pipelines gofer
check_clean "the pipelines"
