# SPDX-License-Identifier: GPL-2.0-only
# Guest half of make soak (tests/soak/run-soak; host half soak.host.sh).
# Every node: its port Active (opensm in n1), then one end of a soak pair
# (lib/soak.py): n1 the requester of pair "a" to n3, n4 the requester of
# pair "b" to n2, so that both cross the spines, each way.  n1 also
# restarts opensm when the host half asks (soak/sm-restart.N).  After the
# soak each node's restrack counts must equal those before it and
# kmemleak must be clean; soak/NODE.json says so for the table.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/counters.guest.bash"
. "$SFAB_TOP/tests/fault/lib/fault.bash"
verbs_fabric_up

S=$lab/soak
mkdir -p "$S"
wait_file soak.conf 60
read -r SECONDS_ SEED < "$lab/soak.conf"

case "$me" in
n1) PAIR=a ROLE=requester PEER=n3 ;;
n3) PAIR=a ROLE=responder PEER=n1 ;;
n4) PAIR=b ROLE=requester PEER=n2 ;;
n2) PAIR=b ROLE=responder PEER=n4 ;;
*) fail "no soak pair for $me" ;;
esac

tfail() {
	echo "FAIL: $me: $*"
	exit 1
}

# sm_restarts: opensm stopped and started again for each
# soak/sm-restart.N the host half writes, until the soak worker ends
sm_restarts() {
	local f n=0
	while kill -0 "$WORKER" 2>/dev/null; do
		for f in "$S"/sm-restart.*; do
			[ -e "$f" ] || continue
			case $f in *.done) continue ;; esac
			[ -e "$f.done" ] && continue
			SM_PID=$(pgrep -x opensm | head -n 1)
			sm_stop
			sm_start 5 > /tmp/sm-restart.log 2>&1
			ok "opensm restarted ($(basename "$f")): $(tail -n 1 /tmp/sm-restart.log)"
			n=$((n + 1))
			touch "$f.done"
		done
		sleep 0.5
	done
	SM_RESTARTS=$n
}

# what the port's counters say of the faults: the transport's recoveries
# (retransmits, ACK timeouts, duplicates answered again) and the link's
# errors, as a JSON object of their growth over the soak
COUNTERS="retransmits retrans_pkts local_ack_timeout_err packet_seq_err out_of_sequence
	duplicate_request req_transport_retries_exceeded port_rcv_errors symbol_error
	link_downed"
counters_json() {
	local c a b sep=
	printf '{'
	for c in $COUNTERS; do
		a=$(cnt_one rs_val "$1" "$c") || { echo "no $c in: $1" >&2; return 1; }
		b=$(cnt_one rs_val "$2" "$c") || { echo "no $c in: $2" >&2; return 1; }
		printf '%s"%s": %d' "$sep" "$c" $((b - a))
		sep=", "
	done
	printf '}'
}

t_soak() {
	local res0 res1 rc=0 leak=clean rs0 rs1 cj
	rs0=$(hca_rdma_stat) || tfail "rdma statistic: $rs0"
	res0=$(restrack_line) || tfail "rdma resource: $res0"
	kmemleak_mark || tfail "kmemleak"
	/usr/bin/python3 "$SFAB_TOP/tests/soak/lib/soak.py" "$S" "$PAIR" "$ROLE" "$me" "$PEER" \
		"$SECONDS_" "$SEED" > /tmp/soak.log 2>&1 &
	WORKER=$!
	SM_RESTARTS=0
	if [ "$me" = "$sm" ]; then
		sm_restarts
	fi
	wait "$WORKER" || rc=$?
	grep -v '^ok:' /tmp/soak.log | tail -n 30
	grep '^ok:' /tmp/soak.log
	res1=$(restrack_line) || tfail "rdma resource: $res1"
	rs1=$(hca_rdma_stat) || tfail "rdma statistic: $rs1"
	cj=$(counters_json "$rs0" "$rs1") || tfail "the port's counters"
	kmemleak_scan > /tmp/leak.log 2>&1 || leak=$(head -c 300 /tmp/leak.log | tr '\n"' ' _')
	printf '{"node": "%s", "rc": %d, "restrack_before": "%s", "restrack_after": "%s", "kmemleak": "%s", "sm_restarts": %d, "counters": %s}\n' \
		"$me" "$rc" "${res0//\"/_}" "${res1//\"/_}" "$leak" "$SM_RESTARTS" "$cj" > "$S/.$me.json"
	mv "$S/.$me.json" "$S/$me.json"
	[ "$rc" = 0 ] || tfail "soak.py exited with $rc (a data error: above)"
	[ "$res0" = "$res1" ] || tfail "restrack after the soak '$res1', before '$res0'"
	[ "$leak" = clean ] || tfail "kmemleak: $leak"
	ok "soak: no data error, restrack as before ($res1), kmemleak clean"
}

ltest soak mixed t_soak
touch "$lab/$me.soak.done"
sm_end $((SECONDS_ + 900))
