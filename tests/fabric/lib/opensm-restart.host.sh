# SPDX-License-Identifier: GPL-2.0-only
# Host half of fabric/opensm-restart: every node Active, switch ports
# ACTIVE, then waits for the restart in $SFAB_OPENSM and checks the
# switch ports again.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file restart.done 240
check_switches 30
ok "opensm-restart done"
touch "$lab/step.done"
