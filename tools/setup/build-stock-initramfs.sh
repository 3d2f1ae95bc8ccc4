#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A small initramfs that lets Debian's stock 6.12 kernel boot an sfab-vm
# guest: that kernel has 9p, 9pnet_virtio and netfs as modules, so the
# 9p root (the host's /, read-only) needs them loaded first.  Contents:
# Debian's busybox-static, those modules (decompressed, in dependency
# order from the kernel's modules.dep) and an /init that loads them,
# mounts the root the way the kernel command line of tools/sfab-vm says
# (root=, rootfstype=, rootflags=, ro) and switch_roots into its init=
# (tests/guest/lib/init.sh), so the rest of the guest is the same as on
# the project kernel.
#
#   tools/setup/build-stock-initramfs.sh [KVER]
#
# KVER defaults to the newest /usr/src/linux-headers-6.12.*+deb12-amd64,
# the kernel build/stock-headers builds against.  Cached under $SFAB_CACHE,
# keyed by the kernel package, busybox and this script; prints the cpio
# path on its last line.
set -eu
. "$(dirname "$0")/lib.sh"

kver=${1:-}
if [ -z "$kver" ]; then
	hdr=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
	[ -n "$hdr" ] || { echo "sfab: no /usr/src/linux-headers-6.12.*+deb12-amd64: run tools/setup/host-deps.sh" >&2; exit 1; }
	kver=${hdr#/usr/src/linux-headers-}
fi
mods=/lib/modules/$kver
bb=/bin/busybox
# the signed image or the unsigned one (tools/setup/host-deps.sh)
imgver=
for p in "linux-image-$kver" "linux-image-$kver-unsigned"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' &&
		imgver=$(dpkg-query -W -f='${Version}' "$p") && break
done
[ -n "$imgver" ] ||
	{ echo "sfab: linux-image-$kver is not installed: run tools/setup/host-deps.sh" >&2; exit 1; }
[ -f "$mods/modules.dep" ] || { echo "sfab: no $mods/modules.dep" >&2; exit 1; }
bbver=$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null) && [ -x "$bb" ] ||
	{ echo "sfab: busybox-static is not installed: run tools/setup/host-deps.sh" >&2; exit 1; }

key=$(sfab_key "$kver" "$imgver" "$bbver" "$0")
dir=$SFAB_CACHE/stock-initramfs-$key
cpio=$dir/initramfs.cpio
if [ -f "$dir/.done" ]; then
	echo "$cpio"
	exit 0
fi

sfab_stage "stock initramfs $kver ($key)"
rm -rf "$dir"
root=$dir/root
mkdir -p "$root"/{bin,dev,proc,sys,newroot,lib/modules}

# what the 9p root needs; built-in ones (modules.builtin) are skipped
want=(virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
	netfs 9pnet 9pnet_virtio 9p)
order=()
declare -A seen=()
depline() {	# depline NAME: "path: deps..." from modules.dep, "" if built in
	local f=$1 n
	for n in "$f" "${f//_/-}"; do
		grep -qE "/$n\.ko$" "$mods/modules.builtin" && return 0
		grep -E "/$n\.ko(\.xz|\.zst|\.gz)?:" "$mods/modules.dep" && return 0
	done
	echo "sfab: module $f is neither built into $kver nor in $mods/modules.dep" >&2
	return 1
}
add() {		# add RELPATH: queue a module after its dependencies
	local rel=$1 line deps i
	[ -z "${seen[$rel]:-}" ] || return 0
	seen[$rel]=1
	line=$(grep -E "^$rel:" "$mods/modules.dep")
	read -r -a deps <<< "${line#*:}"
	# modules.dep lists dependencies so that the last loads first
	for (( i = ${#deps[@]} - 1; i >= 0; i-- )); do
		add "${deps[$i]}"
	done
	order+=("$rel")
}
for m in "${want[@]}"; do
	line=$(depline "$m")
	[ -z "$line" ] || add "${line%%:*}"
done
: > "$root/lib/modules/load-order"
for rel in "${order[@]}"; do
	base=$(basename "$rel")
	name=${base%%.ko*}
	case "$base" in
	*.ko.xz) xz -dc "$mods/$rel" > "$root/lib/modules/$name.ko" ;;
	*.ko.zst) zstd -qdc "$mods/$rel" > "$root/lib/modules/$name.ko" ;;
	*.ko.gz) gzip -dc "$mods/$rel" > "$root/lib/modules/$name.ko" ;;
	*.ko) cp "$mods/$rel" "$root/lib/modules/$name.ko" ;;
	esac
	echo "$name" >> "$root/lib/modules/load-order"
done
echo "sfab: modules: $(tr '\n' ' ' < "$root/lib/modules/load-order")"

cp "$bb" "$root/bin/busybox"
for a in sh mount umount insmod switch_root sleep cat poweroff echo; do
	ln -s busybox "$root/bin/$a"
done
# the kernel's built-in initramfs has /dev/console too; this one is for
# kernels without it
[ "$(id -u)" != 0 ] || mknod -m 600 "$root/dev/console" c 5 1

cat > "$root/init" <<'INIT'
#!/bin/sh
# /init of the sfab stock-kernel initramfs (tools/setup/build-stock-initramfs.sh)
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
die() {
	echo "sfab-initramfs: $*"
	poweroff -f
	while :; do sleep 5; done
}
for m in $(cat /lib/modules/load-order); do
	insmod "/lib/modules/$m.ko" || die "insmod $m failed"
done
root= fstype= flags= mode=ro init=/sbin/init
for a in $(cat /proc/cmdline); do
	case "$a" in
	root=*) root=${a#root=} ;;
	rootfstype=*) fstype=${a#rootfstype=} ;;
	rootflags=*) flags=${a#rootflags=} ;;
	init=*) init=${a#init=} ;;
	ro|rw) mode=$a ;;
	esac
done
[ -n "$root" ] && [ -n "$fstype" ] || die "no root= and rootfstype= on the command line"
# the virtio transport binds as its module loads; allow it a moment
i=0
until mount -t "$fstype" -o "$mode${flags:+,$flags}" "$root" /newroot 2> /mount.err; do
	i=$((i + 1))
	[ $i -lt 50 ] || die "cannot mount $root ($fstype, $flags): $(cat /mount.err)"
	sleep 0.1
done
umount /proc /sys /dev
exec switch_root /newroot "$init"
INIT
chmod 755 "$root/init"

(cd "$root" && find . -print | LC_ALL=C sort |
	cpio -o -H newc --owner=0:0 --quiet) > "$cpio.tmp"
mv "$cpio.tmp" "$cpio"
touch "$dir/.done"
sfab_stage_done "$(du -k "$cpio" | cut -f1) KiB, ${#order[@]} modules"
echo "$cpio"
