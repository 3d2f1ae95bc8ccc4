# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/srq-pingpong (host half: srq-pingpong.host.sh).  With
# the fabric Active, the node that is not $SFAB_OPENSM runs ibv_srq_pingpong
# servers, $SFAB_OPENSM their clients: RC SENDs received through a shared receive queue (16 QPs on one SRQ)
# between user QPs of two guests across the switch, posted and polled by
# libsfab; both ends pass -c, rdma-core's one-byte-per-page check (the data
# itself is verbs/data-integrity's).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
verbs_fabric_up
pingpong_pair srq ibv_srq_pingpong 200 16 4096 4096:-e
[ "$me" = "$sm" ] && touch "$lab/srq-pingpong.done"
sm_end
