# SPDX-License-Identifier: GPL-2.0-only
# Storage over RDMA in a guest, for the ulp tier (tests/ulp/lib/ulp.guest.sh):
# the kernel's LIO target through configfs (a file-backed LUN served over
# iSER by ib_isert and over SRP by ib_srpt), the initiators' block
# devices, and an NFS server in a guest whose / is the host's, read-only.
# Each returns non-zero, and says why, on failure.

LIO=/sys/kernel/config/target

# configfs_up: configfs mounted
configfs_up() {
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config
}

# lio_backstore NAME FILE MIB: a fileio backstore on a new FILE of MIB MiB
lio_backstore() {
	local b=$LIO/core/fileio_0/$1
	load_ko target_core_file && configfs_up || return 1
	[ -d "$LIO/core" ] || { echo "no $LIO/core: target_core_mod not up"; return 1; }
	truncate -s "${3}M" "$2" &&
	mkdir -p "$b" &&
	echo "fd_dev_name=$2,fd_dev_size=$(($3 << 20))" > "$b/control" &&
	echo 1 > "$b/enable" ||
		{ echo "fileio backstore $1 on $2 failed"; return 1; }
}

# lio_backstore_drop NAME
lio_backstore_drop() {
	rmdir "$LIO/core/fileio_0/$1"
}

# lio_lun TPG BACKSTORE: LUN 0 of the target portal group TPG (a configfs
# directory) on the backstore
lio_lun() {
	mkdir -p "$1/lun/lun_0" &&
	ln -s "$LIO/core/fileio_0/$2" "$1/lun/lun_0/$2"
}

# lio_tpg_drop TPG: every ACL, network portal and LUN of TPG, then TPG
lio_tpg_drop() {
	local d l
	[ -d "$1" ] || return 0
	echo 0 > "$1/enable" 2>/dev/null
	for d in "$1"/acls/*/; do
		[ -d "$d" ] || continue
		for l in "$d"lun_*/; do
			[ -d "$l" ] || continue
			find "$l" -maxdepth 1 -type l -delete
			rmdir "$l"
		done
		rmdir "$d" || return 1
	done
	for d in "$1"/np/*/; do
		[ -d "$d" ] && { rmdir "$d" || return 1; }
	done
	for d in "$1"/lun/lun_*/; do
		[ -d "$d" ] || continue
		find "$d" -maxdepth 1 -type l -delete
		rmdir "$d" || return 1
	done
	rmdir "$1"
}

# --- iSER: ib_isert serving an iSCSI target, ib_iser logging in ------------

# iser_target IQN ADDR BACKSTORE: the iSCSI target IQN with LUN 0 on
# BACKSTORE, its portal ADDR:3260 switched to iSER; any initiator may log
# in (no CHAP, ACLs generated)
iser_target() {
	local t=$LIO/iscsi/$1/tpgt_1
	# every iSCSI login sets up CRC32C (the digests), whether
	# negotiated or not; the guest has no modprobe to load it on demand
	load_ko crc32c_generic && load_ko iscsi_target_mod && load_ko ib_isert || return 1
	mkdir -p "$t" && lio_lun "$t" "$3" &&
	mkdir "$t/np/$2:3260" && echo 1 > "$t/np/$2:3260/iser" &&
	echo 0 > "$t/attrib/authentication" &&
	echo 1 > "$t/attrib/generate_node_acls" &&
	echo 1 > "$t/attrib/cache_dynamic_acls" &&
	echo 0 > "$t/attrib/demo_mode_write_protect" &&
	echo 1 > "$t/enable" || { echo "iSER target $1 on $2 failed"; return 1; }
}

# iser_target_drop IQN: the target gone, and the iscsi fabric directory
# with it (it holds iscsi_target_mod and ib_isert)
iser_target_drop() {
	lio_tpg_drop "$LIO/iscsi/$1/tpgt_1" && rmdir "$LIO/iscsi/$1" && rmdir "$LIO/iscsi"
}

# iscsid_up: open-iscsi's iscsid with this guest's own /etc/iscsi (the
# host's is read-only here): its iscsid.conf, an initiator name, a node
# database of its own
iscsid_up() {
	local i
	load_ko ib_iser && load_ko sd_mod || return 1
	pgrep -x iscsid > /dev/null && return 0
	grep -q ' /etc/iscsi ' /proc/mounts || mount -t tmpfs tmpfs /etc/iscsi || return 1
	cp /dev/.host/etc/iscsi/iscsid.conf /etc/iscsi/ || return 1
	echo "InitiatorName=iqn.2026-12.org.sfab:$me" > /etc/iscsi/initiatorname.iscsi
	mkdir -p /run/lock/iscsi
	iscsid || { echo "iscsid did not start"; return 1; }
	for ((i = 0; i < 50; i++)); do
		iscsiadm -m session > /dev/null 2>&1; [ $? != 20 ] && return 0
		sleep 0.2
	done
	echo "iscsid does not answer"
	return 1
}

