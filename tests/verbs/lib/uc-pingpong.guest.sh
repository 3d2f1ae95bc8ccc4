# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/uc-pingpong (host half: uc-pingpong.host.sh).  With
# the fabric Active, the node that is not $SFAB_OPENSM runs ibv_uc_pingpong
# servers, $SFAB_OPENSM their clients: UC SENDs (segmentation, no ACKs)
# between user QPs of two guests across the switch, posted and polled by
# libsfab, the client validating what it received (-c).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 180
for n in $SFAB_NODES; do
	wait_file "$n.active" 120
done
pingpong_pair uc ibv_uc_pingpong 200 16 4096 65536 4096:-e
[ "$me" = "$sm" ] && touch "$lab/uc-pingpong.done"
sm_end
