#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# PID 1 of an sfab test guest (virtme style): the root file system is the
# host's / over read-only 9p; this script gives the guest its own writable
# /tmp, /run and /var pieces, mounts the writable share "sfabout" at the
# path tools/sfab-vm names, runs the requested script and powers off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8 TERM=${TERM:-linux}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }

# The host's root, without the mounts below, stays reachable under
# /dev/.host so that host paths the guest needs (sfab.keep: the checkout,
# the caches) stay visible when they lie under a directory that gets a
# tmpfs of its own here (a checkout in /tmp, say).
mkdir -p /dev/.host
mount --bind / /dev/.host
tmpdirs="/tmp /run /var/tmp /var/log /var/cache /var/lib/opensm"
for d in $tmpdirs; do
	[ -d "$d" ] && mount -t tmpfs tmpfs "$d"
done
IFS=: read -r -a keep <<< "$(arg sfab.keep)"
for p in "${keep[@]}"; do
	for d in $tmpdirs; do
		case "$p/" in
		"$d"/*)
			mkdir -p "$p" && mount --bind "/dev/.host$p" "$p" ||
				echo "sfab-guest: cannot keep $p visible"
			;;
		esac
	done
done
ip link set lo up 2>/dev/null

out=$(arg sfab.out)
script=$(arg sfab.script)
mkdir -p "$out" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 sfabout "$out" ||
	echo "sfab-guest: cannot mount the result share at $out"
[ -f "$out/env.sh" ] && . "$out/env.sh"
hostname "${SFAB_HOSTNAME:-sfab-guest}"

rc=0
if [ -n "$script" ]; then
	cd /tmp && bash "$script"
	rc=$?
	echo "sfab-guest: script exited with $rc"
else
	echo "sfab-guest: interactive shell; 'poweroff' or Ctrl-D ends the guest"
	poweroff() { echo o > /proc/sysrq-trigger; }
	export -f poweroff
	setsid -c bash -i
fi
# the whole kernel log, for the host to search for kernel reports
# (tools/sfab-kreport): the console shows only what loglevel lets through
dmesg > "$out/dmesg.log" 2>/dev/null
echo "$rc" > "$out/guest-rc" 2>/dev/null
sync
echo o > /proc/sysrq-trigger
# power-off takes the 9p root away: wait with builtins only, as PID 1 must
# not exit (that would panic)
while :; do
	read -r -t 5 _ || true
done
