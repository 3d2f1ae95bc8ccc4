# SPDX-License-Identifier: GPL-2.0-only
# Host half of fabric/switch-restart: kills sw1's sfab-switchd (SIGKILL)
# while the fabric is Active, waits for every node's port to go Down,
# starts it again (tools/sfab-lab switch) and waits for every node and
# every cabled switch port to be Active again.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
check_lids
sfab-lab switch "$SFAB_LAB_DIR" sw1 kill || fail "sfab-lab switch sw1 kill failed"
t0=$SECONDS
touch "$lab/step.killed"
wait_nodes down 60
ok "every node Down $((SECONDS - t0)) s after the kill"
sfab-lab switch "$SFAB_LAB_DIR" sw1 start || fail "sfab-lab switch sw1 start failed"
t0=$SECONDS
touch "$lab/step.restarted"
wait_nodes reactive 200
ok "every node Active again $((SECONDS - t0)) s after the restart"
check_switches 60
ok "switch-restart done"
touch "$lab/step.done"
