# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/diags (host half: diags.host.sh): iblinkinfo,
# ibroute and ibtracert in $SFAB_OPENSM, checked against the topology
# file (links.expected) and the nodes' LIDs and attachments.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	sm_wait_fabric
	wait_file links.ready 120
	g16() { printf '0x%016x' "$(($1))"; }
	# iblinkinfo names a switch by its node GUID, an HCA by its port GUID
	guid_of() {
		if [ -e "$lab/$1.active" ]; then
			g16 "$(cut -d' ' -f2 "$lab/$1.active")"
		else
			g16 "$(cut -d' ' -f2 "$lab/$1.switch")"
		fi
	}

	# iblinkinfo -l: "SWGUID "DESC" LID PORT[..] ==( LINK )==> PEERGUID
	# PEERLID PEERPORT[..] ..." for every switch port
	out=$(timeout 120 iblinkinfo -l 2>&1) || fail "iblinkinfo -l: $out"
	# (the HCAs' own lines too: keep the switches')
	# the switches: SW.switch "LID GUID" from the host half
	switches=$(cd "$lab" && ls -- *.switch | sed 's/\.switch$//')
	swguids=$(for s in $switches; do g16 "$(cut -d' ' -f2 "$lab/$s.switch")"; echo; done)
	links=$(sed -n 's/^\(0x[0-9a-f]*\) *".*" *[0-9]* *\([0-9]*\)\[[^]]*\] *==(\(.*\))==> *\(0x[0-9a-f]*\) *[0-9]* *\([0-9]*\)\[.*$/\1 \2 \4 \5 \3/p' <<< "$out" |
		tr -s ' ' | while read -r g rest; do
			grep -qx "$(g16 "$g")" <<< "$swguids" && echo "$g $rest"
		done)
	n=0
	while read -r swg port peer pport; do
		want="$(g16 "$swg") $port $(guid_of "$peer") $pport"
		got=$(while read -r a b c d rest; do
			[ "$(g16 "$a") $b $(g16 "$c") $d" = "$want" ] && echo "$rest"
		done <<< "$links")
		[ -n "$got" ] || {
			echo "$out"
			echo "switch GUIDs: $swguids"
			echo "switch links parsed:"
			echo "$links"
			fail "iblinkinfo: no link $want ($peer)"
		}
		grep -q '4X.*Active/ *LinkUp' <<< "$got" ||
			fail "iblinkinfo: link $want ($peer) is '$got'"
		n=$((n + 1))
	done < "$lab/links.expected"
	active=$(grep -c 'Active/ *LinkUp' <<< "$links")
	[ "$active" = "$n" ] ||
		{ echo "$out"; fail "iblinkinfo: $active Active links, the topology has $n cabled switch ports"; }
	ok "iblinkinfo: all $n cabled switch ports 4X Active/LinkUp to the right peer port"

	# ibroute SWITCH_LID: "0xLID PORT : (...)" lines
	for s in $switches; do
		read -r slid _ < "$lab/$s.switch"
		out=$(timeout 60 ibroute "$slid" 2>&1) || fail "ibroute $slid ($s): $out"
		for node in $SFAB_NODES; do
			read -r lid _ < "$lab/$node.active"
			port=$(awk -v l="$(printf '0x%04x' "$lid")" '$1 == l && $3 == ":" { print $2 + 0 }' <<< "$out")
			[ -n "$port" ] || { echo "$out"; fail "ibroute $slid ($s): no entry for $node (LID $lid)"; }
			read -r alid aport _ < "$lab/$node.attach"
			if [ "$alid" = "$slid" ] && [ "$port" != "$aport" ]; then
				echo "$out"
				fail "ibroute $slid ($s): $node (LID $lid) goes out of port $port, its cable is on port $aport"
			fi
		done
		ok "ibroute $s (LID $slid): every node's LID routed, local nodes to their ports"
	done

	# ibtracert n1 -> n3: leaf 1, a spine, leaf 2
	set -- $SFAB_NODES
	src=$1 dst=$3
	read -r slid _ < "$lab/$src.active"
	read -r dlid _ < "$lab/$dst.active"
	out=$(timeout 60 ibtracert "$slid" "$dlid" 2>&1) || fail "ibtracert $slid $dlid: $out"
	hops=$(grep -c -- '-> switch port' <<< "$out")
	[ "$hops" = 3 ] || { echo "$out"; fail "ibtracert $src -> $dst: $hops switch hops, want 3"; }
	read -r _ _ sg < "$lab/$src.attach"
	read -r _ _ dg < "$lab/$dst.attach"
	first=$(grep -- '-> switch port' <<< "$out" | head -n 1 | grep -o '{0x[0-9a-f]*}' | tr -d '{}')
	last=$(grep -- '-> switch port' <<< "$out" | tail -n 1 | grep -o '{0x[0-9a-f]*}' | tr -d '{}')
	[ "$(g16 "$first")" = "$(g16 "$sg")" ] && [ "$(g16 "$last")" = "$(g16 "$dg")" ] ||
		{ echo "$out"; fail "ibtracert $src -> $dst: not through $src's and $dst's leaves"; }
	grep -q "To ca .* lid $dlid-$dlid" <<< "$out" ||
		{ echo "$out"; fail "ibtracert $src -> $dst: does not end at LID $dlid"; }
	ok "ibtracert $src -> $dst: $(grep -- '-> switch port' <<< "$out" | sed 's/.*"\(.*\)".*/\1/' | paste -sd '>' | sed 's/>/ -> /g')"
	touch "$lab/diags.done"
fi
sm_end
