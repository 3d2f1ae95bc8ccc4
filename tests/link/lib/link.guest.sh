# SPDX-License-Identifier: GPL-2.0-only
# Guest half of the link tier (tests/link/run-link; host half
# link.host.sh), on tests/configs/topologies/leafspine.topo with opensm in
# n1.  The switches lose frames on purpose (sfab-switchctl port P ber,
# drop, flap: Documentation/sfab/fabric.rst, "Link errors on purpose"),
# asked of the host half through the share (sw_req), while a stream of
# numbered messages (lib/link_stream.py) runs over the link; each test is
# reported by name (ltest) by both its ends:
#   fault/link-ber, fault/link-drop, fault/link-ud-loss, fault/link-flap: n3 sends to n4, over
#     leaf2, whose port 2 (n4's) takes the faults
#   fault/switch-kill-traffic: n2 (leaf 1) sends to n3 (leaf 2), through a spine;
#     the host kills a switch picked at random (a spine or leaf 2) in
#     the middle
# RC delivers every message intact, once and in order, and the counters
# say what happened: the switch's own count of what it corrupted,
# dropped or flapped equals the receiving port's PortRcvErrors,
# SymbolErrorCounter, PortXmitDiscards and LinkDownedCounter; the
# sender's HCA retransmitted (rdma statistic).  UD loses what the link
# loses, and every loss is counted.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/counters.guest.bash"
verbs_fabric_up

STREAM=$SFAB_TOP/tests/link/lib/link_stream.py
# the port of leaf2 that n4 is cabled to (leafspine.topo)
FPORT=2

tfail() {
	echo "FAIL: $me: $*"
	exit 1
}

# sw_req WORDS...: the host half runs `sfab-switchctl -S SWITCH WORDS` for
# "SWITCH WORDS..." (or `sfab-lab switch DIR SWITCH kill|start` for
# "kill SWITCH", "start SWITCH") and answers with its output; status 1
# when the command failed or the host did not answer in 30 s
sw_req() {
	local d=$lab/swreq id i rc
	# unique also from a command substitution's subshell
	id=$me.$(date +%s%N).$BASHPID
	mkdir -p "$d"
	echo "$*" > "$d/.$id.tmp" && mv "$d/.$id.tmp" "$d/$id.req" || return 1
	for ((i = 0; i < 300; i++)); do
		if [ -e "$d/$id.rc" ]; then
			read -r rc < "$d/$id.rc"
			cat "$d/$id.out"
			rm -f "$d/$id.rc" "$d/$id.out"
			return "$rc"
		fi
		sleep 0.1
	done
	echo "the host half did not answer '$*' in 30 s"
	return 1
}

# inj_val LINE NAME: NAME's count in a switch's "port P errors" line
inj_val() { sed -n "s/.* $2 \([0-9][0-9]*\).*/\1/p" <<< "$1"; }

# sw_errors: leaf2 port FPORT's injection line ("port 2 ber 0.03 ...
# corrupted N fc-corrupted N dropped N flaps N")
sw_errors() { sw_req leaf2 port $FPORT errors; }

# sw_discards: leaf2 port FPORT's PortXmitDiscards (its counters)
sw_discards() {
	sw_req leaf2 counters $FPORT | sed -n 's/.*PortXmitDiscards \([0-9]*\).*/\1/p'
}

# port_active SECONDS: this node's port Active again (after a flap)
port_active() {
	local st end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		st=$(port_info)
		set -- $st
		[ "$1" = Active ] && [ "$2" = LinkUp ] && return 0
		sleep 0.2
	done
	tfail "port 1 is '$(port_info)' (state phys lid smlid), not Active"
}

# stream TAG KIND ROLE PEER N SIZE [TIMEOUT]: link_stream.py's output into
# /tmp/TAG.log; its exit status
stream() {
	local tag=$1 kind=$2 role=$3 peer=$4
	shift 4
	/usr/bin/python3 "$STREAM" "$kind" "$role" "$lab/link" "$tag" "$me" "$peer" "$@" \
		> "/tmp/$tag.log" 2>&1
}

