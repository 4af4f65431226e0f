#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands (and uses) later
# Real programs from the host's root that make processes, threads, pipes
# and signals, in the sandbox: shell pipelines and background jobs, xargs,
# a tar+gzip round trip, python3 (threads, subprocess, multiprocessing, a
# socketpair), gcc, make -j2, git, perl with fork and signals, script,
# bash's start-up files, timeout.
# Where the output is deterministic it must be what the same command prints
# natively; files the programs write land in the sandbox's overlay, and the
# host must not see them. A program the host lacks is skipped; one that
# does not work yet is a TODO naming what it lacks.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
PY=/usr/bin/python3
plan 21

# native NAME ARGS... / sandboxed NAME ARGS...: run a program natively or in
# rung, in $T with a fixed environment; $T/NAME.out, $T/NAME.err, $st.
ENV="PATH=/usr/bin:/bin LANG=C HOME=$T"
native() {
	name=$1
	shift
	# shellcheck disable=SC2086 # $ENV is a list of assignments
	(cd "$T" && env -i $ENV "$@") >"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}
sandboxed() {
	name=$1
	shift
	# shellcheck disable=SC2086
	(cd "$T" && env -i $ENV timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do -- "$@") \
		>"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}
# why NAME: diagnostics of a sandboxed run that went wrong.
why() {
	diag "status $st; output: $(head -c 300 "$T/$1.out" | tr '\n' '|')"
	grep -v '^rung: info: unsupported syscall' "$T/$1.err" | sed 's/^/# stderr: /' | head -5
}
# same DESCRIPTION ARGS...: ARGS print the same and exit the same in rung
# as natively.
same() {
	d=$1
	shift
	native n "$@"
	ns=$st
	sandboxed r "$@"
	if [ "$ns" = "$st" ] && cmp -s "$T/n.out" "$T/r.out"; then
		ok "$d (status $st)"
	else
		not_ok "$d: status native $ns, rung $st"
		diff "$T/n.out" "$T/r.out" | sed 's/^/# /' | head -10
		sed 's/^/# rung stderr: /' "$T/r.err" | head -5
	fi
}
# have PROGRAM...: are they all on the host?
have() {
	for p in "$@"; do
		[ -x "/usr/bin/$p" ] || [ -x "/bin/$p" ] || return 1
	done
}

# --- the shell ----------------------------------------------------------------------
# The sandbox's /dev, /proc, /sys and /tmp are its own.
same "sh -c 'ls / | grep -v dev,proc,sys,tmp | wc -l'" \
	sh -c 'ls / | grep -vxE "dev|proc|sys|tmp" | wc -l'
same "sh -c 'sleep 0.2 & wait; echo done'" sh -c 'sleep 0.2 & wait; echo done'
same "yes | head -n 100000 | sort | uniq -c" sh -c 'yes | head -n 100000 | sort | uniq -c'
same "seq 1 100 | xargs -n 7 echo" sh -c 'seq 1 100 | xargs -n 7 echo'
same "a pipeline of 6 processes with a subshell and exit statuses" \
	sh -c 'seq 1 2000 | (grep 7; exit 3) | tr 7 x | sort -r | head -n 5; echo "${?}"'

# bash -c with stdin not a socket does not read ~/.bashrc (it does when it
# believes sshd or rshd started it: stdin a socket).
printf 'echo bashrc read\n' >"$T/.bashrc"
if have bash; then
	sandboxed bash bash -c 'echo hi'
	check_that "bash -c 'echo hi' with stdin /dev/null does not read ~/.bashrc (status $st)" \
		'[ "$st" = 0 ] && [ "$(cat "$T/bash.out")" = hi ]'
else
	skip "no bash"
fi
# timeout(1) kills the command when its timer (timer_create or alarm) fires.
same "timeout 1 sleep 3 ends sleep after a second: status 124" sh -c 'timeout 1 sleep 3; echo $?'

# --- tar and gzip ---------------------------------------------------------------------
mkdir -p "$T/src/sub/deep"
seq 1 20000 >"$T/src/numbers"
printf 'hello\n' >"$T/src/sub/hello"
head -c 65536 /bin/sh >"$T/src/sub/deep/bytes"
ln -s ../numbers "$T/src/sub/link"
(cd "$T/src" && find . | sort && find . -type f | sort | xargs md5sum) >"$T/tar.want"
sandboxed tar sh -c 'tar czf tree.tgz src && mkdir x && tar xzf tree.tgz -C x &&
	cd x/src && find . | sort && find . -type f | sort | xargs md5sum'
check_that "tar czf | tar xzf round trip: the same tree and checksums (status $st)" \
	'[ "$st" = 0 ] && cmp -s "$T/tar.want" "$T/tar.out"'
[ "$st" = 0 ] || why tar
check_that "... and the archive and its copy stayed in the sandbox" \
	'[ ! -e "$T/tree.tgz" ] && [ ! -e "$T/x" ]'

# --- python3 --------------------------------------------------------------------------
cat >"$T/procs.py" <<'EOF'
import multiprocessing, os, socket, subprocess, sys, threading

def square(x):
    return x * x

def threads():
    got = []
    lock = threading.Lock()
    def work(i):
        with lock:
            got.append(i)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("threads", sorted(got))

def subprocesses():
    r = subprocess.run(["sh", "-c", "echo out; echo err >&2; exit 3"], capture_output=True, text=True)
    print("subprocess", r.returncode, r.stdout.strip(), r.stderr.strip())

def pool():
    with multiprocessing.Pool(2) as p:
        print("pool", p.map(square, range(6)))

def socketpair():
    a, b = socket.socketpair()
    a.sendall(b"ping")
    print("socketpair", b.recv(4).decode())

if __name__ == "__main__":
    # A part that hangs ends with status 9 after 10 seconds.
    watchdog = threading.Timer(10, os._exit, (9,))
    watchdog.daemon = True
    watchdog.start()
    globals()[sys.argv[1]]()
    sys.stdout.flush()
    watchdog.cancel()
EOF
timeout=$E2E_TIMEOUT
python() {
	want=$1 d=$2
	shift 2
	E2E_TIMEOUT=30
	sandboxed py "$PY" "$T/procs.py" "$@"
	E2E_TIMEOUT=$timeout
	check_that "python3: $d (status $st)" '[ "$st" = 0 ] && [ "$(cat "$T/py.out")" = "$want" ]'
	[ "$st" = 0 ] || why py
}
if [ -x "$PY" ]; then
	python "threads [0, 1, 2, 3, 4, 5, 6, 7]" "8 threads with a lock" threads
	python "subprocess 3 out err" "subprocess.run with stdout and stderr captured (poll)" subprocesses
	python "pool [0, 1, 4, 9, 16, 25]" "multiprocessing.Pool(2).map" pool
	python "socketpair ping" "socket.socketpair" socketpair
else
	for _ in 1 2 3 4; do skip "no $PY"; done
fi

# --- building C -------------------------------------------------------------------------
if have gcc make; then
	printf '#include <stdio.h>\nint main(void) { puts("hello, world"); return 0; }\n' >"$T/hello.c"
	same "gcc hello.c -o hello && ./hello" sh -c 'gcc hello.c -o hello && ./hello'
	rm -f "$T/hello"
	mkdir -p "$T/proj"
	for i in 1 2 3 4; do
		printf 'int f%d(void) { return %d; }\n' "$i" "$((i * i))" >"$T/proj/f$i.c"
	done
	cat >"$T/proj/main.c" <<'EOF'
#include <stdio.h>
int f1(void), f2(void), f3(void), f4(void);
int main(void) { printf("%d\n", f1() + f2() + f3() + f4()); return 0; }
EOF
	printf 'OBJS = main.o f1.o f2.o f3.o f4.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n' >"$T/proj/Makefile"
	printf '%%.o: %%.c\n\t$(CC) -c -o $@ $<\n' >>"$T/proj/Makefile"
	sandboxed make sh -c 'make -s -j2 -C proj && ./proj/prog'
	check_that "make -j2 of 5 C files, then the program (status $st)" \
		'[ "$st" = 0 ] && [ "$(cat "$T/make.out")" = 30 ]'
	[ "$st" = 0 ] || why make
	check_that "... and the objects stayed in the sandbox" \
		'[ -z "$(find "$T/proj" -type f ! -name "*.c" ! -name Makefile)" ]'
else
	for _ in 1 2 3; do skip "no gcc or make"; done
fi

# --- git ---------------------------------------------------------------------------------
if have git; then
	mkdir -p "$T/repo"
	echo content >"$T/repo/file"
	sandboxed git sh -c 'cd repo && git -c init.defaultBranch=main init -q && git add file &&
		git -c user.name=Rung -c user.email=rung@example.org commit -q -m "first commit" &&
		git log --oneline && git status --porcelain && git cat-file -p HEAD:file'
	check_that "git init, add, commit in the overlay; git log --oneline shows the commit (status $st)" \
		'[ "$st" = 0 ] && grep -Eq "^[0-9a-f]{7,} first commit\$" "$T/git.out" && [ "$(sed -n 2p "$T/git.out")" = content ]'
	[ "$st" = 0 ] || why git
	check_that "... and the host's directory has no .git" '[ ! -e "$T/repo/.git" ]'
else
	skip "no git"
	skip "no git"
fi

# --- perl --------------------------------------------------------------------------------
if have perl; then
	same "perl: a USR1 handler, fork, waitpid, exit status" \
		perl -e '$SIG{USR1}=sub{print "got\n"}; kill USR1, $$; my $p=fork; if(!$p){exit 3} waitpid($p,0); print $?>>8, "\n"'
else
	skip "no perl"
fi

# --- a terminal ------------------------------------------------------------------------
if have script; then
	sandboxed script script -qc tty /dev/null
	check_that "script -c tty: the command runs on a pseudo-terminal (status $st)" \
		'[ "$st" = 0 ] && grep -Eq "^/dev/pts/[0-9]+" "$T/script.out"'
	[ "$st" = 0 ] || why script
else
	skip "no script (util-linux)"
fi

check_clean "the programs"
