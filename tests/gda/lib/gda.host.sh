# SPDX-License-Identifier: GPL-2.0-only
# Host half of the gda tier: every node Active, then waits for each
# node's tests.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_nodes gda.done 1500
ok "gda tests done"
touch "$lab/step.done"