# sender_run TAG KIND PEER N SIZE TIMEOUT SETUP...: the sending end: once
# the receiver is connected, the switch request SETUP (the fault), then
# the stream; STREAM_RC its exit status, E0/E1 the injection line before
# the fault and after the stream (then `errors off`), RS0/RS1 this HCA's
# rdma statistic around it all
sender_run() {
	local tag=$1 kind=$2 peer=$3 n=$4 size=$5 to=$6 out pid
	shift 6
	mkdir -p "$lab/link"
	RS0=$(hca_rdma_stat)
	/usr/bin/python3 "$STREAM" "$kind" sender "$lab/link" "$tag" "$me" "$peer" "$n" "$size" "$to" \
		> "/tmp/$tag.log" 2>&1 &
	pid=$!
	wait_file "link/$tag.$peer.info" 120
	E0=$(sw_errors) || tfail "leaf2 port $FPORT errors: $E0"
	if [ $# -gt 0 ]; then
		out=$(sw_req "$@") || tfail "$*: $out"
		echo "switch: $out"
	fi
	touch "$lab/link/$tag.go"
	STREAM_RC=0
	wait "$pid" || STREAM_RC=$?
	cat "/tmp/$tag.log"
	out=$(sw_req leaf2 port $FPORT errors off) || tfail "errors off: $out"
	E1=$(sw_errors) || tfail "leaf2 port $FPORT errors: $E1"
	echo "switch after: $E1"
	RS1=$(hca_rdma_stat)
}

# injected NAME: how much the switch's count NAME grew over the stream
injected() {
	local a b
	a=$(inj_val "$E0" "$1")
	b=$(inj_val "$E1" "$1")
	[ -n "$a" ] && [ -n "$b" ] || tfail "no '$1' in '$E0' / '$E1'"
	echo $((b - a))
}

# rs_delta NAME: how much this HCA's rdma statistic NAME grew
rs_delta() {
	cnt_delta rs_val "$RS0" "$RS1" "$1" || tfail "rdma statistic has no $1: $RS1"
}

# pq_delta NAME: how much this port's perfquery NAME grew (PQ0 to PQ1)
pq_delta() {
	cnt_delta pq_val "$PQ0" "$PQ1" "$1" || tfail "perfquery has no $1: $PQ1"
}

# receiver_run TAG KIND PEER N SIZE TIMEOUT: the receiving end; PQ0/PQ1
# this port's perfquery before and after (once the sender has turned the
# fault off); STREAM_RC the receiver's exit status
receiver_run() {
	local tag=$1 kind=$2 peer=$3
	shift 3
	mkdir -p "$lab/link"
	PQ0=$(hca_perfquery)
	STREAM_RC=0
	stream "$tag" "$kind" receiver "$peer" "$@" || STREAM_RC=$?
	cat "/tmp/$tag.log"
	wait_file "link/$tag.counted" 120
	PQ1=$(hca_perfquery)
}

# counted TAG: the sender's counts for the receiver, link/TAG.counted
# "CORRUPTED FC-CORRUPTED DROPPED FLAPS"
counted() {
	echo "$(injected corrupted) $(injected fc-corrupted) $(injected dropped) $(injected flaps)" \
		> "$lab/link/.$1.counted.tmp" && mv "$lab/link/.$1.counted.tmp" "$lab/link/$1.counted"
}

# fault/link-ber: RC over a link that corrupts 3% of what it carries to n4
t_ber() {
	local c fc
	case $me in
	n3)
		sender_run ber rc n4 1500 1024 14 leaf2 port $FPORT ber 0.03
		counted ber
		[ "$STREAM_RC" = 0 ] || tfail "the RC stream failed ($STREAM_RC)"
		c=$(injected corrupted)
		[ "$c" -ge 1 ] || tfail "the switch corrupted nothing: $E1"
		[ "$(rs_delta retransmits)" -ge 1 ] ||
			tfail "$c packets corrupted on the way to n4, and no retransmits: $RS1"
		ok "1500 RC messages over a link with ber 0.03: $c packets and" \
			"$(injected fc-corrupted) FC packets corrupted; this HCA retransmitted" \
			"$(rs_delta retransmits) times ($(rs_delta retrans_pkts) packets)," \
			"local_ack_timeout_err +$(rs_delta local_ack_timeout_err)," \
			"packet_seq_err +$(rs_delta packet_seq_err)"
		;;
	n4)
		receiver_run ber rc n3 1500 1024 14
		[ "$STREAM_RC" = 0 ] || tfail "the RC receiver failed ($STREAM_RC)"
		read -r c fc _ < "$lab/link/ber.counted"
		[ "$(pq_delta PortRcvErrors)" = "$c" ] ||
			tfail "PortRcvErrors +$(pq_delta PortRcvErrors), the switch corrupted $c"
		[ "$(pq_delta SymbolErrorCounter)" = "$fc" ] ||
			tfail "SymbolErrorCounter +$(pq_delta SymbolErrorCounter), the switch corrupted $fc FC packets"
		ok "every message intact, once, in order; PortRcvErrors +$c and" \
			"SymbolErrorCounter +$fc, as the switch corrupted them"
		;;
	esac
}

