# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/loopback: every node Active, then waits for each
# node's loopback runs.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_nodes loop.done 400
ok "loopback done"
touch "$lab/step.done"
