# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/pcap-tshark (host half: pcap-tshark.host.sh).  With
# the fabric Active, the other node runs an ibping server; $SFAB_OPENSM
# reads its PMA counters and pings it 5 times, so the captures hold SMPs,
# SA, PMA and vendor MADs.
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
		read -r lid _ < "$lab/$n.active"
		out=$(timeout 60 perfquery "$lid" 1 2>&1) || fail "perfquery $lid 1: $out"
		out=$(timeout 60 ibping -f -c 5 -t 2000 -L "$lid" 2>&1) ||
			fail "ibping -c 5 -L $lid ($n): $out"
		ok "$n (LID $lid): perfquery and 5 pings answered"
	done
	touch "$lab/traffic.done"
fi
sm_end
