# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/incast: every node Active; once the guests are done,
# no discards and no receive errors on any switch port.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file incast.traffic 500
out=$(swctl sw1 counters) || fail "sfab-switchctl counters failed"
bad=$(awk '/^port / { p = $2 } /PortXmitDiscards/ {
	for (i = 1; i < NF; i++) if (($i == "PortXmitDiscards" || $i == "PortRcvErrors") && $(i + 1) != 0)
		printf "port %s %s %s; ", p, $i, $(i + 1) }' <<< "$out")
[ -z "$bad" ] || { echo "$out"; fail "switch: $bad"; }
wait=$(awk '/PortXmitWait/ { for (i = 1; i < NF; i++) if ($i == "PortXmitWait") s += $(i + 1) } END { print s + 0 }' <<< "$out")
ok "switch: no PortXmitDiscards, no PortRcvErrors on any port; PortXmitWait summed over its ports $wait"
touch "$lab/incast.switch"
wait_file incast.done 200
ok "incast done"
touch "$lab/step.done"
