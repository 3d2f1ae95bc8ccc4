# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/incast (host half: incast.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
SIZE=65536
ITERS=100
# "name value" of a PMA counter from perfquery of the local port
pq() { perfquery 2>/dev/null | sed -n "s/^$1:\.*\([0-9]*\)$/\1/p"; }
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
for n in $SFAB_NODES; do
	wait_file "$n.active" 120
done
if [ "$me" = "$sm" ]; then
	i=0 srvs= relays=
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		i=$((i + 1))
		pingpong_server "incast-$n" $((18610 + i)) ibv_rc_pingpong -s $SIZE -n $ITERS -c
		srvs+=" $SRV_PID" relays+=" $RELAY_PID"
	done
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		wait_file "incast-$n.cli.done" 400
	done
	for p in $srvs $relays; do
		wait "$p"
	done
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		rc=$(cat "$lab/incast-$n.server.rc" 2>/dev/null)
		[ "$rc" = 0 ] || fail "server for $n exited '$rc': $(tail -n 5 "$lab/incast-$n.server.log")"
		pingpong_check "incast-$n" server $ITERS
	done
	ok "3 servers: $ITERS x $SIZE bytes each way per sender, all validated"
	touch "$lab/incast.servers"
else
	i=0
	for n in $SFAB_NODES; do
		[ "$n" = "$sm" ] && continue
		i=$((i + 1))
		[ "$n" = "$me" ] && break
	done
	wait_file "incast-$me.srv.ready" 120
	# start together: every client waits for all servers
	for n in $SFAB_NODES; do
		[ "$n" = "$sm" ] || wait_file "incast-$n.srv.ready" 120
	done
	t0=$(now)
	pingpong_client "incast-$me" $((18610 + i)) ibv_rc_pingpong -s $SIZE -n $ITERS -c
	pingpong_check "incast-$me" client $ITERS
	ok "client: $ITERS x $SIZE bytes validated ($(since "$t0") s)"
	touch "$lab/$me.sent"
fi
for n in $SFAB_NODES; do
	[ "$n" = "$sm" ] || wait_file "$n.sent" 400
done
wait_file incast.servers 400
[ "$me" = "$sm" ] && touch "$lab/incast.traffic"
# this HCA port: nothing discarded or received in error; its wait
xd=$(pq PortXmitDiscards) re=$(pq PortRcvErrors) xw=$(pq PortXmitWait)
[ -n "$xw" ] || fail "perfquery gave no PortXmitWait: $(perfquery 2>&1)"
[ "${xd:-0}" = 0 ] && [ "${re:-0}" = 0 ] || fail "perfquery: XmitDiscards $xd RcvErrors $re"
st=$(rdma statistic show link sfab_0/1 2>&1)
rw=$(sed -n 's/.* port_xmit_wait \([0-9]*\).*/\1/p' <<< "$st")
[ -n "$rw" ] || fail "rdma statistic has no port_xmit_wait: $st"
echo "$xw $rw" > "$lab/$me.wait"
ok "perfquery: XmitDiscards 0, RcvErrors 0, XmitWait $xw; rdma statistic port_xmit_wait $rw"
if [ "$me" = "$sm" ]; then
	sum_pq=0 sum_rs=0
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		wait_file "$n.wait" 120
		read -r a b < "$lab/$n.wait"
		sum_pq=$((sum_pq + a)) sum_rs=$((sum_rs + b))
	done
	[ "$sum_pq" -gt 0 ] && [ "$sum_rs" -gt 0 ] ||
		fail "the senders never waited for credit: perfquery XmitWait sum $sum_pq, rdma statistic $sum_rs"
	ok "senders' credit stalls: perfquery XmitWait sum $sum_pq, rdma statistic port_xmit_wait sum $sum_rs"
	wait_file incast.switch 120
	touch "$lab/incast.done"
fi
sm_end 500
