#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host test of libsfab's device matching, with no HCA and no RDMA kernel
# stack: Debian's ibv_devices runs on the cached rdma-core build
# (LD_LIBRARY_PATH=<build>/lib) against a fake sysfs (SYSFS_PATH) that
# describes one uverbs device, and a private /dev holding its
# /dev/infiniband/uverbs0 (a mount namespace, so the host sees nothing).
#
#   tests/unit/provider-match.sh [BUILD]   (unit/provider-match in make check)
#
# BUILD defaults to what tools/setup/build-rdma-core.sh prints.  Prints
# one "ok"/"not ok" line per check; exits 0 when all pass, 1 on a
# failure, 77 when the host cannot run the test (not root,
# or a live RDMA netlink, which libibverbs would ask instead of sysfs).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$("$top/tools/setup/build-rdma-core.sh" | tail -n 1)}
lib=$build/lib

skip() {
	echo "SKIP: $*"
	exit 77
}

[ -f "$lib/libsfab-rdmav34.so" ] || { echo "not ok provider-match: no $lib/libsfab-rdmav34.so"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace"
command -v unshare >/dev/null || { echo "not ok provider-match: unshare missing (util-linux)"; exit 1; }
if /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)' 2>/dev/null; then
	skip "host has RDMA netlink: libibverbs would not read the fake sysfs"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fake_sysfs DIR MODALIAS ABI: one CA "sfab_0" behind uverbs0
fake_sysfs() {
	local s=$1/class
	mkdir -p "$s/infiniband_verbs/uverbs0" "$s/infiniband/sfab_0/device"
	echo 6 > "$s/infiniband_verbs/abi_version"
	echo sfab_0 > "$s/infiniband_verbs/uverbs0/ibdev"
	echo 231:192 > "$s/infiniband_verbs/uverbs0/dev"
	echo "$3" > "$s/infiniband_verbs/uverbs0/abi_version"
	echo "1: CA" > "$s/infiniband/sfab_0/node_type"
	echo 5346:4142:0000:0001 > "$s/infiniband/sfab_0/node_guid"
	echo "$2" > "$s/infiniband/sfab_0/device/modalias"
}

sfab_alias=pci:v00001AF4d000010F0sv00001AF4sd00000001bc02sc07i00
other_alias=pci:v00001AF4d00001041sv00001AF4sd00001100bc02sc00i00
# the kernel's uverbs ABI is SFAB_UVERBS_ABI_VERSION (2); ABI 1 was a
# kernel from before the include/uapi/rdma/sfab-abi.h cleanup
fake_sysfs "$tmp/good" "$sfab_alias" 2
fake_sysfs "$tmp/other" "$other_alias" 2
fake_sysfs "$tmp/abi1" "$sfab_alias" 1

# run every case in one private mount namespace with a /dev of its own
mkdir "$tmp/hostdev"
export tmp lib
unshare -m --propagation private bash -c '
	set -e
	mount --bind /dev "$tmp/hostdev"
	mount -t tmpfs -o size=64k,mode=755 sfab-test-dev /dev
	for n in null zero urandom; do
		touch "/dev/$n"
		mount --bind "$tmp/hostdev/$n" "/dev/$n"
	done
	mkdir /dev/infiniband
	touch /dev/infiniband/uverbs0
	for c in good other abi1; do
		SYSFS_PATH=$tmp/$c IBV_SHOW_WARNINGS=1 LD_DEBUG=files \
			LD_LIBRARY_PATH=$lib ibv_devices > "$tmp/$c.out" 2> "$tmp/$c.err" ||
			echo "exit $?" >> "$tmp/$c.err"
	done
' || { echo "not ok provider-match: mount namespace setup failed"; exit 1; }

fails=0
check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok provider-match/$name"
	else
		echo "not ok provider-match/$name"
		fails=$((fails + 1))
	fi
}

# the build's libibverbs found libsfab through <build>/etc/libibverbs.d
check loads-libsfab grep -q "file=$lib/libsfab-rdmav34.so .*dynamically loaded" "$tmp/good.err"
check libibverbs-from-build grep -qF "needed by $lib/libibverbs.so.1" "$tmp/good.err"
check matched-by-pci-id grep -Eq '^[[:space:]]+sfab_0[[:space:]]+53464142' "$tmp/good.out"
check no-warning-when-matched \
	bash -c "! grep -q 'no userspace device-specific driver' '$tmp/good.err'"
check other-device-unmatched grep -q 'no userspace device-specific driver found for sfab_0' "$tmp/other.err"
check other-device-unlisted bash -c "! grep -q sfab_0 '$tmp/other.out'"
check abi-mismatch-unmatched grep -q 'Driver sfab does not support the kernel ABI of 1' "$tmp/abi1.err"
check abi-mismatch-unlisted bash -c "! grep -q sfab_0 '$tmp/abi1.out'"

if [ $fails != 0 ]; then
	for c in good other abi1; do
		echo "# $c: stdout"; sed 's/^/#   /' "$tmp/$c.out"
		echo "# $c: stderr (no LD_DEBUG)"; grep -v '^ *[0-9]*:' "$tmp/$c.err" | sed 's/^/#   /' || true
	done
	exit 1
fi
exit 0
