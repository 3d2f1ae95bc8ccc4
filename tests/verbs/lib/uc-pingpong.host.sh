# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/uc-pingpong: every node Active, then waits for the
# pingpong runs of the guests.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file uc-pingpong.done 500
ok "uc-pingpong done"
touch "$lab/step.done"
