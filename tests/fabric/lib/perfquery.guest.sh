# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/perfquery (host half: perfquery.host.sh).  With the
# fabric Active, $SFAB_OPENSM queries the PMA of another node's HCA port
# and of the switch port that node is cabled to (LID-routed GMPs on QP1),
# sends 20 SMPs to that node, queries again: PortXmitPkts and PortXmitData
# moved by exactly the packets that crossed each port, 72 words each.
# Every perfquery asks the PMA for ClassPortInfo, then for the counters:
# after the first read the HCA sends that read's response, 20 SMP
# responses and the second perfquery's ClassPortInfo response (22), and
# the switch port forwards the 20 SMP requests and the second perfquery's
# two requests (22).  The extended counters (perfquery -x) read right
# after are exactly two packets on (the 32-bit read's response and -x's
# ClassPortInfo response; at the switch port, -x's two requests).  opensm
# runs without sweeps (-s 0), so that no other packet crosses these ports.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
# every packet here is a MAD without GRH: LRH 8 + BTH 12 + DETH 8 + MAD 256
# + ICRC 4 = 288 octets, 72 words (PortXmitData does not count the VCRC)
MAD_WORDS=72
sm_node_up
sm_start 0
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
	# exact, as the header says: 22 packets at each port
	for x in hca sw; do
		d1=${x}1_data d2=${x}2_data p1=${x}1_pkts p2=${x}2_pkts
		[ $((${!p2} - ${!p1})) = 22 ] ||
			fail "$x PortXmitPkts ${!p1} -> ${!p2}: moved by $((${!p2} - ${!p1})), want 22"
		[ $((${!d2} - ${!d1})) = $((22 * MAD_WORDS)) ] ||
			fail "$x PortXmitData ${!d1} -> ${!d2}: moved by $((${!d2} - ${!d1})), want 22 x $MAD_WORDS"
		ok "$x port PortXmitPkts ${!p1} -> ${!p2}, PortXmitData ${!d1} -> ${!d2}: exactly 22 packets"
	done
	# the extended counters: exactly two packets on from the 32-bit ones
	pq hcax -x "$plid" 1
	pq swx -x "$swlid" "$swport"
	for x in hca sw; do
		d2=${x}2_data p2=${x}2_pkts dx=${x}x_data px=${x}x_pkts
		[ $((${!px} - ${!p2})) = 2 ] && [ $((${!dx} - ${!d2})) = $((2 * MAD_WORDS)) ] ||
			fail "$x extended counters ${!px} pkts / ${!dx} words," \
				"32-bit just before ${!p2} / ${!d2}: want exactly 2 / $((2 * MAD_WORDS)) more"
	done
	ok "perfquery -x: HCA $hcax_pkts/$hcax_data, switch $swx_pkts/$swx_data: exactly two packets on"
	touch "$lab/perfquery.done"
fi
sm_end
