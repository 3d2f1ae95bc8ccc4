# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/perftest-smoke: every node Active, then waits for
# the perftest runs of the guests.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file perftest.done 800
ok "perftest-smoke done"
touch "$lab/step.done"
