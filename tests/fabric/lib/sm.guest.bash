# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest halves of the opensm tests (tests/fabric/lib/*.guest.sh,
# which tools/sfab-lab runs in every node; the checkout is visible in the
# guest at $SFAB_TOP).  Debian's opensm and infiniband-diags run unmodified
# from the host's /usr/sbin, on the project's rdma-core build
# (LD_LIBRARY_PATH: libibumad, libibmad, libibnetdisc).
#
# Steps between the nodes and the host half are files in the lab share
# $SFAB_LAB_OUT:
#   NODE.up      sfab_0 port 1 is LinkUp (Init or beyond)
#   sm.up        opensm in $SFAB_OPENSM said SUBNET UP
#   NODE.active  port 1 Active with a LID: "LID PORT_GUID NODE_GUID"
#   NODE.fail, host.fail   a failure, the text says what; everyone stops
#   step.done    the host half is done: the nodes check their kernel logs
#                and end
set -u
lab=$SFAB_LAB_OUT
me=$SFAB_NODE
sm=${SFAB_OPENSM:-}
SM_PID=
dmesg_mark=$(dmesg | wc -l)

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
ok() { echo "ok: $me: $*"; }

sm_stop() {
	local i
	[ -n "$SM_PID" ] || return 0
	kill "$SM_PID" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		kill -0 "$SM_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$SM_PID" 2>/dev/null
	SM_PID=
	cp /var/log/opensm.log "$lab/opensm.log" 2>/dev/null
	cp /tmp/opensm.out "$lab/opensm.out" 2>/dev/null
}

# what a failure report needs from this guest: port counters (the local
# PMA, through process_mad), the driver's hardware counters, kernel
# messages of the RDMA stack
sm_diag() {
	local d=/sys/class/infiniband/sfab_0/ports/1
	echo "--- $me: sfab_0 port 1 counters"
	(cd "$d/counters" 2>/dev/null && grep -H . port_xmit_packets port_rcv_packets \
		port_xmit_data port_rcv_data port_rcv_errors port_xmit_discards 2>/dev/null)
	(cd "$d/hw_counters" 2>/dev/null && grep -H . * 2>/dev/null | grep -v ':0$')
	echo "--- $me: kernel messages (sfab, ib_mad, umad)"
	dmesg | grep -iE 'sfab|mad|umad|infiniband' | tail -n 20
}

fail() {
	echo "FAIL: $me: $*"
	# opensm's logs first: the lab may stop every guest once it sees
	# the failure
	sm_stop
	echo "$*" > "$lab/$me.fail"
	sm_diag
	exit 1
}

