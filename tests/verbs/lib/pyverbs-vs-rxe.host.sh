# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/pyverbs-vs-rxe: every node Active, then waits for
# both runs of the suite.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file pyverbs.done 1900
ok "pyverbs done"
touch "$lab/step.done"
