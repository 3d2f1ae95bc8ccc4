# SPDX-License-Identifier: GPL-2.0-only
# Host half of sec/mkey: every node Active, switch ports ACTIVE (through
# the switch's control socket, not SMPs), then waits for the guests.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file mkey.done 400
# the switch's SMA refused what n2 sent it without the key
check_switches 30
ok "mkey done"
touch "$lab/step.done"
