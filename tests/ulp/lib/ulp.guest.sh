# SPDX-License-Identifier: GPL-2.0-only
# Guest half of the ulp tier (tests/ulp/run-ulp; host half ulp.host.sh),
# on tests/configs/topologies/ulp.topo: the kernel's own RDMA
# consumers, unmodified, over sfab (ulp/gds-p2p's host half also with
# the nvme-rdma change stock 6.12 lacks).  Every node brings up its HCA,
# opensm (in the first node) makes the fabric Active, every node loads
# ib_ipoib and joins the IPoIB broadcast group through opensm's SA; then
# the tests run one after the other, each reported by name (ltest).  The
# pair tests run between the first node and the last (leaf, spine,
# leaf): the first is the server.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/ulp/lib/ulp.bash"
. "$SFAB_TOP/tests/ulp/lib/nvme.bash"
. "$SFAB_TOP/tests/ulp/lib/storage.bash"
. "$SFAB_TOP/tests/ulp/lib/gds.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 180

first=${SFAB_NODES%% *}
last=${SFAB_NODES##* }
peer=$first
[ "$me" = "$first" ] && peer=$last
role=client
[ "$me" = "$first" ] && role=server

# --- ulp/ipoib-ping: ib_ipoib up on every node, ping every other node ---
# Carrier means the broadcast group joined (an SA MCMemberRecord through
# QP1, the group's Q_Key set on the UD QP, the QP attached to the group);
# the first ping of each peer is an ARP broadcast (multicast through the
# switches' MFTs, which opensm programs) and a PathRecord query.
t_ipoib_ping() {
	local n bad=0
	ib_up || return 1
	echo "ib0: $(cat /sys/class/net/ib0/mode) mode, MTU $(cat /sys/class/net/ib0/mtu), address $(cat /sys/class/net/ib0/address)"
	uput "ipoib.$me"
	for n in $SFAB_NODES; do
		uwait "ipoib.$n" 180 || return 1
	done
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		out=$(ping -c 3 -i 0.5 -w 60 "$(ip_of "$n")" 2>&1)
		if grep -q ' 3 received' <<< "$out"; then
			echo "$n: $(grep -E 'received|rtt' <<< "$out" | tr '\n' ' ')"
		else
			echo "$n: ping failed: $out"
			bad=1
		fi
	done
	ip neigh show dev ib0
	return $bad
}

# --- ulp/ipoib-tcp: a 16 MiB file over TCP, checksummed; iperf3 ---------
t_ipoib_tcp() {
	local sum got t0
	if [ "$role" = server ]; then
		rm -f /tmp/tcp.rx
		(timeout "$ULP_TIMEOUT" nc -l -p 5001 > /tmp/tcp.rx) &
		sleep 0.5
		uput tcp.ready
		wait $! || { echo "nc -l failed"; return 1; }
		uwait tcp.sum "$ULP_TIMEOUT" || return 1
		sum=$(cat "$lab/ulp/tcp.sum")
		got=$(sha256sum < /tmp/tcp.rx | cut -d' ' -f1)
		echo "received $(stat -c %s /tmp/tcp.rx) bytes, sha256 $got"
		rm -f /tmp/tcp.rx
		[ "$got" = "$sum" ] || { echo "the sender's sha256 is $sum"; return 1; }
		(timeout 60 iperf3 -s -1 -p 5201 > /tmp/iperf.log 2>&1) &
		sleep 1
		uput iperf.ready
		wait $!
		uwait iperf.done 90
	else
		head -c 16M /dev/urandom > /tmp/tcp.tx
		uwait tcp.ready "$ULP_TIMEOUT" || return 1
		t0=$(now)
		tcp_send_file "$(ip_of "$peer")" 5001 /tmp/tcp.tx || return 1
		echo "sent 16 MiB in $(since "$t0") s"
		uput tcp.sum "$(sha256sum < /tmp/tcp.tx | cut -d' ' -f1)"
		rm -f /tmp/tcp.tx
		uwait iperf.ready 60 || return 1
		timeout 60 iperf3 -c "$(ip_of "$peer")" -p 5201 -t 5 -f m > /tmp/iperf.log 2>&1 ||
			{ cat /tmp/iperf.log; uput iperf.done; return 1; }
		grep -E 'sender|receiver' /tmp/iperf.log
		grep -E 'receiver' /tmp/iperf.log | awk '{ print $(NF-2), $(NF-1) }' > "$lab/ulp/ipoib-tcp.mbits"
		uput iperf.done
	fi
}

# --- ulp/ipoib-cm: connected mode (RC QPs through ib_cm, an SRQ), MTU
# 65520: big pings and the file again; then back to datagram mode ---------
t_ipoib_cm() {
	local out sum got rc=0
	echo connected > /sys/class/net/ib0/mode || return 1
	ip link set ib0 mtu 65520 || return 1
	echo "ib0: $(cat /sys/class/net/ib0/mode) mode, MTU $(cat /sys/class/net/ib0/mtu)"
	uput "cm.$me"
	uwait "cm.$peer" "$ULP_TIMEOUT" || return 1
	out=$(ping -c 3 -i 0.5 -w 60 -s 60000 -M do "$(ip_of "$peer")" 2>&1)
	echo "$out" | grep -E 'received|rtt'
	grep -q ' 3 received' <<< "$out" || { echo "ping -s 60000 failed: $out"; rc=1; }
	if [ "$role" = server ]; then
		rm -f /tmp/cm.rx
		(timeout "$ULP_TIMEOUT" nc -l -p 5002 > /tmp/cm.rx) &
		sleep 0.5
		uput cmtcp.ready
		wait $! || { echo "nc -l failed"; rc=1; }
		if uwait cmtcp.sum "$ULP_TIMEOUT"; then
			sum=$(cat "$lab/ulp/cmtcp.sum")
			got=$(sha256sum < /tmp/cm.rx | cut -d' ' -f1)
			echo "received $(stat -c %s /tmp/cm.rx) bytes, sha256 $got"
			[ "$got" = "$sum" ] || { echo "the sender's sha256 is $sum"; rc=1; }
		else
			rc=1
		fi
		rm -f /tmp/cm.rx
	else
		head -c 16M /dev/urandom > /tmp/cm.tx
		if uwait cmtcp.ready "$ULP_TIMEOUT" &&
		   tcp_send_file "$(ip_of "$peer")" 5002 /tmp/cm.tx; then
			uput cmtcp.sum "$(sha256sum < /tmp/cm.tx | cut -d' ' -f1)"
		else
			uput cmtcp.sum none
			rc=1
		fi
		rm -f /tmp/cm.tx
	fi
	grep -iE 'ipoib|ib0' /proc/net/dev | head -n 2
	uput "cmdone.$me"
	uwait "cmdone.$peer" "$ULP_TIMEOUT" || rc=1
	echo datagram > /sys/class/net/ib0/mode || rc=1
	echo "back to $(cat /sys/class/net/ib0/mode) mode, MTU $(cat /sys/class/net/ib0/mtu)"
	return $rc
}

# --- the rdma_cm tools of Debian's rdmacm-utils, over the IPoIB addresses:
# address resolution (ARP), route (SA PathRecord), IB CM connect and
# disconnect; UD (udaddy); multicast (mckey: an SA join, the UD QP attached)
t_rping() {
	local log
	if [ "$role" = server ]; then
		pair_server rping rping -s -a "$(ip_of "$me")" -v -C 20 -S 1000 || return 1
		log=/tmp/rping.server.log
	else
		pair_client rping rping -c -a "$(ip_of "$peer")" -v -C 20 -S 1000 || return 1
		log=/tmp/rping.client.log
	fi
	[ "$(grep -c 'ping data: rdma-ping-' "$log")" = 20 ] ||
		{ echo "not 20 verified pings"; return 1; }
}

t_ucmatose() {
	if [ "$role" = server ]; then
		pair_server ucmatose ucmatose -b "$(ip_of "$me")" -c 4 -C 20 -S 2000
	else
		pair_client ucmatose ucmatose -s "$(ip_of "$peer")" -c 4 -C 20 -S 2000
	fi
}

t_udaddy() {
	if [ "$role" = server ]; then
		pair_server udaddy udaddy -b "$(ip_of "$me")" -c 4 -C 20 -S 1000
	else
		pair_client udaddy udaddy -s "$(ip_of "$peer")" -c 4 -C 20 -S 1000
	fi
}

# the first node receives 20 messages the last sends to 239.1.2.3
t_mckey() {
	local i rc
	if [ "$role" = server ]; then
		rm -f /tmp/mckey.log
		(timeout "$ULP_TIMEOUT" stdbuf -oL mckey -m 239.1.2.3 -b "$(ip_of "$me")" -C 20 -S 1000 \
			> /tmp/mckey.log 2>&1; echo $? > /tmp/mckey.rc) &
		for ((i = 0; i < 600; i++)); do
			grep -q 'receiving data transfers' /tmp/mckey.log 2>/dev/null && break
			[ -e /tmp/mckey.rc ] && break
			sleep 0.2
		done
		uput mckey.ready
		wait
		rc=$(cat /tmp/mckey.rc)
		cat /tmp/mckey.log
		uput mckey.done
		return "$rc"
	else
		uwait mckey.ready "$ULP_TIMEOUT" || return 1
		rc=0
		timeout "$ULP_TIMEOUT" mckey -m 239.1.2.3 -b "$(ip_of "$me")" -s -C 20 -S 1000 || rc=$?
		uwait mckey.done "$ULP_TIMEOUT"
		return "$rc"
	fi
}

# --- ulp/nvme-rdma-fio: nvmet-rdma serving a memory-backed null_blk in the
# first node, nvme-rdma in the last (nvme connect -t rdma): fio random
# read/write with verify=crc32c.  nvme-rdma registers every I/O's pages
# with FRWR (IB_WR_REG_MR); the target answers with SEND with invalidate
# of the host's rkey.
NQN=nqn.2026-12.org.sfab:ulp
# frwr_counts: sfab_0's fast_reg_wqes, local_inv_wqes, remote_invs
frwr_counts() {
	local d=/sys/class/infiniband/sfab_0/ports/1/hw_counters
	echo "$(cat $d/fast_reg_wqes) $(cat $d/local_inv_wqes) $(cat $d/remote_invs)"
}

# frwr_delta "BEFORE": what frwr_counts gained since BEFORE
frwr_delta() {
	local -a a b
	read -r -a a <<< "$1"
	read -r -a b <<< "$(frwr_counts)"
	echo "$((b[0] - a[0])) $((b[1] - a[1])) $((b[2] - a[2]))"
}

# nvme_serve: nvmet-rdma serving NQN on this node's IPoIB address, a
# 1 GiB memory-backed null_blk its namespace 1
nvme_serve() {
	load_ko null_blk nr_devices=1 gb=1 bs=4096 memory_backed=1 &&
	nvmet_subsys "$NQN" /dev/nullb0 && nvmet_port 1 "$(ip_of "$me")" "$NQN"
}
t_nvme_rdma_fio() {
	local dev rc=0 f0
	if [ "$role" = server ]; then
		nvme_serve || {
			echo "nvmet: $(dmesg | tail -n 5)"
			uput nvme.ready fail
			return 1
		}
		echo "nvmet-rdma: $NQN on $(ip_of "$me"):4420, namespace 1 /dev/nullb0"
		uput nvme.ready ok
		uwait nvme.done 400 || rc=1
		nvmet_teardown "$NQN" || { echo "nvmet teardown failed"; rc=1; }
		return $rc
	fi
	load_ko nvme_rdma || { uput nvme.done; return 1; }
	uwait nvme.ready "$ULP_TIMEOUT" && [ "$(cat "$lab/ulp/nvme.ready")" = ok ] ||
		{ uput nvme.done; return 1; }
	nvme connect -t rdma -a "$(ip_of "$peer")" -s 4420 -n "$NQN" ||
		{ dmesg | tail -n 10; uput nvme.done; return 1; }
	dev=$(nvme_ns_dev "$NQN") || { echo "no namespace block device"; nvme list; uput nvme.done; return 1; }
	nvme list
	f0=$(frwr_counts)
	fio --name=verify --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randrw --bs=4k --iodepth=16 --size=32M --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --output-format=terse --terse-version=3 \
		> /tmp/fio.terse 2> /tmp/fio.err || rc=1
	cat /tmp/fio.err
	awk -F';' '{ printf "fio: read %s KiB/s %s IOPS, write %s KiB/s %s IOPS, fio errors %s\n", $7, $8, $48, $49, $5 }' /tmp/fio.terse
	# every I/O's pages fast-registered, the target's response a SEND
	# with Invalidate of that rkey (sfab_0's hw_counters)
	set -- $(frwr_delta "$f0")
	echo "FRWR during fio: $1 fast-register WQEs, $2 local invalidations, $3 remote invalidations"
	[ "$1" -gt 0 ] && [ "$3" -gt 0 ] || { echo "nvme-rdma did not use FRWR with remote invalidation"; rc=1; }
	nvme disconnect -n "$NQN" || rc=1
	uput nvme.done
	return $rc
}

# --- ulp/nfs-rdma: nfsd in the first node exports a directory over RDMA
# (port 20049); the last mounts it with proto=rdma, NFSv4.0 and then
# NFSv3, writes a file, reads it back uncached, and the server checksums
# what it stored -------------------------------------------------------------
NFS_EXPORT=/tmp/nfs-export
t_nfs_rdma() {
	local rc=0 v sum got opts path f0
	if [ "$role" = server ]; then
		mkdir -p "$NFS_EXPORT" &&
		nfs_server "$NFS_EXPORT" "$ULP_NET.0/24" || { uput nfs.ready fail; nfs_server_down; return 1; }
		uput nfs.ready ok
		for v in 4 3; do
			uwait "nfs.sum.$v" 400 || { rc=1; break; }
			[ -f "$NFS_EXPORT/file.v$v" ] || { echo "NFSv$v: no file.v$v"; rc=1; uput "nfs.checked.$v"; continue; }
			sum=$(cat "$lab/ulp/nfs.sum.$v")
			got=$(sha256sum < "$NFS_EXPORT/file.v$v" | cut -d' ' -f1)
			echo "NFSv$v: the server stored $(stat -c %s "$NFS_EXPORT/file.v$v") bytes, sha256 $got"
			[ "$got" = "$sum" ] || { echo "the client wrote sha256 $sum"; rc=1; }
			uput "nfs.checked.$v"
		done
		uwait nfs.done 400 || rc=1
		grep -E '^(rdma|tcp)' /proc/fs/nfsd/portlist
		nfs_server_down
		rm -rf "$NFS_EXPORT"
		return $rc
	fi
	load_ko rpcrdma && load_ko nfsv4 && load_ko nfsv3 || { uput nfs.done; return 1; }
	uwait nfs.ready "$ULP_TIMEOUT" && [ "$(cat "$lab/ulp/nfs.ready")" = ok ] ||
		{ uput nfs.done; return 1; }
	mkdir -p /tmp/nfs
	head -c 16M /dev/urandom > /tmp/nfs.tx
	f0=$(frwr_counts)
	for v in 4 3; do
		# NFSv3 without NLM: this guest runs no rpc.statd
		opts="vers=$v,proto=rdma,port=20049"
		[ $v = 3 ] && opts=$opts,nolock
		path=$NFS_EXPORT
		[ $v = 4 ] && path=/
		if ! timeout 120 mount -t nfs -o "$opts" "$(ip_of "$peer"):$path" /tmp/nfs; then
			echo "NFSv$v mount over RDMA failed: $(dmesg | tail -n 5)"
			uput "nfs.sum.$v" none
			rc=1
			continue
		fi
		grep ' /tmp/nfs ' /proc/mounts
		awk '/^device / { on = ($5 == "/tmp/nfs") } on && /xprt:/ { print; exit }' \
			/proc/self/mountstats
		grep -q 'proto=rdma' /proc/mounts || { echo "not mounted over RDMA"; rc=1; }
		cp /tmp/nfs.tx "/tmp/nfs/file.v$v" && sync || rc=1
		echo 3 > /proc/sys/vm/drop_caches
		got=$(sha256sum < "/tmp/nfs/file.v$v" | cut -d' ' -f1)
		sum=$(sha256sum < /tmp/nfs.tx | cut -d' ' -f1)
		echo "NFSv$v: read back sha256 $got"
		[ "$got" = "$sum" ] || { echo "wrote sha256 $sum"; rc=1; }
		uput "nfs.sum.$v" "$sum"
		uwait "nfs.checked.$v" "$ULP_TIMEOUT" || rc=1
		umount /tmp/nfs || { echo "umount failed"; rc=1; }
	done
	echo "FRWR (fast-register, local and remote invalidations): $(frwr_delta "$f0")"
	rm -f /tmp/nfs.tx
	uput nfs.done
	return $rc
}

# blk_roundtrip DEV OFFSET_MIB: 16 MiB of random data written to DEV at
# OFFSET_MIB and read back with O_DIRECT; prints the sha256 and returns
# non-zero on a mismatch
blk_roundtrip() {
	local sum got
	head -c 16M /dev/urandom > /tmp/blk.tx
	sum=$(sha256sum < /tmp/blk.tx | cut -d' ' -f1)
	dd if=/tmp/blk.tx of="$1" bs=1M seek="$2" oflag=direct conv=fsync status=none ||
		{ echo "write to $1 failed"; return 1; }
	got=$(dd if="$1" bs=1M skip="$2" count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	rm -f /tmp/blk.tx
	echo "$1 at $2 MiB: wrote and read back sha256 $got"
	[ "$got" = "$sum" ] || { echo "wrote sha256 $sum"; return 1; }
	echo "$sum" > "/tmp/blk.$2.sum"
}

# blk_check DEV OFFSET_MIB: what blk_roundtrip wrote there reads back
blk_check() {
	local got
	got=$(dd if="$1" bs=1M skip="$2" count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	echo "$1 at $2 MiB: reads sha256 $got"
	[ "$got" = "$(cat "/tmp/blk.$2.sum")" ]
}

# initiator_recovered KMARK MESSAGE STATE_CMD DEV: after a target restart,
# the kernel logged MESSAGE (since dmesg line KMARK) and STATE_CMD
# succeeds, within 120 s; then what blk_roundtrip wrote to DEV at 0 MiB
# reads back and 16 MiB more move
initiator_recovered() {
	local kmark=$1 msg=$2 state=$3 dev=$4 i rc=0
	for ((i = 0; i < 600; i++)); do
		dmesg | tail -n +"$kmark" | grep -q "$msg" && "$state" && break
		sleep 0.2
	done
	echo "after the restart ($((i / 5)) s):"
	dmesg | tail -n +"$kmark" | grep -iE 'conn|srp|iser|reconnect' | tail -n 5
	dmesg | tail -n +"$kmark" | grep -q "$msg" || { echo "the kernel never logged '$msg'"; rc=1; }
	"$state" || { echo "not recovered ($state)"; rc=1; }
	if [ -n "$dev" ]; then
		blk_check "$dev" 0 || { echo "not the data written before the restart"; rc=1; }
		blk_roundtrip "$dev" 16 || rc=1
	fi
	return $rc
}

iser_logged_in() {
	iscsiadm -m session -P 1 2>/dev/null | grep -q 'iSCSI Session State: LOGGED_IN'
}

srp_running() {
	grep -q running /sys/class/srp_remote_ports/port-*/state 2>/dev/null
}

# target_restart TAG DOWN UP: the target side of a restart (its fabric
# torn down and its module reloaded, the backstore kept) while the
# initiator waits for TAG.restarted
target_restart() {
	local tag=$1 rc=0
	uwait "$tag.restart" 400 || return 1
	echo "restarting the target: $2; $3"
	eval "$2" || { echo "target teardown failed"; rc=1; }
	sleep 2
	eval "$3" || { echo "target restart failed"; rc=1; }
	uput "$tag.restarted"
	return $rc
}

# --- ulp/iser: ib_iser logs in to the LIO iSCSI target over iSER (ib_isert)
# and moves checksummed data; the target restarts (its iSCSI fabric and
# ib_isert unloaded and set up again); the session recovers, the data reads
# back, new data moves ----------------------------------------------------------
ISER_IQN=iqn.2026-12.org.sfab:ulp-iser
t_iser() {
	local rc=0 dev kmark f0
	if [ "$role" = server ]; then
		lio_backstore iser /tmp/iser.img 64 &&
		iser_target "$ISER_IQN" "$(ip_of "$me")" iser || { uput iser.ready fail; return 1; }
		echo "iSER target $ISER_IQN on $(ip_of "$me"):3260, LUN 0 a 64 MiB file"
		uput iser.ready ok
		target_restart iser 'iser_target_drop $ISER_IQN && rmmod ib_isert iscsi_target_mod' \
			'iser_target $ISER_IQN $(ip_of $me) iser' || rc=1
		uwait iser.done 600 || rc=1
		iser_target_drop "$ISER_IQN" && lio_backstore_drop iser || { echo "teardown failed"; rc=1; }
		rm -f /tmp/iser.img
		return $rc
	fi
	f0=$(frwr_counts)
	iscsid_up || { uput iser.restart; uput iser.done; return 1; }
	if ! uwait iser.ready "$ULP_TIMEOUT" || [ "$(cat "$lab/ulp/iser.ready")" != ok ]; then
		uput iser.restart; uput iser.done; iscsid_down; return 1
	fi
	iscsiadm -m discovery -t st -p "$(ip_of "$peer"):3260" -I iser &&
	iscsiadm -m node -T "$ISER_IQN" -p "$(ip_of "$peer"):3260" -I iser --login ||
		{ uput iser.restart; uput iser.done; iscsid_down; return 1; }
	iscsiadm -m session -P 1 | grep -E 'Target:|Iface Transport|iSCSI Session State'
	iscsiadm -m session -P 1 | grep -q 'Iface Transport: iser' || { echo "not over iSER"; rc=1; }
	dev=$(scsi_disk_of iscsi_iser) || { echo "no iSER disk"; rc=1; }
	[ -n "$dev" ] && { blk_roundtrip "$dev" 0 || rc=1; }
	kmark=$(($(dmesg | wc -l) + 1))
	uput iser.restart
	uwait iser.restarted 400 || rc=1
	# the session saw its connection fail and logged in again
	initiator_recovered "$kmark" 'detected conn error' iser_logged_in "$dev" || rc=1
	iscsiadm -m session -P 1 | grep -E 'iSCSI Session State|Internal iscsid Session State'
	echo "FRWR (fast-register, local and remote invalidations): $(frwr_delta "$f0")"
	iscsiadm -m node -T "$ISER_IQN" -u || rc=1
	iscsid_down || { echo "iscsid did not stop"; rc=1; }
	uput iser.done
	return $rc
}

# --- ulp/srp: srp_daemon finds ib_srpt through opensm's SA (its port's
# DeviceManagement capability, set by ib_srpt and reported by Trap 144)
# and the target's device management agent, and logs ib_srp in; data moves,
# the target restarts (ib_srpt reloaded), ib_srp reconnects -----------------------
t_srp() {
	local rc=0 dev i out kmark f0
	if [ "$role" = server ]; then
		uwait srp.guid "$ULP_TIMEOUT" || { uput srp.ready fail; return 1; }
		lio_backstore srp /tmp/srp.img 64 &&
		srpt_target srp "$(cat "$lab/ulp/srp.guid")" || { uput srp.ready fail; return 1; }
		echo "SRP target $(srpt_port_name), LUN 0 a 64 MiB file, for $(cat "$lab/ulp/srp.guid")"
		ibv_devinfo -v -d sfab_0 | grep -iE 'capab.*mask|DEV_MGMT' | head -n 3
		uput srp.ready ok
		target_restart srp 'srpt_target_drop && rmmod ib_srpt' \
			'srpt_target srp $(cat $lab/ulp/srp.guid)' || rc=1
		uwait srp.done 600 || rc=1
		srpt_target_drop && lio_backstore_drop srp || { echo "teardown failed"; rc=1; }
		rm -f /tmp/srp.img
		return $rc
	fi
	f0=$(frwr_counts)
	load_ko ib_srp && load_ko sd_mod || { uput srp.guid; uput srp.restart; uput srp.done; return 1; }
	uput srp.guid "$(port_guid)"
	if ! uwait srp.ready "$ULP_TIMEOUT" || [ "$(cat "$lab/ulp/srp.ready")" != ok ]; then
		uput srp.restart; uput srp.done; return 1
	fi
	# opensm learns the target's new capability from its trap, then
	# sweeps: srp_daemon may need a few tries
	for ((i = 1; i <= 20; i++)); do
		out=$(srp_daemon -o -c -e -i sfab_0 -p 1 -t 3000 -r 3 2>&1)
		grep -q 'id_ext=' <<< "$out" && break
		sleep 3
	done
	echo "srp_daemon (try $i): $out"
	grep -q 'id_ext=' <<< "$out" || { echo "srp_daemon found no target"; rc=1; }
	dev=$(scsi_disk_of ib_srp) || { echo "no SRP disk"; rc=1; }
	ls /sys/class/srp_remote_ports/ 2>/dev/null
	[ -n "$dev" ] && { blk_roundtrip "$dev" 0 || rc=1; }
	kmark=$(($(dmesg | wc -l) + 1))
	uput srp.restart
	uwait srp.restarted 400 || rc=1
	# ib_srp lost its channel and reconnects every reconnect_delay
	# (10 s); I/O before that would fail once fast_io_fail_tmo (15 s)
	# ran out
	initiator_recovered "$kmark" 'reconnect succeeded' srp_running "$dev" || rc=1
	grep -H . /sys/class/srp_remote_ports/port-*/state 2>/dev/null
	echo "FRWR (fast-register, local and remote invalidations): $(frwr_delta "$f0")"
	for i in /sys/class/srp_remote_ports/port-*/delete; do
		[ -e "$i" ] && echo 1 > "$i"
	done
	uput srp.done
	return $rc
}

# --- ulp/gds-p2p: GPU-direct storage.  The first node's nvmet serves its
# NVMe SSD (behind one PCIe switch with the HCA and the test accelerator)
# as namespace 1 from the accelerator's memory (nvmet's p2pmem: the SSD
# DMAs into it, the HCA RDMA-writes from it) and as namespace 2 from host
# RAM, the bounce path.  The last node reads each; then with O_DIRECT
# into its own accelerator's memory: stock Linux 6.12's nvme-rdma refuses
# P2PDMA pages (EREMOTEIO), nvme-rdma.ko built with
# lib/nvme-rdma-p2pdma.patch takes them.  Every read is checksummed
# against what the SSD holds; the HCA models' DMA counters by target
# (sfab-lab model: guest RAM or a peer's memory) show where the data went.
# lib/gds.bash has the parts the benchmark shares.
GDS_NQN=nqn.2026-12.org.sfab:gds

# gds_sample TAG: this node's model counters to /tmp/gds.TAG
gds_sample() { model_stats "gds$1" > "/tmp/gds.$1" || { cat "/tmp/gds.$1"; return 1; }; }
# gds_delta A B NAME: how much hca0's stat-NAME grew from sample A to B
gds_delta() {
	local a b
	a=$(awk -v k="stat-$3" '$1 == "hca0" && $2 == k { print $3 }' "/tmp/gds.$1")
	b=$(awk -v k="stat-$3" '$1 == "hca0" && $2 == k { print $3 }' "/tmp/gds.$2")
	echo $((${b:-0} - ${a:-0}))
}
# gds_dma A B: hca0's DMA from sample A to B, for the log
gds_dma() {
	local d
	for d in read write; do
		printf '%s: %s bytes RAM, %s bytes peer; ' "$d" "$(gds_delta "$1" "$2" "dma-$d-ram-bytes")" \
			"$(gds_delta "$1" "$2" "dma-$d-peer-bytes")"
	done
	echo
}
# gds_moved A B DIR WHERE: hca0 moved (DIR read or write) at least the
# data from WHERE (ram or peer) between samples A and B, and less than
# half of it from the other: the queues' own traffic (WQEs, translation
# tables, CQEs) there, not the data
gds_moved() {
	local other=ram
	[ "$4" = ram ] && other=peer
	[ "$(gds_delta "$1" "$2" "dma-$3-$4-bytes")" -ge "$GDS_BYTES" ] &&
	[ "$(gds_delta "$1" "$2" "dma-$3-$other-bytes")" -lt $((GDS_BYTES / 2)) ]
}

# the first node: the target
gds_target() {
	local rc=0 dev sum accel m end=$((SECONDS + 900))
	dev=$(gds_ssd) && sum=$(gds_fill "$dev") && uput gds.sum "$sum" &&
	accel=$(gds_accel) || { uput gds.ready fail; return 1; }
	echo "SSD $dev, $GDS_MIB MiB of random data written; accelerator $accel:" \
		"$(cat "/sys/bus/pci/devices/$accel/p2pmem/size") bytes of P2PDMA memory," \
		"published $(cat "/sys/bus/pci/devices/$accel/p2pmem/published")"
	gds_serve "$GDS_NQN" "$dev" "$accel" "$(ip_of "$me")" ||
		{ uput gds.ready fail; rmmod sfab_accel; return 1; }
	echo "nvmet: namespace 1 p2pmem $(cat "$NVMET/subsystems/$GDS_NQN/namespaces/1/p2pmem"), namespace 2 p2pmem $(cat "$NVMET/subsystems/$GDS_NQN/namespaces/2/p2pmem")"
	uput gds.ready ok
	# the host asks for a sample before and after each read (gds_mark)
	for m in a0 a1 b1 e0 e1; do
		while [ ! -e "$lab/ulp/gds.mark.$m" ]; do
			[ -e "$lab/ulp/gds.done" ] && break 2
			[ $SECONDS -lt $end ] || { echo "no ulp/gds.mark.$m from the host"; rc=1; break 2; }
			sleep 0.2
		done
		gds_sample "$m" || rc=1
		uput "gds.marked.$m"
	done
	uwait gds.done 600 || rc=1
	dmesg | grep -o 'using p2pmem on .*' | sort -u
	dmesg | grep -q "using p2pmem on $accel for nsid 1" ||
		{ echo "nvmet did not use the accelerator's memory for namespace 1"; rc=1; }
	if [ -f /tmp/gds.b1 ]; then
		echo "host reads namespace 1 (p2pmem), the target's HCA: $(gds_dma a0 a1)"
		echo "host reads namespace 2 (RAM), the target's HCA: $(gds_dma a1 b1)"
		gds_moved a0 a1 read peer ||
			{ echo "namespace 1: the HCA did not send the data from the accelerator's memory"; rc=1; }
		gds_moved a1 b1 read ram ||
			{ echo "namespace 2: the HCA did not send the data from host RAM"; rc=1; }
	else
		echo "the host stopped before both namespaces were read"
		rc=1
	fi
	if [ -f /tmp/gds.e1 ]; then
		echo "host reads namespace 1 into its accelerator, the target's HCA: $(gds_dma e0 e1)"
		gds_moved e0 e1 read peer || { echo "GPU-direct read: not from the accelerator's memory"; rc=1; }
	fi
	nvmet_teardown "$GDS_NQN" || { echo "nvmet teardown failed"; rc=1; }
	# every P2PDMA page back: remove waits for them
	rmmod sfab_accel & m=$!
	gone "$m" 60 || { echo "rmmod sfab_accel still waits after 60 s"; rc=1; }
	wait "$m" || rc=1
	return $rc
}

# gds_mark M: the target samples its counters (and says so)
gds_mark() { uput "gds.mark.$1" && uwait "gds.marked.$1" 60; }

# gds_dd DEV: read the data with O_DIRECT into RAM; "SECONDS" on success
gds_dd() {
	local out
	out=$(dd if="$1" of=/tmp/gds.in bs=128k count=$((GDS_MIB * 8)) iflag=direct 2>&1) ||
		{ echo "dd $1 failed: $out" >&2; return 1; }
	[ "$(sha256sum < /tmp/gds.in | cut -d' ' -f1)" = "$GDS_SUM" ] ||
		{ echo "$1: the data read differs from what the SSD holds" >&2; return 1; }
	rm -f /tmp/gds.in
	awk '/copied/ { print $(NF - 3) }' <<< "$out"
}

# the last node: the host
gds_host() {
	local rc=0 s1 s2 out p2p bounce stock=failed
	[ -x "$GDS_DIR/gds-read" ] && [ -f "$GDS_DIR/nvme-rdma/nvme-rdma.ko" ] ||
		{ echo "no $GDS_DIR/gds-read or nvme-rdma.ko (tests/ulp/run-ulp builds them)"; uput gds.done; return 1; }
	insmod "$SFAB_MODDIR/sfab_accel.ko" && load_ko nvme_rdma || { uput gds.done; return 1; }
	uwait gds.ready "$ULP_TIMEOUT" && [ "$(cat "$lab/ulp/gds.ready")" = ok ] ||
		{ uput gds.done; rmmod sfab_accel; return 1; }
	GDS_SUM=$(cat "$lab/ulp/gds.sum")
	gds_connect "$GDS_NQN" "$(ip_of "$peer")" || { uput gds.done; rmmod sfab_accel; return 1; }
	echo "namespace 1: $GDS_NS1, namespace 2: $GDS_NS2"

	# the target half: into host RAM here, from the accelerator's
	# memory (namespace 1) or host RAM (namespace 2) there
	gds_mark a0 && s1=$(gds_dd "$GDS_NS1") && gds_mark a1 &&
	s2=$(gds_dd "$GDS_NS2") && gds_mark b1 || rc=1
	echo "target p2pmem: $GDS_MIB MiB in ${s1:-?} s; target bounce: in ${s2:-?} s"
	echo "target-p2pmem-read-s ${s1:-?}" > /tmp/gds.bench
	echo "target-bounce-read-s ${s2:-?}" >> /tmp/gds.bench

	# the host half, stock nvme-rdma: O_DIRECT into P2PDMA pages
	out=$(gds_read "$GDS_NS1" p2p "$GDS_SUM")
	case "$out" in
	"error EREMOTEIO"*)
		stock=refused
		echo "stock nvme-rdma: O_DIRECT into the accelerator's memory refused ($out)," \
			"as Linux 6.12's block layer does for a queue without BLK_FEAT_PCI_P2PDMA" ;;
	[0-9]*)
		stock=took
		echo "stock nvme-rdma took P2PDMA pages ($out): this kernel's nvme-rdma has the capability" ;;
	*)
		echo "stock nvme-rdma: $out"
		rc=1 ;;
	esac
	nvme disconnect -n "$GDS_NQN" > /dev/null || rc=1

	# with the capability: straight into the accelerator's memory, and
	# through host RAM, side by side
	gds_nvme_rdma patched && echo "nvme-rdma.ko with lib/nvme-rdma-p2pdma.patch loaded" || rc=1
	if gds_connect "$GDS_NQN" "$(ip_of "$peer")"; then
		gds_mark e0
		gds_sample h1 && p2p=$(gds_read "$GDS_NS1" p2p "$GDS_SUM") && gds_sample h2 || rc=1
		gds_mark e1
		echo "O_DIRECT into the accelerator: ${p2p:-failed}; this HCA: $(gds_dma h1 h2)"
		bounce=$(gds_read "$GDS_NS1" bounce "$GDS_SUM") && gds_sample h3 || rc=1
		echo "O_DIRECT into host RAM, copied to the accelerator: ${bounce:-failed}; this HCA: $(gds_dma h2 h3)"
		if [ -f /tmp/gds.h3 ]; then
			gds_moved h1 h2 write peer ||
				{ echo "the HCA did not write the data into the accelerator's memory"; rc=1; }
			gds_moved h2 h3 write ram ||
				{ echo "bounce: the HCA did not write the data into host RAM"; rc=1; }
		fi
		read -r _ s1 _ <<< "${p2p:-? ? ?}"
		read -r _ s2 out <<< "${bounce:-? ? ?}"
		echo "host-p2p-read-us $s1" >> /tmp/gds.bench
		echo "host-bounce-read-us $s2" >> /tmp/gds.bench
		echo "host-bounce-copy-us $out" >> /tmp/gds.bench
		nvme disconnect -n "$GDS_NQN" > /dev/null || rc=1
	else
		rc=1
	fi
	uput gds.done
	# the stock module again, for the tests after this one
	gds_nvme_rdma stock || rc=1
	rmmod sfab_accel || rc=1
	cp /tmp/gds.bench "$lab/ulp/gds.bench"
	echo "stock-nvme-rdma-p2p $stock" >> "$lab/ulp/gds.bench"
	return $rc
}

