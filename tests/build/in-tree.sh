#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# build/in-tree: the driver dropped into the cached linux-source-6.12 tree
# of tools/setup/build-kernel.sh, as a kernel tree would carry it:
# drivers/infiniband/hw/sfab/ with the top-level Kconfig as its Kconfig,
# include/sfab/ and include/uapi/rdma/sfab-abi.h and sfab_user_ioctl_cmds.h;
# built there with
# `make -C src O=obj drivers/infiniband/hw/sfab/`, whose config has
# CONFIG_INFINIBAND_SFAB=m.  sfab.o and sfab_kunit.o must come out, with
# no warning.  The sfab-accel driver is dropped in as drivers/misc/sfab_accel/
# with include/uapi/misc/sfab_accel.h and its drivers/misc/Makefile line
# (sfab_drop_in) and built there the same way; the guest kernel's config
# does not know CONFIG_SFAB_ACCEL (setting it in build-kernel.sh would
# rebuild the kernel), so the build sets CONFIG_SFAB_ACCEL=m on the
# command line.  sfab_accel.o must come out, with no warning.
set -u
. "$(dirname "$0")/common.bash"

sfab_kdir
sfab_ksrc
grep -qx 'CONFIG_INFINIBAND_SFAB=m' "$KDIR/.config" ||
	sfab_fail "$KDIR/.config does not have CONFIG_INFINIBAND_SFAB=m"
sfab_drop_in "$KSRC" || sfab_fail "could not drop the driver into $KSRC"

# every object is rebuilt, so every warning shows
rm -rf "${KDIR:?}/$SFAB_DRV"
log=$SFAB_BUILD/tests/build/in-tree.log
mkdir -p "$(dirname "$log")"
rc=0
sfab_make "$log" -C "$KSRC" O="$KDIR" "$SFAB_DRV/" || rc=$?
sfab_check_build "$rc" "$log" "in-tree build in $KSRC"
for o in sfab.o sfab_kunit.o; do
	[ -f "$KDIR/$SFAB_DRV/$o" ] || sfab_fail "the in-tree build made no $SFAB_DRV/$o"
done
echo "built: $KDIR/$SFAB_DRV/sfab.o sfab_kunit.o"

rm -rf "${KDIR:?}/$SFAB_ACCEL_DRV"
log=$SFAB_BUILD/tests/build/in-tree-accel.log
rc=0
sfab_make "$log" -C "$KSRC" O="$KDIR" CONFIG_SFAB_ACCEL=m "$SFAB_ACCEL_DRV/" || rc=$?
sfab_check_build "$rc" "$log" "sfab-accel in-tree build in $KSRC"
[ -f "$KDIR/$SFAB_ACCEL_DRV/sfab_accel.o" ] ||
	sfab_fail "the in-tree build made no $SFAB_ACCEL_DRV/sfab_accel.o"
echo "built: $KDIR/$SFAB_ACCEL_DRV/sfab_accel.o"
