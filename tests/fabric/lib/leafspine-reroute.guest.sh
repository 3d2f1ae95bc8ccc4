# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/leafspine-reroute (host half:
# leafspine-reroute.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 2
wait_file sm.up 300
sm_wait_active 120
if [ "$me" != "$sm" ]; then
	sm_ibping_server
	wait_file step.done 400
	sm_ibping_stop
else
	sm_wait_fabric
	set -- $SFAB_NODES
	dst=$3
	wait_file "$dst.pingd" 120
	read -r slid _ < "$lab/$me.active"
	read -r dlid _ < "$lab/$dst.active"
	# the spine hop of ibtracert: "[OUT] -> switch port {GUID}[IN] ..."
	# lines; the second is the spine, its successor line's [OUT] is the
	# spine's port towards the destination leaf
	spine_hop() {
		local out
		out=$(timeout 60 ibtracert "$slid" "$dlid" 2>&1) || return 1
		awk '/-> switch port/ { n++; if (n == 2) { g = $0; sub(/.*\{/, "", g); sub(/\}.*/, "", g) }
			if (n == 3) { p = $1; gsub(/[][]/, "", p); print g, p + 0 } }' <<< "$out"
	}
	pings() {
		local out got
		out=$(timeout 120 ibping -f -c 10 -t 2000 -L "$dlid" 2>&1) || return 1
		got=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' <<< "$out")
		[ "$got" = "10 10" ]
	}
	hop=$(spine_hop) && [ -n "$hop" ] || fail "ibtracert $slid $dlid: no spine hop"
	pings || fail "ibping $dst before the re-route: not 10 of 10"
	ok "$me -> $dst via spine $hop (GUID, port to the far leaf); 10 of 10 pings"
	put_file reroute.req "$hop"
	wait_file reroute.down 60
	t0=$(now)
	new=
	for ((i = 0; i < 120; i++)); do
		new=$(spine_hop) && [ -n "$new" ] && [ "${new%% *}" != "${hop%% *}" ] && break
		new=
		sleep 0.5
	done
	[ -n "$new" ] || fail "still routed through ${hop%% *} after 60 s"
	ok "opensm re-routed $me -> $dst via spine ${new%% *} after $(since "$t0") s"
	pings || fail "ibping $dst after the re-route: not 10 of 10"
	ok "10 of 10 pings after the re-route"
	touch "$lab/reroute.seen"
	wait_file reroute.up 180
	pings || fail "ibping $dst after the port came back: not 10 of 10"
	ok "spine port back up and Active; 10 of 10 pings"
	touch "$lab/reroute.done"
fi
sm_end 400
