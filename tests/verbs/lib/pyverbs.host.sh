# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/pyverbs: every node Active, then waits for the suite.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file pyverbs.done 1300
ok "pyverbs done"
touch "$lab/step.done"
