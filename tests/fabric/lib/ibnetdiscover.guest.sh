# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/ibnetdiscover (host half: ibnetdiscover.host.sh).
# opensm in $SFAB_OPENSM brings every port Active; once every node is
# Active, $SFAB_OPENSM runs ibnetdiscover (directed-route discovery from
# its port) into the lab share as ibnetdiscover.txt for the test to
# compare with the topology file.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	for n in $SFAB_NODES; do
		wait_file "$n.active" 300
	done
	t0=$(now)
	ibnetdiscover > "$lab/ibnetdiscover.tmp" 2> "$lab/ibnetdiscover.err" ||
		fail "ibnetdiscover failed: $(tail -n 5 "$lab/ibnetdiscover.err")"
	mv "$lab/ibnetdiscover.tmp" "$lab/ibnetdiscover.txt"
	ok "ibnetdiscover: $(grep -c '^Switch' "$lab/ibnetdiscover.txt") switches," \
		"$(grep -c '^Ca' "$lab/ibnetdiscover.txt") CAs ($(since "$t0") s)"
fi
sm_end
