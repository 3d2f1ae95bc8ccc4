#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the sfab guest kernel from Debian's linux-source-6.12 with the
# project's config fragment, cached under $SFAB_CACHE keyed by its inputs.
# The sfab Kconfig is hooked into drivers/infiniband so that the same tree
# serves the in-tree build test (tests/build/in-tree.sh).
# SFAB_KERNEL=kasan builds the debug kernel of make check-kasan instead:
# the same fragment with guest-kernel-kasan.config on top (KASAN,
# lockdep), cached under a key of its own.
# Prints the kernel object directory (KDIR) on its last line.
set -eu
. "$(dirname "$0")/lib.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
frags=("$SFAB_TOP/tests/configs/guest-kernel.config")
name=kernel
case "${SFAB_KERNEL:-}" in
"") ;;
kasan)
	frags+=("$SFAB_TOP/tests/configs/guest-kernel-kasan.config")
	name=kernel-kasan
	;;
*)
	echo "sfab: SFAB_KERNEL=$SFAB_KERNEL: want kasan or nothing" >&2
	exit 1
	;;
esac
[ -f "$tarball" ] || { echo "sfab: $tarball missing: run tools/setup/host-deps.sh" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$(sfab_key "$srcver" "${frags[@]}" "$SFAB_TOP/Kconfig" "$0")
dir=$SFAB_CACHE/$name-$key
src=$dir/src
obj=$dir/obj

if [ -f "$dir/.done" ]; then
	echo "$obj"
	exit 0
fi
# one build of a tree at a time; a second caller waits and finds it done
mkdir -p "$SFAB_CACHE"
exec 9> "$dir.lock"
flock 9
if [ -f "$dir/.done" ]; then
	echo "$obj"
	exit 0
fi

sfab_stage "$name $srcver ($key)"
rm -rf "$dir"
mkdir -p "$src" "$obj"
sfab_run "$dir/unpack.log" "$name: unpack linux-source-$srcver" \
	tar -xf "$tarball" -C "$src" --strip-components=1

# in-tree hook: drivers/infiniband/hw/sfab with the Kconfig and an empty
# Makefile; tests/build/in-tree.sh syncs the sources in later.  The
# kunit.py tree (lib.sh sfab_kunit_tree) is a copy of this tree keyed by
# the source version and the Kconfig only: a change here must change
# SFAB_KUNIT_TREE_VERSION there.
mkdir -p "$src/drivers/infiniband/hw/sfab"
cp "$SFAB_TOP/Kconfig" "$src/drivers/infiniband/hw/sfab/Kconfig"
: > "$src/drivers/infiniband/hw/sfab/Makefile"
sed -i '/source "drivers\/infiniband\/hw\/efa\/Kconfig"/a source "drivers/infiniband/hw/sfab/Kconfig"' \
	"$src/drivers/infiniband/Kconfig"
echo 'obj-$(CONFIG_INFINIBAND_SFAB)		+= sfab/' >> "$src/drivers/infiniband/hw/Makefile"
grep -q 'hw/sfab/Kconfig' "$src/drivers/infiniband/Kconfig"

make -s -C "$src" O="$obj" tinyconfig >/dev/null
cat "${frags[@]}" >> "$obj/.config"
make -s -C "$src" O="$obj" olddefconfig >/dev/null 2>&1

# every option the fragments ask for must have survived olddefconfig; of
# an option set twice, the later line counts, as in Kconfig
declare -A want=()
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	want[${line%%=*}]=${line#*=}
done < <(cat "${frags[@]}")
bad=0
for opt in "${!want[@]}"; do
	val=${want[$opt]}
	if [ "$val" = n ]; then
		grep -qx "$opt=[ym]" "$obj/.config" && { echo "sfab: $opt still set" >&2; bad=1; }
	else
		grep -qxF "$opt=$val" "$obj/.config" ||
			{ echo "sfab: $opt=$val lost ($(grep "^$opt=\|$opt is not" "$obj/.config"))" >&2; bad=1; }
	fi
done
[ $bad = 0 ] || exit 1

# UBSAN (the fragment enables it) instruments what is built against this
# kernel, the sfab driver, but not the kernel itself, which would only
# lengthen the build; the runtime that reports is built either way
sfab_run "$dir/build.log" "$name: build bzImage and modules" \
	nice -n 10 make -C "$src" O="$obj" -j"$SFAB_JOBS" UBSAN_SANITIZE=n bzImage modules
sfab_run "$dir/prepare.log" "$name: modules_prepare" \
	make -C "$src" O="$obj" -j"$SFAB_JOBS" UBSAN_SANITIZE=n modules_prepare
touch "$dir/.done"
sfab_stage_done "$obj/arch/x86/boot/bzImage"
echo "$obj"