# fault/link-drop: RC over links that drop 3% of the packets to n4 (requests)
# and to n3 (its ACKs and NAKs); then every ACK to n3 dropped for 1.5 s
# while n4 has the whole window: n3 times out and sends again what n4
# has, which n4 must ACK again and not deliver twice.  (Under 3% drops a
# lost ACK is mostly covered by the next one; only a lost tail ACK makes
# n3 send again what n4 has, which is likely, not certain.)
t_drop() {
	local d dd a0 a1 ad dd1 pid
	case $me in
	n3)
		dd=$(sw_discards)
		dd1=$(sw_req leaf2 counters 1 | sed -n 's/.*PortXmitDiscards \([0-9]*\).*/\1/p')
		a0=$(sw_req leaf2 port 1 errors) || tfail "leaf2 port 1 errors: $a0"
		a1=$(sw_req leaf2 port 1 drop 0.03) || tfail "leaf2 port 1 drop 0.03: $a1"
		sender_run drop rc n4 1500 1024 14 leaf2 port $FPORT drop 0.03
		counted drop
		a1=$(sw_req leaf2 port 1 errors off) || tfail "leaf2 port 1 errors off: $a1"
		a1=$(sw_req leaf2 port 1 errors) || tfail "leaf2 port 1 errors: $a1"
		echo "switch after, port 1: $a1"
		[ "$STREAM_RC" = 0 ] || tfail "the RC stream failed ($STREAM_RC)"
		d=$(injected dropped)
		[ "$d" -ge 1 ] || tfail "the switch dropped nothing to n4: $E1"
		dd=$(($(sw_discards) - dd))
		[ "$dd" = "$d" ] || tfail "leaf2 port $FPORT PortXmitDiscards +$dd, dropped $d"
		ad=$(($(inj_val "$a1" dropped) - $(inj_val "$a0" dropped)))
		[ "$ad" -ge 1 ] || tfail "the switch dropped nothing to n3: $a1"
		dd1=$(($(sw_req leaf2 counters 1 | sed -n 's/.*PortXmitDiscards \([0-9]*\).*/\1/p') - dd1))
		[ "$dd1" = "$ad" ] || tfail "leaf2 port 1 PortXmitDiscards +$dd1, dropped $ad"
		[ "$(rs_delta retransmits)" -ge 1 ] ||
			tfail "$d packets dropped on the way to n4, and no retransmits: $RS1"
		[ "$(rs_delta local_ack_timeout_err)" -ge 1 ] ||
			tfail "$ad ACKs dropped on the way to n3, and no ACK timeout: $RS1"
		ok "1500 RC messages over links dropping 3% each way: $d requests and" \
			"$ad responses dropped (PortXmitDiscards +$dd, +$dd1); this HCA" \
			"retransmitted $(rs_delta retransmits) times, local_ack_timeout_err" \
			"+$(rs_delta local_ack_timeout_err)"
		# every ACK lost: 8 messages, timeout 17 (537 ms) and 7 retries
		# (3.8 s) against 1.5 s of loss and the switch request's latency
		RS0=$(hca_rdma_stat)
		/usr/bin/python3 "$STREAM" rc sender "$lab/link" ackloss "$me" n4 8 1024 17 \
			> /tmp/ackloss.log 2>&1 &
		pid=$!
		wait_file "link/ackloss.n4.info" 120
		a1=$(sw_req leaf2 port 1 drop 1) || tfail "leaf2 port 1 drop 1: $a1"
		touch "$lab/link/ackloss.go"
		sleep 1.5
		a1=$(sw_req leaf2 port 1 errors off) || tfail "leaf2 port 1 errors off: $a1"
		STREAM_RC=0
		wait "$pid" || STREAM_RC=$?
		cat /tmp/ackloss.log
		RS1=$(hca_rdma_stat)
		echo "done" > "$lab/link/.ackloss.counted.tmp" &&
			mv "$lab/link/.ackloss.counted.tmp" "$lab/link/ackloss.counted"
		[ "$STREAM_RC" = 0 ] || tfail "the RC stream under ACK loss failed ($STREAM_RC)"
		[ "$(rs_delta local_ack_timeout_err)" -ge 1 ] ||
			tfail "every ACK dropped for 1.5 s, and no ACK timeout: $RS1"
		ok "8 RC messages with every ACK dropped for 1.5 s: completed;" \
			"local_ack_timeout_err +$(rs_delta local_ack_timeout_err)," \
			"retransmits +$(rs_delta retransmits)"
		;;
	n4)
		RS0=$(hca_rdma_stat)
		receiver_run drop rc n3 1500 1024 14
		RS1=$(hca_rdma_stat)
		[ "$STREAM_RC" = 0 ] || tfail "the RC receiver failed ($STREAM_RC)"
		[ "$(pq_delta PortRcvErrors)" = 0 ] ||
			tfail "PortRcvErrors +$(pq_delta PortRcvErrors): a drop is not a receive error"
		ok "every message intact, once, in order; duplicate_request" \
			"+$(rs_delta duplicate_request), out_of_sequence +$(rs_delta out_of_sequence);" \
			"PortRcvErrors +0"
		RS0=$(hca_rdma_stat)
		receiver_run ackloss rc n3 8 1024 17
		RS1=$(hca_rdma_stat)
		[ "$STREAM_RC" = 0 ] || tfail "the RC receiver under ACK loss failed ($STREAM_RC)"
		[ "$(rs_delta duplicate_request)" -ge 1 ] ||
			tfail "n3 sent again what its lost ACKs covered, and no duplicate_request: $RS1"
		ok "every ACK to n3 lost for 1.5 s: 8 messages intact, once, in order;" \
			"duplicate_request +$(rs_delta duplicate_request)"
		;;
	esac
}

