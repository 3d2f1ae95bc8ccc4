# SPDX-License-Identifier: GPL-2.0-only
# NVMe over RDMA in a guest, for the ulp tier and the benchmark
# (tools/bench/bench.guest.sh): the kernel target (nvmet, configfs) and
# the namespace a connected host sees.  Each returns non-zero on failure.

NVMET=/sys/kernel/config/nvmet

# nvmet_subsys NQN BLOCKDEV [P2PMEM]: a subsystem any host may use,
# namespace 1 on BLOCKDEV; loads nvmet-rdma and mounts configfs
nvmet_subsys() {
	local s=$NVMET/subsystems/$1
	load_ko nvmet_rdma || return 1
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || return 1
	mkdir "$s" && echo 1 > "$s/attr_allow_any_host" && nvmet_ns "$1" 1 "$2" "${3:-}"
}

# nvmet_ns NQN NSID BLOCKDEV [P2PMEM]: namespace NSID of subsystem NQN on
# BLOCKDEV; with P2PMEM (a PCI device name, or 1 for any published
# P2PDMA memory near the target's devices) its I/O buffers are that
# device's memory instead of host RAM
nvmet_ns() {
	local n=$NVMET/subsystems/$1/namespaces/$2
	mkdir "$n" && echo "$3" > "$n/device_path" || return 1
	if [ -n "${4:-}" ]; then
		echo "$4" > "$n/p2pmem" || { echo "nvmet: p2pmem $4 refused"; return 1; }
	fi
	echo 1 > "$n/enable"
}

# nvmet_port ID ADDR NQN: an RDMA port on ADDR:4420 serving NQN
nvmet_port() {
	local p=$NVMET/ports/$1
	mkdir "$p" && echo rdma > "$p/addr_trtype" && echo ipv4 > "$p/addr_adrfam" &&
	echo "$2" > "$p/addr_traddr" && echo 4420 > "$p/addr_trsvcid" &&
	ln -s "$NVMET/subsystems/$3" "$p/subsystems/$3"
}

# nvmet_teardown NQN: every port, then the subsystem
nvmet_teardown() {
	local p
	for p in "$NVMET"/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p/subsystems/$1" && rmdir "$p" || return 1
	done
	for p in "$NVMET/subsystems/$1"/namespaces/*; do
		[ -d "$p" ] || continue
		echo 0 > "$p/enable" && rmdir "$p" || return 1
	done
	rmdir "$NVMET/subsystems/$1"
}

# nvme_ns_dev NQN [NSID]: the block device of namespace NSID (1) of the
# subsystem NQN a controller is connected to, once it exists (10 s).
# The name's last number is not the NSID: the host numbers namespaces
# in the order its scan finds them, and it scans them in parallel.
nvme_ns_dev() {
	local b i
	for ((i = 0; i < 50; i++)); do
		for b in /sys/block/nvme*n*; do
			[ -e "$b/nsid" ] && [ "$(cat "$b/nsid")" = "${2:-1}" ] &&
				[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$1" ] &&
				[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
		done
		sleep 0.2
	done
	return 1
}
