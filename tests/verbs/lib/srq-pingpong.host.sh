# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/srq-pingpong: every node Active, then waits for the
# pingpong runs of the guests.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file srq-pingpong.done 500
ok "srq-pingpong done"
touch "$lab/step.done"
