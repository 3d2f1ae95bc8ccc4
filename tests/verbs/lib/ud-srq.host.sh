# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/ud-srq: every node Active, then waits for each node's
# run of lib/ud_srq.py.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_nodes srq.done 300
ok "ud-srq done"
touch "$lab/step.done"
