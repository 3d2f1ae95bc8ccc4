# SPDX-License-Identifier: GPL-2.0-only
# Host half of fabric/leafspine-reroute: every node Active, switch ports
# ACTIVE; then takes down the spine port n1 asks for (reroute.req:
# "SPINE_GUID PORT") and, once n1 has seen the new route, brings it up
# again and waits until every cabled port is ACTIVE once more.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file reroute.req 180
read -r rguid rport < "$lab/reroute.req"
spine=$(switch_of_guid "$rguid") || fail "no switch has GUID $rguid"
swctl "$spine" port "$rport" down > /dev/null || fail "$spine: port $rport down failed"
ok "$spine port $rport taken down"
touch "$lab/reroute.down"
wait_file reroute.seen 180
swctl "$spine" port "$rport" up > /dev/null || fail "$spine: port $rport up failed"
ok "$spine port $rport up again"
check_switches 120
touch "$lab/reroute.up"
wait_file reroute.done 120
ok "reroute done"
touch "$lab/step.done"
