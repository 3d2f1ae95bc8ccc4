#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/incast: on tests/configs/topologies/incast.topo (a switch with
# input buffers of 72 credit blocks per VL), n2, n3 and n4 run
# ibv_rc_pingpong clients against three servers in n1 at the same time,
# 64 KiB messages, both ends validating every buffer they receive (-c).
# Lossless under real traffic: every run completes with its data intact,
# PortXmitDiscards and PortRcvErrors are 0 on every switch port and every
# HCA port, and the senders waited for credit: PortXmitWait > 0 in
# perfquery and port_xmit_wait > 0 in `rdma statistic` summed over them.
# Halves: lib/incast.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab incast incast.topo 700
grep -q '^ok: incast done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
