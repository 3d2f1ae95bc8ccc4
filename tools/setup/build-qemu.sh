#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build QEMU 10.0.2 (Debian's source package) with the sfab overlay:
# x86_64 target only, only the devices the tests use (qemu-model/configs/
# x86_64-sfab.mak).  The unpacked, hooked and configured tree is cached
# under $SFAB_CACHE, keyed by the tarball version, the configure options,
# the device list, the hook patch and this script.  The overlay
# (qemu-model/hw/sfab, the model directories hw/sfab/model-dirs lists and
# the contract headers in include/sfab) is synced into that tree on every
# run, touching only files whose contents changed, so ninja rebuilds
# incrementally.
# Prints the absolute path of qemu-system-x86_64 on its last line.
#
# build-qemu.sh --fuzz builds QEMU's own fuzzer instead, qemu-fuzz-x86_64
# (--enable-fuzzing: clang, libFuzzer, ASan and UBSan), in a tree of its
# own (the options are part of the key), for tests/fuzz/qemu-fuzz; it
# prints that binary's path.
set -eu
. "$(dirname "$0")/lib.sh"

fuzz=0
case "${1:-}" in
--fuzz) fuzz=1 ;;
'') ;;
*) echo "usage: $0 [--fuzz]" >&2; exit 2 ;;
esac

qver=10.0.2
debver=1:10.0.2+ds-2+deb13u1~bpo12+1
tarball=$SFAB_CACHE/src/qemu_${qver}+ds.orig.tar.xz
model=$SFAB_TOP/qemu-model
devices=$model/configs/x86_64-sfab.mak
hook=$model/patches/0001-hw-sfab-hook.patch
# QEMU-independent model code the devices link, copied to hw/sfab/model/
# (the same relative layout as in qemu-model/, so "../link/x.h" includes
# work): the directories qemu-model/hw/sfab/model-dirs lists.  The list is
# not part of the cache key: a new model directory is synced and built
# incrementally, like any other overlay file, without a fresh QEMU build.
mapfile -t model_dirs < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' \
	"$model/hw/sfab/model-dirs")