t_gds() {
	if [ "$role" = server ]; then
		gds_target
	else
		gds_host
	fi
}

# --- robustness: the consumers survive what happens to a fabric --------------

# ping_peer: three pings of the peer over IPoIB answered, within 60 s
ping_peer() {
	local out
	out=$(ping -c 3 -i 0.5 -w 60 "$(ip_of "$peer")" 2>&1)
	echo "$out" | grep -E 'received|rtt'
	grep -q ' 3 received' <<< "$out"
}

# ulp/ipoib-down-up: ib0 down (its QPs and multicast groups released) and
# up again (the broadcast group joined again): carrier, the peer answers
t_ipoib_down_up() {
	local rc=0
	ip link set ib0 down || return 1
	sleep 1
	ip link set ib0 up || return 1
	wait_ib0_carrier 120 || rc=1
	uput "downup.$me"
	uwait "downup.$peer" "$ULP_TIMEOUT" || rc=1
	ping_peer || { echo "no ping after ib0 down/up"; rc=1; }
	uput "downup.done.$me"
	uwait "downup.done.$peer" "$ULP_TIMEOUT" || rc=1
	return $rc
}

# ulp/opensm-restart: opensm (first node) stops and starts again while an
# rping connection (RC, through rdma_cm) runs between the pair: it goes on
# across the restart; IPoIB rejoins its groups after the new SM's client
# reregistration and resolves paths through it; a new rdma_cm connection
# works
rping_count() { grep -c 'ping data' "$1" 2>/dev/null; }
t_opensm_restart() {
	local rc=0 i n1 n2 pid t
	if [ "$role" = server ]; then
		stdbuf -oL rping -s -a "$(ip_of "$me")" -v -S 100 > /tmp/rping-sm.log 2>&1 &
		pid=$!
		sleep 1
		uput smr.ready
		uwait smr.running "$ULP_TIMEOUT" || rc=1
		sm_stop
		mv /var/log/opensm.log /var/log/opensm.before-restart.log
		echo "opensm stopped after $(rping_count /tmp/rping-sm.log) pings"
		sleep 3
		sm_start 5
		echo "opensm started again"
		uput smr.restarted
		uwait smr.stopped 300 || rc=1
		# the client's end went away: a DREQ through the IB CM, and
		# the server's QP flushed
		if ! gone "$pid" 30; then
			echo "the rping server did not see the client go: $(grep State /proc/$pid/status)"
			for t in /proc/$pid/task/*; do
				echo "thread ${t##*/}: $(cat "$t/wchan" 2>/dev/null)"
				cat "$t/stack" 2>/dev/null
			done
			kill -9 "$pid"
			rc=1
			gone "$pid" 10 || echo "rping does not die: $(grep State /proc/$pid/status)"
		fi
		kill -0 "$pid" 2>/dev/null || wait "$pid"
		echo "rping server: $(rping_count /tmp/rping-sm.log) pings"
		grep -v 'ping data' /tmp/rping-sm.log | tail -n 5
		rm -f /tmp/rping-sm.log
		pair_server rping2 rping -s -a "$(ip_of "$me")" -v -C 10 -S 1000 || rc=1
		uwait smr.done 300 || rc=1
		return $rc
	fi
	uwait smr.ready "$ULP_TIMEOUT" || { uput smr.running; uput smr.done; return 1; }
	(timeout 300 stdbuf -oL rping -c -a "$(ip_of "$peer")" -v -S 100 > /tmp/rping-smc.log 2>&1) &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		[ "$(rping_count /tmp/rping-smc.log)" -gt 10 ] && break
		sleep 0.2
	done
	uput smr.running
	uwait smr.restarted 300 || rc=1
	n1=$(rping_count /tmp/rping-smc.log)
	sleep 5
	n2=$(rping_count /tmp/rping-smc.log)
	echo "rping: $n1 pings when the new SM was up, $n2 five seconds later"
	[ "${n2:-0}" -gt "${n1:-0}" ] || { echo "the RC connection stalled across the SM restart"; tail -n 3 /tmp/rping-smc.log; rc=1; }
	pkill -f "rping -c -a $(ip_of "$peer")"
	wait
	rm -f /tmp/rping-smc.log
	uput smr.stopped
	for ((i = 0; i < 5; i++)); do
		ping_peer && break
		sleep 5
	done
	[ $i -lt 5 ] || { echo "no IPoIB ping after the SM restart"; rc=1; }
	pair_client rping2 rping -c -a "$(ip_of "$peer")" -v -C 10 -S 1000 || rc=1
	uput smr.done
	return $rc
}

