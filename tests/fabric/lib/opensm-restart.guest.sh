# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/opensm-restart (host half: opensm-restart.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" != "$sm" ]; then
	sm_ibping_server
	wait_file restart.done 300
	sm_wait_active 10 after
	[ "$(cut -d' ' -f1 "$lab/$me.after")" = "$(lid_of "$me")" ] ||
		fail "LID changed from $(lid_of "$me") to $(cut -d' ' -f1 "$lab/$me.after")"
	wait_file step.done 300
	sm_ibping_stop
else
	sm_wait_fabric
	sm_stop
	mv /var/log/opensm.log /var/log/opensm.first.log
	ok "opensm stopped"
	sm_start 5
	bad=$(grep ' ERR ' /var/log/opensm.log || true)
	[ -z "$bad" ] || fail "the second opensm logged errors: $bad"
	sm_wait_active 30 after
	[ "$(cut -d' ' -f1 "$lab/$me.after")" = "$(lid_of "$me")" ] ||
		fail "LID changed from $(lid_of "$me") to $(cut -d' ' -f1 "$lab/$me.after")"
	for n in $SFAB_NODES; do
		[ "$n" = "$me" ] && continue
		wait_file "$n.pingd" 60
		lid=$(lid_of "$n")
		out=$(timeout 60 perfquery "$lid" 1 2>&1) || fail "perfquery $lid 1: $out"
		out=$(timeout 60 ibping -f -c 5 -t 2000 -L "$lid" 2>&1) ||
			fail "ibping -c 5 -L $lid ($n): $out"
		ok "$n (LID $lid, unchanged): perfquery and 5 pings answered after the restart"
	done
	touch "$lab/restart.done"
fi
sm_end
