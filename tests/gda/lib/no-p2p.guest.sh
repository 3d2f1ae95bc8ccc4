#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# gda/no-p2p-path, in a guest of its own (tools/sfab-vm --accel --pcie
# root): the HCA and the accelerator on root ports of their own.  The
# peer-to-peer attachments fail with EOPNOTSUPP (lib/gda.c no-p2p-path)
# and each driver's log says why.
set -u
build=$(dirname "$SFAB_MODDIR")
insmod "$SFAB_MODDIR/sfab.ko" || exit 1
insmod "$SFAB_MODDIR/sfab_accel.ko" || exit 1
for ((i = 0; i < 100; i++)); do
	[ -e /sys/class/infiniband/sfab_0 ] && [ -c /dev/sfab-accel0 ] && break
	sleep 0.1
done
rc=0
"$build/gda/gda" no-p2p-path || rc=1
dmesg | grep -E 'sfab|accel' | grep -iE 'refus|p2p|peer' | tail -n 6
dmesg | grep -q 'doorbell dma-buf.*refused' ||
	{ echo "no-p2p-path: sfab logged no refusal of the doorbell dma-buf"; rc=1; }
bad=$(dmesg | "$SFAB_TOP/tools/sfab-kreport" -)
[ -z "$bad" ] || { echo "no-p2p-path: kernel log: $bad"; rc=1; }
exit $rc
