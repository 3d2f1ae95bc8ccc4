# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/ud-pingpong: every node Active, then waits for the
# pingpong runs of the guests.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file ud-pingpong.done 400
ok "ud-pingpong done"
touch "$lab/step.done"
