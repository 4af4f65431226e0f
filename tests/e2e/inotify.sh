#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; the guest scripts expand later
# inotify with real programs, with each --file-access mode, on a tmpfs
# (/dev/shm), the overlay root (/tmp) and a bind-mounted host directory
# (/mnt), as natively in a directory of the host:
# - coreutils tail -f (which uses inotify on file systems it knows to be
#   local) prints the lines another guest process appends; -s 30 makes its
#   polling fallback too slow to pass. It polls on an overlay, as on
#   Linux's overlayfs, so it is not run on /tmp;
# - Node's fs.watch on a directory reports the file a child process writes.
# inotifywait runs only when inotify-tools is installed. Events come for
# changes made in the sandbox, not for changes made on the host.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
NODE=/usr/bin/node
have_iw=
command -v inotifywait >/dev/null && have_iw=1
PER_MODE=5
[ -n "$have_iw" ] && PER_MODE=$((PER_MODE + 1))
plan $((2 * PER_MODE + 1))

mkdir -p "$T/vol" "$T/native"
# tail -f of a file in $1 while lines are appended to it.
cat >"$T/vol/tailf.sh" <<'EOF'
f=$1/tail-log
: >"$f"
tail -s 30 -n +1 -f "$f" >"$1/tail-out" &
tp=$!
sleep 0.5
for i in 1 2 3; do echo "line $i" >>"$f"; sleep 0.2; done
sleep 0.5
kill $tp
wait $tp 2>/dev/null
cat "$1/tail-out"
rm -f "$f" "$1/tail-out"
EOF
# fs.watch on the directory $2 while a child process writes hello.txt there.
cat >"$T/vol/watch.js" <<'EOF'
const fs = require('fs');
const cp = require('child_process');
const dir = process.argv[2];
const seen = [];
const w = fs.watch(dir, (type, name) => seen.push(type + ' ' + name));
const child = cp.spawn('/bin/sh', ['-c', 'echo hello > "$0"/hello.txt', dir]);
child.on('exit', (code) => {
	setTimeout(() => {
		w.close();
		console.log('child exit ' + code);
		for (const s of seen) console.log(s);
		fs.unlinkSync(dir + '/hello.txt');
	}, 500);
});
EOF
# inotifywait for one create in $1, made by another process.
cat >"$T/vol/iw.sh" <<'EOF'
(sleep 0.5; : >"$1/iw-file") &
inotifywait -q -e create --format '%e %f' "$1"
wait
rm -f "$1/iw-file"
EOF

# same M DIR DESCRIPTION COMMAND...: COMMAND with DIR as its last argument
# prints in rung (mode M, $T/vol on /mnt) what it prints natively with a
# directory of the host as the last argument.
same() {
	m=$1 dir=$2 d=$3
	shift 3
	env -i PATH=/usr/bin:/bin LANG=C "$@" "$T/native" >"$T/n.out" 2>"$T/n.err" </dev/null
	ns=$?
	env -i PATH=/usr/bin:/bin LANG=C timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --file-access="$m" \
		-v "$T/vol:/mnt" -- "$@" "$dir" >"$T/r.out" 2>"$T/r.err" </dev/null
	st=$?
	if [ "$ns" = "$st" ] && [ -s "$T/n.out" ] && cmp -s "$T/n.out" "$T/r.out"; then
		ok "$m: $d in $dir (status $st)"
	else
		not_ok "$m: $d in $dir: status native $ns, rung $st"
		diff "$T/n.out" "$T/r.out" | sed 's/^/# /' | head -10
		sed 's/^/# rung stderr: /' "$T/r.err" | head -5
	fi
}

for m in direct gofer; do
	same "$m" /dev/shm "tail -f sees lines another process appends" sh "$T/vol/tailf.sh"
	same "$m" /mnt "tail -f sees lines another process appends" sh "$T/vol/tailf.sh"
	for dir in /dev/shm /tmp /mnt; do
		if [ -x "$NODE" ]; then
			same "$m" "$dir" "node fs.watch sees a child's new file" "$NODE" "$T/vol/watch.js"
		else
			skip "$m: node fs.watch in $dir: no $NODE"
		fi
	done
	[ -n "$have_iw" ] && same "$m" /dev/shm "inotifywait sees a create" sh "$T/vol/iw.sh"
done
check_clean "the inotify programs"
