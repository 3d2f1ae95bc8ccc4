# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/incast (host half: incast.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/counters.guest.bash"
SIZE=65536
ITERS=100
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
for n in $SFAB_NODES; do
	wait_file "$n.active" 120
done
# the counters before any RC traffic of this node (the servers start once
# the host has the switch's)
pq0=$(hca_perfquery)
rs0=$(hca_rdma_stat)
if [ "$me" = "$sm" ]; then
	wait_file incast.before 120
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
# this HCA port: every error counter 0 in perfquery and in `rdma
# statistic`, the link never went down, no transport counter moved
# (nothing was sent again, no ACK timed out, nothing arrived out of
# sequence or twice); its wait
pq=$(hca_perfquery)
rs=$(hca_rdma_stat)
bad_pq=$(cnt_zero pq_val "$pq" $HCA_PQ_ERRORS)
bad_pq+=$(cnt_moved pq_val "$pq0" "$pq" LinkDownedCounter)
bad_rs=$(cnt_zero rs_val "$rs" $HCA_RS_ERRORS)
bad_rs+=$(cnt_moved rs_val "$rs0" "$rs" link_downed)
bad_tr=$(cnt_moved rs_val "$rs0" "$rs" $HCA_RS_TRANSPORT)
# every verdict (each node's, the switch's) in the share before any
# party fails: a failure report shows them all
echo "perfquery: ${bad_pq:-ok}; rdma statistic: ${bad_rs:-ok};" \
	"transport counters moved: ${bad_tr:-none}" > "$lab/$me.counters"
for n in $SFAB_NODES switch; do
	wait_file "$n.counters" 120
done
[ -z "$bad_pq$bad_rs$bad_tr" ] ||
	fail "after the incast: perfquery: ${bad_pq:-ok}; rdma statistic: ${bad_rs:-ok};" \
		"transport counters moved: ${bad_tr:-none}"$'\n'"perfquery before: $pq0"$'\n'"after: $pq"$'\n'"rdma statistic before: $rs0"$'\n'"after: $rs"
xw=$(cnt_one pq_val "$pq" PortXmitWait) || fail "perfquery gave no PortXmitWait: $pq"
rw=$(cnt_one rs_val "$rs" port_xmit_wait) || fail "rdma statistic has no port_xmit_wait: $rs"
echo "$xw $rw" > "$lab/$me.wait"
ok "perfquery: $(wc -w <<< "$HCA_PQ_ERRORS") error counters 0, LinkDownedCounter" \
	"$(pq_val "$pq" LinkDownedCounter) as before, XmitWait $xw"
ok "rdma statistic: $(wc -w <<< "$HCA_RS_ERRORS") error counters 0, link_downed as before, port_xmit_wait $rw;" \
	"$(wc -w <<< "$HCA_RS_TRANSPORT") transport counters unmoved" \
	"(retransmits $(rs_val "$rs" retransmits), local_ack_timeout_err $(rs_val "$rs" local_ack_timeout_err))"
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
