# SPDX-License-Identifier: GPL-2.0-only
# Host half of the ulp tier: every node Active, then waits for each
# node's tests.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_nodes ulp.done 1500
ok "ulp tests done"
touch "$lab/step.done"
