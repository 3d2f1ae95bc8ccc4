# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/link-pull: every node Active; when the client says
# the transfer runs (pull.req), take n2's switch port down; when the
# client has ended (pull.seen), bring it up again.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file pull.req 200
read -r _ p2 _ < "$lab/n2.attach"
swctl sw1 port "$p2" down > /dev/null || fail "sw1: port $p2 down failed"
ok "sw1 port $p2 (n2) down"
touch "$lab/pull.down"
wait_file pull.seen 200
swctl sw1 port "$p2" up > /dev/null || fail "sw1: port $p2 up failed"
ok "sw1 port $p2 (n2) up again"
check_switches 120
touch "$lab/pull.up"
wait_file link-pull.done 200
ok "link-pull done"
touch "$lab/step.done"
