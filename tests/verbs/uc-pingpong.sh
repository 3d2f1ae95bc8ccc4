#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/uc-pingpong: on the 2-node fabric (tests/configs/topologies/
# 2node.topo) with opensm Active, Debian's ibv_uc_pingpong between n1
# and n2 across the switch, on the project's libibverbs and libsfab:
# UC SENDs (segmentation, no ACKs);
# 200 iterations each of 16 (inline), 4096 and 65536 bytes, and 4096
# bytes sleeping on CQ events;
# every completion on both ends (-c checks one byte per page).  Halves:
# lib/uc-pingpong.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab uc-pingpong 2node.topo 700
grep -q '^ok: uc-pingpong done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
