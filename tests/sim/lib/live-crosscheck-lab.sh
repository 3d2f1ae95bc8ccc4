#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sim/live-crosscheck's lab (tests/sim/run-sim runs it): the incast of
# live-crosscheck.conf on tests/configs/topologies/incast.topo, halves
# live-crosscheck.{guest,host}.sh.  Prints the lab's steps as # lines and,
# last, "lab_out=DIR": the lab's results (the switch's captures in
# DIR/sw1, the share in DIR/shared), kept for the caller to read and
# remove.  Exit status 1 when the lab could not run or failed.
set -u
. "$(dirname "$0")/../../verbs/lib/common.bash"
export SFAB_KEEP_LAB=1
SFAB_LAB_LIB=$SFAB_TOP/tests/sim/lib SFAB_LAB_PREREQS="guest-prereqs switch rdma-core" \
	sfab_sm_lab live-crosscheck incast.topo 600
grep -q '^ok: live-crosscheck lab done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish (results in $OUT)"
}
echo "lab_out=$OUT"
