#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/rc-pingpong: on the 2-node fabric (tests/configs/topologies/
# 2node.topo) with opensm Active, Debian's ibv_rc_pingpong between n1
# and n2 across the switch, on the project's libibverbs and libsfab:
# RC SENDs (the responder's ACKs, segmentation into path-MTU packets);
# 200 iterations each of 16 (inline), 4096 and 65536 bytes, and 4096
# bytes sleeping on CQ events;
# every completion on both ends (rdma-core's -c checks one byte per
# page: verbs/data-integrity checks the data).  Halves:
# lib/rc-pingpong.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab rc-pingpong 2node.topo 700
grep -q '^ok: rc-pingpong done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
