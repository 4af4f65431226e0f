#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands (and uses) later
# Hard links through the overlay of `rung do` and gofer-backed files, with
# Debian's git and python3:
# - git clone of a local path (a repository in the rootfs, the overlay's
#   lower layer): git hard-links the objects and checks that each link has
#   the source's st_dev and st_ino; then a 20-step workflow (init, add,
#   commit, branch, checkout, merge, rebase, stash, tag, log, diff, gc,
#   fsck, clone of a local path, status...) prints what it prints natively;
# - a lower file with two or three names stays one file across copy-up:
#   one inode, the link count right after link, rename and unlink, data,
#   mode and times through any name;
# - the guest tests fs_hardlink, fs_nofollow and fs_unixbind on a /tmp that
#   is a bind mount (goferfs), each file-access mode and platform, as
#   natively;
# - Python's tempfile (O_CREAT|O_NOFOLLOW) in an OCI container, in a bound
#   directory, and a Unix socket bound there, which the host cannot reach;
# - the host is unchanged.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
GIT=/usr/bin/git
PY=/usr/bin/python3
plan 15

[ -x "$GIT" ] || skip_all "no $GIT"

# A fixed environment, so that commits (and their hashes) are the same
# natively and in the sandbox.
ENV="PATH=/usr/bin:/bin LANG=C HOME=$T GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=rung
GIT_AUTHOR_EMAIL=rung@example.org GIT_COMMITTER_NAME=rung GIT_COMMITTER_EMAIL=rung@example.org
GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"
# native NAME COMMAND... / sandboxed NAME [RUNG OPTIONS] -- COMMAND...:
# $T/NAME.out, $T/NAME.err, $st.
native() {
	name=$1
	shift
	# shellcheck disable=SC2086 # $ENV: one word per variable
	env -i $ENV "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}
sandboxed() {
	name=$1
	shift
	# shellcheck disable=SC2086 # $ENV: one word per variable
	env -i $ENV timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do "$@" >"$T/$name.out" 2>"$T/$name.err" \
		</dev/null
	st=$?
}
# same DESCRIPTION NAME: $T/NAME-native.out and $T/NAME-rung.out (and the
# statuses ns, st) agree.
same() {
	if [ "$ns" = "$st" ] && cmp -s "$T/$2-native.out" "$T/$2-rung.out"; then
		ok "$1 (status $st)"
	else
		not_ok "$1: status native $ns, rung $st"
		diff "$T/$2-native.out" "$T/$2-rung.out" | sed 's/^/# /' | head -20
		sed 's/^/# rung stderr: /' "$T/$2-rung.err" | head -10
	fi
}

# --- the source repository, made natively (the sandbox's lower layer) --------
S=$T/src
native mksrc sh -c "$GIT init -q -b main '$S' && cd '$S' && echo one >a && mkdir d &&
	echo two >d/b && $GIT add . && $GIT commit -qm first && echo three >>a &&
	$GIT commit -qam second"
check_eq "the source repository is made natively" 0 "$st"

# mk_hl DIR: a file with two names (a, b), one with one (s), one with
# three (p, q, r), two more with two (f, g; u, v), and a directory sub.
mk_hl() {
	mkdir -p "$1/sub" && echo one >"$1/a" && ln "$1/a" "$1/b" && echo solo >"$1/s" &&
		echo pp >"$1/p" && ln "$1/p" "$1/q" && ln "$1/p" "$1/r" &&
		echo ff >"$1/f" && ln "$1/f" "$1/g" && echo uu >"$1/u" && ln "$1/u" "$1/v"
}
mk_hl "$T/hl"
mk_hl "$T/hl-nat"
snapshot() {
	find "$S" "$T/hl" -printf '%p %y %m %s %n %i %T@\n' 2>&1 | sort
	find "$S" "$T/hl" -type f -exec cksum {} + 2>&1 | sort
}

# --- git clone of a local path ------------------------------------------------
# The workflow: run in directory W (native: $T/nat, rung: $T/box, which
# the overlay keeps in memory). Paths never printed; every step's output
# and status are.
cat >"$T/workflow.sh" <<WF
set -u
step() { echo "## \$*"; "\$@" 2>&1; echo "rc=\$?"; }
cd "\$1"
step $GIT init -q -b main r
cd r
echo base >f && printf 'l1\nl2\nl3\n' >g
step $GIT add f g
step $GIT commit -qm base
step $GIT branch feature
step $GIT checkout -q feature
echo feat >>f
step $GIT commit -qam feature-change
step $GIT checkout -q main
echo main >h && $GIT add h
step $GIT commit -qm main-change
step $GIT merge -q --no-edit feature
step $GIT log --oneline --graph --all
step $GIT diff HEAD~1 --stat
step $GIT tag -a v1 -m release
step $GIT checkout -q -b topic v1
sed -i s/l2/L2/ g
step $GIT commit -qam topic-change
step $GIT rebase -q main
echo dirty >>g
step $GIT stash -q
step $GIT stash list
step $GIT status --short
step $GIT stash pop -q
step $GIT diff
step $GIT checkout -q -- g
step $GIT gc -q
step $GIT fsck --no-progress
step sh -c "$GIT count-objects | cut -d, -f1"
cd ..
step $GIT clone -q r r2
step $GIT -C r2 log --oneline
o=\$(cd r && find .git/objects/pack -name '*.pack' | head -1)
[ "\$(stat -c %d:%i "r/\$o")" = "\$(stat -c %d:%i "r2/\$o")" ] && echo "pack hard-linked"
step $GIT clone -q "$S" s2
step $GIT -C s2 log --oneline
step $GIT -C s2 show --stat HEAD
o=\$(cd s2 && find .git/objects -type f -path '*/objects/??/*' | sort | head -1)
[ "\$(stat -c %d:%i:%h "$S/\$o")" = "\$(stat -c %d:%i:%h "s2/\$o")" ] && echo "object hard-linked"
step $GIT -C r describe --tags
step $GIT -C r status --short --branch
WF
mkdir -p "$T/nat"
native wf-native sh "$T/workflow.sh" "$T/nat"
ns_wf=$st
# (The native clone added links to the source's objects: the host is
# what it is now, and the sandbox must leave it so.)
before=$(snapshot)

mkdir -p "$T/box"
sandboxed clone1 -- sh -c "cd '$T/box' && $GIT clone -q '$S' c && echo cloned"
check_eq "git clone of a local path in the overlay (hard links, checked by git)" \
	"0 cloned" "$st $(cat "$T/clone1.out")"
[ "$st" = 0 ] || sed 's/^/# rung stderr: /' "$T/clone1.err" | head -5

ns=$ns_wf
sandboxed wf-rung -- sh "$T/workflow.sh" "$T/box"
same "a 31-step git workflow prints what it prints natively" wf
check_that "... with the clones hard-linked" \
	'[ "$(grep -c "hard-linked" "$T/wf-rung.out")" = 2 ]'

# --- a hard-linked lower file across copy-up ---------------------------------
cat >"$T/hl.sh" <<'HL'
cd "$1" || exit 1
id() { stat -c %d:%i "$1"; }
n() { stat -c %h "$1"; }
[ "$(id a)" = "$(id b)" ] && echo "a b: one inode, $(n a) links"
s0=$(id s); echo more >>s; [ "$(id s)" = "$s0" ] && echo "s keeps its identity when written"
a0=$(id a)
echo two >>a
echo "b reads: $(tr '\n' ' ' <b)"
[ "$(id b)" = "$a0" ] && [ "$(id a)" = "$a0" ] && echo "a b: the same identity after copy-up"
ln b c && echo "c: $(n a) $(n b) $(n c) links"
rm b && echo "after rm b: $(n a) $(n c) links"
echo three >>c
echo "a reads: $(tr '\n' ' ' <a)"
rm a && echo "after rm a: $(n c) link, $([ "$(id c)" = "$a0" ] && echo same) identity"
ln s s2 && [ "$(id s2)" = "$s0" ] && echo "s s2: $(n s) links"
p0=$(id p)
echo "p q r: $(n p) $(n q) $(n r) links"
mv q sub/x && echo "mv q sub/x: $(n p) $(n sub/x) $(n r) links"
echo more >>r
echo "p reads: $(tr '\n' ' ' <p), sub/x: $(tr '\n' ' ' <sub/x)"
rm p && echo "rm p: $(n sub/x) $(n r) links"
ln r sub/y && echo "ln r sub/y: $(n r) $(n sub/x) $(n sub/y) links"
[ "$(id sub/y)" = "$p0" ] && [ "$(id sub/x)" = "$p0" ] && echo "sub/x sub/y: p's identity"
rm sub/x r && echo "rm sub/x r: $(n sub/y) link"
chmod 600 f && touch -d @0 f && echo "g: mode $(stat -c %a g), mtime $(stat -c %Y g)"
# rename(2) of a name onto another name of the same file does nothing.
perl -e 'rename("u", "v") or die "rename: $!\n"' && echo "rename u v: $(n u) $(n v) links"
ls -a . sub | tr '\n' ' '
HL
native hl-native sh "$T/hl.sh" "$T/hl-nat"
ns=$st
for m in direct gofer; do
	sandboxed hl-rung --file-access="$m" -- sh "$T/hl.sh" "$T/hl"
	same "$m: a lower file's names stay one file across copy-up, rename and unlink" hl
done

# --- the guest tests on a gofer-backed /tmp -------------------------------------
mkdir -p "$T/gtmp"
platforms=$("$RUNG" help platforms | awk '$2 == "usable" { print $1 }')
for m in direct gofer; do
	fails=
	for g in fs_hardlink fs_nofollow fs_unixbind; do
		env -i PATH=/usr/bin:/bin "$GUEST_BIN/$g-static" >"$T/g.native" 2>&1
		gn=$?
		# The program goes in the bind-mounted directory: the build may be
		# under /tmp itself, which the mount hides.
		cp "$GUEST_BIN/$g-static" "$T/gtmp/$g"
		for p in $platforms; do
			env -i PATH=/usr/bin:/bin timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --platform="$p" \
				--file-access="$m" -v "$T/gtmp:/tmp" "/tmp/$g" \
				>"$T/g.rung" 2>&1 </dev/null
			gr=$?
			if [ "$gn" != "$gr" ] || ! cmp -s "$T/g.native" "$T/g.rung"; then
				fails="$fails $g/$p"
				diff "$T/g.native" "$T/g.rung" | sed "s|^|# $g/$p: |" | head -10
			fi
		done
	done
	check_eq "$m: fs_hardlink, fs_nofollow, fs_unixbind on a bind-mounted /tmp as natively" \
		"" "$fails"
done
rm -f "$T/gtmp/fs_hardlink" "$T/gtmp/fs_nofollow" "$T/gtmp/fs_unixbind"
check_eq "the guest tests leave the bound /tmp empty (but for their programs)" "" "$(ls -A "$T/gtmp")"

# --- Python's tempfile and a Unix socket in an OCI container ------------------
if [ ! -x "$PY" ]; then
	for _ in 1 2 3 4; do skip "no $PY"; done
else
	B=$T/bundle
	P=$T/proj
	mkdir -p "$B" "$P" "$T/state"
	cat >"$T/tf.py" <<'PYEOF'
import os, socket, stat, sys, tempfile
fd, path = tempfile.mkstemp()
os.write(fd, b"x")
os.close(fd)
print("mkstemp", os.path.dirname(path), os.path.getsize(path))
os.unlink(path)
with tempfile.NamedTemporaryFile() as f:
    f.write(b"named")
    f.flush()
    print("NamedTemporaryFile", os.path.getsize(f.name))
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "f"), "w").close()
    print("TemporaryDirectory", os.listdir(d))
