#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands later (and uses what looks unused)
# Mounts of rung do (-v HOST:GUEST[:ro], --tmpfs PATH[:OPTS], --read-only),
# on a small rootfs of its own (so that nothing outside the bind mounts'
# sources is reachable from the guest):
# - a bind-mounted directory, read-write (the host sees the guest's writes)
#   and read-only (EROFS, the host unchanged); a bind-mounted single file,
#   on a path the rootfs lacks and over a file it has;
# - the live host view: a change the host makes while the guest runs (new
#   contents of a bound file, a new file in a bound directory) is seen;
# - no way out of a bind mount's source: symlinks in it (absolute, relative,
#   to a directory) resolve in the guest's tree, "..", and a symlink the
#   guest plants and writes through, never reach the host file beside it;
# - tmpfs size= (short writes, then ENOSPC; df shows the limit), mode=;
# - --read-only: the root refuses writes, bind mounts and tmpfs still take them;
# - bad arguments are refused before anything runs.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
BB=/bin/busybox
T=$E2E_TMP
plan 24

if [ ! -x "$BB" ] || ! "$BB" --list | grep -qx dd; then
	for _ in $(seq 24); do skip "no static $BB"; done
	exit 0
fi

# The rootfs: busybox and its links, an /etc with one file.
R=$T/root
mkdir -p "$R/bin" "$R/etc" "$R/tmp"
cp "$BB" "$R/bin/busybox"
for a in sh cat chmod grep ls echo dd df stat ln readlink rm sleep touch test [; do
	ln -s busybox "$R/bin/$a"
done
echo rootfs-hosts >"$R/etc/hosts"
# Host files the guest may see: a directory and a file to bind; and a
# secret beside them that it must never reach.
S=$T/src
mkdir -p "$S/sub" "$T/outside"
echo data >"$S/f"
echo host-file >"$T/single"
echo secret >"$T/secret"
echo secret >"$T/outside/secret"
ln -s "$T/secret" "$S/abs"
ln -s ../secret "$S/rel"
ln -s ../../../../../../../../secret "$S/deep"
ln -s "$T/outside" "$S/dirlink"
ln -s .. "$S/up"

# sbx ARGS... -- SCRIPT: busybox sh -c SCRIPT in a sandbox on $R with ARGS;
# output in $T/out, errors in $T/err, status in $st.
sbx() {
	args=
	while [ "$1" != -- ]; do
		args="$args $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # $args are words
	rung do --rootfs "$R" $args -- /bin/sh -c "$1" >"$T/out" 2>"$T/err"
	st=$?
}

# --- bind mounts of directories and files -----------------------------------------
sbx -v "$S:/mnt/d" -- 'cat /mnt/d/f; echo guest >/mnt/d/new; ls /mnt/d/sub && echo listed'
check_that "a bound directory reads the host's files" '[ $st = 0 ] && contains "$T/out" "^data$" && contains "$T/out" "^listed$"'
check_that "the guest's write lands in the host directory" '[ "$(cat "$S/new")" = guest ]'
rm -f "$S/new"

sbx -v "$S:/mnt/d:ro" -- 'cat /mnt/d/f; echo x >/mnt/d/new || echo refused; touch /mnt/d/f || echo refused'
check_that "a read-only bound directory reads" 'contains "$T/out" "^data$"'
check_that "and refuses writes with EROFS" '[ "$(grep -c "^refused$" "$T/out")" = 2 ] && contains "$T/err" "Read-only file system"'
check_that "the host directory is unchanged" '[ ! -e "$S/new" ] && [ "$(cat "$S/f")" = data ]'

sbx -v "$T/single:/etc/single" -v "$T/single:/etc/hosts" -- 'cat /etc/single /etc/hosts; stat -c %F /etc/single'
check_that "a single-file bind on a new path and over a rootfs file" '[ $st = 0 ] && [ "$(cat "$T/out")" = "host-file
host-file
regular file" ]'
sbx -v "$T/single:/etc/hosts" -- 'echo guest-line >>/etc/hosts'
check_that "a write to a bound file reaches the host file" '[ "$(cat "$T/single")" = "host-file
guest-line" ]'
echo host-file >"$T/single"
sbx -v "$T/single:/etc/hosts:ro" -- 'echo x >>/etc/hosts'
check_that "a read-only bound file refuses writes" '[ $st != 0 ] && contains "$T/err" "Read-only file system" && [ "$(cat "$T/single")" = host-file ]'

# --- the live view ---------------------------------------------------------------------
# The guest reads, signals "ready", waits for the host's "go", reads again.
sbx -v "$S:/mnt/d" -v "$T/single:/etc/hosts" -- '
	cat /etc/hosts; ls /mnt/d; stat -c %s /mnt/d/f; echo >/mnt/d/ready
	i=0; while [ ! -e /mnt/d/go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
	cat /etc/hosts; ls /mnt/d; cat /mnt/d/f; stat -c %s /mnt/d/f' &
pid=$!
i=0
while [ ! -e "$S/ready" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
echo changed-by-host >"$T/single"
echo more >>"$S/f"
echo n >"$S/hostnew"
touch "$S/go"
wait $pid
st=$?
check_that "the guest sees the host rewrite a bound file" '[ $st = 0 ] && [ "$(grep -c . "$T/out")" -gt 8 ] && [ "$(sed -n 1p "$T/out")" = host-file ] && contains "$T/out" "^changed-by-host$"'
check_that "and a new file and new contents in a bound directory" 'contains "$T/out" "^hostnew$" && contains "$T/out" "^more$" && [ "$(tail -n 1 "$T/out")" = 10 ]'
rm -f "$S/ready" "$S/go" "$S/hostnew"
echo data >"$S/f"
echo host-file >"$T/single"

# --- no way out of a bind mount's source ---------------------------------------------------
sbx -v "$S:/mnt/d" -- '
	for l in abs rel deep; do cat /mnt/d/$l || echo "no $l"; done
	ls /mnt/d/dirlink/ || echo "no dirlink"
	ls /mnt/d/up/; ls /mnt/d/..; cat /mnt/d/../secret || echo "no dotdot"'
check_that "symlinks in a bound directory never reach the host beside it" '! contains "$T/out" "^secret$" && contains "$T/out" "^no abs$" && contains "$T/out" "^no rel$" && contains "$T/out" "^no deep$" && contains "$T/out" "^no dirlink$" && contains "$T/out" "^no dotdot$"'
check_that '".." of a bind mount is the guest directory above it' '[ "$(sed -n "/^no dirlink$/,\$p" "$T/out" | grep -c "^d$")" = 2 ] && ! contains "$T/out" "^outside$"'
sbx -v "$S:/mnt/d" -- "ln -s '$T/secret' /mnt/d/planted && echo pwned >/mnt/d/planted; cat /mnt/d/planted"
check_that "a symlink the guest plants resolves in the guest's tree" '[ "$(cat "$T/secret")" = secret ] && ! contains "$T/out" "^secret$" && [ "$(readlink "$S/planted")" = "$T/secret" ]'
rm -f "$S/planted"

# --- tmpfs ----------------------------------------------------------------------------------
sbx --tmpfs /scratch:size=64k,mode=0700 -- 'dd if=/dev/zero of=/scratch/big bs=1k count=100; stat -c "%s %a" /scratch/big /scratch; df -k /scratch | tail -n 1; rm /scratch/big; dd if=/dev/zero of=/scratch/again bs=1k count=60 && echo refilled'
check_that "a tmpfs with size=64k takes 64 KiB, then says ENOSPC" 'contains "$T/err" "No space left on device" && contains "$T/out" "^65536 644$"'
check_that "its mode is mode=, df shows the limit, freed space is usable again" 'contains "$T/out" "^[0-9]+ 700$" && contains "$T/out" "^tmpfs +64 +64 +0 " && contains "$T/out" "^refilled$"'
sbx --tmpfs /scratch --tmpfs /run2:exec -- 'for d in scratch run2; do cat /bin/busybox >/$d/busybox; chmod 755 /$d/busybox; /$d/busybox true && echo ran $d; done; grep " /scratch " /proc/mounts'
check_that "a --tmpfs is noexec,nosuid,nodev by default (exec undoes noexec)" '! contains "$T/out" "^ran scratch$" && contains "$T/out" "^ran run2$" && contains "$T/out" "/scratch tmpfs rw,nosuid,nodev,noexec "'

# --- a read-only root ------------------------------------------------------------------------
sbx --read-only -v "$S:/mnt/d" --tmpfs /scratch -- 'touch /x || echo refused; echo y >/etc/hosts || echo refused; echo ok >/scratch/f && cat /scratch/f; echo ok >/mnt/d/w && echo bound'
check_that "--read-only: the root refuses writes with EROFS" '[ "$(grep -c "^refused$" "$T/out")" = 2 ] && contains "$T/err" "Read-only file system"'
check_that "--read-only: tmpfs and bind mounts still take writes" 'contains "$T/out" "^ok$" && contains "$T/out" "^bound$" && [ "$(cat "$S/w")" = ok ]'
check_that "--read-only leaves the rootfs as it was (no mountpoint made there)" '[ ! -e "$R/mnt" ] && [ ! -e "$R/scratch" ] && [ ! -e "$R/x" ]'
rm -f "$S/w"

# --- bad arguments ----------------------------------------------------------------------------
sbx -v "$T/no-such-dir:/x" -- 'echo ran'
check_that "-v with a missing host path is refused" '[ $st != 0 ] && ! contains "$T/out" ran && contains "$T/err" "no-such-dir"'
sbx -v "$S" -- 'echo ran'
check_that "-v without a guest path is refused" '[ $st != 0 ] && ! contains "$T/out" ran && contains "$T/err" "HOST:GUEST"'
sbx --tmpfs /x:frobnicate -- 'echo ran'
check_that "an unknown tmpfs option is refused, naming it" '[ $st != 0 ] && ! contains "$T/out" ran && contains "$T/err" "option .frobnicate. is not supported"'
sbx --tmpfs /x:size=lots -- 'echo ran'
check_that "a bad size= is refused" '[ $st != 0 ] && ! contains "$T/out" ran && contains "$T/err" "size=lots"'
check_clean "the mount tests"