# another party failed: end this node's part
others() {
	local f
	for f in "$lab"/*.fail; do
		[ -e "$f" ] || continue
		[ "$f" = "$lab/$me.fail" ] && continue
		echo "$me: stopping: $(basename "$f" .fail) failed: $(cat "$f")"
		sm_stop
		exit 1
	done
}

# put_file NAME TEXT...: write the lab file NAME whole at once (a temporary
# file renamed), so that whoever waits for it with wait_file never reads
# it half written
put_file() {
	local name=$1
	shift
	echo "$*" > "$lab/.$name.tmp" && mv "$lab/.$name.tmp" "$lab/$name"
}

# wait_file NAME SECONDS
wait_file() {
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		[ -e "$lab/$1" ] && return 0
		others
		sleep 0.2
	done
	fail "no $1 after $2 s"
}

# model_req TAG SECONDS: sfab-lab's answer to the share request TAG
# (model_stats, fault_inject, hotplug); status 1 on "error: ..." or none
model_req() {
	local d=$lab/.model i
	rm -f "$d/$me.$1"
	echo "$1" > "$d/.$me.req.tmp" && mv "$d/.$me.req.tmp" "$d/$me.req" || return 1
	for ((i = 0; i < $2 * 10; i++)); do
		if [ -e "$d/$me.$1" ]; then
			grep -q '^error:' "$d/$me.$1" && { cat "$d/$me.$1"; return 1; }
			cat "$d/$me.$1"
			return 0
		fi
		sleep 0.1
	done
	echo "sfab-lab did not answer the request '$1' in $2 s"
	return 1
}

# model_stats TAG: this node's device model counters, a "DEVICE NAME
# VALUE" line for each (hca0 stat-dma-read-peer-bytes 4096), as
# `sfab-lab model` prints them: sfab-lab reads them over QEMU's QMP
# monitor when asked through the share (Documentation/sfab/fabric.rst).
# One request at a time per node; 20 s for the answer.
model_stats() { model_req "$1" 20; }

# fault_inject FAULT: FAULT into this node's own HCA model
# (Documentation/sfab/registers.rst, "Fault injection"): sfab-lab does the
# QMP qom-set when asked through the share, as for model_stats
fault_inject() {
	local out
	out=$(model_stats "inject-$1") || { echo "$out"; return 1; }
	[ "$out" = "$1 injected" ] || { echo "sfab-lab: '$out'"; return 1; }
}

# hotplug unplug|plug: this node's HCA out of its PCIe slot (QMP
# device_del: pciehp removes it; sfab-lab answers once QEMU has it gone)
# or back in (device_add), as `sfab-lab hotplug` does
hotplug() {
	local out
	out=$(model_req "$1" 90) || { echo "$out"; return 1; }
	[ "$out" = "hca0 ${1}ged" ] || { echo "sfab-lab: '$out'"; return 1; }
}

# ltest TIER NAME CMD...: run CMD in a subshell as test TIER/NAME on this
# node; its output and "STATUS SECONDS" go to the lab share, TIER/NAME.NODE.log
# and TIER/NAME.NODE.rc, which tests/fabric/lib/labtier.bash reports.  A
# failed test does not stop the others.
ltest() {
	local tier=$1 name=$2 rc=0 t0
	shift 2
	mkdir -p "$lab/$tier"
	t0=$(now)
	("$@") > "$lab/$tier/$name.$me.log" 2>&1 || rc=$?
	echo "$rc $(since "$t0")" > "$lab/$tier/.$name.$me.rc.tmp"
	mv "$lab/$tier/.$name.$me.rc.tmp" "$lab/$tier/$name.$me.rc"
	if [ "$rc" = 0 ]; then
		ok "$tier/$name passed"
	else
		echo "$me: $tier/$name failed ($rc): $(tail -n 3 "$lab/$tier/$name.$me.log")"
	fi
}

# load_ko MODULE [PARAM=VALUE...]: insmod the guest kernel's MODULE.ko
# ($KDIR) with the parameters, after the modules it depends on
load_ko() {
	local ko dep m=${1//-/_}
	shift
	# KDIR: the build's guest.env, next to $SFAB_MODDIR
	[ -n "${KDIR:-}" ] || . "$(dirname "$SFAB_MODDIR")/guest.env"
	# the file may spell the name with '-' (nvme-rdma.ko: nvme_rdma)
	ko=$(find "$KDIR" \( -name "$m.ko" -o -name "${m//_/-}.ko" \) | head -n 1)
	[ -n "$ko" ] || { echo "no $m.ko in $KDIR"; return 1; }
	for dep in $(modinfo -F depends "$ko" | tr ,- ' _'); do
		grep -q "^$dep " /proc/modules || load_ko "$dep" || return 1
	done
	grep -q "^$m " /proc/modules || insmod "$ko" "$@" || { echo "insmod $ko $* failed"; return 1; }
}

# rxe_up: eth0 up with 10.99.0.<n>/24 and rdma_rxe's rxe0 on it, Active
# (the sfab-versus-rxe benchmark and verbs/pyverbs-vs-rxe); the lab's
# "ethernet" link must be up at both ends, or it stops draining
rxe_up() {
	local i
	ip link set eth0 up && ip addr add "10.99.0.${me#n}/24" dev eth0 ||
		{ echo "eth0: $(ip link 2>&1)"; return 1; }
	# rxe computes its ICRC with the kernel crypto API ("crc32"): a soft
	# dependency modinfo does not list
	load_ko crc32_generic && load_ko rdma_rxe || return 1
	rdma link add rxe0 type rxe netdev eth0 || { echo "rdma link add rxe0 failed"; return 1; }
	for ((i = 0; i < 100; i++)); do
		ibv_devinfo -d rxe0 2>/dev/null | grep -q PORT_ACTIVE && return 0
		sleep 0.1
	done
	echo "rxe0 not active: $(ibv_devinfo -d rxe0 2>&1)"
	return 1
}

# port 1 of sfab_0 as ibstat shows it: "STATE PHYS LID SMLID"
port_info() {
	ibstat sfab_0 1 2>/dev/null | awk -F': *' '
		{ sub(/^[ \t]+/, "", $1) }
		$1 == "State" { s = $2 } $1 == "Physical state" { p = $2 }
		$1 == "Base lid" { l = $2 } $1 == "SM lid" { m = $2 }
		END { print (s ? s : "?"), (p ? p : "?"), l + 0, m + 0 }'
}

port_guid() { ibstat -p sfab_0 2>/dev/null | head -n 1; }
node_guid() { echo "0x$(tr -d : < /sys/class/infiniband/sfab_0/node_guid)"; }

# sfab.ko loaded, sfab_0 registered, port 1 LinkUp (NODE.up), and ib_mad
# has its agents on sfab_0's QP0/QP1 (a failure when it has not)
sm_node_up() {
	sm_port_up
	sm_mad_agents || fail "sfab_0 has no MAD agents (host QP0/QP1): opensm cannot bind"
}

sm_port_up() {
	local i st t0
	t0=$(now)
	insmod "$SFAB_MODDIR/sfab.ko" || fail "insmod sfab.ko failed"
	for ((i = 0; i < 100; i++)); do
		[ -e /sys/class/infiniband/sfab_0 ] && break
		sleep 0.1
	done
	[ -e /sys/class/infiniband/sfab_0 ] || fail "sfab_0 did not appear"
	for ((i = 0; i < 300; i++)); do
		st=$(port_info)
		case "$st" in *" LinkUp "*) break ;; esac
		sleep 0.2
	done
	case "$st" in
	*" LinkUp "*) ;;
	*) fail "port 1 is '$st' 60 s after insmod, not LinkUp" ;;
	esac
	ok "port 1 $st ($(since "$t0") s after insmod)"
	touch "$lab/$me.up"
}

# true when ib_mad opened QP0/QP1 on sfab_0: a umad device for sfab_0
# (ib_umad) and no "Couldn't open port" from ib_mad
sm_mad_agents() {
	local d i umad=
	for ((i = 0; i < 50; i++)); do
		for d in /sys/class/infiniband_mad/umad*; do
			[ "$(cat "$d/ibdev" 2>/dev/null)" = sfab_0 ] && umad=${d##*/}
		done
		[ -n "$umad" ] && break
		sleep 0.1
	done
	if [ -z "$umad" ]; then
		echo "$me: no /sys/class/infiniband_mad/umad* for sfab_0"
		return 1
	fi
	if dmesg | grep -E 'sfab_0: Couldn.t (open port|create ib_mad)'; then
		return 1
	fi
	[ -c "/dev/infiniband/$umad" ] || fail "no /dev/infiniband/$umad (devtmpfs)"
	ok "sfab_0 has MAD agents ($umad)"
	return 0
}

