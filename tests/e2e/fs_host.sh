#!/bin/sh
# shellcheck disable=SC1010,SC3045 # `do` is rung's subcommand; dash, bash and busybox sh have ulimit -n
# The file system over host files, where a guest test cannot reach (its
# own files are always in the overlay's upper layer):
# - renames on the overlay of files and directories of the lower layer:
#   RENAME_EXCHANGE copies both up; a directory the lower layer shows
#   through cannot move (EXDEV, as overlayfs without redirect_dir), an
#   opaque or upper-only one can, and one moved over a lower directory's
#   name hides it; O_TMPFILE works on the overlay, is EOPNOTSUPP on the
#   gofer's files (as on 9p); the host stays unchanged; a removed
#   directory of the gofer's files lists and makes nothing;
# - more names than the gofer may hold descriptors for: every cached name
#   holds one, so a walk of a tree larger than the descriptor limit
#   (lowered to 256 here) must not fail with EMFILE, nor files opened
#   while many names are cached; a guest opening files until EMFILE must
#   not break the sentry's channels to the gofer;
# - the inherited stdio opened again: /dev/stdin on a host pipe,
#   > /dev/stdout on a host file and a host pipe.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
plan 20
F=$E2E_BIN/fsops
L=$E2E_TMP/lower
W=$E2E_TMP/rw

mkdir -p "$L/ld" "$L/ld2" "$L/ld3" "$L/ld4" "$L/big" "$W"
printf one >"$L/f1"
printf two >"$L/f2"
printf lx >"$L/ld/x"
printf ly >"$L/ld2/y"
printf x >"$L/ld3/x"
printf x >"$L/ld4/x"
for d in $(seq 1 20); do
	mkdir "$L/big/d$d"
	(cd "$L/big/d$d" && seq 1 150 | xargs touch)
done
snapshot() { (cd "$1" && find . -printf '%p %y %s %m\n' | sort && cat f1 f2 ld*/*) | md5sum; }
before=$(snapshot "$L")

# fsops_in MODE [RUNG OPTIONS] -- OPS...: fsops in a sandbox on $L.
fsops_in() {
	m=$1
	shift
	rung do --file-access="$m" "$@"
}

for m in direct gofer; do
	fsops_in "$m" -- "$F" "$L" xchg f1 f2 -- cat f1 -- cat f2 -- put n new -- xchg f1 n \
		-- cat n -- cat f1 -- xchg ld f1 -- mkdir nd -- put nd/z z -- xchg nd f2 -- ls f2 \
		-- cat nd -- rm ld3/x -- mkdir up -- put up/y y -- mv up ld3 -- ls ld3 \
		-- mv ld ld5 -- mv ld2/y y -- rm ld4/x -- rmdir ld4 -- mkdir ld4 -- put ld4/z z \
		-- mv ld4 ld6 -- ls ld6 -- mkdir ld4 -- xchg ld4 f1 -- ls f1 -- cat ld4 \
		-- tmpfile . t -- cat t -- ls . >"$E2E_TMP/ops.out" 2>"$E2E_TMP/ops.err"
	cat >"$E2E_TMP/ops.want" <<-'EOF'
		xchg f1 f2: ok
		cat f1: two
		cat f2: one
		put n new: ok
		xchg f1 n: ok
		cat n: two
		cat f1: new
		xchg ld f1: EXDEV
		mkdir nd: ok
		put nd/z z: ok
		xchg nd f2: ok
		ls f2: z
		cat nd: one
		rm ld3/x: ok
		mkdir up: ok
		put up/y y: ok
		mv up ld3: ok
		ls ld3: y
		mv ld ld5: EXDEV
		mv ld2/y y: ok
		rm ld4/x: ok
		rmdir ld4: ok
		mkdir ld4: ok
		put ld4/z z: ok
		mv ld4 ld6: ok
		ls ld6: z
		mkdir ld4: ok
		xchg ld4 f1: ok
		ls f1:
		cat ld4: new
		tmpfile . t: ok
		cat t: tmp
		ls .: big f1 f2 ld ld2 ld3 ld4 ld6 n nd t y
	EOF
	if cmp -s "$E2E_TMP/ops.want" "$E2E_TMP/ops.out"; then
		ok "$m: renames of lower files and directories on the overlay, O_TMPFILE"
	else
		not_ok "$m: renames of lower files and directories on the overlay, O_TMPFILE"
		diag "$(diff "$E2E_TMP/ops.want" "$E2E_TMP/ops.out")" "$(head -5 "$E2E_TMP/ops.err")"
	fi
	check_eq "$m: the host directory is unchanged" "$before" "$(snapshot "$L")"
	check_eq "$m: O_TMPFILE on the gofer's files (--overlay none) is EOPNOTSUPP" \
		"tmpfile . t: EOPNOTSUPP" \
		"$(fsops_in "$m" --overlay none -- "$F" "$W" tmpfile . t 2>&1)"
	check_eq "$m: a removed directory of the gofer's files (--overlay none) is dead" \
		"deaddir g: getdents ENOENT, create ENOENT, mkdir ENOENT" \
		"$(fsops_in "$m" --overlay none -- "$F" "$W" deaddir g 2>&1)"
done

# More names than descriptors: 3021 in big, a limit of 256.
want=$(find "$L/big" -size -1000k -printf . | wc -c)
for m in direct gofer; do
	for ov in memory none; do
		opt=
		[ $ov = none ] && opt="--overlay none"
		# shellcheck disable=SC2086 # $opt is two words or none
		got=$( (ulimit -n 256 && rung do --file-access="$m" $opt -- \
			find "$L/big" -size -1000k -printf .) 2>"$E2E_TMP/find.err" | wc -c)
		check_eq "$m, overlay $ov: find -size in $want names with 256 descriptors" \
			"$want" "$got"
	done
	# Files opened while many names are cached (in gofer mode each holds a
	# second descriptor in the gofer).
	check_eq "$m: 100 files held open after walking them" "walk big: $want
hold big: 100 open" "$( (ulimit -n 256 && rung do --file-access="$m" -- "$F" "$L" walk big \
		-- hold 100 big) 2>&1)"
	# As many opens as descriptors last: EMFILE, then everything still works
	# (the sentry running out of descriptors must not break its channels).
	check_eq "$m: opening until out of descriptors, four times" "exhaust f1: EMFILE
exhaust f1: EMFILE
exhaust f1: EMFILE
exhaust f1: EMFILE
cat f2: two" "$( (ulimit -n 256 && rung do --file-access="$m" -- "$F" "$L" exhaust f1 \
		-- exhaust f1 -- exhaust f1 -- exhaust f1 -- cat f2) 2>&1)"
done

# Inherited stdio opened again.
check_eq "/dev/stdin on a host pipe" "piped" "$(echo piped | rung do -- /bin/cat /dev/stdin)"
rung do -- /bin/sh -c 'echo to-file > /dev/stdout' >"$E2E_TMP/stdout.txt"
check_eq "> /dev/stdout on a host file" "to-file" "$(cat "$E2E_TMP/stdout.txt")"
check_eq "> /dev/stdout on a host pipe" "to-pipe" \
	"$(rung do -- /bin/sh -c 'echo to-pipe > /dev/stdout' | cat)"
check_clean "the host file system tests"
