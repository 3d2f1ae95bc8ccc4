#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Install every Debian package sfab's build, tests and lab need.  Idempotent:
# a second run with everything present takes well under a second.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
logs=$SFAB_CACHE/logs
# apt_get WHAT ARGS...: apt-get ARGS with one progress line (sfab_run)
apt_get() {
	local what=$1
	shift
	sfab_run "$logs/apt-$what.log" "packages: $what" \
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get "$@"
}

pkgs=(
	# kernel, driver and quality gates
	build-essential bc bison flex libelf-dev libssl-dev cpio kmod rsync
	xz-utils sparse perl python3 dpkg-dev linux-source-6.12
	# the libFuzzer targets (tests/fuzz): clang with its fuzzer runtime
	clang libclang-rt-14-dev
	# the documentation checked by lint/rst
	python3-docutils
	# QEMU 10.0.2 build (meson and pycotap come from bookworm-backports)
	ninja-build pkg-config libglib2.0-dev libpixman-1-dev zlib1g-dev
	python3-venv qemu-system-data seabios ipxe-qemu
	# rdma-core 56.1 build with pyverbs
	cmake libnl-3-dev libnl-route-3-dev cython3 python3-dev libudev-dev
	# what the guests run (the host's /usr is the guests' /usr)
	ibverbs-utils rdmacm-utils infiniband-diags opensm perftest
	python3-pyverbs iproute2 procps util-linux
	# the in-tree consumers' tests (tests/ulp): IP over IPoIB, NVMe-oF,
	# NFS over RDMA (server and client), iSER (open-iscsi), SRP (srp_daemon)
	iputils-ping iperf3 netcat-openbsd nvme-cli fio
	nfs-kernel-server nfs-common rpcbind open-iscsi srptools
	# the initramfs that boots Debian's stock kernel (guest/stock-kernel)
	busybox-static
	# fabric captures: sfab-switchd pcaps are checked with tshark
	tshark
	# make bench's plot of latency and bandwidth against message size, and
	# make sim-scale's (latency CDFs, throughput over time, scaling)
	gnuplot-nox
	# the fabric simulation (tools/sim): ns-3 3.37, its single-process
	# libraries and headers
	libns3-dev
	# its distributed run (tools/setup/build-ns3-mpi.sh builds ns-3's MPI
	# module from Debian's ns3 source against Open MPI; mpirun)
	libopenmpi-dev openmpi-bin
)
bpo_pkgs=(meson python3-pycotap)

missing=()
for p in "${pkgs[@]}" "${bpo_pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
mesonv=$(dpkg-query -W -f='${Version}' meson 2>/dev/null || true)
case "$mesonv" in 1.[5-9]*|1.1[0-9]*) ;; *) missing+=(meson) ;; esac

# stock Debian 6.12 headers for build/stock-headers: newest +deb12-amd64;
# and the kernel image of the same version, for guest/stock-kernel.  The
# image is the signed package or, when the archive has only that (a new
# point release before its signed build), linux-image-VER-unsigned: both
# install /boot/vmlinuz-VER.
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed'; }
img_installed() { installed "linux-image-$1" || installed "linux-image-$1-unsigned"; }
# img_pkg VER: the image package apt can install for VER, or nothing
img_pkg() {
	local p
	for p in "linux-image-$1" "linux-image-$1-unsigned"; do
		apt-cache show "$p" 2>/dev/null | grep -q '^Filename:' && { echo "$p"; return 0; }
	done
	return 1
}
hdr=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1)
ver= img_missing=
if [ -n "$hdr" ]; then
	ver=${hdr#/usr/src/linux-headers-}
	img_installed "$ver" || img_missing=1
fi
if [ -z "$hdr" ] || [ -n "$img_missing" ] || [ ${#missing[@]} -gt 0 ]; then
	sfab_run "$logs/apt-sources.log" "packages: apt sources" $SUDO "$here/apt-sources.sh"
	if [ ${#missing[@]} -gt 0 ]; then
		echo "sfab: installing Debian packages: ${missing[*]}" >&2
		# the guests run the NFS server, iscsid and srp_daemon of these
		# packages; this host does not need them running: no service
		# starts during the install (a policy-rc.d of our own, unless
		# the machine has one)
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			printf '#!/bin/sh\n# sfab host-deps.sh: no service starts during its install\nexit 101\n' |
				$SUDO tee /usr/sbin/policy-rc.d > /dev/null
			$SUDO chmod 755 /usr/sbin/policy-rc.d
			trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
		fi
		apt_get install install -y -q --no-install-recommends "${pkgs[@]}"
		apt_get backports install -y -q --no-install-recommends \
			-t bookworm-backports "${bpo_pkgs[@]}"
	fi
	if [ -z "$hdr" ]; then
		# the newest version with both headers and an image
		h= img=
		for c in $(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
			   awk '{print $1}' | sort -rV); do
			img=$(img_pkg "${c#linux-headers-}") && { h=$c; break; }
		done
		[ -n "$h" ] || { echo "sfab: no linux-headers-6.12.*+deb12-amd64 with its image in the apt sources" >&2; exit 1; }
		echo "sfab: installing $h $img" >&2
		apt_get stock-kernel install -y -q --no-install-recommends "$h" "$img"
	elif [ -n "$img_missing" ]; then
		img=$(img_pkg "$ver") || { echo "sfab: no linux-image-$ver (signed or unsigned) in the apt sources" >&2; exit 1; }
		echo "sfab: installing $img" >&2
		apt_get stock-kernel install -y -q --no-install-recommends "$img"
	fi
fi
