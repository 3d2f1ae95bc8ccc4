# SPDX-License-Identifier: GPL-2.0-only
# Guest half of sim/live-crosscheck's lab (host half:
# live-crosscheck.host.sh; the test: tests/sim/live-crosscheck.sh).  The
# incast of verbs/incast, sized for an exact count: n2, n3 and n4 each run
# ibv_rc_pingpong -s $XC_SIZE -n $XC_ITERS -m $XC_MTU against a server of
# its own on n1, all at once.  opensm sweeps once (-s 0), so that no
# management packet crosses the switch during the traffic.  Each node
# writes NODE.xc: "PortXmitWait before after; transport counters moved:
# NAMES|none" (perfquery, `rdma statistic`).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/counters.guest.bash"
. "$SFAB_TOP/tests/sim/lib/live-crosscheck.conf"
sm_node_up
sm_start 0
wait_file sm.up 300
sm_wait_active 120
for n in $SFAB_NODES; do
	wait_file "$n.active" 120
done
pq0=$(hca_perfquery)
rs0=$(hca_rdma_stat)
touch "$lab/$me.before"
wait_file xc.before 200
if [ "$me" = "$sm" ]; then
	i=0 srvs= relays=
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		i=$((i + 1))
		pingpong_server "xc-$n" $((18710 + i)) ibv_rc_pingpong \
			-s "$XC_SIZE" -n "$XC_ITERS" -m "$XC_MTU" -c
		srvs+=" $SRV_PID" relays+=" $RELAY_PID"
	done
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] || wait_file "xc-$n.cli.done" 400
	done
	for p in $srvs $relays; do
		wait "$p"
	done
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		rc=$(cat "$lab/xc-$n.server.rc" 2>/dev/null)
		[ "$rc" = 0 ] || fail "server for $n exited '$rc': $(tail -n 5 "$lab/xc-$n.server.log")"
		pingpong_check "xc-$n" server "$XC_ITERS"
	done
	ok "3 servers: $XC_ITERS x $XC_SIZE bytes each way per sender"
	touch "$lab/xc.servers"
else
	i=0
	for n in $SFAB_NODES; do
		[ "$n" = "$sm" ] && continue
		i=$((i + 1))
		[ "$n" = "$me" ] && break
	done
	# start together: every client waits for all servers
	for n in $SFAB_NODES; do
		[ "$n" = "$sm" ] || wait_file "xc-$n.srv.ready" 120
	done
	pingpong_client "xc-$me" $((18710 + i)) ibv_rc_pingpong \
		-s "$XC_SIZE" -n "$XC_ITERS" -m "$XC_MTU" -c
	pingpong_check "xc-$me" client "$XC_ITERS"
	ok "client: $XC_ITERS x $XC_SIZE bytes"
	touch "$lab/$me.sent"
fi
for n in $SFAB_NODES; do
	[ "$n" = "$sm" ] || wait_file "$n.sent" 400
done
wait_file xc.servers 400
[ "$me" = "$sm" ] && touch "$lab/xc.traffic"
pq=$(hca_perfquery)
rs=$(hca_rdma_stat)
w0=$(cnt_one pq_val "$pq0" PortXmitWait) || fail "perfquery gave no PortXmitWait: $pq0"
w1=$(cnt_one pq_val "$pq" PortXmitWait) || fail "perfquery gave no PortXmitWait: $pq"
bad_tr=$(cnt_moved rs_val "$rs0" "$rs" $HCA_RS_TRANSPORT)
echo "PortXmitWait $w0 $w1; transport counters moved: ${bad_tr:-none}" > "$lab/$me.xc"
ok "PortXmitWait $w0 -> $w1; transport counters moved: ${bad_tr:-none}"
for n in $SFAB_NODES; do
	wait_file "$n.xc" 120
done
[ "$me" = "$sm" ] && { wait_file xc.switch 120; touch "$lab/xc.done"; }
sm_end 500
