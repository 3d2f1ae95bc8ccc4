# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/kernel-rc: every node Active, then waits for the
# KUnit run in $SFAB_OPENSM.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file kernel-rc.done 300
ok "kernel-rc done"
touch "$lab/step.done"
