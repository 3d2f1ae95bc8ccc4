# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/opensm-active (host half: opensm-active.host.sh).
# Every node: sfab_0 port 1 LinkUp, MAD agents present; $SFAB_OPENSM runs
# opensm until SUBNET UP; every node's port 1 then turns Active with a LID
# in ibstat, and ibv_devinfo agrees.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
read -r lid _ < "$lab/$me.active"
st=$(ibv_devinfo -d sfab_0 -i 1 2>&1 |
	awk '$1 == "state:" { s = $2 } $1 == "port_lid:" { l = $2 } END { print s, l }')
[ "$st" = "PORT_ACTIVE $lid" ] ||
	fail "ibv_devinfo says '$st', ibstat said Active with LID $lid"
ok "ibv_devinfo: $st"
sm_end
