#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the kernel that kunit.py boots for the driver's KUnit suites, the
# way Documentation/sfab/testing.rst tells a user to run them: the driver
# dropped into a kernel tree of its own beside the cached linux-source-6.12
# tree of build-kernel.sh (sfab_kunit_tree: hard links), then the
# documented `kunit.py run ...` command with `build` in place of `run`
# (its --kunitconfig, the firmware image built in, the sfab QEMU on PATH).
# kunit.py keeps its build in <tree>/.kunit, so it is cached with the guest
# kernel and rebuilt incrementally.  tests/build/kunit-py.sh then runs the
# documented command itself.
# Prints the kernel tree (where to run kunit.py) on its last line.
set -eu
. "$(dirname "$0")/lib.sh"

kdir=$("$SFAB_TOP/tools/setup/build-kernel.sh" | tail -n 1)
ksrc=$(sfab_kunit_tree "$kdir")
[ -x "$ksrc/tools/testing/kunit/kunit.py" ] || {
	echo "sfab: no kunit.py in $ksrc" >&2
	exit 1
}
make -s -C "$SFAB_TOP" qemu firmware >&2

cmd=$(sfab_kunit_command)
case "$cmd" in
*"kunit.py run "*) ;;
*)
	echo "sfab: no kunit.py command in Documentation/sfab/testing.rst: '$cmd'" >&2
	exit 1
	;;
esac
sfab_drop_in "$ksrc" keep
export SFAB=$SFAB_TOP
(cd "$ksrc" && SFAB_RUN_OBJDIR=$ksrc/.kunit sfab_run "${SFAB_BUILD:-$SFAB_TOP/build}/kunit-build.log" "kunit.py build (driver KUnit kernel)" \
	bash -c "${cmd/kunit.py run /kunit.py build }")
echo "$ksrc"
