# SPDX-License-Identifier: GPL-2.0-only
# Host half of the one-process pyverbs tests (resize-rereg.guest.bash;
# sourced with $mode):
# every node Active, then waits for the node running opensm.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file "$mode.done" 300
ok "$mode done"
touch "$lab/step.done"
