# shellcheck shell=sh
# Shared by the VM-level tests (sourced after lib.sh; $N is the plan): the
# skips when QEMU, busybox or a guest kernel is missing, a busybox rootfs,
# timings, and the check that no QEMU (or virtiofsd) of the test is left.
# Without KVM they run under TCG (emulation allowed), where a boot takes
# seconds.
export RUNG_ALLOW_EMULATION=1
# shellcheck disable=SC2034 # lib.sh's rung() uses it
E2E_TIMEOUT=180
BB=/bin/busybox

# vm_require: QEMU, a static busybox, and the guest's kernel and initramfs
# (built now if need be; rung setup-vm's report is in $E2E_TMP/setup).
vm_require() {
	command -v qemu-system-x86_64 >/dev/null ||
		skip_all "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
	[ -x "$BB" ] || skip_all "no $BB (apt-get install busybox-static)"
	rung setup-vm >"$E2E_TMP/setup" 2>&1 ||
		skip_all "no guest kernel or initramfs: $(tail -n 1 "$E2E_TMP/setup")"
}

# vm_rootfs DIR APPLET...: a rootfs of busybox alone, with these applets.
vm_rootfs() {
	d=$1
	shift
	mkdir -p "$d/bin" "$d/tmp" "$d/etc"
	cp "$BB" "$d/bin/busybox"
	for a in "$@"; do ln -s busybox "$d/bin/$a"; done
}

now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{ printf "%.2f", $1 - $2 }'; }

# vm_check_gone DESCRIPTION ERE: no process whose arguments match ERE is
# left (waiting up to 5 s for QEMU to end).
vm_check_gone() {
	i=0
	while ps -eo args= | grep -v grep | grep -Eq -- "$2" && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check_that "$1" "! ps -eo args= | grep -v grep | grep -Eq -- '$2'"
}