# in $SFAB_OPENSM: start Debian's opensm on sfab_0 port 1 and wait for
# SUBNET UP; then sm.up.  SWEEP: opensm's sweep interval in seconds.
# With SWEEP 0 opensm sweeps once, at start, and sfab-switchd sends no
# traps to start another: every node's port must be LinkUp (NODE.up)
# before it starts, or a node whose link came up later stays in Init.
sm_start() {
	local sweep=${1:-5} guid t0 i n
	[ "$me" = "$sm" ] || return 0
	guid=$(port_guid)
	[ -n "$guid" ] || fail "ibstat -p sfab_0 gave no port GUID"
	if [ "$sweep" = 0 ]; then
		for n in $SFAB_NODES; do
			wait_file "$n.up" 300
		done
	fi
	mkdir -p /var/cache/opensm /var/log
	t0=$(now)
	# a 1 s MAD transaction timeout, not opensm's 200 ms: TCG guests
	# sharing a few host CPUs answer SMPs over several hops slower than
	# that, and each timeout costs opensm a sweep; the log flushed at
	# once, for "SUBNET UP" and for whoever reads it during the test
	cat > /tmp/opensm.conf <<-EOF
	transaction_timeout 1000
	force_log_flush TRUE
	EOF
	# a test's own options (sec/mkey: the M_Key opensm sets everywhere)
	[ -z "${SM_CONF_EXTRA:-}" ] || printf '%s\n' "$SM_CONF_EXTRA" >> /tmp/opensm.conf
	setsid /usr/sbin/opensm -F /tmp/opensm.conf -g "$guid" -f /var/log/opensm.log -s "$sweep" \
		> /tmp/opensm.out 2>&1 < /dev/null &
	SM_PID=$!
	for ((i = 0; i < 600; i++)); do
		grep -q 'SUBNET UP' /tmp/opensm.out /var/log/opensm.log 2>/dev/null && break
		if ! kill -0 "$SM_PID" 2>/dev/null; then
			SM_PID=
			tail -n 20 /tmp/opensm.out
			tail -n 40 /var/log/opensm.log 2>/dev/null
			fail "opensm exited before SUBNET UP"
		fi
		others
		sleep 0.2
	done
	if ! grep -q 'SUBNET UP' /tmp/opensm.out /var/log/opensm.log 2>/dev/null; then
		grep -E 'ERR|error' /var/log/opensm.log 2>/dev/null | tail -n 20
		fail "no SUBNET UP from opensm after 120 s"
	fi
	ok "opensm on port $guid: SUBNET UP after $(since "$t0") s"
	touch "$lab/sm.up"
}

