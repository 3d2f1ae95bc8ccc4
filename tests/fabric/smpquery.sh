#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/smpquery: on the 2-node fabric with opensm Active, Debian's
# smpquery in n1 reads n2's NodeInfo, PortInfo and NodeDescription by LID
# (GUIDs, LID, SM LID, Active/LinkUp as expected), the switch's NodeInfo,
# SwitchInfo and PortInfo by LID, the switch by directed route; a query to
# an unassigned LID fails after its timeout instead of hanging.  Halves:
# lib/smpquery.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab smpquery 2node.topo
grep -q '^ok: smpquery done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