# fault/link-ud-loss: UD over the same link, corrupting and then dropping: the
# receiver loses messages, every loss counted by a port
t_ud_loss() {
	local c d lost got dd bad
	case $me in
	n3)
		sender_run udber ud n4 1000 256 14 leaf2 port $FPORT ber 0.05
		counted udber
		[ "$STREAM_RC" = 0 ] || tfail "the UD sender failed ($STREAM_RC)"
		dd=$(sw_discards)
		sender_run uddrop ud n4 1000 256 14 leaf2 port $FPORT drop 0.05
		counted uddrop
		[ "$STREAM_RC" = 0 ] || tfail "the UD sender failed ($STREAM_RC)"
		dd=$(($(sw_discards) - dd))
		d=$(injected dropped)
		[ "$dd" = "$d" ] || tfail "leaf2 port $FPORT PortXmitDiscards +$dd, dropped $d"
		ok "1000 UD messages sent over ber 0.05, 1000 over drop 0.05 (dropped $d," \
			"PortXmitDiscards +$dd); every send completed"
		;;
	n4)
		# both phases run whatever the first found (the sender waits
		# for the second); a failure is reported at the end
		bad=
		receiver_run udber ud n3 1000 256
		read -r c _ < "$lab/link/udber.counted"
		got=$(sed -n 's/.*lost \([0-9]*\).*/\1/p' "/tmp/udber.log")
		if [ "$STREAM_RC" != 0 ] || [ -z "$got" ]; then
			bad+="ber: the UD receiver failed ($STREAM_RC); "
		elif [ "$got" -lt 1 ]; then
			bad+="ber 0.05 over 1000 messages and nothing lost; "
		elif [ "$(pq_delta PortRcvErrors)" != "$c" ]; then
			bad+="ber: PortRcvErrors +$(pq_delta PortRcvErrors), the switch corrupted $c; "
		elif [ "$got" -gt "$c" ]; then
			bad+="ber: $got lost, only $c corrupted: a silent loss; "
		else
			ok "ber: $got of 1000 lost, PortRcvErrors +$c (the switch corrupted $c):" \
				"every loss counted"
		fi
		receiver_run uddrop ud n3 1000 256
		read -r _ _ d _ < "$lab/link/uddrop.counted"
		lost=$(sed -n 's/.*lost \([0-9]*\).*/\1/p' "/tmp/uddrop.log")
		if [ "$STREAM_RC" != 0 ] || [ -z "$lost" ]; then
			bad+="drop: the UD receiver failed ($STREAM_RC); "
		elif [ "$lost" -lt 1 ]; then
			bad+="drop 0.05 over 1000 messages and nothing lost; "
		elif [ "$lost" -gt "$d" ]; then
			bad+="drop: $lost lost, only $d dropped: a silent loss; "
		else
			ok "drop: $lost of 1000 lost, the switch dropped $d (PortXmitDiscards):" \
				"every loss counted"
		fi
		[ -z "$bad" ] || tfail "$bad"
		;;
	esac
}

