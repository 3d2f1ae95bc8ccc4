# SPDX-License-Identifier: GPL-2.0-only
# Guest half of the ulp tier (tests/ulp/run-ulp; host half ulp.host.sh),
# on tests/configs/topologies/leafspine.topo: the kernel's own RDMA
# consumers, unmodified, over sfab.  Every node brings up its HCA,
# opensm (in the first node) makes the fabric Active, every node loads
# ib_ipoib and joins the IPoIB broadcast group through opensm's SA; then
# the tests run one after the other, each reported by name (ltest).  The
# pair tests run between the first node and the last (leaf, spine,
# leaf): the first is the server.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/ulp/lib/ulp.bash"
. "$SFAB_TOP/tests/ulp/lib/nvme.bash"
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
	local n i bad=0
	load_ko ib_ipoib || return 1
	for ((i = 0; i < 100; i++)); do
		[ -e /sys/class/net/ib0 ] && break
		sleep 0.1
	done
	[ -e /sys/class/net/ib0 ] || { echo "no ib0 after modprobe ib_ipoib"; return 1; }
	ip link set ib0 up && ip addr add "$(ip_of "$me")/24" dev ib0 || return 1
	wait_ib0_carrier 120 || return 1
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
	else
		head -c 16M /dev/urandom > /tmp/cm.tx
		if uwait cmtcp.ready "$ULP_TIMEOUT" &&
		   tcp_send_file "$(ip_of "$peer")" 5002 /tmp/cm.tx; then
			uput cmtcp.sum "$(sha256sum < /tmp/cm.tx | cut -d' ' -f1)"
		else
			uput cmtcp.sum none
			rc=1
		fi
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
t_nvme_rdma_fio() {
	local dev rc=0
	if [ "$role" = server ]; then
		load_ko null_blk nr_devices=1 gb=1 bs=4096 memory_backed=1 &&
		nvmet_subsys "$NQN" /dev/nullb0 && nvmet_port 1 "$(ip_of "$me")" "$NQN" || {
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
	fio --name=verify --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randrw --bs=4k --iodepth=16 --size=32M --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --output-format=terse --terse-version=3 \
		> /tmp/fio.terse 2> /tmp/fio.err || rc=1
	cat /tmp/fio.err
	awk -F';' '{ printf "fio: read %s KiB/s %s IOPS, write %s KiB/s %s IOPS, fio errors %s\n", $7, $8, $48, $49, $5 }' /tmp/fio.terse
	nvme disconnect -n "$NQN" || rc=1
	uput nvme.done
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

ltest ulp ipoib-ping t_ipoib_ping
if [ "$me" = "$first" ] || [ "$me" = "$last" ]; then
	ltest ulp ipoib-tcp t_ipoib_tcp
	ltest ulp ipoib-cm t_ipoib_cm
	ltest ulp rping t_rping
	ltest ulp ucmatose t_ucmatose
	ltest ulp udaddy t_udaddy
	ltest ulp mckey t_mckey
	ltest ulp nvme-rdma-fio t_nvme_rdma_fio
fi
[ "$me" = "$first" ] && ltest ulp pyverbs-rdmacm t_pyverbs_rdmacm

touch "$lab/$me.ulp.done"
sm_end 900
