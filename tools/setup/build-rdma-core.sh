#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build rdma-core 56.1 (the original tarball of Debian's trixie source
# package) with the sfab provider, in place, with pyverbs, cached under
# $SFAB_CACHE keyed by the tarball, the cmake options and this script.
#
# The provider sources (tools/rdma-core/providers/sfab), the kernel ABI
# header (include/uapi/rdma/sfab-abi.h) and the hardware contract
# (include/sfab) are synced into the tree on every run, copying only what
# changed, so an edit rebuilds only what depends on it.
#
# The build runs where it is: with LD_LIBRARY_PATH=<build>/lib, Debian's
# ibverbs-utils and perftest load this libibverbs, which reads its
# providers from <build>/etc/libibverbs.d (libsfab among them).
# Prints the build directory on its last line.
set -eu
. "$(dirname "$0")/lib.sh"

ver=56.1
srcdir=$SFAB_CACHE/src
tarball=$srcdir/rdma-core_$ver.orig.tar.gz
provider=$SFAB_TOP/tools/rdma-core/providers/sfab
abi=$SFAB_TOP/include/uapi/rdma/sfab-abi.h
# the driver's own uverbs methods (ioctl ids), as mlx5_user_ioctl_cmds.h
ioctl_cmds=$SFAB_TOP/include/uapi/rdma/sfab_user_ioctl_cmds.h
contract=$SFAB_TOP/include/sfab
cmake_opts=(-GNinja -DIN_PLACE=1 -DNO_MAN_PAGES=1
	-DPYTHON_EXECUTABLE=/usr/bin/python3 -DCMAKE_BUILD_TYPE=RelWithDebInfo)

die() {
	echo "sfab: $*" >&2
	exit 1
}

# sfab_put FILE: write stdin to FILE only if its contents differ, so that
# an unchanged file keeps its mtime (and cmake does not re-run).
sfab_put() {
	cat > "$1.new"
	if cmp -s "$1.new" "$1"; then
		rm -f "$1.new"
	else
		mv -f "$1.new" "$1"
	fi
}

for t in cmake ninja rsync /usr/bin/python3 cython3; do
	command -v "$t" >/dev/null || die "$t missing: run tools/setup/host-deps.sh"
done

# 1. the original tarball of Debian's trixie source package
if [ ! -s "$tarball" ]; then
	sfab_stage "fetch rdma-core $ver"
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO "$SFAB_TOP/tools/setup/apt-sources.sh"
	mkdir -p "$srcdir"
	# The registry serves the tarballs but not the .dsc, so apt-get
	# fails after fetching them: judge by the tarball, not the status.
	(cd "$srcdir" && apt-get source --download-only -q "rdma-core/trixie") ||
		echo "sfab: apt-get source failed; checking for the tarball"
	[ -s "$tarball" ] || die "could not fetch $(basename "$tarball")"
	gzip -t "$tarball" || { rm -f "$tarball"; die "fetched $tarball is damaged"; }
	sfab_stage_done "$tarball"
fi

key=$(sfab_key "$tarball" "${cmake_opts[*]}" "$0")
dir=$SFAB_CACHE/rdma-core-$key
src=$dir/src
orig=$dir/orig
build=$dir/build

# 2. extract once per key; orig/ keeps the pristine files patched below
if [ ! -f "$dir/.extracted" ]; then
	sfab_stage "extract rdma-core $ver ($key)"
	rm -rf "$dir"
	mkdir -p "$src" "$orig/kernel-headers"
	tar -xzf "$tarball" -C "$src" --strip-components=1
	cp "$src/CMakeLists.txt" "$orig/CMakeLists.txt"
	cp "$src/kernel-headers/CMakeLists.txt" "$orig/kernel-headers/CMakeLists.txt"
	touch "$dir/.extracted"
	sfab_stage_done "$src"
fi

# 3. sync the provider, its kernel ABI header and the hardware contract
sfab_stage "sync sfab sources"
[ -f "$provider/CMakeLists.txt" ] || die "$provider/CMakeLists.txt missing"
[ -f "$abi" ] || die "$abi missing"
[ -f "$ioctl_cmds" ] || die "$ioctl_cmds missing"
sfab_sync "$provider" "$src/providers/sfab"
sfab_put "$src/kernel-headers/rdma/sfab-abi.h" < "$abi"
sfab_put "$src/kernel-headers/rdma/sfab_user_ioctl_cmds.h" < "$ioctl_cmds"
sfab_sync "$contract" "$src/kernel-headers/sfab"
sfab_stage_done

# 4. register them with rdma-core's build, regenerated from the pristine
# files each run (idempotent; a new contract header is picked up)
sfab_stage "register provider"
# providers that map device memory sit under HAVE_COHERENT_DMA, like efa
sed '/^add_subdirectory(providers\/vmw_pvrdma)$/i add_subdirectory(providers/sfab)' \
	"$orig/CMakeLists.txt" | sfab_put "$src/CMakeLists.txt"
