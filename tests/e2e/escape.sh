#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; $vars in quotes are the
# guest's; check_that expands (and uses) variables later
# Escapes through the root file system: a hostile rootfs built here (a
# static busybox as /bin/busybox; symlinks pointing out of it, absolute,
# relative, chained and looping; directories a host process keeps swapping
# with symlinks to / and to the outside while the guest walks into them;
# a symlink named proc) is the guest's root with each --file-access mode.
# The host's files next to it hold different contents, so that whatever
# the guest prints tells which side it came from. The guest must only ever
# see the rootfs: `..` stops at its /, /proc/self/root is it, /proc has
# only the sandbox's pids, a hard link to an outside file is refused. And
# nothing on the host changes, whatever the guest writes, through the
# escape rootfs or with the host's own / as the rootfs (checked on a
# canary tree: names, types, modes, sizes, link counts and contents).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
BB=/bin/busybox
SWAPPER=$E2E_BIN/swapper
T=$E2E_TMP
PER_MODE=38
TOTAL=$((2 * PER_MODE + 8))
plan $TOTAL
if ! file -L "$BB" 2>/dev/null | grep -q 'statically linked' && ! ldd "$BB" 2>&1 | grep -q 'not a dynamic'; then
	for _ in $(seq $TOTAL); do skip "no static busybox at $BB (apt-get install busybox-static)"; done
	exit 0
fi

# --- the hostile rootfs, and the host next to it --------------------------------
ROOT=$T/root
OUT=$T/outside
mkdir -p "$ROOT/bin" "$ROOT/etc" "$ROOT/race" "$OUT/etc"
cp "$BB" "$ROOT/bin/busybox"
printf 'ROOTFS PASSWD\n' >"$ROOT/etc/passwd"
printf 'ROOTFS SHADOW\n' >"$ROOT/etc/shadow"
printf 'echo ROOTFS MARKER\n' >"$ROOT/marker"
printf 'HOST SECRET\n' >"$OUT/secret"
printf 'HOST LINKABLE\n' >"$OUT/linkable"
printf 'echo HOST VICTIM\n' >"$OUT/victim"
# the rootfs has a file at the host path of the outside one
mkdir -p "$ROOT$OUT"
printf 'echo ROOTFS VICTIM\n' >"$ROOT$OUT/victim"
printf 'echo HOST MARKER\n' >"$OUT/marker"
printf 'echo HOST PASSWD\n' >"$OUT/etc/passwd"
ln -s /etc/passwd "$ROOT/abs-passwd"
ln -s ../../../../etc/shadow "$ROOT/rel-shadow"
ln -s "$OUT/victim" "$ROOT/abs-victim"
ln -s "../../../../../../../..$OUT/victim" "$ROOT/rel-victim"
ln -s "$OUT/secret" "$ROOT/host-secret"
ln -s ../outside/secret "$ROOT/up-secret"
ln -s "../../../../../../../..$OUT/secret" "$ROOT/deep-secret"
ln -s /chain2 "$ROOT/chain1"
ln -s chain3 "$ROOT/chain2"
ln -s ../../etc/passwd "$ROOT/chain3"
ln -s /loop2 "$ROOT/loop1"
ln -s loop1 "$ROOT/loop2"
ln -s / "$ROOT/to-root"
ln -s .. "$ROOT/dotdot"
ln -s /proc/self/root/../.. "$ROOT/magic-up"
RACE_DIRS=100
i=0
while [ $i -lt $RACE_DIRS ]; do
	mkdir -p "$ROOT/race/d$i/etc"
	printf 'echo RACE DIR MARKER\n' >"$ROOT/race/d$i/marker"
	printf 'echo RACE DIR PASSWD\n' >"$ROOT/race/d$i/etc/passwd"
	i=$((i + 1))
done
# the same, with a symlink named proc at its root
ROOT2=$T/root2
mkdir -p "$ROOT2/bin"
cp "$BB" "$ROOT2/bin/busybox"
ln -s ../../../../../../proc "$ROOT2/proc"

