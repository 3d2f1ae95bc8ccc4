# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/ud-pingpong (host half: ud-pingpong.host.sh).  With
# the fabric Active, the node that is not $SFAB_OPENSM runs
# ibv_ud_pingpong servers, $SFAB_OPENSM their clients: UD sends between
# user QPs of two guests across the switch, posted and polled by libsfab
# without the kernel, with user MRs.  Message sizes: inline (16 bytes),
# 1024 and the port's active MTU; one run sleeps on CQ events (-e)
# instead of polling.  Every run must complete all its iterations on both
# ends (which pass -c, rdma-core's one-byte-per-page check; the data
# itself is verbs/data-integrity's).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
verbs_fabric_up
mtu=$(active_mtu) || exit 1
pingpong_pair ud ibv_ud_pingpong 200 16 1024 "$mtu" 1024:-e
[ "$me" = "$sm" ] && touch "$lab/ud-pingpong.done"
sm_end
