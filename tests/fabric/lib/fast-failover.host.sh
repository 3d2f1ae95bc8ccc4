# SPDX-License-Identifier: GPL-2.0-only
# Host half of fabric/fast-failover: every node Active and switch port
# ACTIVE; then takes down the leaf port n1 asks for (failover.req:
# "LEAF_GUID PORT") and, once n1 has seen its pings answered again, shows
# every switch's failover counters and checks that the leaf moved
# destinations and sent on an alternate, and that a spine told a leaf.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file failover.req 240
read -r lguid lport < "$lab/failover.req"
leaf=$(switch_of_guid "$lguid") || fail "no switch has GUID $lguid"
swctl "$leaf" port "$lport" down > /dev/null || fail "$leaf: port $lport down failed"
ok "$leaf port $lport taken down"
touch "$lab/failover.down"
wait_file failover.seen 180
# "events E moved M unreachable U requeued R sent-alt A frn-sent S
# frn-taken T frn-refused F"
declare -A fo
for s in $SFAB_SWITCHES; do
	line=$(swctl "$s" failover | grep '^events ')
	ok "$s failover: $line"
	fo[$s]=$line
done
stat() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<< "${fo[$1]}"; }
[ "$(stat "$leaf" moved)" -gt 0 ] || fail "$leaf moved no destination"
[ "$(stat "$leaf" sent-alt)" -gt 0 ] || fail "$leaf sent nothing on an alternate"
told=0 taken=0
for s in $SFAB_SWITCHES; do
	told=$((told + $(stat "$s" frn-sent)))
	taken=$((taken + $(stat "$s" frn-taken)))
	[ "$(stat "$s" frn-refused)" = 0 ] || fail "$s refused a notification"
done
[ $told -gt 0 ] && [ $taken -gt 0 ] ||
	fail "no spine told a leaf ($told notifications sent, $taken taken)"
ok "$leaf moved $(stat "$leaf" moved) destinations, sent $(stat "$leaf" sent-alt) packets on an alternate; $told notifications sent, $taken taken"
ok "fast-failover done"
touch "$lab/step.done"
