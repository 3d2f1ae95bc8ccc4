#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The foundation demo, run inside an sfab-vm guest: load sfab.ko, let it
# download its firmware and register with ib_core, then describe the HCA
# with Debian's own rdma-core tools (using the project's libibverbs build
# and its sfab provider).
set -u
say() { printf '\n=== %s\n' "$*"; }

say "insmod sfab.ko"
insmod "$SFAB_MODDIR/sfab.ko" || exit 1
for _ in $(seq 50); do
	[ -e /sys/class/infiniband/sfab_0 ] && break
	sleep 0.1
done
dmesg | grep -i sfab

say "ibv_devices"
ibv_devices
say "ibv_devinfo -v -d sfab_0"
ibv_devinfo -v -d sfab_0 || exit 1
say "sysfs"
for f in fw_ver hca_type board_id hw_rev node_guid node_type; do
	printf '%-10s %s\n' "$f" "$(cat /sys/class/infiniband/sfab_0/$f)"
done
say "rdma link"
rdma link show
echo
echo "sfab demo: sfab_0 is up (no cable attached yet: the port is DOWN/Polling)."