# port 1 Active with a non-zero LID (ibstat), within SECONDS; writes
# NODE.SUFFIX (default NODE.active) "LID PORT_GUID NODE_GUID"
sm_wait_active() {
	local st end=$((SECONDS + ${1:-120})) t0 suffix=${2:-active}
	t0=$(now)
	while [ $SECONDS -lt $end ]; do
		st=$(port_info)
		set -- $st
		if [ "$1" = Active ] && [ "$2" = LinkUp ] && [ "$3" -gt 0 ]; then
			ok "port 1 Active, LID $3, SM LID $4 ($(since "$t0") s)"
			echo "$3 $(port_guid) $(node_guid)" > "$lab/$me.$suffix"
			return 0
		fi
		others
		sleep 0.2
	done
	fail "port 1 is '$st' (state phys lid smlid), not Active with a LID"
}

# port 1 Down (ibstat) within SECONDS; writes NODE.down
sm_wait_down() {
	local st end=$((SECONDS + ${1:-30})) t0
	t0=$(now)
	while [ $SECONDS -lt $end ]; do
		st=$(port_info)
		if [ "${st%% *}" = Down ]; then
			ok "port 1 $st ($(since "$t0") s)"
			touch "$lab/$me.down"
			return 0
		fi
		others
		sleep 0.2
	done
	fail "port 1 is '$st' (state phys lid smlid), not Down"
}

# the LID a node reported in NODE.active
lid_of() { cut -d' ' -f1 "$lab/$1.active"; }

# wait for step.done, check this guest's kernel log, stop opensm
sm_end() {
	local bad
	wait_file step.done "${1:-300}"
	bad=$(dmesg | tail -n +$((dmesg_mark + 1)) | "$SFAB_TOP/tools/sfab-kreport" -)
	sm_stop
	[ -z "$bad" ] || fail "kernel log: $bad"
	ok "done"
	exit 0
}

# in $SFAB_OPENSM: every node Active and the host's switch checks done
# (SW.switch and NODE.attach written)
sm_wait_fabric() {
	local n
	for n in $SFAB_NODES; do
		wait_file "$n.active" 300
	done
	wait_file step.switches 120
}

# sm_traps NUM MIN: in $SFAB_OPENSM, wait up to 10 s until opensm's log
# has at least MIN notices of trap NUM; fails the node if it has not;
# SM_TRAPS: how many there are
sm_traps() {
	local k n=0
	for ((k = 0; k < 50; k++)); do
		n=$(grep -c "num:$1 " /var/log/opensm.log 2>/dev/null)
		[ "${n:-0}" -ge "$2" ] && break
		sleep 0.2
	done
	[ "${n:-0}" -ge "$2" ] ||
		fail "opensm logged ${n:-0} trap $1 notices, want >= $2: $(grep -i 'notice' /var/log/opensm.log | tail -n 5)"
	# shellcheck disable=SC2034 # read by the callers
	SM_TRAPS=$n
}

# field NAME: the value of an infiniband-diags "Name:.....value" line on
# stdin
field() { sed -n "s/^$1:\.*//p" | head -n 1; }

# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] || fail "$1 is '$2', want '$3'"
}

# sm_ibping_server: an ibping server (vendor-class MADs on QP1) in the
# background, IBPING_PID; writes NODE.pingd.  sm_ibping_stop ends it.
sm_ibping_server() {
	ibping -S > /tmp/ibping-server.log 2>&1 &
	IBPING_PID=$!
	sleep 1
	kill -0 "$IBPING_PID" 2>/dev/null ||
		fail "ibping -S exited: $(cat /tmp/ibping-server.log)"
	touch "$lab/$me.pingd"
	ok "ibping server running"
}

sm_ibping_stop() {
	kill "$IBPING_PID" 2>/dev/null
	wait "$IBPING_PID" 2>/dev/null
}
