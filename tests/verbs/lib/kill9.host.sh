# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/kill9: every node Active, then waits for n1.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file kill9.done 300
ok "kill9 done"
touch "$lab/step.done"