# snapshot DIR...: every name under DIR with its type, mode, size, link
# count, and a checksum of regular files: what the guest must not change.
# (Not a directory's size: the swapper's renames may grow race/.)
snapshot() {
	{
		find "$@" ! -type d -printf '%p %y %m %s %n\n'
		find "$@" -type d -printf '%p %y %m %n\n'
	} | sort
	find "$@" -type f -exec cksum {} + | sort
}
CANARY=$T/canary
mkdir -p "$CANARY/sub/deeper"
printf 'canary file\n' >"$CANARY/file"
printf 'canary file 2\n' >"$CANARY/file2"
printf 'deep\n' >"$CANARY/sub/deeper/f"
chmod 640 "$CANARY/file2"
snapshot "$ROOT" "$ROOT2" "$OUT" "$CANARY" >"$T/before"
linkable_links=$(stat -c %h "$OUT/linkable")

# g MODE ARGS...: busybox ARGS in the sandbox on the escape rootfs; stdout in
# $out, stderr in $err (files $T/g.out, $T/g.err), status in $st.
g() {
	m=$1
	shift
	env -i PATH=/bin LANG=C timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --rootfs "$ROOT" \
		--file-access="$m" -- /bin/busybox "$@" >"$T/g.out" 2>"$T/g.err" </dev/null
	st=$?
	out=$(cat "$T/g.out")
	err=$(cat "$T/g.err")
}
# never_host WHAT: a check that the last run printed nothing of the host's
# side (HOST ..., or a line of the host's /etc/passwd).
never_host() {
	if grep -Eq 'HOST|^root:x:0:0' "$T/g.out" "$T/g.err"; then
		not_ok "$1"
		sed 's/^/# /' "$T/g.out" "$T/g.err" | head -10
	else
		ok "$1"
	fi
}