s = socket.socket(socket.AF_UNIX)
s.bind("/proj/sock")
s.listen(1)
print("sock", stat.S_ISSOCK(os.stat("/proj/sock").st_mode))
sys.stdout.flush()
if os.fork() == 0:
    c = socket.socket(socket.AF_UNIX)
    c.connect("/proj/sock")
    c.sendall(b"ping")
    os._exit(0)
a, _ = s.accept()
print("server got", a.recv(4).decode())
os.wait()
# The host sees the node; let it try while the guest's socket listens.
open("/proj/ready", "w").close()
while not os.path.exists("/proj/tried"):
    pass
os.unlink("/proj/sock")
print("unlinked", os.path.exists("/proj/sock"))
PYEOF
	cp "$T/tf.py" "$P/tf.py"
	cat >"$B/config.json" <<EOF
{
	"ociVersion": "1.0.2",
	"process": {"user": {"uid": 0, "gid": 0}, "args": ["$PY", "/proj/tf.py"],
		"env": ["PATH=/usr/bin:/bin", "TMPDIR=/proj"], "cwd": "/"},
	"root": {"path": "/", "readonly": true},
	"hostname": "tempfile",
	"mounts": [
		{"destination": "/proc", "type": "proc", "source": "proc"},
		{"destination": "/proj", "type": "bind", "source": "$P", "options": ["rbind", "rw"]}
	],
	"linux": {
		"namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}],
		"cgroupsPath": "$E2E_CGROUP/tempfile"
	}
}
EOF
	rung --root "$T/state" run --bundle "$B" "tf-$$" >"$T/tf.out" 2>"$T/tf.err" </dev/null &
	tf=$!
	i=0
	while [ ! -e "$P/ready" ] && [ $i -lt 300 ] && kill -0 $tf 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	hs=$(env -i "$PY" -c 'import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("'"$P"'/sock"); print("connected")
except OSError as e:
    print(e.errno == 111 and "refused" or e)' 2>&1)
	: >"$P/tried"
	wait $tf
	st=$?
	check_eq "an OCI container's Python tempfile works in a bound directory (status)" 0 "$st"
	check_eq "... mkstemp, NamedTemporaryFile, TemporaryDirectory" \
		"mkstemp /proj 1|NamedTemporaryFile 5|TemporaryDirectory ['f']" \
		"$(head -3 "$T/tf.out" | tr '\n' '|' | sed 's/|$//')"
	check_eq "... a Unix socket bound there: S_IFSOCK, a guest connects, unlink removes it" \
		"sock True|server got ping|unlinked False" \
		"$(tail -n +4 "$T/tf.out" | tr '\n' '|' | sed 's/|$//')"
	[ "$st" = 0 ] || sed 's/^/# rung stderr: /' "$T/tf.err" | head -10
	check_eq "a host process cannot connect to the guest's socket (refused)" refused "$hs"
fi

check_eq "the host is unchanged: the source repository and the linked files" \
	"$before" "$(snapshot)"
check_clean "git, the linked files and the tempfile container"
