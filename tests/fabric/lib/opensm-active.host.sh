# SPDX-License-Identifier: GPL-2.0-only
# Host half of fabric/opensm-active: every node Active with a LID, every
# cabled switch port LinkUp ACTIVE (sfab-switchctl), LIDs distinct.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
t0=$SECONDS
wait_nodes up 500
ok "every node LinkUp ($((SECONDS - t0)) s)"
wait_nodes active 300
ok "every node Active ($((SECONDS - t0)) s)"
check_switches 30
check_lids
touch "$lab/step.done"
