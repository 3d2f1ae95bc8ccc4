# SPDX-License-Identifier: GPL-2.0-only
# Host half of sim/live-crosscheck's lab (guest half:
# live-crosscheck.guest.sh): the switch's counters once every node has
# read its own (switch.before) and once the traffic is over
# (switch.after), and NODE.port "SWITCH_PORT LID" for every node.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
for n in $SFAB_NODES; do
	read -r _ p _ < "$lab/$n.attach"
	echo "$p $(cut -d' ' -f1 "$lab/$n.active")" > "$lab/$n.port"
done
wait_nodes before 200
swctl sw1 counters > "$lab/switch.before" || fail "sfab-switchctl counters failed"
touch "$lab/xc.before"
wait_file xc.traffic 500
swctl sw1 counters > "$lab/switch.after" || fail "sfab-switchctl counters failed"
ok "switch counters before and after the traffic"
touch "$lab/xc.switch"
wait_file xc.done 200
ok "live-crosscheck lab done"
touch "$lab/step.done"
