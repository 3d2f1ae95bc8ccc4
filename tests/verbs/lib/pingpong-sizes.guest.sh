# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/pingpong-sizes (host half: pingpong-sizes.host.sh).
# With the fabric Active, the node that is not $SFAB_OPENSM runs the
# ibv_*_pingpong servers and $SFAB_OPENSM their clients (lib/verbs.guest.bash),
# both ends with -c; then each node checks that its transport counters did
# not move: no retransmission, no ACK timeout, no sequence or RNR NAK.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/counters.guest.bash"
# a round trip that waits on one of the transport counters
# (HCA_RS_TRANSPORT) is a transport bug here: the fabric is lossless and
# every receive is posted before the peer sends

verbs_fabric_up
before=$(hca_rdma_stat)
# RC: 1 B to 1 MiB at the tool's default MTU (1024), 1 MiB at 256 and
# 4096, 64 KiB sleeping on events
PINGPONG_PORT=18600 pingpong_pair rc ibv_rc_pingpong 20 1 65536 1048576 \
	"1048576:-m 256" "1048576:-m 4096" "65536:-e"
# UC: no retransmission at all, so a lost packet hangs the run
PINGPONG_PORT=18620 pingpong_pair uc ibv_uc_pingpong 20 "65536:-m 256" \
	"1048576:-m 4096"
# UD: one packet each, up to the port's MTU
mtu=$(active_mtu) || exit 1
PINGPONG_PORT=18640 pingpong_pair ud ibv_ud_pingpong 50 1 2048 "$mtu" "$mtu:-e"
# SRQ: 16 QPs on one SRQ, 64 KiB at 1024 and 4096
PINGPONG_PORT=18660 pingpong_pair srq ibv_srq_pingpong 20 65536 \
	"65536:-m 4096" "65536:-e"
after=$(hca_rdma_stat)
bad=
for c in $HCA_RS_TRANSPORT; do
	b=$(cnt_one rs_val "$before" "$c") || fail "$c: not in rdma statistic: $before"
	a=$(cnt_one rs_val "$after" "$c") || fail "$c: not in rdma statistic: $after"
	[ "$a" = "$b" ] || bad+="$c $b -> $a; "
done
[ -z "$bad" ] || fail "transport counters moved: $bad"
ok "transport counters unchanged: $(for c in $HCA_RS_TRANSPORT; do printf '%s %s ' "$c" "$(rs_val "$after" "$c")"; done)"
touch "$lab/$me.pps.done"
for n in $SFAB_NODES; do
	wait_file "$n.pps.done" 300
done
[ "$me" = "$sm" ] && touch "$lab/pingpong-sizes.done"
sm_end
