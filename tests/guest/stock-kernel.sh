#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# guest/stock-kernel: sfab.ko built against Debian's stock linux-headers-6.12
# (no P2PDMA, no KUnit) loads on Debian's own kernel of that version,
# registers sfab_0, reports the image's fw_ver through ibv_devinfo and
# unloads cleanly.  The guest boots /boot/vmlinuz-<ver> with the initramfs
# of tools/setup/build-stock-initramfs.sh and then runs
# tests/guest/lib/stock-kernel.sh.
set -u
. "$(dirname "$0")/../build/common.bash"

hdr=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$hdr" ] ||
	sfab_fail "no /usr/src/linux-headers-6.12.*+deb12-amd64 (tools/setup/host-deps.sh installs it)"
kver=${hdr#/usr/src/linux-headers-}
vmlinuz=/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] && [ -f "/lib/modules/$kver/modules.dep" ] ||
	sfab_fail "linux-image-$kver is not installed (tools/setup/host-deps.sh installs it)"

t0=$(date +%s)
make -s -C "$SFAB_TOP" guest-prereqs || sfab_fail "make guest-prereqs failed"
. "$SFAB_BUILD/guest.env"
if ! initrd=$("$SFAB_TOP/tools/setup/build-stock-initramfs.sh" "$kver" 2>&1); then
	printf '%s\n' "$initrd" | tail -n 20
	sfab_fail "tools/setup/build-stock-initramfs.sh failed"
fi
initrd=$(printf '%s\n' "$initrd" | tail -n 1)

# the driver, built as build/stock-headers builds it
sfab_mirror guest/stock-kernel
rc=0
sfab_make "$LOG" -C "$hdr" M="$MIRROR" modules || rc=$?
sfab_check_build "$rc" "$LOG" "build against $(basename "$hdr")"
t1=$(date +%s)

out=$(mktemp -d /tmp/sfab-stock.XXXXXX)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/stock"
cp "$MIRROR/sfab.ko" "$out/stock/"
echo "$kver" > "$out/stock/kver"
# the image's own version string (struct sfab_fw_header.fw_version)
dd if="$FWDIR/sfab/sfab-hca.fw" bs=1 skip=16 count=32 status=none |
	tr -d '\0' > "$out/stock/fwversion"

"$SFAB_TOP/tools/sfab-vm" --no-build --out "$out" --timeout 300 \
	--kernel "$vmlinuz" --initrd "$initrd" \
	--script "$SFAB_TOP/tests/guest/lib/stock-kernel.sh" > "$out/console.log" 2>&1
rc=$?
t2=$(date +%s)
echo "# build and set-up $((t1 - t0))s, guest $((t2 - t1))s, sfab-vm exit status $rc"
[ -f "$out/results" ] && cat "$out/results"
# kernel reports anywhere in the guest's log (tools/sfab-kreport)
# (a guest that wrote no dmesg.log did not finish: that fails too)
bad=$("$SFAB_TOP/tools/sfab-kreport" "$out/console.log" "$out/dmesg.log" 2>&1)
if [ $rc -ne 0 ] || [ -n "$bad" ]; then
	[ -n "$bad" ] && printf '%s\n' "$bad" | sed 's/^/# kernel report: /'
	echo "# guest console (last lines):"
	tail -n 60 "$out/console.log" | sed 's/^/# /'
	exit 1
fi
grep -qx 'ok guest/stock-kernel' "$out/results" 2>/dev/null || exit 1
exit 0
