# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/rc-pingpong (host half: rc-pingpong.host.sh).  With
# the fabric Active, the node that is not $SFAB_OPENSM runs ibv_rc_pingpong
# servers, $SFAB_OPENSM their clients: RC SENDs (the responder's ACKs, segmentation into path-MTU packets)
# between user QPs of two guests across the switch, posted and polled by
# libsfab; both ends pass -c, rdma-core's one-byte-per-page check (the data
# itself is verbs/data-integrity's).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
verbs_fabric_up
pingpong_pair rc ibv_rc_pingpong 200 16 4096 65536 4096:-e
[ "$me" = "$sm" ] && touch "$lab/rc-pingpong.done"
sm_end
