#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/ibping: on the leaf/spine fabric (tests/configs/topologies/
# leafspine.topo) with opensm Active, Debian's ibping in n1 reaches an
# ibping server in each of n2 (same leaf), n3 and n4 (leaf, spine, leaf:
# three switch hops) by LID and by port GUID (a PathRecord from opensm's
# SA): 10 of 10 answered each time.  Halves: lib/ibping.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab ibping leafspine.topo 400
grep -q '^ok: ibping done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
