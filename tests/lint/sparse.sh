#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lint/sparse: sparse (C=2: every file, built or not) finds nothing in the
# driver and its KUnit suites, nor in the sfab-accel driver, built against
# the project kernel.
set -u
. "$(dirname "$0")/../build/common.bash"

command -v sparse > /dev/null ||
	sfab_fail "sparse is not installed (tools/setup/host-deps.sh installs it)"

sfab_kdir
sfab_mirror lint/sparse
rc=0
sfab_make "$LOG" -C "$KDIR" M="$MIRROR" C=2 CHECK=sparse modules || rc=$?
n=$(grep -c '^ *CHECK ' "$LOG" || true)
want=$(find "$MIRROR" -name '*.c' ! -name '*.mod.c' | wc -l)
[ "$n" = "$want" ] || { tail -n 30 "$LOG"; sfab_fail "sparse checked $n of $want C files"; }
sfab_check_build "$rc" "$LOG" "sparse (C=2) with $(sparse --version 2>/dev/null)"

rc=0
sfab_make "$ACCEL_LOG" -C "$KDIR" M="$ACCEL_MIRROR" C=2 CHECK=sparse modules || rc=$?
n=$(grep -c '^ *CHECK ' "$ACCEL_LOG" || true)
want=$(find "$ACCEL_MIRROR" -name '*.c' ! -name '*.mod.c' | wc -l)
[ "$n" = "$want" ] || { tail -n 30 "$ACCEL_LOG"; sfab_fail "sparse checked $n of $want sfab-accel C files"; }
sfab_check_build "$rc" "$ACCEL_LOG" "sfab-accel sparse (C=2)"
