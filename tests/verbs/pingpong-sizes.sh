#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/pingpong-sizes: on the 2-node fabric (tests/configs/topologies/
# 2node.topo) with opensm Active, Debian's ibv_{rc,uc,ud,srq}_pingpong
# between n1 and n2 at large sizes and several path MTUs (256 to 4096),
# polling and sleeping on CQ events.  Every run must end cleanly on both
# ends (an end that completes with an error while its peer exits cleanly
# is a transport bug), and no round trip may wait on a retransmission
# timer: each node's transport counters (`rdma statistic`: retransmits,
# local ACK timeouts, sequence NAKs, RNR NAKs) stay at their values from
# before.  Each run's time per iteration is printed.  Halves:
# lib/pingpong-sizes.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab pingpong-sizes 2node.topo 900
grep -q '^ok: pingpong-sizes done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