# ulp/nvme-disconnect-io: nvme disconnect while fio runs on the namespace:
# fio ends with I/O errors, nothing hangs; connected again, verify passes
t_nvme_disconnect_io() {
	local dev rc=0 t0 pid
	if [ "$role" = server ]; then
		nvme_serve || { uput nvmedc.ready fail; return 1; }
		uput nvmedc.ready ok
		uwait nvmedc.done 400 || rc=1
		nvmet_teardown "$NQN" || { echo "nvmet teardown failed"; rc=1; }
		return $rc
	fi
	uwait nvmedc.ready "$ULP_TIMEOUT" && [ "$(cat "$lab/ulp/nvmedc.ready")" = ok ] ||
		{ uput nvmedc.done; return 1; }
	nvme connect -t rdma -a "$(ip_of "$peer")" -s 4420 -n "$NQN" &&
	dev=$(nvme_ns_dev "$NQN") || { echo "connect failed"; uput nvmedc.done; return 1; }
	fio --name=load --filename="$dev" --ioengine=libaio --direct=1 --rw=randrw \
		--bs=4k --iodepth=32 --size=64M --time_based --runtime=120 > /tmp/fio-dc.log 2>&1 &
	pid=$!
	sleep 8
	t0=$(now)
	timeout 60 nvme disconnect -n "$NQN" || { echo "nvme disconnect during I/O failed or hung"; rc=1; }
	echo "disconnected during I/O in $(since "$t0") s"
	if ! gone "$pid" 60; then
		echo "fio still runs 60 s after the disconnect"
		kill -9 "$pid"
		rc=1
	fi
	wait "$pid"
	echo "fio ended with status $? after the disconnect: $(grep -m1 -iE 'error|err=' /tmp/fio-dc.log)"
	nvme list-subsys 2>/dev/null | grep -q "$NQN" && { echo "the subsystem is still there"; rc=1; }
	nvme connect -t rdma -a "$(ip_of "$peer")" -s 4420 -n "$NQN" &&
	dev=$(nvme_ns_dev "$NQN") || { echo "connect again failed"; uput nvmedc.done; return 1; }
	fio --name=verify --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
		--bs=4k --iodepth=8 --size=8M --verify=crc32c --do_verify=1 --verify_fatal=1 \
		> /tmp/fio-dc2.log 2>&1 || { tail -n 5 /tmp/fio-dc2.log; rc=1; }
	echo "connected again: fio verify status $rc"
	nvme disconnect -n "$NQN" || rc=1
	uput nvmedc.done
	return $rc
}

