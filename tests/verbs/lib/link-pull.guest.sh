# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/link-pull (host half: link-pull.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
for n in $SFAB_NODES; do
	wait_file "$n.active" 120
done
if [ "$me" != "$sm" ]; then
	pingpong_server pull 18901 ibv_rc_pingpong -s 4096 -n 10000000
	wait_file pull.seen 300
	kill "$SRV_PID" "$RELAY_PID" 2>/dev/null
	wait "$SRV_PID" "$RELAY_PID" 2>/dev/null
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
	t0=$(now)
	for ((i = 0; i < 600; i++)); do
		kill -0 "$cli" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$cli" 2>/dev/null; then
		kill -KILL "$cli"
		fail "the client still runs 60 s after the link went down (silence)"
	fi
	wait "$cli"
	rc=$?
	kill "$relay" 2>/dev/null
	wait "$relay" 2>/dev/null
	if [ "$rc" != 0 ]; then
		grep -q 'transport retry counter exceeded (12)' "$lab/pull.client.log" ||
			fail "client exited $rc without a retry-exceeded completion: $(tail -n 5 "$lab/pull.client.log")"
		ok "client ended $(since "$t0") s after the pull: $(grep -m1 'Failed status' "$lab/pull.client.log")"
	else
		ok "client completed $(since "$t0") s after the pull"
	fi
	touch "$lab/pull.seen"
	wait_file pull.up 200
	sm_wait_active 60 after
	PINGPONG_PORT=18950 pingpong_pair again ibv_rc_pingpong 50 4096
	touch "$lab/link-pull.done"
fi
sm_end
