# SPDX-License-Identifier: GPL-2.0-only
# Host half of sec/qkey: every node Active, then waits for lib/qkey.py.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file qkey.done 300
ok "qkey done"
touch "$lab/step.done"