# restrack: sfab_0's resource counts ("pd N cq N qp N cm_id N mr N ...")
restrack() {
	rdma resource show 2>/dev/null | sed -n 's/^[0-9]*: sfab_0: //p'
}

# restrack_count KIND [COUNTS]: N from "KIND N" in COUNTS (default: the
# counts restrack gives now)
restrack_count() {
	sed -n "s/.* $1 \([0-9]*\).*/\1/p" <<< " ${2-$(restrack)}"
}

# ulp/restrack: every consumer torn down (IPoIB and the storage modules
# unloaded): sfab_0's tracked resources are what they were before the
# tier loaded any of them.  Only ib_core's shared CQ pool
# (ib_cq_pool_get(), which nvme-rdma, nvmet-rdma, iSER and SRP draw on)
# may remain: it keeps its CQs until the device goes, at most one per
# CPU and polling context.
RESTRACK_ULPS="ib_ipoib nvme_rdma nvmet_rdma ib_iser ib_isert ib_srp ib_srpt nfsv3 nfsv4 nfs nfsd rpcrdma"
t_restrack() {
	local m k base rc=0 i bad cq0 cq1
	uput "restrack.$me"
	uwait "restrack.$peer" "$ULP_TIMEOUT" || rc=1
	ip link set ib0 down 2>/dev/null
	for m in $RESTRACK_ULPS; do
		grep -q "^$m " /proc/modules || continue
		rmmod "$m" || { echo "rmmod $m failed: $(grep "^$m " /proc/modules)"; rc=1; }
	done
	base=$(cat /tmp/restrack.base)
	echo "before the consumers: $base"
	for ((i = 0; i < 50; i++)); do
		bad=
		for k in pd qp cm_id mr ctx srq; do
			[ "$(restrack_count $k)" = "$(restrack_count $k "$base")" ] ||
				bad="$bad $k"
		done
		[ -z "$bad" ] && break
		sleep 0.2
	done
	echo "after their teardown: $(restrack)"
	[ -z "$bad" ] || { echo "not back to the baseline:$bad"; rdma resource show qp 2>&1 | head -n 20; rc=1; }
	cq0=$(restrack_count cq "$base")
	cq1=$(restrack_count cq)
	echo "CQs: $cq0 before, $cq1 after:"
	rdma resource show cq 2>&1 | grep sfab_0
	if rdma resource show cq 2>/dev/null | grep sfab_0 | grep -v 'comm \[ib_core\]'; then
		echo "a consumer's CQ outlived it"
		rc=1
	fi
	[ "$cq1" -le $((cq0 + 3 * $(nproc))) ] || { echo "more CQs than ib_core's pool may hold"; rc=1; }
	uput "restrack.done.$me"
	uwait "restrack.done.$peer" "$ULP_TIMEOUT" || rc=1
	return $rc
}

