# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/xrc: every node Active, then both nodes' programs done.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
wait_file n1.xrc.done 300
wait_file n2.xrc.done 60
ok "xrc done"
touch "$lab/step.done"
