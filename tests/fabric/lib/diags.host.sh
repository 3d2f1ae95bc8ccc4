# SPDX-License-Identifier: GPL-2.0-only
# Host half of fabric/diags: every node Active, switch ports ACTIVE, the
# expected links from the topology file (lab share: links.expected, one
# "SWITCH_GUID PORT PEER_DESC PEER_PORT" per cabled switch port), then
# waits for the checks in $SFAB_OPENSM.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
# "link A B" lines: A and B are NODE or SWITCH:PORT
declare -A guid desc
for s in $SFAB_SWITCHES; do
	read -r _ guid[$s] < "$lab/$s.switch"
done
sed -n 's/^link  *\([^ ]*\)  *\([^ ]*\).*/\1 \2/p' "$SFAB_LAB_TOPO" |
	while read -r a b; do
		for end in "$a $b" "$b $a"; do
			read -r x y <<< "$end"
			[[ $x == *:* ]] || continue
			s=${x%%:*}
			if [[ $y == *:* ]]; then
				peer=${y%%:*} pport=${y##*:}
			else
				peer=$y pport=1
			fi
			echo "${guid[$s]} ${x##*:} $peer $pport"
		done
	done > "$lab/links.expected"
ok "$(wc -l < "$lab/links.expected") cabled switch ports in the topology file"
touch "$lab/links.ready"
wait_file diags.done 240
ok "diags done"
touch "$lab/step.done"
