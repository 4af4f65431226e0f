#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; check_that expands later
# The command line: --version, help, usage errors (status 2), `rung do`'s
# statuses for programs it cannot run (127 missing, 126 not runnable), the
# fault report, --strace, --debug and --log output.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
plan 48
T=$E2E_TMP
HELLO=$GUEST_BIN/hello-static
NULLDEREF=$GUEST_BIN/segv_null-static
ENOSYS=$GUEST_BIN/enosys-static
BB=/bin/busybox

# run NAME ARGS...: run rung with ARGS; $T/NAME.out, $T/NAME.err, $st.
run() {
	name=$1
	shift
	rung "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}

# --- version and help ----------------------------------------------------------
run version --version
check_eq "--version exits 0" 0 "$st"
check "--version prints 'rung version X.Y'" contains "$T/version.out" '^rung version [0-9]+\.[0-9]+'
run help --help
check_that "--help exits 0 with the usage on stdout" \
	'[ "$st" = 0 ] && contains "$T/help.out" "^Usage: rung"'

run syscalls help syscalls
check_eq "help syscalls exits 0" 0 "$st"
status_of() { awk -v n="$1" '$2 == n { print $3 }' "$T/syscalls.out"; }
check_eq "help syscalls lists read as full" full "$(status_of read)"
check_eq "help syscalls lists getpid as full" full "$(status_of getpid)"
check_eq "help syscalls lists uselib as unsupported" unsupported "$(status_of uselib)"
check_eq "help syscalls lists reboot as unsupported" unsupported "$(status_of reboot)"
# The summary line ("N full, M partial, K unsupported") adds up to the rows.
rows=$(awk '$1 ~ /^[0-9]+$/ && $3 ~ /^(full|partial|unsupported)$/' "$T/syscalls.out" | wc -l)
sum=$(awk '/ full, .* partial, .* unsupported/ { print $1 + $3 + $5; exit }' "$T/syscalls.out")
check_eq "help syscalls' summary counts every row ($rows)" "$rows" "$sum"
check "help syscalls lists at least 300 system calls" [ "$rows" -ge 300 ]

run platforms help platforms
check_eq "help platforms exits 0" 0 "$st"
check "help platforms lists ptrace with its status" \
	contains "$T/platforms.out" '^ptrace +(usable|unusable|unavailable)'

# --- usage errors: status 2 and a message -----------------------------------------
run badcmd frobnicate
check_eq "an unknown command exits 2" 2 "$st"
check "... saying so" contains "$T/badcmd.err" 'unknown command.*frobnicate'
run badopt --frobnicate
check_eq "an unknown global option exits 2" 2 "$st"
check "... saying so" contains "$T/badopt.err" 'unknown option.*--frobnicate'
run baddoopt do --frobnicate -- "$HELLO"
check_eq "an unknown option of rung do exits 2" 2 "$st"
check "... saying so" contains "$T/baddoopt.err" 'unknown option.*--frobnicate'
run noargs
check_eq "no command at all exits 2" 2 "$st"
check "... with the usage on stderr" contains "$T/noargs.err" '^Usage: rung'
run badtopic help frobnicate
check_that "help of an unknown topic fails, naming it" \
	'[ "$st" != 0 ] && contains "$T/badtopic.err" frobnicate'
run noprog do
check_that "rung do without a program fails, saying so" \
	'[ "$st" != 0 ] && contains "$T/noprog.err" "no program"'
run badplat do --platform frobnicate -- "$HELLO"
check_that "an unknown platform fails, naming it" \
	'[ "$st" != 0 ] && contains "$T/badplat.err" "unknown platform.*frobnicate"'

# --- programs rung do cannot run -------------------------------------------------
run missing do -- "$T/no-such-program"
check_eq "a missing program exits 127" 127 "$st"
check "... with an error line naming it" \
	contains "$T/missing.err" "^rung: .*$T/no-such-program.*No such file"
run notonpath do -- rung-no-such-command
check_eq "a command not on \$PATH exits 127" 127 "$st"

cp "$HELLO" "$T/noexec"
chmod 644 "$T/noexec"
run noexec do -- "$T/noexec"
check_eq "a program without execute permission exits 126" 126 "$st"
check "... with an error line" contains "$T/noexec.err" "^rung: .*$T/noexec"
printf 'this is not a program\n' >"$T/garbage"
chmod 755 "$T/garbage"
run garbage do -- "$T/garbage"
check_eq "an executable garbage file exits 126" 126 "$st"
check "... with an error line" contains "$T/garbage.err" "^rung: .*$T/garbage"
run directory do -- "$T"
check_eq "a directory exits 126" 126 "$st"
head -c 200 "$HELLO" >"$T/truncated"
chmod 755 "$T/truncated"
run truncated do -- "$T/truncated"
check_eq "a truncated ELF file exits 126" 126 "$st"
cp "$HELLO" "$T/aarch64"
printf '\267\000' | dd of="$T/aarch64" bs=1 seek=18 conv=notrunc 2>/dev/null
run arch do -- "$T/aarch64"
check_that "an aarch64 ELF file exits 126, naming the architecture" \
	'[ "$st" = 126 ] && contains "$T/arch.err" architecture'
# A dynamic program runs from the root file system (the host's /, by
# default); without one (--host-exec) it needs a static build.
dyn=/bin/false
if file -L "$dyn" 2>/dev/null | grep -q 'dynamically linked'; then
	run dynamic do -- "$dyn"
	check_eq "a dynamic program runs from the default root file system" 1 "$st"
	run dynamic_host do --host-exec -- "$dyn"
	check_eq "with --host-exec, a dynamic program exits 126" 126 "$st"
	check "... with an error saying a static build is needed" \
		contains "$T/dynamic_host.err" 'static'
else
	skip "$dyn is not dynamically linked"
	skip "$dyn is not dynamically linked"
	skip "$dyn is not dynamically linked"
fi

# --- what rung do reports ------------------------------------------------------
run hello do -- "$HELLO" x
check_eq "the guest's exit status is rung do's (7)" 7 "$st"
check_eq "the guest's output is passed through" "hello, world argc=2 argv[1]=x" \
	"$(tr '\n' ' ' <"$T/hello.out" | sed 's/ $//')"
run nullderef do -- "$NULLDEREF"
check_eq "a NULL dereference exits 139 (128 + SIGSEGV)" 139 "$st"
check "... with a fault report naming SIGSEGV, address 0x0 and the instruction" \
	contains "$T/nullderef.err" 'SIGSEGV.* 0x0[^0-9a-fx].* at 0x[0-9a-f]+: [a-z]+ '
diag "$(cat "$T/nullderef.err")"

if [ -x "$BB" ]; then
	run strace do --strace -- "$BB" echo hello
	check_eq "--strace keeps the guest's stdout clean" hello "$(cat "$T/strace.out")"
	check "--strace logs the write of hello with its result" \
		contains "$T/strace.err" 'write\(1, "hello\\n", 6\) = 6'
	check "--strace logs exit_group(0)" contains "$T/strace.err" 'exit_group\(0\)'
else
	skip "no $BB"
	skip "no $BB"
	skip "no $BB"
fi

# --debug: one "unsupported syscall" event per number per sandbox (the
# enosys guest makes system call 1000 twice).
run debug do --debug -- "$ENOSYS"
check_eq "--debug logs system call 1000 as unsupported exactly once" 1 \
	"$(grep -c 'unsupported syscall 1000 ' "$T/debug.err")"
check "--debug logs uselib as unsupported" contains "$T/debug.err" 'unsupported syscall 134 \(uselib\)'
run log --log "$T/log.json" --log-format json do --debug -- "$ENOSYS"
check_that "--log-format json writes JSON lines with a msg to the --log file" \
	'[ -s "$T/log.json" ] && ! grep -qv "^{.*\"msg\":.*}\$" "$T/log.json"'
run badlogfmt --log-format frobnicate do -- "$HELLO"
check_eq "an unknown log format exits 2" 2 "$st"

check_clean "the CLI tests"
