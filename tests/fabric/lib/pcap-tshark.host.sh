# SPDX-License-Identifier: GPL-2.0-only
# Host half of fabric/pcap-tshark: every node Active, switch ports ACTIVE,
# then waits for the traffic in $SFAB_OPENSM.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
check_switches 60
wait_file traffic.done 180
ok "pcap-tshark done"
touch "$lab/step.done"
