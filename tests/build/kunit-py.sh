#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# build/kunit-py: the driver's KUnit suites the way kernel CI runs them,
# with the command Documentation/sfab/testing.rst gives, run exactly as it
# is written there (the block between ".. begin kunit-py" and ".. end
# kunit-py"): kunit.py in a linux-source-6.12 tree with the driver dropped
# in (tools/setup/lib.sh sfab_kunit_tree), x86_64 under the project's QEMU, an sfab-hca attached and
# the firmware image built into the kernel.  kunit.py must exit 0, and
# its raw log (.kunit/test.log) must hold every case of every suite of the
# sources, the live ones included (sfab_0 is there), none failed and none
# skipped (tests/lib/ktap.py).  `make check` builds that kernel before the
# tests (tools/setup/build-kunit.sh), so kunit.py's build here only checks
# that nothing changed.
set -u
. "$(dirname "$0")/common.bash"

sfab_kdir
ksrc=$(sfab_kunit_tree "$KDIR") || sfab_fail "no kunit.py tree beside $KDIR"
make -s -C "$SFAB_TOP" qemu firmware || sfab_fail "make qemu firmware failed"
cmd=$(sfab_kunit_command)
echo "the documented command:"
printf '%s\n' "$cmd" | sed 's/^/  /'

sfab_drop_in "$ksrc" keep || sfab_fail "could not drop the driver into $ksrc"
log=$SFAB_BUILD/tests/build/kunit-py.log
mkdir -p "$(dirname "$log")"
rm -f "$ksrc/.kunit/test.log"
rc=0
(cd "$ksrc" && SFAB=$SFAB_TOP timeout 1500 bash -c "$cmd") > "$log" 2>&1 || rc=$?
grep -E 'Testing complete|Elapsed time' "$log" | sed 's/^/  /'
if [ "$rc" != 0 ]; then
	tail -n 40 "$log"
	sfab_fail "kunit.py exited with $rc (full log $log)"
fi
[ -f "$ksrc/.kunit/test.log" ] || sfab_fail "kunit.py left no $ksrc/.kunit/test.log"
/usr/bin/python3 "$SFAB_TOP/tests/lib/ktap.py" --all \
	"$SFAB_TOP/$SFAB_DRV/tests" "$ksrc/.kunit/test.log" ||
	sfab_fail "the KUnit results are incomplete, failed or skipped (raw log $ksrc/.kunit/test.log)"
if ! bad=$("$SFAB_TOP/tools/sfab-kreport" "$ksrc/.kunit/test.log"); then
	printf '%s\n' "$bad"
	sfab_fail "kernel reports in the kunit.py kernel's log"
fi
exit 0