# ulp/rmmod-active (the last node; the first, IPoIB up again, serves NVMe):
# rmmod sfab while IPoIB is up, an NVMe
# controller connected, an rdma_cm listener and a verbs program waiting;
# it must finish (ib_core tells each consumer to let go), the consumers
# must end, and sfab comes back after insmod
t_rmmod_active() {
	local rc=0 t0 i p1 p2 st
	if [ "$role" = server ]; then
		ib_up && nvme_serve || { uput rmmod.ready fail; return 1; }
		uput rmmod.ready ok
		uwait rmmod.done 600 || rc=1
		nvmet_teardown "$NQN" || { echo "nvmet teardown failed"; rc=1; }
		return $rc
	fi
	load_ko nvme_rdma && ib_up || { uput rmmod.done; return 1; }
	uwait rmmod.ready "$ULP_TIMEOUT" && [ "$(cat "$lab/ulp/rmmod.ready")" = ok ] ||
		{ uput rmmod.done; return 1; }
	ping_peer || rc=1
	nvme connect -t rdma -a "$(ip_of "$peer")" -s 4420 -n "$NQN" && nvme_ns_dev "$NQN" ||
		{ echo "nvme connect failed"; rc=1; }
	rping -s -a "$(ip_of "$me")" -p 7999 > /tmp/rping-rm.log 2>&1 &
	p1=$!
	ibv_rc_pingpong -d sfab_0 -g 0 -p 18999 > /tmp/pp-rm.log 2>&1 &
	p2=$!
	sleep 2
	echo "before rmmod: $(restrack); ib0 $(cat /sys/class/net/ib0/operstate); $(nvme list-subsys 2>/dev/null | grep -c "$NQN") NVMe subsystem"
	t0=$(now)
	timeout 300 rmmod sfab
	st=$?
	echo "rmmod sfab: status $st after $(since "$t0") s"
	[ $st = 0 ] || rc=1
	if [ $st = 124 ]; then
		echo "rmmod sfab hung"
		cat /proc/$(pgrep -x rmmod)/stack 2>/dev/null
	fi
	# rdma_cm told rping (RDMA_CM_EVENT_DEVICE_REMOVAL): it ends
	gone "$p1" 20 || { echo "rping still runs 20 s after rmmod"; kill -9 "$p1"; rc=1; }
	# ibv_rc_pingpong waits in accept() for its peer and reads no
	# async events: ib_uverbs disassociated its context (rmmod did not
	# wait for it); it ends on SIGTERM, nothing of it left in the kernel
	kill "$p2" 2>/dev/null
	gone "$p2" 10 ||
		{ echo "ibv_rc_pingpong does not end on SIGTERM: $(grep State /proc/$p2/status)"; kill -9 "$p2"; rc=1; }
	wait "$p1" "$p2"
	echo "rping: $(tail -n 1 /tmp/rping-rm.log); ibv_rc_pingpong: $(tail -n 1 /tmp/pp-rm.log)"
	[ -e /sys/class/net/ib0 ] && { echo "ib0 is still there"; rc=1; }
	nvme list-subsys 2>/dev/null | grep -q "$NQN" && { echo "the NVMe controller is still there"; rc=1; }
	[ -e /sys/class/infiniband/sfab_0 ] && { echo "sfab_0 is still registered"; rc=1; }
	uput rmmod.done
	# and back: the port trains and the SM makes it Active again
	insmod "$SFAB_MODDIR/sfab.ko" || { echo "insmod sfab.ko failed"; return 1; }
	for ((i = 0; i < 600; i++)); do
		[ "$(port_info | cut -d' ' -f1)" = Active ] && break
		sleep 0.2
	done
	echo "after insmod: port 1 $(port_info)"
	[ "$(port_info | cut -d' ' -f1)" = Active ] || rc=1
	return $rc
}