# iscsid_down: every session logged out, iscsid stopped
iscsid_down() {
	local i
	iscsiadm -m node -u > /dev/null 2>&1
	pkill -x iscsid
	for ((i = 0; i < 50; i++)); do
		pgrep -x iscsid > /dev/null || return 0
		sleep 0.2
	done
	return 1
}

# scsi_disk_of PROC_NAME: the /dev/sdX of the one disk behind a SCSI
# host of that driver (iscsi_iser, ib_srp), once it exists (30 s)
scsi_disk_of() {
	local b h i
	for ((i = 0; i < 150; i++)); do
		for b in /sys/block/sd*; do
			[ -e "$b" ] || continue
			# .../hostN[/sessionM]/targetN:C:T/N:C:T:L
			h=$(readlink -f "$b/device" | grep -o 'host[0-9]*' | tail -n 1)
			[ "$(cat "/sys/class/scsi_host/$h/proc_name" 2>/dev/null)" = "$1" ] &&
				[ "$(cat "$b/size")" != 0 ] && { echo "/dev/${b##*/}"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# --- SRP: ib_srpt, found by srp_daemon through the SA and the target's
# device management agent ---------------------------------------------------

# srpt_port_name: this port's GID as ib_srpt names its configfs port
# (0x followed by the 32 hex digits)
srpt_port_name() {
	echo "0x$(tr -d : < /sys/class/infiniband/sfab_0/ports/1/gids/0)"
}

# srpt_target BACKSTORE INITIATOR_GUID: LUN 0 on BACKSTORE, for the
# initiator whose port GUID (0x...) is given: ib_srp's initiator port ID
# is its initiator_ext (0 here) then that GUID
srpt_target() {
	local t=$LIO/srpt/$(srpt_port_name)/tpgt_1
	local acl=$t/acls/0x0000000000000000${2#0x}
	load_ko ib_srpt || return 1
	mkdir -p "$t" && lio_lun "$t" "$1" &&
	mkdir -p "$acl/lun_0" && ln -s "$t/lun/lun_0" "$acl/lun_0/lun_0" &&
	echo 1 > "$t/enable" || { echo "SRP target for $2 failed"; return 1; }
}

# srpt_target_drop: the target gone, and the srpt fabric directory with
# it (configfs holds ib_srpt while it exists)
srpt_target_drop() {
	local p=$LIO/srpt/$(srpt_port_name)
	lio_tpg_drop "$p/tpgt_1" && rmdir "$p" && rmdir "$LIO/srpt"
}

# --- NFS over RDMA ----------------------------------------------------------

# nfs_server DIR NET: nfsd exporting DIR to NET (a.b.c.0/24) over TCP and
# over RDMA (port 20049), with rpcbind and rpc.mountd for NFSv3 and a
# 10 s NFSv4 grace period; /var/lib/nfs is this guest's own.  DIR is the
# NFSv4 root (fsid=0, "/" to an NFSv4 client): the pseudo root nfsd would
# build from / cannot cross this guest's 9p root file system.
nfs_server() {
	load_ko nfsd && load_ko rpcrdma || return 1
	grep -q ' /var/lib/nfs ' /proc/mounts || mount -t tmpfs tmpfs /var/lib/nfs || return 1
	mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/sm /var/lib/nfs/sm.bak /run/rpcbind
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab /var/lib/nfs/state
	grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	pgrep -x rpcbind > /dev/null || rpcbind || { echo "rpcbind did not start"; return 1; }
	exportfs -o rw,sync,insecure,no_root_squash,no_subtree_check,fsid=0 "$2:$1" ||
		{ echo "exportfs failed"; return 1; }
	rpc.mountd || { echo "rpc.mountd did not start"; return 1; }
	echo 10 > /proc/fs/nfsd/nfsv4gracetime
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	rpc.nfsd 4 || { echo "rpc.nfsd failed"; return 1; }
	echo "rdma 20049" > /proc/fs/nfsd/portlist || { echo "no RDMA listener"; return 1; }
	echo "nfsd listens on: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
}

# nfs_server_down: nfsd stopped, exports and daemons gone
nfs_server_down() {
	rpc.nfsd 0
	exportfs -ua
	pkill -x rpc.mountd
	pkill -x rpcbind
	umount /proc/fs/nfsd
	return 0
}
