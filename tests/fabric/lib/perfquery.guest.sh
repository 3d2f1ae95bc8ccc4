# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/perfquery (host half: perfquery.host.sh).  With the
# fabric Active, $SFAB_OPENSM queries the PMA of another node's HCA port
# and of the switch port that node is cabled to (LID-routed GMPs on QP1),
# sends 20 SMPs to that node, queries again: PortXmitData and PortXmitPkts
# grew at both (the HCA sent 20 responses, the switch port forwarded 20
# requests), the extended counters (perfquery -x) agree.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	sm_wait_fabric
	for peer in $SFAB_NODES; do
		[ "$peer" != "$me" ] && break
	done
	plid=$(lid_of "$peer")
	read -r swlid swport _ < "$lab/$peer.attach"
	# pq NAME ARGS...: perfquery ARGS, its PortXmitData and PortXmitPkts
	# in ${NAME}_data and ${NAME}_pkts
	pq() {
		local name=$1 out d p
		shift
		out=$(perfquery "$@" 2>&1) || fail "perfquery $*: $out"
		d=$(field PortXmitData <<< "$out")
		p=$(field PortXmitPkts <<< "$out")
		[[ "$d" =~ ^[0-9]+$ && "$p" =~ ^[0-9]+$ ]] ||
			fail "perfquery $*: no PortXmitData/PortXmitPkts in: $out"
		printf -v "${name}_data" %s "$d"
		printf -v "${name}_pkts" %s "$p"
		echo "perfquery $*:"
		sed 's/^/    /' <<< "$out"
	}
	pq hca1 "$plid" 1
	pq sw1 "$swlid" "$swport"
	for ((i = 0; i < 20; i++)); do
		out=$(smpquery nodeinfo "$plid" 2>&1) || fail "smpquery nodeinfo $plid: $out"
	done
	pq hca2 "$plid" 1
	pq sw2 "$swlid" "$swport"
	for x in hca sw; do
		d1=${x}1_data d2=${x}2_data p1=${x}1_pkts p2=${x}2_pkts
		[ "${!d2}" -gt "${!d1}" ] ||
			fail "$x PortXmitData ${!d1} -> ${!d2} after 20 SMPs"
		[ $((${!p2} - ${!p1})) -ge 20 ] ||
			fail "$x PortXmitPkts ${!p1} -> ${!p2} after 20 SMPs"
		ok "$x port PortXmitData ${!d1} -> ${!d2}, PortXmitPkts ${!p1} -> ${!p2}"
	done
	pq hcax -x "$plid" 1
	pq swx -x "$swlid" "$swport"
	[ "$hcax_data" -ge "$hca2_data" ] && [ "$hcax_pkts" -ge "$hca2_pkts" ] ||
		fail "HCA extended counters $hcax_data/$hcax_pkts below $hca2_data/$hca2_pkts"
	[ "$swx_data" -ge "$sw2_data" ] && [ "$swx_pkts" -ge "$sw2_pkts" ] ||
		fail "switch extended counters $swx_data/$swx_pkts below $sw2_data/$sw2_pkts"
	ok "perfquery -x: HCA $hcax_data/$hcax_pkts, switch $swx_data/$swx_pkts"
	touch "$lab/perfquery.done"
fi
sm_end
