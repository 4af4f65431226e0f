#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands (and uses) later
# Real network programs on the sandbox's own stack (--network sandbox),
# server and clients in one sandbox, each script run natively too (in a
# network namespace of the test's own) and the outputs compared: Python's
# http.server with curl and wget (a page, 100 kB, a 404, HEAD), busybox
# nc both ways, and redis's CONFIG SET bind sent by a connected client:
# redis closes its listener and binds the port again while that client's
# connection is open, which takes SO_REUSEADDR's rules as Linux has them.
# A program the host lacks is skipped.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
N=4
if ! netns_own "$@"; then
	plan $N
	skip_all "the native runs need a network namespace of the test's own: root, ip(8), nsenter(1)"
fi
plan $N
T=$E2E_TMP
PY=/usr/bin/python3
BB=$(command -v busybox)

# same DESCRIPTION SCRIPT: SCRIPT (a file in $T, given a directory of its
# own to work in) prints the same natively and in rung.
same() {
	d=$1 s=$2
	mkdir -p "$T/n" "$T/r"
	env -i PATH=/usr/bin:/bin LANG=C timeout -k 5 "$E2E_TIMEOUT" sh "$T/$s" "$T/n" \
		>"$T/$s.native" 2>"$T/$s.native.err" </dev/null
	ns=$?
	env -i PATH=/usr/bin:/bin LANG=C timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --network sandbox \
		-- sh "$T/$s" "$T/r" >"$T/$s.rung" 2>"$T/$s.rung.err" </dev/null
	st=$?
	if [ "$ns" = 0 ] && [ "$st" = 0 ] && cmp -s "$T/$s.native" "$T/$s.rung"; then
		ok "$d"
	else
		not_ok "$d: status native $ns, rung $st"
		diff "$T/$s.native" "$T/$s.rung" | sed 's/^/# /' | head -20
		sed 's/^/# rung stderr: /' "$T/$s.rung.err" | head -10
	fi
}

# wait_for CMD...: until CMD succeeds (5 s at most), as a server starts.
cat >"$T/lib.sh" <<'SH'
wait_for() {
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.05
	done
}
SH

cat >"$T/http.sh" <<SH
. $T/lib.sh
cd "\$1" || exit 1
echo hello > index.txt
seq 1 20000 > big.txt
$PY -m http.server 8123 --bind 127.0.0.1 >http.log 2>&1 &
pid=\$!
wait_for curl -s -o /dev/null http://127.0.0.1:8123/ || echo "no server"
curl -s http://127.0.0.1:8123/index.txt
curl -s http://127.0.0.1:8123/big.txt | md5sum
curl -s -o /dev/null -w '%{http_code}\n' http://127.0.0.1:8123/missing
curl -s -I http://127.0.0.1:8123/big.txt | grep -i '^content-length' | tr -d '\r'
wget -q -O - http://127.0.0.1:8123/index.txt
wget -q -O - http://localhost:8123/big.txt | tail -n 1
kill \$pid
wait \$pid
echo "server: \$?"
SH
if [ -x "$PY" ] && command -v curl >/dev/null && command -v wget >/dev/null; then
	same "python3 -m http.server with curl and wget" http.sh
else
	skip "no python3, curl or wget"
fi

cat >"$T/nc.sh" <<SH
. $T/lib.sh
cd "\$1" || exit 1
$BB nc -l -p 9123 >got1 &
pid=\$!
wait_for grep -q ':23A3 00000000:0000 0A' /proc/net/tcp
printf 'line one\nline two\n' | $BB nc 127.0.0.1 9123
wait \$pid
echo "listener: \$?"
cat got1
# The server's input stays open until the question has arrived: busybox
# nc -l quits at the end of its input (a fixed sleep lost the race on a
# loaded machine, natively).
{ echo answer; wait_for test -s got2; } | $BB nc -l -p 9124 >got2 &
pid=\$!
wait_for grep -q ':23A4 00000000:0000 0A' /proc/net/tcp
echo question | $BB nc -w 2 127.0.0.1 9124
wait \$pid
cat got2
SH
if [ -n "$BB" ]; then
	same "busybox nc: a client sends, a server answers" nc.sh
else
	skip "no busybox"
fi

cat >"$T/redis.sh" <<SH
. $T/lib.sh
cd "\$1" || exit 1
redis-server --port 6390 --bind 127.0.0.1 --daemonize no --save '' --appendonly no \
	--dir "\$1" >redis.log 2>&1 &
pid=\$!
wait_for redis-cli -p 6390 ping || echo "no server"
# One connection for all four commands: it stays open while redis rebinds.
printf 'SET k v\nCONFIG SET bind 0.0.0.0\nGET k\nCONFIG GET bind\n' | redis-cli -p 6390
redis-cli -p 6390 ping
redis-cli -h 127.0.0.1 -p 6390 shutdown nosave
wait \$pid
echo "server: \$?"
SH
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
	same "redis: CONFIG SET bind with a client connected" redis.sh
else
	skip "no redis-server or redis-cli (Debian's redis-server)"
fi

check_clean "the network programs"
