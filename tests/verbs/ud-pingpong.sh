#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/ud-pingpong: on the 2-node fabric (tests/configs/topologies/
# 2node.topo) with opensm Active, Debian's ibv_ud_pingpong between a user
# QP in n1 and one in n2, across the switch, on the project's libibverbs
# and libsfab: 200 iterations each of 16 bytes (inline), 1024 bytes and
# the active MTU, and 1024 bytes sleeping on CQ events; every completion
# on both ends (-c checks one byte per page).  Halves:
# lib/ud-pingpong.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab ud-pingpong 2node.topo 600
grep -q '^ok: ud-pingpong done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
