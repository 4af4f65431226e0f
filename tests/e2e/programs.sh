#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands (and uses) later
# Debian's own dynamically linked programs from the host's root, with each
# --file-access mode: ls, cat, md5sum, find, stat (each printing what it
# prints natively), python3 and perl, and in the sandbox's overlay python3
# writing /tmp/x and reading it back, touch, mkdir -p, cp -a, mv (of a
# file and of a directory of the rootfs) and rm -r. There is no fork yet,
# so each program runs in a sandbox of its own and says what it did
# (-v); afterwards the host must be unchanged: the files the programs
# touched, moved and removed, and /tmp. A program the host lacks is
# skipped.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
PER_MODE=14
plan $((2 * PER_MODE + 2))
PY=/usr/bin/python3
PERL=/usr/bin/perl
tag=rung-programs-$$

# native NAME ARGS... / sandboxed NAME MODE ARGS...: run a program natively
# or in rung with a fixed environment; $T/NAME.out, $T/NAME.err, $st.
native() {
	name=$1
	shift
	env -i PATH=/usr/bin:/bin LANG=C "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}
sandboxed() {
	name=$1 m=$2
	shift 2
	env -i PATH=/usr/bin:/bin LANG=C timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --file-access="$m" \
		-- "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}
# same M DESCRIPTION ARGS...: ARGS print the same and exit the same in rung
# (mode M) as natively. Output is compared after FILTER (default cat).
FILTER='cat'
same() {
	m=$1 d=$2
	shift 2
	native n "$@"
	ns=$st
	sandboxed r "$m" "$@"
	if [ "$ns" = "$st" ] && [ "$($FILTER <"$T/n.out")" = "$($FILTER <"$T/r.out")" ]; then
		ok "$m: $d (status $st)"
	else
		not_ok "$m: $d: status native $ns, rung $st"
		diff "$T/n.out" "$T/r.out" | sed 's/^/# /' | head -10
		sed 's/^/# rung stderr: /' "$T/r.err" | head -5
	fi
}
# ls -la / without what is the sandbox's own (/dev, /proc, /sys, and the
# overlay's root itself), the total, /tmp (which others may be writing to
# meanwhile), and the column widths that follow from them.
ls_filter() {
	awk '$1 != "total" && $NF !~ /^(\.|\.\.|dev|proc|sys|tmp)$/ { $1 = $1; print }'
}
lines() { wc -l <"$1" | tr -d ' '; }

# What the overlay runs may change in the sandbox, and the host must keep.
snapshot() {
	{
		for f in /tmp/x /etc/hostname /etc/os-release /tmp/"$tag"*; do
			stat -c '%n %F %a %s %h %Y' "$f" 2>&1
		done
		find /usr/include/linux /usr/include/asm-generic -printf '%p %y %m %s %n %T@\n'
		find /usr/include/linux /usr/include/asm-generic -type f -exec cksum {} +
		cksum /etc/hostname /tmp/x 2>&1
	} | sort
}
snapshot >"$T/before"

programs() {
	m=$1
	FILTER='ls_filter'
	same "$m" "ls -la / (but for the sandbox's own /dev, /proc, /sys and /)" ls -la /
	FILTER='cat'
	same "$m" "cat /etc/os-release" cat /etc/os-release
	same "$m" "md5sum /bin/bash" md5sum /bin/bash
	FILTER='sort'
	same "$m" "find /usr/include -name stdio.h" find /usr/include -name stdio.h
	FILTER='cat'
	same "$m" "stat of a symlink, a program and a directory" \
		stat -c '%n|%F|%a|%U|%G|%s|%h|%Y|%N' /etc/os-release /bin/bash /usr/include

	if [ -x "$PY" ]; then
		sandboxed py "$m" "$PY" -c 'print(sum(range(10)))'
		check_eq "$m: python3 -c 'print(sum(range(10)))'" "45 0" "$(cat "$T/py.out") $st"
		if [ -e /tmp/x ] && [ ! -f /tmp/x ]; then
			# Someone made /tmp/x a directory on this host: the sandbox sees it too.
			skip "$m: python3 writes /tmp/x and reads it back (/tmp/x is not a file here)"
		else
			sandboxed py "$m" "$PY" -c 'open("/tmp/x", "w").write("sandboxed\n")
with open("/tmp/x") as f: print(f.read(), end="")'
			check_eq "$m: python3 writes /tmp/x and reads it back" "sandboxed 0" \
				"$(cat "$T/py.out") $st"
		fi
	else
		skip "$m: no $PY"
		skip "$m: no $PY"
	fi
	if [ -x "$PERL" ]; then
		sandboxed pl "$m" "$PERL" -e 'print 6*7'
		check_eq "$m: perl -e 'print 6*7'" "42 0" "$(cat "$T/pl.out") $st"
	else
		skip "$m: no $PERL"
	fi

	# in the overlay
	sandboxed touch "$m" touch "/tmp/$tag-touched" /etc/os-release /etc/hostname
	check_eq "$m: touch a new file and two of the rootfs's" 0 "$st"
	sandboxed mkdir "$m" mkdir -pv "/tmp/$tag-dir/a/b"
	check_that "$m: mkdir -p makes 3 directories (status $st)" \
		'[ "$st" = 0 ] && [ "$(grep -c "created directory" "$T/mkdir.out")" = 3 ]'
	want=$(find /usr/include/asm-generic | wc -l)
	sandboxed cp "$m" cp -av /usr/include/asm-generic "/tmp/$tag-cp"
	check_that "$m: cp -a of a directory copies its $want entries (status $st)" \
		'[ "$st" = 0 ] && [ "$(lines "$T/cp.out")" = "$want" ]'
	sandboxed mv "$m" mv -v /etc/hostname "/tmp/$tag-hostname"
	check_that "$m: mv of a rootfs file to /tmp (status $st)" \
		'[ "$st" = 0 ] && grep -q "^renamed" "$T/mv.out"'
	sandboxed mvdir "$m" mv /usr/include/linux "/tmp/$tag-linux"
	check_that "$m: mv of a rootfs directory to /tmp (status $st)" '[ "$st" = 0 ]'
	want=$(find /usr/include/linux | wc -l)
	sandboxed rm "$m" rm -rv /usr/include/linux
	check_that "$m: rm -r of a rootfs directory removes its $want entries (status $st)" \
		'[ "$st" = 0 ] && [ "$(lines "$T/rm.out")" = "$want" ]'
	[ "$st" = 0 ] || sed 's/^/# rm: /' "$T/rm.err" | head -5
}

programs direct
programs gofer

snapshot >"$T/after"
if cmp -s "$T/before" "$T/after"; then
	ok "the host is unchanged: /tmp/x, the files touched, moved and removed, no $tag*"
else
	not_ok "the host is unchanged: /tmp/x, the files touched, moved and removed, no $tag*"
	diff "$T/before" "$T/after" | sed 's/^/# /' | head -20
fi
rm -rf /tmp/"$tag"*
check_clean "the programs"
