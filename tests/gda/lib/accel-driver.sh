#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# gda/accel-driver: the accelerator's driver (drivers/misc/sfab_accel)
# does what its char device promises, on the real device model: the CLI's
# selftest (ALLOC, mmap, every command kind, EXPORT/IMPORT, the EPERM
# address rule, EINVAL commands, a POLL timeout the ring recovers from,
# FREE) and, on the last node, unbind-check (the driver removed under an
# open file with a mapping: ENODEV, SIGBUS, bind again).
set -eu
tool=$(dirname "$SFAB_MODDIR")/tools/sfab-accel
"$tool" selftest
if [ "$SFAB_NODE" = "${SFAB_NODES##* }" ]; then
	bdf=$(basename "$(readlink -f /sys/bus/pci/drivers/sfab_accel/0000:*)")
	"$tool" unbind-check "$bdf"
	[ -c /dev/sfab-accel0 ] || { echo "no /dev/sfab-accel0 after the bind"; exit 1; }
fi
"$tool" info
