#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/diags: on the leaf/spine fabric with opensm Active, Debian's
# infiniband-diags in n1 agree with the topology file
# (tests/configs/topologies/leafspine.topo):
#   iblinkinfo  every cabled switch port is a 4X Active/LinkUp link to the
#               node or switch port the topology file names;
#   ibroute     every switch's LFT (as opensm programmed it) has an entry
#               for every node's LID, and a leaf sends its own nodes' LIDs
#               out of the port their cable is on;
#   ibtracert   n1 to n3 goes leaf 1, a spine, leaf 2: three switch hops.
# Halves: lib/diags.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab diags leafspine.topo 400
grep -q '^ok: diags done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
