# SPDX-License-Identifier: GPL-2.0-only
# GPU-direct storage in a guest, for ulp/gds-p2p (tests/ulp) and the
# benchmark (tools/bench): an NVMe SSD served over NVMe/RDMA from the test
# accelerator's memory, and O_DIRECT reads into it.  Needs nvme.bash and
# load_ko (sm.guest.bash); gds-read and the nvme-rdma.ko that takes
# P2PDMA pages come from gds-build.sh, in $GDS_DIR.  Each returns non-zero
# on failure, saying why.

GDS_MIB=16
GDS_BYTES=$((GDS_MIB << 20))
GDS_DIR=$(dirname "$SFAB_MODDIR")/ulp/gds

# gds_ssd: the block device of this node's NVMe SSD (nvme-pci), once
# nvme.ko has found it (10 s)
gds_ssd() {
	local c i
	load_ko nvme || return 1
	for ((i = 0; i < 100; i++)); do
		for c in /sys/class/nvme/nvme*; do
			[ "$(cat "$c/transport" 2>/dev/null)" = pcie ] && [ -b "/dev/${c##*/}n1" ] &&
				{ echo "/dev/${c##*/}n1"; return 0; }
		done
		sleep 0.1
	done
	echo "no NVMe SSD" >&2
	return 1
}

# gds_fill DEV: GDS_BYTES of random bytes at the start of DEV; prints
# their SHA-256
gds_fill() {
	head -c "$GDS_BYTES" /dev/urandom > /tmp/gds.data &&
	dd if=/tmp/gds.data of="$1" bs=1M oflag=direct status=none ||
		{ echo "writing $1 failed" >&2; rm -f /tmp/gds.data; return 1; }
	sha256sum < /tmp/gds.data | cut -d' ' -f1
	rm -f /tmp/gds.data
}

# gds_accel: sfab_accel loaded with its memory published for P2PDMA
# users; prints the accelerator's PCI name
gds_accel() {
	insmod "$SFAB_MODDIR/sfab_accel.ko" p2pmem_publish=1 || return 1
	basename "$(readlink -f /sys/class/misc/sfab-accel0/device)"
}

# gds_serve NQN DEV ACCEL ADDR: nvmet serves DEV as namespace 1 from
# ACCEL's memory (p2pmem) and as namespace 2 from RAM, on ADDR:4420
gds_serve() {
	nvmet_subsys "$1" "$2" "$3" && nvmet_ns "$1" 2 "$2" && nvmet_port 1 "$4" "$1" &&
		return 0
	dmesg | tail -n 5
	nvmet_teardown "$1"
	return 1
}

# gds_connect NQN ADDR: connected; GDS_NS1 and GDS_NS2 the namespaces
gds_connect() {
	nvme connect -t rdma -a "$2" -s 4420 -n "$1" > /dev/null || return 1
	GDS_NS1=$(nvme_ns_dev "$1" 1) || { echo "no namespace 1"; return 1; }
	GDS_NS2=$(nvme_ns_dev "$1" 2) || { echo "no namespace 2"; return 1; }
}

# gds_read DEV p2p|bounce SUM: gds-read into the accelerator's memory,
# which must then hold data whose SHA-256 is SUM; "BYTES USEC COPY_USEC"
# on success, gds-read's "error ..." (or why not) else
gds_read() {
	local out
	out=$("$GDS_DIR/gds-read" "$1" "$GDS_BYTES" "$2" /tmp/gds.in 2>&1) ||
		{ echo "$out"; rm -f /tmp/gds.in; return 1; }
	[ "$(sha256sum < /tmp/gds.in | cut -d' ' -f1)" = "$3" ] ||
		{ echo "$1 ($2): the accelerator's memory holds other data than the SSD"; rm -f /tmp/gds.in; return 1; }
	rm -f /tmp/gds.in
	echo "$out"
}

# gds_nvme_rdma patched|stock: nvme-rdma.ko built with
# nvme-rdma-p2pdma.patch in place of the kernel's, or the kernel's again
gds_nvme_rdma() {
	# the modules it depends on first, whichever is loaded now
	load_ko nvme_rdma && rmmod nvme_rdma || return 1
	if [ "$1" = patched ]; then
		insmod "$GDS_DIR/nvme-rdma/nvme-rdma.ko"
	else
		load_ko nvme_rdma
	fi
}
