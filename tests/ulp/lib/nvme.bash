# SPDX-License-Identifier: GPL-2.0-only
# NVMe over RDMA in a guest, for the ulp tier and the benchmark
# (tools/bench/bench.guest.sh): the kernel target (nvmet, configfs) and
# the namespace a connected host sees.  Each returns non-zero on failure.

NVMET=/sys/kernel/config/nvmet

# nvmet_subsys NQN BLOCKDEV: a subsystem any host may use, namespace 1
# on BLOCKDEV; loads nvmet-rdma and mounts configfs
nvmet_subsys() {
	local s=$NVMET/subsystems/$1
	load_ko nvmet_rdma || return 1
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || return 1
	mkdir "$s" && echo 1 > "$s/attr_allow_any_host" &&
	mkdir "$s/namespaces/1" && echo "$2" > "$s/namespaces/1/device_path" &&
	echo 1 > "$s/namespaces/1/enable"
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
	echo 0 > "$NVMET/subsystems/$1/namespaces/1/enable" &&
	rmdir "$NVMET/subsystems/$1/namespaces/1" "$NVMET/subsystems/$1"
}

# nvme_ns_dev NQN: the block device of namespace 1 of the controller
# connected to NQN, once it exists (10 s)
nvme_ns_dev() {
	local c i
	for ((i = 0; i < 50; i++)); do
		c=$(grep -l "$1" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null | head -n 1)
		c=${c%/subsysnqn}
		[ -n "$c" ] && [ -b "/dev/${c##*/}n1" ] && { echo "/dev/${c##*/}n1"; return 0; }
		sleep 0.2
	done
	return 1
}
