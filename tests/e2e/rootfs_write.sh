#!/bin/sh
# shellcheck disable=SC1010 # `do` is rung's subcommand
# Writes through the rootfs: with --overlay none the guest's changes reach
# the host directory, including stores through shared file mappings (the
# page cache written back on msync, munmap and close), the same bytes as a
# native run leaves, with either file-access mode; with the default memory
# overlay nothing on the host changes.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
plan 10
FM=$GUEST_BIN/filemap-static
D=$E2E_TMP/work
mkdir -p "$D"

# keep NAME [RUNG ARGS...]: run the filemap guest test in $D (natively when no
# rung arguments are given), leaving its file as $D/NAME; prints the status.
keep() {
	name=$1
	shift
	(cd "$D" && if [ $# -eq 0 ]; then
		FILEMAP_KEEP=$name "$FM"
	else
		FILEMAP_KEEP=$name timeout -k 5 "$E2E_TIMEOUT" "$RUNG" "$@" "$FM"
	fi) >"$E2E_TMP/$name.out" 2>&1
	echo $?
}

check_eq "the filemap test passes natively" 0 "$(keep native)"
for fa in direct gofer; do
	check_eq "it passes with --overlay none --file-access $fa" 0 \
		"$(keep "$fa" do --overlay none --file-access "$fa" --)"
	if cmp -s "$D/native" "$D/$fa"; then
		ok "the host file holds what the native run left ($fa)"
	else
		not_ok "the host file holds what the native run left ($fa)"
		diag "$(cat "$E2E_TMP/$fa.out" | grep -v '^ok' | head -20)"
	fi
done

before=$(ls -la --time-style=+ "$D" | md5sum)
check_eq "it passes with the memory overlay" 0 "$(keep overlaid do --)"
check_that "nothing it wrote reached the host" '[ ! -e "$D/overlaid" ]'
check_eq "the host directory is unchanged" "$before" "$(ls -la --time-style=+ "$D" | md5sum)"

# Files a dynamic program makes with --overlay none are on the host.
(cd "$D" && rung do --overlay none -- /bin/cp -a /etc/passwd copied) >/dev/null 2>&1
check "cp -a in the sandbox makes the host file" cmp -s /etc/passwd "$D/copied"
check_clean "the rootfs writes"
