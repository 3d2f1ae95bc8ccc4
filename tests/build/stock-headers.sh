#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# build/stock-headers: the driver and the sfab-accel driver build out of
# tree, without a warning, against Debian's stock linux-headers-6.12 (a
# kernel without P2PDMA and without KUnit), the newest +deb12-amd64 one
# installed.
set -u
. "$(dirname "$0")/common.bash"

hdr=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$hdr" ] ||
	sfab_fail "no /usr/src/linux-headers-6.12.*+deb12-amd64 (tools/setup/host-deps.sh installs it)"
[ -f "$hdr/Makefile" ] || sfab_fail "$hdr has no Makefile"

sfab_mirror build/stock-headers
rc=0
sfab_make "$LOG" -C "$hdr" M="$MIRROR" modules || rc=$?
sfab_check_build "$rc" "$LOG" "build against $(basename "$hdr")"
sfab_expect_modules "$MIRROR" "$hdr/.config"

rc=0
sfab_make "$ACCEL_LOG" -C "$hdr" M="$ACCEL_MIRROR" modules || rc=$?
sfab_check_build "$rc" "$ACCEL_LOG" "sfab-accel build against $(basename "$hdr")"
sfab_expect_accel "$ACCEL_MIRROR"