escape_mode() {
	m=$1
	# symlinks pointing out
	g "$m" cat /etc/passwd
	check_eq "$m: the rootfs's /etc/passwd" "ROOTFS PASSWD" "$out"
	g "$m" cat /abs-passwd
	check_eq "$m: an absolute symlink to /etc/passwd reads the rootfs's" "ROOTFS PASSWD" "$out"
	g "$m" cat /rel-shadow
	check_eq "$m: ../../../../etc/shadow reads the rootfs's /etc/shadow" "ROOTFS SHADOW" "$out"
	g "$m" cat /host-secret
	check_that "$m: a symlink to the host path of a file outside fails (status $st)" \
		'[ "$st" != 0 ] && [ -z "$out" ]'
	never_host "$m: ... and shows nothing of it"
	g "$m" cat /up-secret
	check_that "$m: ../outside/secret from / fails (status $st)" '[ "$st" != 0 ] && [ -z "$out" ]'
	g "$m" cat /deep-secret
	check_that "$m: ../../../../../../../..HOSTPATH fails (status $st)" \
		'[ "$st" != 0 ] && [ -z "$out" ]'
	g "$m" cat /magic-up/etc/passwd
	check_eq "$m: /proc/self/root/../.. stays in the rootfs" "ROOTFS PASSWD" "$out"
	g "$m" cat /chain1
	check_eq "$m: a chain of three symlinks ends in the rootfs" "ROOTFS PASSWD" "$out"
	g "$m" cat /loop1
	check_that "$m: a symlink loop fails with ELOOP (status $st)" \
		'[ "$st" != 0 ] && echo "$err" | grep -Eqi "symbolic links|loop"'
	g "$m" readlink -f /chain1
	check_eq "$m: readlink -f of the chain" /etc/passwd "$out"
	g "$m" readlink -f /rel-shadow
	check_eq "$m: readlink -f of ../../../../etc/shadow" /etc/shadow "$out"
	g "$m" readlink /host-secret
	check_eq "$m: readlink shows the outside link's text, nothing more" "$OUT/secret" "$out"
	g "$m" stat -L -c '%s %F' /abs-passwd
	check_eq "$m: stat -L through the absolute link: the rootfs file's size" \
		"$(stat -c '%s %F' "$ROOT/etc/passwd")" "$out"
	g "$m" stat -L -c '%s' /host-secret
	check_that "$m: stat -L of the outside link fails (status $st)" '[ "$st" != 0 ]'

	# .. at / stays at /
	g "$m" cat /../../../etc/passwd
	check_eq "$m: /../../../etc/passwd is the rootfs's" "ROOTFS PASSWD" "$out"
	g "$m" cat /dotdot/dotdot/to-root/../etc/passwd
	check_eq "$m: symlinks to .. and / stay at /" "ROOTFS PASSWD" "$out"
	g "$m" sh -c 'cd /../../..; pwd; cd /dotdot/..; pwd'
	check_eq "$m: cd /../../.. and cd /dotdot/.. are /" "/ /" "$(echo "$out" | tr '\n' ' ' | sed 's/ $//')"
	g "$m" ls /..
	check_that "$m: ls /.. lists the rootfs's / (status $st)" \
		'[ "$st" = 0 ] && echo "$out" | grep -qx race && ! echo "$out" | grep -qx usr'

	# /proc
	g "$m" readlink /proc/self/root
	check_eq "$m: /proc/self/root is /" / "$out"
	g "$m" cat /proc/self/root/etc/passwd /proc/1/root/etc/passwd
	check_eq "$m: /proc/self/root/etc/passwd and /proc/1/root/... are the rootfs's" \
		"ROOTFS PASSWD ROOTFS PASSWD" "$(echo "$out" | tr '\n' ' ' | sed 's/ $//')"
	g "$m" ls /proc/self/root/
	check_that "$m: /proc/self/root/ lists the rootfs (status $st)" \
		'[ "$st" = 0 ] && echo "$out" | grep -qx race && ! echo "$out" | grep -qx usr'
	g "$m" ls /proc
	pids=$(echo "$out" | grep -E '^[0-9]+$' | tr '\n' ' ')
	check_eq "$m: /proc has the guest's pid alone" "1 " "$pids"
	env -i PATH=/bin timeout -k 5 "$E2E_TIMEOUT" sh -c \
		'exec "$1" do --rootfs "$2" --file-access="$3" -- /bin/busybox ls -d /proc/$$ /proc/$PPID' \
		sh "$RUNG" "$ROOT" "$m" >"$T/g.out" 2>"$T/g.err" </dev/null
	st=$?
	check_that "$m: /proc/<the sentry's host pid> and /proc/<its parent's> are not there" \
		'[ "$st" != 0 ] && [ ! -s "$T/g.out" ] && [ "$(grep -c "No such file" "$T/g.err")" = 2 ]'
	g "$m" cat /proc/1/cmdline
	check_that "$m: /proc/1 is the guest" \
		'[ "$(tr "\0" " " <"$T/g.out")" = "/bin/busybox cat /proc/1/cmdline " ]'

	# hard links to the outside
	# (The targets are such that a broken sandbox would change only $T.)
	g "$m" ln "$OUT/linkable" "$OUT/hl"
	check_that "$m: ln of a host path outside the rootfs fails (status $st)" '[ "$st" != 0 ]'
	g "$m" ln "/../../../../../..$OUT/linkable" "$OUT/hl"
	check_that "$m: ln of /../../..HOSTPATH fails (status $st)" '[ "$st" != 0 ]'
	g "$m" ln /marker /race/hl
	check_eq "$m: ln inside the rootfs works (in the overlay)" 0 "$st"
	check_eq "$m: the outside file's link count is unchanged" "$linkable_links" \
		"$(stat -c %h "$OUT/linkable")"

	# links to the host path of an outside file that the rootfs has too
	g "$m" sh -c '. /abs-victim; . /rel-victim'
	check_eq "$m: absolute and ../../..-relative links to HOSTPATH read the rootfs's" \
		"ROOTFS VICTIM ROOTFS VICTIM" "$(echo "$out" | tr '\n' ' ' | sed 's/ $//')"
	g "$m" sh -c 'echo "echo WRITTEN" >/abs-victim; . /rel-victim; echo pwned >/host-secret;
		echo pwned >/deep-secret; echo pwned >/up-secret; . "$0"' "$OUT/victim"
	check_eq "$m: writing through one link changes the rootfs's file, in the sandbox" \
		"WRITTEN WRITTEN" "$(echo "$out" | tr '\n' ' ' | sed 's/ $//')"
	never_host "$m: ... and never shows the host's"

	# the rename race: directories swapped with symlinks while the guest walks
	for target in / ../../outside "$OUT"; do
		"$SWAPPER" 60 "$target" "$ROOT"/race/d* >"$T/swapper.out" 2>&1 &
		swapper=$!
		i=0
		while ! grep -q swapping "$T/swapper.out" && [ $i -lt 300 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		g "$m" sh -c 'i=0; while [ $i -lt $0 ]; do command . /race/d$i/marker;
			command . /race/d$i/etc/passwd; echo pwned >/race/d$i/pwned; i=$((i + 1)); done' \
			"$RACE_DIRS"
		kill "$swapper"
		wait "$swapper"
		sst=$?
		label=$target
		[ "$target" = "$OUT" ] && label="the outside's host path"
		never_host "$m: racing a swap of the walked directories with symlinks to $label"
		seen=0
		grep -q '^RACE DIR MARKER$' "$T/g.out" && seen=$((seen + 1))
		grep -Eq 'ROOTFS MARKER|ROOTFS: not found|No such file|nonexistent' "$T/g.out" \
			"$T/g.err" && seen=$((seen + 1))
		if [ "$seen" = 2 ] && [ "$sst" = 0 ]; then
			ok "$m: ... the guest met both (swapper: $(tail -n 1 "$T/swapper.out"))"
		else
			not_ok "$m: ... the guest met both the directories and the symlinks"
			diag "swapper status $sst: $(cat "$T/swapper.out")"
			sed 's/^/# /' "$T/g.out" "$T/g.err" | sort | uniq -c | head -10
		fi
	done
}

escape_mode direct
escape_mode gofer

# --- a symlink named proc at the root --------------------------------------------
# rung may refuse the rootfs, or mount its own /proc there; never the host's.
host_init=$(tr '\0' ' ' </proc/1/cmdline)
env -i PATH=/bin timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --rootfs "$ROOT2" -- /bin/busybox \
	cat /proc/1/cmdline >"$T/p.out" 2>"$T/p.err" </dev/null
st=$?
got=$(tr '\0' ' ' <"$T/p.out")
check_that "a /proc symlink in the rootfs: refused, or /proc is the sandbox's (status $st)" \
	'{ [ "$st" != 0 ] && [ -z "$got" ]; } || [ "$got" = "/bin/busybox cat /proc/1/cmdline " ]'
check_that "... never the host's /proc" '[ "$got" != "$host_init" ]'

# --- the host's own / as the rootfs: writes stay in the sandbox ------------------
# hb MODE ARGS...: busybox ARGS in a sandbox on the host's /.
hb() {
	m=$1
	shift
	env -i PATH=/usr/bin:/bin LANG=C timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --file-access="$m" \
		-- "$BB" "$@" >"$T/h.out" 2>"$T/h.err" </dev/null
	st=$?
}
for m in direct gofer; do
	fails=
	hb "$m" rm -rf "$CANARY/sub"
	[ "$st" = 0 ] || fails="$fails rm"
	hb "$m" mv "$CANARY/file" "$CANARY/moved"
	[ "$st" = 0 ] || fails="$fails mv"
	hb "$m" chmod 777 "$CANARY/file2"
	[ "$st" = 0 ] || fails="$fails chmod"
	hb "$m" ln "$CANARY/file2" "$CANARY/hard"
	[ "$st" = 0 ] || fails="$fails ln"
	hb "$m" truncate -s 0 "$CANARY/file2"
	[ "$st" = 0 ] || fails="$fails truncate"
	hb "$m" mkdir -p "$CANARY/new/dir"
	[ "$st" = 0 ] || fails="$fails mkdir"
	hb "$m" sh -c 'echo "echo written" >"$0/file2" && echo "echo new" >"$0/new" &&
		. "$0/file2" && . "$0/new"' "$CANARY"
	[ "$(cat "$T/h.out")" = "written
new" ] || fails="$fails write"
	check_eq "$m, rootfs /: rm -r, mv, chmod, ln, truncate, mkdir -p, writes all work in the sandbox" \
		"" "$fails"
done
hb direct rm -rf "$ROOT" "$OUT" "$ROOT2"
check_eq "rm -rf of the escape rootfs and the outside from a sandbox on /" 0 "$st"

snapshot "$ROOT" "$ROOT2" "$OUT" "$CANARY" >"$T/after"
if cmp -s "$T/before" "$T/after"; then
	ok "the host is unchanged: the rootfs, the outside files and the canary tree"
else
	not_ok "the host is unchanged: the rootfs, the outside files and the canary tree"
	diff "$T/before" "$T/after" | sed 's/^/# /' | head -20
fi
pwned=$(find / /etc -maxdepth 1 -name pwned -newer "$T/before" 2>/dev/null)
check_eq "no file named pwned appeared in the host's / or /etc" "" "$pwned"
[ -n "$pwned" ] && find / /etc -maxdepth 1 -name pwned -newer "$T/before" -type f -delete
check_clean "the escape tests"
