#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build ns-3 3.37 (Debian's source package, with Debian's library-name
# patch, and room for a 4 KiB-MTU frame in the MPI module's receive
# buffers) with its MPI module, for the distributed fabric simulation
# (tools/sim's sfab-sim-mpi; Documentation/sfab/simulation.rst).  Only
# the modules that the simulation and the MPI module need: core, stats,
# network, mpi; release profile, logs on (as Debian builds it), against
# Debian's Open MPI (libopenmpi-dev).  Debian's libns3-dev is built
# without MPI, which is why this build exists at all.
#
# The tree, the build and the install prefix are cached under
# $SFAB_CACHE/ns3-mpi-<key>, keyed by the tarball version, the configure
# options, the patch and this script: the first run takes a few minutes,
# later runs print the prefix at once.
# Prints the install prefix (lib/, include/) on its last line.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 0 ] || { echo "usage: $0" >&2; exit 2; }

ver=3.37
debver=3.37-2
tarball=$SFAB_CACHE/src/ns3_$ver.orig.tar.bz2
debtar=$SFAB_CACHE/src/ns3_$debver.debian.tar.xz
cmake_opts=(
	-G Ninja
	-DCMAKE_BUILD_TYPE=release
	-DNS3_MPI=ON
	"-DNS3_ENABLED_MODULES=core;network;mpi"
	-DNS3_LOG=ON
	-DNS3_ASSERT=OFF
	-DNS3_EXAMPLES=OFF
	-DNS3_TESTS=OFF
	-DNS3_PYTHON_BINDINGS=OFF
	-DNS3_WARNINGS_AS_ERRORS=OFF
	-DNS3_GTK3=OFF
	-DNS3_SQLITE=OFF
	-DNS3_GSL=OFF
	-DNS3_PRECOMPILE_HEADERS=OFF
	-DCMAKE_INSTALL_LIBDIR=lib
)

command -v mpicxx >/dev/null && [ -f /usr/include/x86_64-linux-gnu/mpi/mpi.h ] ||
	{ echo "sfab: no Open MPI (mpicxx, mpi.h): run tools/setup/host-deps.sh (libopenmpi-dev)" >&2; exit 1; }
for t in cmake ninja; do
	command -v $t >/dev/null ||
		{ echo "sfab: no $t: run tools/setup/host-deps.sh" >&2; exit 1; }
done

if [ ! -s "$tarball" ] || [ ! -s "$debtar" ]; then
	sfab_stage "fetch ns3 $debver source"
	command -v apt-get >/dev/null ||
		{ echo "sfab: $tarball missing and no apt-get to fetch it" >&2; exit 1; }
	mkdir -p "$SFAB_CACHE/src"
	# needs the deb-src lines of tools/setup/apt-sources.sh.  As with
	# QEMU's, the registry may serve the tarballs and fail on the .dsc:
	# judge by the tarballs, not the exit status.
	(cd "$SFAB_CACHE/src" && apt-get source --download-only -q "ns3=$debver") >&2 ||
		echo "sfab: apt-get source failed; checking for the tarballs" >&2
	[ -s "$tarball" ] && bzip2 -t "$tarball" && [ -s "$debtar" ] && xz -t "$debtar" ||
		{ rm -f "$tarball" "$debtar"
		  echo "sfab: cannot fetch $tarball (ns3 $debver): run tools/setup/host-deps.sh" >&2; exit 1; }
	sfab_stage_done
fi

key=$(sfab_key "$debver" "${cmake_opts[*]}" "$debtar" "$0")
dir=$SFAB_CACHE/ns3-mpi-$key
src=$dir/src/ns-$ver
build=$dir/build
prefix=$dir/prefix

if [ -f "$dir/.done" ]; then
	echo "$prefix"
	exit 0
fi

# one build of a tree at a time
mkdir -p "$(dirname "$dir")"
exec 9> "$dir.lock"
flock 9
if [ -f "$dir/.done" ]; then
	echo "$prefix"
	exit 0
fi

# 1. unpack ns-3 (not the all-in-one's bake, netanim, pybindgen) with
# Debian's library-name patch: libns3-core.so, as libns3-dev has them
if [ ! -f "$dir/.src-done" ]; then
	sfab_stage "unpack ns-3 $ver ($key)"
	rm -rf "$dir"
	mkdir -p "$dir/src"
	sfab_run "$dir/unpack.log" "ns-3: unpack $ver" \
		tar -xjf "$tarball" -C "$dir/src" --strip-components=1 \
		"ns-allinone-$ver/ns-$ver"
	tar -xJf "$debtar" -C "$dir" debian/patches/library-soversion.diff
	patch -s -p1 -d "$dir/src" < "$dir/debian/patches/library-soversion.diff"
	# the MPI module receives into buffers of 2000 bytes: too few for a
	# frame of a 4096-byte MTU (4352 bytes, the packet's serialisation
	# and sfab's 8 bytes of order around it), which MPI would refuse as
	# truncated; 8192
	for f in granted-time-window-mpi-interface.h null-message-mpi-interface.cc; do
		grep -q 'MAX_MPI_MSG_SIZE = 2000;' "$src/src/mpi/model/$f" ||
			{ echo "sfab: no MAX_MPI_MSG_SIZE = 2000 in src/mpi/model/$f" >&2; exit 1; }
		sed -i 's/MAX_MPI_MSG_SIZE = 2000;/MAX_MPI_MSG_SIZE = 8192;/' "$src/src/mpi/model/$f"
	done
	# nothing of scratch/ (its examples want modules not built)
	find "$src/scratch" -mindepth 1 ! -name CMakeLists.txt -exec rm -rf {} +
	touch "$dir/.src-done"
	sfab_stage_done
fi

# 2. configure
if [ ! -f "$dir/.configured" ]; then
	sfab_stage "configure"
	rm -rf "$build"
	mkdir -p "$build"
	sfab_run "$dir/configure.log" "ns-3: configure" \
		cmake -S "$src" -B "$build" "${cmake_opts[@]}" \
		-DCMAKE_INSTALL_PREFIX="$prefix"
	touch "$dir/.configured"
	sfab_stage_done
fi

# 3. build and install
sfab_run "$dir/build.log" "ns-3: build core, network, mpi" \
	nice -n 10 ninja -C "$build" -j"$SFAB_JOBS"
sfab_run "$dir/install.log" "ns-3: install" ninja -C "$build" install

# 4. what tools/sim links: the MPI module's library and header
for f in lib/libns3-mpi.so lib/libns3-core.so lib/libns3-network.so; do
	[ -e "$prefix/$f" ] ||
		{ echo "sfab: $prefix/$f missing after the install (log: $dir/install.log)" >&2; exit 1; }
done
[ -f "$prefix/include/ns3/mpi-interface.h" ] ||
	{ echo "sfab: no $prefix/include/ns3/mpi-interface.h" >&2; exit 1; }
touch "$dir/.done"
echo "$prefix"
