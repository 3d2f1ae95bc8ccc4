# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/link-pull (host half: link-pull.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/counters.guest.bash"
# ibv_rc_pingpong's QP attribute: timeouts retried before RETRY_EXC_ERR
RETRY_CNT=7

# pull_retried BEFORE: this HCA's end ended with retry exceeded: since the
# `rdma statistic` output BEFORE its requester timed out and went back at
# least RETRY_CNT times, sent packets again, and completed exactly one WQE
# with RETRY_EXC_ERR
pull_retried() {
	local after d n got=
	after=$(hca_rdma_stat)
	for n in local_ack_timeout_err retransmits retrans_pkts req_transport_retries_exceeded; do
		d=$(cnt_delta rs_val "$1" "$after" "$n") ||
			fail "rdma statistic has no $n: $after"
		got+=" $n +$d"
		case $n in
		req_transport_retries_exceeded) [ "$d" = 1 ] ;;
		*) [ "$d" -ge $RETRY_CNT ] ;;
		esac || fail "after retry exceeded:$got (want local_ack_timeout_err," \
			"retransmits, retrans_pkts >= $RETRY_CNT, req_transport_retries_exceeded 1)"
	done
	ok "$me's HCA, the end that retried:$got"
}

sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
for n in $SFAB_NODES; do
	wait_file "$n.active" 120
done
# the transport counters before any RC traffic
rs0=$(hca_rdma_stat)
if [ "$me" != "$sm" ]; then
	pingpong_server pull 18901 ibv_rc_pingpong -s 4096 -n 10000000
	wait_file pull.seen 300
	kill "$SRV_PID" "$RELAY_PID" 2>/dev/null
	wait "$SRV_PID" "$RELAY_PID" 2>/dev/null
	# the server's pong was the send outstanding: this HCA retried it
	if [ "$(cat "$lab/pull.who")" = server ]; then
		pull_retried "$rs0"
	fi
	wait_file pull.up 200
	sm_wait_active 60 after
	PINGPONG_PORT=18950 pingpong_pair again ibv_rc_pingpong 50 4096
else
	wait_file pull.srv.ready 120
	"$SFAB_TOP/tests/verbs/lib/relay.py" listen 18901 "$lab/pull.relay" 290 \
		> "$lab/pull.relay-a.log" 2>&1 &
	relay=$!
	wait_file pull.relay/listening 30
	stdbuf -oL ibv_rc_pingpong -d sfab_0 -p 18901 -s 4096 -n 10000000 localhost \
		> "$lab/pull.client.log" 2>&1 &
	cli=$!
	sleep 3
	kill -0 "$cli" 2>/dev/null || fail "the pingpong ended early: $(tail -n 5 "$lab/pull.client.log")"
	touch "$lab/pull.req"
	wait_file pull.down 60
	# whichever end had a send outstanding when the link went (the
	# client's ping or the server's pong) retries, then completes it with
	# IBV_WC_RETRY_EXC_ERR; the other end waits for a receive that cannot
	# come, which is not an error of its own
	t0=$(now)
	retry='transport retry counter exceeded (12)'
	who=
	for ((i = 0; i < 600; i++)); do
		if ! kill -0 "$cli" 2>/dev/null; then
			who=client
			break
		fi
		if [ -e "$lab/pull.server.rc" ]; then
			who=server
			break
		fi
		sleep 0.1
	done
	put_file pull.who "${who:-none}"
	case $who in
	client)
		wait "$cli"
		rc=$?
		# 10000000 iterations cannot have finished: its ping was lost
		[ "$rc" != 0 ] ||
			fail "the client exited 0 $(since "$t0") s after the pull: $(tail -n 5 "$lab/pull.client.log")"
		grep -qF "$retry" "$lab/pull.client.log" ||
			fail "client exited $rc without a retry-exceeded completion: $(tail -n 5 "$lab/pull.client.log")"
		ok "client ended $(since "$t0") s after the pull: $(grep -m1 'Failed status' "$lab/pull.client.log")"
		pull_retried "$rs0"
		;;
	server)
		grep -qF "$retry" "$lab/pull.server.log" ||
			fail "the server ended ($(cat "$lab/pull.server.rc")) without a retry-exceeded completion: $(tail -n 5 "$lab/pull.server.log")"
		ok "server (pong outstanding) ended $(since "$t0") s after the pull: $(grep -m1 'Failed status' "$lab/pull.server.log")"
		kill "$cli" 2>/dev/null
		wait "$cli" 2>/dev/null
		;;
	*)
		kill -KILL "$cli"
		fail "neither end finished 60 s after the link went down (silence)"
		;;
	esac
	kill "$relay" 2>/dev/null
	wait "$relay" 2>/dev/null
	touch "$lab/pull.seen"
	wait_file pull.up 200
	sm_wait_active 60 after
	PINGPONG_PORT=18950 pingpong_pair again ibv_rc_pingpong 50 4096
	touch "$lab/link-pull.done"
fi
sm_end
