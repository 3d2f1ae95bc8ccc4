# SPDX-License-Identifier: GPL-2.0-only
# Host half of sec/mr-access: every node Active, then waits for lib/mr_access.py.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file mr-access.done 300
ok "mr-access done"
touch "$lab/step.done"
