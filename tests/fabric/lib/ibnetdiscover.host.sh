# SPDX-License-Identifier: GPL-2.0-only
# Host half of fabric/ibnetdiscover: every node Active, every cabled switch
# port ACTIVE; waits for the discovery in $SFAB_OPENSM.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
t0=$SECONDS
wait_nodes up 500
wait_nodes active 300
ok "every node Active ($((SECONDS - t0)) s)"
check_switches 60
wait_file ibnetdiscover.txt 120
ok "ibnetdiscover.txt written"
touch "$lab/step.done"
