#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# build/w1: the driver and its KUnit module, and the sfab-accel driver,
# build out of tree against the project kernel with W=1 and print no
# warning at all.
set -u
. "$(dirname "$0")/common.bash"

sfab_kdir
sfab_mirror build/w1
rc=0
sfab_make "$LOG" -C "$KDIR" M="$MIRROR" W=1 modules || rc=$?
sfab_check_build "$rc" "$LOG" "W=1 build against $KDIR"
sfab_expect_modules "$MIRROR" "$KDIR/.config"

rc=0
sfab_make "$ACCEL_LOG" -C "$KDIR" M="$ACCEL_MIRROR" W=1 modules || rc=$?
sfab_check_build "$rc" "$ACCEL_LOG" "sfab-accel W=1 build against $KDIR"
sfab_expect_accel "$ACCEL_MIRROR"
