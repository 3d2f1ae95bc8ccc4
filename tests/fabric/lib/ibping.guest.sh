# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/ibping (host half: ibping.host.sh).  With the fabric
# Active, every node but $SFAB_OPENSM runs an ibping server (vendor-class
# MADs on QP1); $SFAB_OPENSM pings each of them by LID (routed by the LFTs
# opensm programmed: across the leaf/spine, three switch hops) and by port
# GUID (the SA, in opensm, resolves the path), every ping answered.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" != "$sm" ]; then
	sm_ibping_server
	wait_file step.done 300
	sm_ibping_stop
else
	sm_wait_fabric
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		wait_file "$n.pingd" 120
		read -r lid guid _ < "$lab/$n.active"
		for how in "-L $lid" "-G $guid"; do
			t0=$(now)
			out=$(timeout 120 ibping -f -c 10 -t 2000 $how 2>&1) ||
				fail "ibping -c 10 $how ($n): $out"
			got=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' <<< "$out")
			[ "$got" = "10 10" ] || fail "ibping -c 10 $how ($n): $out"
			ok "ibping $n ($how): 10 of 10 answered ($(since "$t0") s):" \
				"$(grep -o 'rtt min/avg/max = .*' <<< "$out")"
		done
	done
	touch "$lab/ibping.done"
fi
sm_end
