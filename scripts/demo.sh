#!/bin/sh
# Set everything up, then run a real program in a rung sandbox: Debian's own
# (dynamically linked) perl from the host's root, read through the gofer,
# with every system call served by rung's user-space kernel. What it writes
# stays in the sandbox's private overlay: the host's /tmp is untouched.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh >/dev/null
set -x
./rung do -- perl -MPOSIX -e '
	my @u = uname();
	print "hello from $u[0] $u[2] on $u[4], pid $$\n";
	open(F, ">/tmp/rung-demo") or die "$!";
	print F "written inside the sandbox\n";
	close F;
	open(F, "</tmp/rung-demo") or die "$!";
	print "read back: ", <F>;'
test ! -e /tmp/rung-demo && echo "the host's /tmp has no rung-demo: the write stayed in the sandbox"