[ "$(grep -c '^add_subdirectory(providers/sfab)$' "$src/CMakeLists.txt")" = 1 ] ||
	die "could not add providers/sfab to $src/CMakeLists.txt"
{
	# both lists (published headers, rdma_kernel_provider_abi) hold
	# siw-abi.h; the ioctl ids are published only, as mlx5's are
	sed -e '/^  rdma\/siw-abi\.h$/i\  rdma/sfab-abi.h' \
	    -e '/^  rdma\/mlx5_user_ioctl_cmds\.h$/a\  rdma/sfab_user_ioctl_cmds.h' \
	    "$orig/kernel-headers/CMakeLists.txt"
	echo
	echo '# sfab hardware contract (include/sfab in the sfab checkout)'
	echo 'publish_internal_headers(sfab'
	(cd "$src/kernel-headers" && LC_ALL=C ls sfab/*.h) | sed 's/^/  /'
	echo '  )'
} | sfab_put "$src/kernel-headers/CMakeLists.txt"
[ "$(grep -c '^  rdma/sfab-abi\.h$' "$src/kernel-headers/CMakeLists.txt")" = 2 ] ||
	die "could not register rdma/sfab-abi.h in $src/kernel-headers/CMakeLists.txt"
[ "$(grep -c '^  rdma/sfab_user_ioctl_cmds\.h$' "$src/kernel-headers/CMakeLists.txt")" = 1 ] ||
	die "could not register rdma/sfab_user_ioctl_cmds.h in $src/kernel-headers/CMakeLists.txt"
sfab_stage_done

# 5. configure once; ninja re-runs cmake itself when a CMakeLists changes
if [ ! -f "$build/build.ninja" ]; then
	sfab_stage "configure"
	mkdir -p "$build"
	(cd "$build" && sfab_run "$dir/configure.log" "rdma-core: cmake" \
		cmake "${cmake_opts[@]}" "$src") ||
		{ rm -f "$build/build.ninja"; die "cmake failed, see $dir/configure.log"; }
	sfab_stage_done "$dir/configure.log"
fi

# 6. build (incremental)
sfab_stage "build"
log=$dir/build.log
if ! sfab_run "$log" "rdma-core: build" nice -n 10 ninja -C "$build" -j"$SFAB_JOBS"; then
	die "build failed, see $log"
fi
# the provider must compile cleanly under rdma-core's warning flags: ninja
# prints each step's compiler output right after the step's status line
if awk '/^\[[0-9]+\/[0-9]+\] / { p = /providers\/sfab\// }
	p && /warning:/ { print; bad = 1 } END { exit !bad }' "$log" >&2; then
	# recompile next time too, so that a rerun cannot hide them
	rm -f "$build"/providers/sfab/CMakeFiles/*/*.o
	die "sfab provider has compiler warnings, see $log"
fi
sfab_stage_done "$(grep -c '^\[' "$log" || true) steps"

# 7. check what later stages rely on
sfab_stage "check"
lib=$build/lib
[ -f "$lib/libsfab-rdmav34.so" ] || die "$lib/libsfab-rdmav34.so not built"
grep -qx "driver $lib/libsfab" "$build/etc/libibverbs.d/sfab.driver" ||
	die "$build/etc/libibverbs.d/sfab.driver does not name $lib/libsfab"
[ -d "$build/python/pyverbs" ] && [ -x "$build/bin/run_tests.py" ] ||
	die "pyverbs not built (is cython3 installed?)"
# Debian's ibv_devices must run on this libibverbs.  A host without the
# RDMA subsystem (no ib_core: no infiniband_verbs class, no RDMA netlink)
# makes it fail with ENOSYS, as it does with Debian's own libibverbs.
ibv_devices=$(command -v ibv_devices) || die "ibv_devices missing: run tools/setup/host-deps.sh"
LD_LIBRARY_PATH=$lib ldd "$ibv_devices" | grep -qF "$lib/libibverbs.so.1" ||
	die "ibv_devices does not pick $lib/libibverbs.so.1"
if LD_LIBRARY_PATH=$lib ibv_devices > "$dir/ibv_devices.out" 2>&1; then
	devs="$(($(wc -l < "$dir/ibv_devices.out") - 2)) device(s)"
elif [ ! -e /sys/class/infiniband_verbs ] &&
     grep -q 'Function not implemented' "$dir/ibv_devices.out"; then
	devs="host has no RDMA subsystem"
else
	cat "$dir/ibv_devices.out" >&2
	die "ibv_devices failed with $lib"
fi
sfab_stage_done "ibv_devices: $devs"
echo "$build"
