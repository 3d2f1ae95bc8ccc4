# SPDX-License-Identifier: GPL-2.0-only
# Host half of the fault tier: every node Active, then waits for each
# node's tests (the guests ask for their own faults, fault_inject).
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_nodes faults.done 1500
ok "fault tests done"
touch "$lab/step.done"
