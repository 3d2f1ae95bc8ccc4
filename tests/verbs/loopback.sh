#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/loopback: on the 2-node fabric (tests/configs/topologies/
# 2node.topo) with opensm Active, each node runs Debian's ibv_ud_pingpong
# server and client against its own LID: the HCA loops the UD sends back
# to itself.  16 bytes (inline) and the active MTU, 200 iterations each,
# every completion on both ends (-c checks one byte per page).  Halves:
# lib/loopback.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab loopback 2node.topo 600
grep -q '^ok: loopback done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
