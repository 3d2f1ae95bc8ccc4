#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/opensm-active: Debian's opensm, run in n1 of the 2-node fabric
# (tests/configs/topologies/2node.topo), sweeps it: SUBNET UP; every HCA
# port Active with a non-zero LID in ibstat and ibv_devinfo; every cabled
# switch port LinkUp/ACTIVE per sfab-switchctl; all LIDs distinct; no
# WARN/BUG/Oops.  Halves: lib/opensm-active.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab opensm-active 2node.topo
grep -q '^ok: every node Active' "$OUT/host.log" &&
	grep -q '^ok: LIDs distinct' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