# fault/link-flap: RC over a link that goes down for 2 s (every 60 s, the first
# time at once); the QP's ACK timeout (2 s, 7 retries) outlasts the
# outage, opensm brings the port back to Active, and the stream completes
RC_FLAP_TIMEOUT=19
t_flap() {
	local f
	case $me in
	n3)
		sender_run flap rc n4 3000 1024 $RC_FLAP_TIMEOUT leaf2 port $FPORT flap 60000 2000
		counted flap
		[ "$STREAM_RC" = 0 ] || tfail "the RC stream failed ($STREAM_RC)"
		f=$(injected flaps)
		[ "$f" -ge 1 ] || tfail "the port did not flap: $E1"
		[ "$(rs_delta local_ack_timeout_err)" -ge 1 ] ||
			tfail "n4 was away $f times, and no ACK timed out: $RS1"
		ok "3000 RC messages across $f flap(s) of n4's link: local_ack_timeout_err" \
			"+$(rs_delta local_ack_timeout_err), retransmits +$(rs_delta retransmits)"
		;;
	n4)
		receiver_run flap rc n3 3000 1024 $RC_FLAP_TIMEOUT
		[ "$STREAM_RC" = 0 ] || tfail "the RC receiver failed ($STREAM_RC)"
		read -r _ _ _ f < "$lab/link/flap.counted"
		port_active 60
		PQ1=$(hca_perfquery)
		[ "$(pq_delta LinkDownedCounter)" = "$f" ] ||
			tfail "LinkDownedCounter +$(pq_delta LinkDownedCounter), the port flapped $f times"
		ok "every message intact, once, in order; LinkDownedCounter +$f; port Active again"
		;;
	esac
	port_active 60
}

# fault/switch-kill-traffic: a switch picked at random (a spine, or n3's leaf),
# killed in the middle of an RC stream from leaf 1 to leaf 2: the stream
# completes over the other spine once opensm has routed around it, or the
# sender's QP ends with IBV_WC_RETRY_EXC_ERR (n3's leaf gone: nothing
# routes around it); either way nothing hangs and what arrived is intact,
# once and in order.  The switch comes back.
KILLABLE=(spine1 spine2 leaf2)
t_switch_kill() {
	local spine out t0 pid
	spine=${KILLABLE[$(($(od -An -N2 -tu2 /dev/urandom) % ${#KILLABLE[@]}))]}
	case $me in
	n2)
		mkdir -p "$lab/link"
		# n3 (and n4) are done with the other tests
		wait_file link/kill.ready 1200
		/usr/bin/python3 "$STREAM" rc sender "$lab/link" kill "$me" n3 4000 1024 18 \
			> /tmp/kill.log 2>&1 &
		pid=$!
		wait_file link/kill.n3.info 120
		echo "the path to n3: $(ibtracert "$(lid_of n2)" "$(lid_of n3)" 2>&1 | grep -o '"[^"]*"' | tr '\n' ' ')"
		touch "$lab/link/kill.go"
		sleep 2
		out=$(sw_req kill "$spine") || tfail "kill $spine: $out"
		t0=$(now)
		ok "$spine killed"
		STREAM_RC=0
		wait "$pid" || STREAM_RC=$?
		cat /tmp/kill.log
		case $STREAM_RC in
		0) ok "the stream completed $(since "$t0") s after the kill (re-routed)" ;;
		2) grep -q "status 12 " /tmp/kill.log ||
			tfail "the sender failed, not with IBV_WC_RETRY_EXC_ERR (12)"
		   ok "the sender's QP ended with IBV_WC_RETRY_EXC_ERR $(since "$t0") s after the kill" ;;
		*) tfail "the sender ended with status $STREAM_RC" ;;
		esac
		out=$(sw_req start "$spine") || tfail "start $spine: $out"
		ok "$spine started again"
		echo "$spine" > "$lab/link/.kill.done.tmp" && mv "$lab/link/.kill.done.tmp" "$lab/link/kill.done"
		;;
	n3)
		mkdir -p "$lab/link"
		touch "$lab/link/kill.ready"
		STREAM_RC=0
		stream kill rc receiver n2 4000 1024 18 || STREAM_RC=$?
		cat /tmp/kill.log
		case $STREAM_RC in
		0|3) ;;
		*) tfail "the receiver failed ($STREAM_RC)" ;;
		esac
		wait_file link/kill.done 120
		;;
	esac
	port_active 60
}

case "$me" in
n2)
	ltest fault switch-kill-traffic t_switch_kill
	;;
n3|n4)
	ltest fault link-ber t_ber
	ltest fault link-drop t_drop
	ltest fault link-ud-loss t_ud_loss
	ltest fault link-flap t_flap
	if [ "$me" = n4 ]; then
		wait_file link/kill.done 1200
	else
		ltest fault switch-kill-traffic t_switch_kill
	fi
	;;
esac
touch "$lab/$me.links.done"
sm_end 1500
