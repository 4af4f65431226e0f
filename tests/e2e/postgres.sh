#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; check_that expands later
# PostgreSQL in the sandbox, as natively: initdb, pg_ctl start (a Unix
# socket only: no TCP), psql, pgbench -i and a short pgbench run, pg_ctl
# stop. PostgreSQL needs System V shared memory (its interlock segment):
# ipcs in the sandbox shows it while the server runs. The native run is in
# IPC and network namespaces of its own, never the host's. Skipped where
# Debian's postgresql (15) is not installed: install-deps.sh leaves it
# out, as its package starts a server of the host's own.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
netns_own "$@"
T=$E2E_TMP
plan 9
PG=
for d in /usr/lib/postgresql/*/bin; do
	[ -x "$d/initdb" ] && PG=$d
done
[ -n "$PG" ] || skip_all "no PostgreSQL (apt-get install postgresql)"
id postgres >/dev/null 2>&1 || skip_all "no postgres user"
[ "$(id -u)" = 0 ] || skip_all "needs root (to run as the postgres user)"

# The workload: DIR is where its data directory and socket go. Prints the
# answers that must be the same natively and in rung, then the status of
# each step (all 0).
cat >"$T/pg.sh" <<'EOF2'
PG=$1 D=$2
as_pg() { su postgres -s /bin/sh -c "$*"; }
mkdir -p "$D" && chown postgres "$D"
as_pg "$PG/initdb -D $D/data -A trust -U postgres >$D/initdb.log 2>&1"
echo "initdb $?"
as_pg "$PG/pg_ctl -D $D/data -o \"-k $D -c listen_addresses=''\" -l $D/server.log -w start >/dev/null"
echo "start $?"
ipcs -m | awk '$3 == "postgres" { n++ } END { print "shm segments of postgres:", n + 0 }'
as_pg "$PG/psql -h $D -At -c 'select 1 + 1' postgres"
as_pg "$PG/pgbench -h $D -i -s 1 postgres >$D/init.log 2>&1"
echo "pgbench -i $?"
as_pg "$PG/psql -h $D -At -c 'select count(*) from pgbench_accounts' postgres"
as_pg "$PG/pgbench -h $D -c 2 -t 100 postgres" 2>&1 |
	awk '/actually processed/ || /failed transactions/ { sub(/ \(.*/, ""); print }'
as_pg "$PG/pg_ctl -D $D/data -m fast -w stop >/dev/null"
echo "stop $?"
EOF2

# (the postgres user must reach the native run's directory)
chmod 711 "$T"
unshare --ipc --net sh "$T/pg.sh" "$PG" "$T/native" >"$T/native.out" 2>&1
# A native server whose stop failed goes now (the sandbox's ends with it).
for p in $(pgrep -f -- "-D $T/native/data"); do kill -9 "$p"; done
rung do -- /bin/sh "$T/pg.sh" "$PG" /tmp/pg >"$T/rung.out" 2>"$T/rung.err"
st=$?
diag "natively: $(tr '\n' ';' <"$T/native.out")"
diag "in rung:  $(tr '\n' ';' <"$T/rung.out")"
check_eq "the sandbox ends with status 0" 0 "$st"
check_that "initdb works" 'grep -qx "initdb 0" "$T/rung.out"'
check_that "pg_ctl start works" 'grep -qx "start 0" "$T/rung.out"'
check_that "the server holds a System V shared memory segment (ipcs)" \
	'grep -qx "shm segments of postgres: 1" "$T/rung.out"'
check_that "psql answers" 'grep -qx 2 "$T/rung.out"'
check_that "pgbench -i fills 100000 accounts" \
	'grep -qx "pgbench -i 0" "$T/rung.out" && grep -qx 100000 "$T/rung.out"'
check_that "pgbench runs its 200 transactions, none failed" \
	'grep -qx "number of transactions actually processed: 200/200" "$T/rung.out" && grep -qx "number of failed transactions: 0" "$T/rung.out"'
check_eq "everything prints as natively (stop included)" "$(cat "$T/native.out")" "$(cat "$T/rung.out")"
check_clean "PostgreSQL"
