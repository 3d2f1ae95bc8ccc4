#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/opensm-restart: on the 2-node fabric with opensm Active, opensm is
# stopped and started again.  The new opensm reaches SUBNET UP with no
# error in its log, every port stays Active with the LID it had (opensm's
# GUID-to-LID cache), and n1 still reaches n2 (perfquery, ibping).
# Halves: lib/opensm-restart.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab opensm-restart 2node.topo
grep -q '^ok: opensm-restart done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
