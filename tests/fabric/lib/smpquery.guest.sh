# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/smpquery (host half: smpquery.host.sh).  With the
# fabric Active, $SFAB_OPENSM asks another node's SMA by LID (smpquery
# nodeinfo, portinfo, nodedesc), the switch's SMA by LID (nodeinfo,
# switchinfo, portinfo of that node's port) and by directed route; an
# unassigned LID gets an error, not a hang.
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
	read -r mylid _ < "$lab/$me.active"
	read -r plid pguid nguid < "$lab/$peer.active"
	read -r swlid swport swguid < "$lab/$peer.attach"
	read -r _ myport _ < "$lab/$me.attach"
	smp() {
		out=$(smpquery "$@" 2>&1) || fail "smpquery $*: $out"
		echo "smpquery $*:"
		sed 's/^/    /' <<< "$out"
	}
	hex() { printf '0x%016x' "$(($1))"; }

	smp nodeinfo "$plid"
	expect "$peer NodeType" "$(field NodeType <<< "$out")" "Channel Adapter"
	expect "$peer NumPorts" "$(field NumPorts <<< "$out")" 1
	expect "$peer NodeGuid" "$(hex "$(field Guid <<< "$out")")" "$(hex "$nguid")"
	expect "$peer PortGuid" "$(hex "$(field PortGuid <<< "$out")")" "$(hex "$pguid")"
	expect "$peer LocalPort" "$(field LocalPort <<< "$out")" 1
	ok "nodeinfo of $peer (LID $plid): CA, NodeGuid $nguid"

	smp portinfo "$plid" 1
	expect "$peer Lid" "$(field Lid <<< "$out")" "$plid"
	expect "$peer SMLid" "$(field SMLid <<< "$out")" "$mylid"
	expect "$peer LinkState" "$(field LinkState <<< "$out")" Active
	expect "$peer PhysLinkState" "$(field PhysLinkState <<< "$out")" LinkUp
	ok "portinfo of $peer port 1: LID $plid, SM LID $mylid, Active/LinkUp"

	smp nodedesc "$plid"
	desc=$(sed -n 's/^Node Description:\.*//p' <<< "$out")
	[ -n "$desc" ] || fail "no Node Description for LID $plid: $out"
	ok "nodedesc of $peer: $desc"

	smp nodeinfo "$swlid"
	expect "switch NodeType" "$(field NodeType <<< "$out")" Switch
	expect "switch NodeGuid" "$(hex "$(field Guid <<< "$out")")" "$(hex "$swguid")"
	nports=$(field NumPorts <<< "$out")
	[ "$nports" -ge "$swport" ] || fail "switch NumPorts $nports < $swport"
	ok "nodeinfo of the switch (LID $swlid): $nports ports, NodeGuid $swguid"

	smp switchinfo "$swlid"
	top=$(field LinearFdbTop <<< "$out")
	for n in $SFAB_NODES; do
		[ "$top" -ge "$(lid_of "$n")" ] ||
			fail "switch LinearFdbTop $top below $n's LID $(lid_of "$n")"
	done
	ok "switchinfo: LinearFdbTop $top"

	smp portinfo "$swlid" "$swport"
	expect "switch port $swport LinkState" "$(field LinkState <<< "$out")" Active
	ok "portinfo of switch port $swport: Active"

	# directed route: out of this HCA's port 1, the switch answers and
	# says which of its ports the SMP came in on
	smp -D nodeinfo 0,1
	expect "DR 0,1 NodeGuid" "$(hex "$(field Guid <<< "$out")")" "$(hex "$swguid")"
	expect "DR 0,1 LocalPort" "$(field LocalPort <<< "$out")" "$myport"
	ok "directed route 0,1: the switch, entered at port $myport"

	# a LID nobody has: an error after the MAD timeout, not a hang
	t0=$(now)
	rc=0
	out=$(timeout 60 smpquery -t 200 nodeinfo 999 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "smpquery nodeinfo 999 (no such LID) succeeded: $out"
	[ $rc -ne 124 ] || fail "smpquery nodeinfo 999 hung for 60 s"
	ok "smpquery nodeinfo 999 failed as it should ($(since "$t0") s)"
	touch "$lab/smpquery.done"
fi
sm_end
