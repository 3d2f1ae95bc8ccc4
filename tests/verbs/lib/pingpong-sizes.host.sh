# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/pingpong-sizes: every node Active, then waits for the
# pingpong runs of the guests.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file pingpong-sizes.done 800
ok "pingpong-sizes done"
touch "$lab/step.done"