[ ${#model_dirs[@]} -gt 0 ] ||
	{ echo "sfab: $model/hw/sfab/model-dirs lists no directory" >&2; exit 1; }
configure_opts=(
	--python=/usr/bin/python3
	--target-list=x86_64-softmmu
	--without-default-features
	--without-default-devices
	--with-devices-x86_64=sfab
	--enable-virtfs
	--enable-attr
	--enable-trace-backends=log
	--disable-docs
	--disable-install-blobs
	--disable-download
	# Debian's firmware: qemu-system-data (/usr/share/qemu), seabios (the
	# BIOS images: qemu-system-x86, which links them into /usr/share/qemu,
	# is not installed) and ipxe-qemu (virtio-net's option ROM)
	--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu
)
target=qemu-system-x86_64
if [ $fuzz = 1 ]; then
	command -v clang >/dev/null ||
		{ echo "sfab: --fuzz needs clang (tools/setup/host-deps.sh)" >&2; exit 1; }
	configure_opts+=(--cc=clang --cxx=clang++ --enable-fuzzing
			 --enable-asan --enable-ubsan --disable-werror)
	target=qemu-fuzz-x86_64
fi

if [ ! -f "$tarball" ]; then
	sfab_stage "fetch qemu $debver source"
	command -v apt-get >/dev/null ||
		{ echo "sfab: $tarball missing and no apt-get to fetch it" >&2; exit 1; }
	mkdir -p "$SFAB_CACHE/src"
	# needs the deb-src lines of tools/setup/apt-sources.sh
	# The registry serves the tarball but not the .dsc, so apt-get fails
	# after fetching it: judge by the tarball, not the exit status.
	(cd "$SFAB_CACHE/src" && apt-get source --download-only -q "qemu=$debver") >&2 ||
		echo "sfab: apt-get source failed; checking for the tarball" >&2
	[ -s "$tarball" ] && xz -t "$tarball" ||
		{ rm -f "$tarball"; echo "sfab: cannot fetch $tarball (qemu $debver): run tools/setup/host-deps.sh" >&2; exit 1; }
	sfab_stage_done
fi

key=$(sfab_key "$qver+ds" "${configure_opts[*]}" "$devices" "$hook" "$0")
dir=$SFAB_CACHE/qemu-$key
src=$dir/src
build=$dir/build
bin=$build/$target

# one build of a tree at a time
exec 9> "$dir.lock"
flock 9

# 1. unpack and hook (once per key)
if [ ! -f "$dir/.src-done" ]; then
	sfab_stage "unpack qemu $qver ($key)"
	rm -rf "$dir"
	mkdir -p "$src"
	# Debian's BIOS images are used (qemu-system-data, seabios): no edk2
	sfab_run "$dir/unpack.log" "qemu: unpack $qver" \
		tar -xJf "$tarball" -C "$src" --strip-components=1 \
		--exclude="qemu-$qver/roms/edk2"
	patch -s -p1 -d "$src" < "$hook"
	cp "$devices" "$src/configs/devices/x86_64-softmmu/sfab.mak"
	touch "$dir/.src-done"
	sfab_stage_done
fi

# 2. overlay: copied into the tree, never referenced by absolute path
sfab_stage "sync overlay"
# hw/sfab/model/ is synced below: keep it out of hw/sfab's --delete
rsync -rc --delete --exclude=/model "$model/hw/sfab"/ "$src/hw/sfab"/
rsync -rc --delete "${model_dirs[@]/#/$model/}" "$src/hw/sfab/model"/ \
	--exclude=/meson.build
sfab_sync "$SFAB_TOP/include/sfab" "$src/include/sfab"
# hw/sfab/model/meson.build: every .c of the model directories; rewritten
# only when the list changes, so meson does not reconfigure for nothing
{
	echo "# written by tools/setup/build-qemu.sh: the model sources"
	echo "sfab_model_files = files("
	(cd "$src/hw/sfab/model" && find "${model_dirs[@]}" -name '*.c' ! -name main.c |
		LC_ALL=C sort | sed "s/.*/  '&',/")
	echo ")"
} > "$src/hw/sfab/model/meson.build.new"
if cmp -s "$src/hw/sfab/model/meson.build.new" "$src/hw/sfab/model/meson.build"; then
	rm "$src/hw/sfab/model/meson.build.new"
else
	mv "$src/hw/sfab/model/meson.build.new" "$src/hw/sfab/model/meson.build"
fi
sfab_stage_done

# 3. configure (once per key)
if [ ! -f "$dir/.configured" ]; then
	sfab_stage "configure"
	rm -rf "$build"
	mkdir -p "$build"
	(cd "$build" && sfab_run "$dir/configure.log" "qemu: configure" \
		"$src/configure" "${configure_opts[@]}")
	touch "$dir/.configured"
	sfab_stage_done
fi

# 4. build (incremental after the first time)
sfab_run "$dir/build.log" "qemu: build $target" \
	nice -n 10 ninja -C "$build" -j"$SFAB_JOBS" "$target"

# 5. firmware: a binary run from its build tree looks for the configured
# firmware path inside build/qemu-bundle; point that at Debian's files
for d in /usr/share/qemu /usr/share/seabios /usr/lib/ipxe/qemu; do
	mkdir -p "$build/qemu-bundle$(dirname "$d")"
	ln -sfn "$d" "$build/qemu-bundle$d"
done

if [ $fuzz = 1 ]; then
	"$bin" --help 2>&1 | grep -q generic-fuzz ||
		{ echo "sfab: $bin has no generic-fuzz target" >&2; exit 1; }
	touch "$dir/.done"
	echo "$bin"
	exit 0
fi

# 6. the device must be there, and the BIOS found without -L
"$bin" -L help | grep -qx "$build/qemu-bundle/usr/share/seabios" ||
	{ echo "sfab: $bin does not search /usr/share/seabios" >&2; exit 1; }
"$bin" -M q35 -device help 2>/dev/null | grep -q '"sfab-hca"' ||
	{ echo "sfab: $bin does not list sfab-hca" >&2; exit 1; }
touch "$dir/.done"
echo "$bin"
