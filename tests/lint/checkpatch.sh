#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lint/checkpatch: the project kernel's checkpatch.pl --strict finds no
# error, warning or check in any C source or header of the driver,
# KUnit suites included, of the sfab-accel driver and its UAPI header.
set -u
. "$(dirname "$0")/../build/common.bash"

sfab_kdir
sfab_ksrc
cd "$SFAB_TOP" || exit 1
mapfile -t files < <(find "$SFAB_DRV" "$SFAB_ACCEL_DRV" -name '*.[ch]' | LC_ALL=C sort)
[ -n "$(find "$SFAB_ACCEL_DRV" -name '*.c')" ] || sfab_fail "no sources under $SFAB_ACCEL_DRV"
files+=(include/uapi/misc/sfab_accel.h)
[ ${#files[@]} -gt 0 ] || sfab_fail "no sources under $SFAB_DRV"

rc=0
out=$(perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree --no-summary --quiet \
	--show-types --color=never -f "${files[@]}" 2>&1) || rc=$?
n=$(printf '%s\n' "$out" | grep -cE '^(ERROR|WARNING|CHECK):' || true)
if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
	printf '%s\n' "$out" | head -n 120
	sfab_fail "checkpatch --strict: $n findings in ${#files[@]} files (exit $rc)"
fi
echo "checkpatch --strict: ${#files[@]} files clean: ${files[*]}"
