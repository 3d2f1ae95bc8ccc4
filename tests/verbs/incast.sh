#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/incast: on tests/configs/topologies/incast.topo (a switch with
# input buffers of 72 credit blocks per VL), n2, n3 and n4 run
# ibv_rc_pingpong clients against three servers in n1 at the same time,
# 64 KiB messages, both ends validating every buffer they receive (-c).
# Lossless under real traffic: every run completes with its data intact;
# every loss and error counter sfab-switchctl shows for each cabled switch
# port (discards, receive errors, relay errors, symbol errors, buffer
# overruns, VL15 drops, VCRC/ICRC errors, malformed frames, bad FC
# packets) and the switch's no-route count are 0; every PortCounters error
# counter of every HCA port is 0 in perfquery and in `rdma statistic`; no
# link went down (LinkDownedCounter, link_downed as before the traffic),
# no HCA's transport counters (retransmits, retrans_pkts, ACK timeouts,
# sequence/implied/RNR NAKs, out-of-sequence and duplicate requests,
# retry-exceeded completions) moved during the incast; a counter missing
# from any output is a failure.  And the senders waited for credit:
# PortXmitWait > 0 in perfquery and port_xmit_wait > 0 in `rdma statistic`
# summed over them.  Halves: lib/incast.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab incast incast.topo 700
grep -q '^ok: incast done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