# --- ulp/pyverbs-rdmacm: rdma-core's rdmacm tests (tests/test_rdmacm.py),
# which need sfab_0's netdev with an address: ib0.  Both sides run in this
# node (the HCA loops them back); every test must run and pass, none skip.
t_pyverbs_rdmacm() {
	local log=/tmp/pyverbs-rdmacm.log rc=0 ran
	(cd /tmp && timeout 600 "$SFAB_RDMA/bin/run_tests.py" --dev sfab_0 -v \
		-k 'tests.test_rdmacm.') > "$log" 2>&1 || rc=$?
	grep -E ' \.\.\. |^Ran |^OK|^FAILED' "$log"
	[ "$rc" = 0 ] || { tail -n 40 "$log"; return 1; }
	ran=$(sed -n 's/^Ran \([0-9]*\) test.*/\1/p' "$log")
	[ "${ran:-0}" -ge 10 ] || { echo "only ${ran:-0} tests ran"; return 1; }
	! grep -q 'skipped' "$log" || { echo "a test skipped"; return 1; }
}

restrack > /tmp/restrack.base
ltest ulp ipoib-ping t_ipoib_ping
if [ "$me" = "$first" ] || [ "$me" = "$last" ]; then
	ltest ulp ipoib-tcp t_ipoib_tcp
	ltest ulp ipoib-cm t_ipoib_cm
	ltest ulp rping t_rping
	ltest ulp ucmatose t_ucmatose
	ltest ulp udaddy t_udaddy
	ltest ulp mckey t_mckey
	ltest ulp nvme-rdma-fio t_nvme_rdma_fio
	ltest ulp nfs-rdma t_nfs_rdma
	ltest ulp iser t_iser
	ltest ulp srp t_srp
	ltest ulp gds-p2p t_gds
	ltest ulp ipoib-down-up t_ipoib_down_up
	ltest ulp opensm-restart t_opensm_restart
	# the opensm that test started, for sm_end to stop
	[ "$me" = "$sm" ] && SM_PID=$(pgrep -x opensm | head -n 1)
	ltest ulp nvme-disconnect-io t_nvme_disconnect_io
	ltest ulp restrack t_restrack
	ltest ulp rmmod-active t_rmmod_active
fi
[ "$me" = "$first" ] && ltest ulp pyverbs-rdmacm t_pyverbs_rdmacm

touch "$lab/$me.ulp.done"
sm_end 900
