# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest half of the ulp tier (tests/ulp/lib/ulp.guest.sh)
# after tests/fabric/lib/sm.guest.bash: IPoIB addresses, steps between
# the nodes that a failed test survives (uwait returns instead of
# failing the lab), and the server/client pairs of the rdma_cm tools.

ULP_NET=10.77.0
ULP_TIMEOUT=150
mkdir -p "$lab/ulp"

# ip_of NODE: its IPoIB address (n3: 10.77.0.3)
ip_of() { echo "$ULP_NET.${1#n}"; }

# uput NAME [TEXT]: the lab file ulp/NAME, written whole
uput() {
	echo "${2:-}" > "$lab/ulp/.$1.tmp" && mv "$lab/ulp/.$1.tmp" "$lab/ulp/$1"
}

# uwait NAME SECONDS: wait for ulp/NAME; 1 (and why) when it does not come
uwait() {
	local end=$((SECONDS + $2))
	while [ ! -e "$lab/ulp/$1" ]; do
		[ $SECONDS -lt $end ] || { echo "no ulp/$1 after $2 s"; return 1; }
		sleep 0.2
	done
}

# ib_up: ib_ipoib loaded, ib0 up with this node's address and carrier
# (also verbs/pyverbs's, for the rdma_cm tests of the suite)
ib_up() {
	local i
	load_ko ib_ipoib || return 1
	for ((i = 0; i < 100; i++)); do
		[ -e /sys/class/net/ib0 ] && break
		sleep 0.1
	done
	[ -e /sys/class/net/ib0 ] || { echo "no ib0 after insmod ib_ipoib"; return 1; }
	ip link set ib0 up && ip addr add "$(ip_of "$me")/24" dev ib0 || return 1
	wait_ib0_carrier 120
}

# wait_ib0_carrier SECONDS: ib0 has carrier (IPoIB joined the broadcast group)
wait_ib0_carrier() {
	local end=$((SECONDS + $1))
	while [ "$(cat /sys/class/net/ib0/carrier 2>/dev/null)" != 1 ]; do
		[ $SECONDS -lt $end ] || {
			echo "ib0 has no carrier after $1 s: $(ip -d link show ib0 2>&1 | head -n 3)"
			dmesg | grep -iE 'ib0|ipoib|multicast' | tail -n 10
			return 1
		}
		sleep 0.2
	done
}

# pair_server TAG CMD...: run CMD (the server of a pair test); its
# output goes to stdout once it ends and the client has finished.  The
# status is CMD's.
pair_server() {
	local tag=$1 rc=0 pid
	shift
	rm -f "$lab/ulp/$tag.ready" "$lab/ulp/$tag.server.rc" "$lab/ulp/$tag.client.rc"
	(timeout "$ULP_TIMEOUT" stdbuf -oL "$@" > "/tmp/$tag.server.log" 2>&1; echo $? > "/tmp/$tag.rc") &
	pid=$!
	sleep 1
	uput "$tag.ready"
	# this server only: the test may have started others (opensm)
	wait "$pid"
	rc=$(cat "/tmp/$tag.rc")
	uput "$tag.server.rc" "$rc"
	echo "server: $*: exit status $rc"
	cat "/tmp/$tag.server.log"
	uwait "$tag.client.rc" "$ULP_TIMEOUT" || rc=1
	return "$rc"
}

# pair_client TAG CMD...: once the server is up, run CMD, again while it
# fails and the server still runs (it may not listen yet: a TCG guest)
pair_client() {
	local tag=$1 rc=1 try
	shift
	uwait "$tag.ready" "$ULP_TIMEOUT" || { uput "$tag.client.rc" 1; return 1; }
	for ((try = 1; try <= 10; try++)); do
		rc=0
		timeout "$ULP_TIMEOUT" stdbuf -oL "$@" > "/tmp/$tag.client.log" 2>&1 || rc=$?
		[ "$rc" = 0 ] && break
		[ -e "$lab/ulp/$tag.server.rc" ] && break
		echo "client: try $try: exit status $rc: $(tail -n 2 "/tmp/$tag.client.log")"
		sleep 2
	done
	uput "$tag.client.rc" "$rc"
	echo "client: $*: exit status $rc"
	cat "/tmp/$tag.client.log"
	return "$rc"
}

# gone PID SECONDS: PID has exited, or does within SECONDS
gone() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	! kill -0 "$1" 2>/dev/null
}

# tcp_send_file PEER_IP PORT FILE: nc to a listening peer, again while
# it refuses
tcp_send_file() {
	local try
	for ((try = 1; try <= 20; try++)); do
		timeout "$ULP_TIMEOUT" nc -N "$1" "$2" < "$3" && return 0
		sleep 1
	done
	echo "nc to $1:$2 failed 20 times"
	return 1
}
