#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/pyverbs-vs-rxe: rdma-core 56.1's pyverbs suite (run_tests.py)
# against sfab_0 and then against rdma_rxe (Linux's soft RoCE on the
# guest's virtio-net link) in the same guest of one lab run
# (configs/topologies/pyverbs-rxe.topo; sfab_0 with IPoIB up, for the
# rdma_cm tests).  Fails when any sfab_0 test fails or ends in error, or
# when sfab_0 passes fewer tests than rxe0.  Both tables, and the tests
# each passes and the other does not, go to
# build/verbs/pyverbs-vs-rxe.txt.  Halves: lib/pyverbs-vs-rxe.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab pyverbs-vs-rxe pyverbs-rxe.topo 2100
grep -q '^ok: pyverbs done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
res=$SFAB_TOP/build/verbs
mkdir -p "$res"
rc=0
/usr/bin/python3 "$SFAB_TOP/tests/verbs/lib/pyverbs-table.py" \
	"$OUT/shared/pyverbs-sfab_0.log" --dev sfab_0 \
	--versus "$OUT/shared/pyverbs-rxe0.log" --versus-dev rxe0 \
	> "$res/pyverbs-vs-rxe.txt" || rc=$?
grep -E '^(rdma-core|  [A-Za-z]+ [0-9]|passed on|sfab_0 passed)' "$res/pyverbs-vs-rxe.txt" |
	sed 's/^/# /'
[ $rc = 0 ] || {
	sed -n '/^failed or in error/,/^$/p' "$res/pyverbs-vs-rxe.txt" | head -n 20 | sed 's/^/# /'
	sfab_fail "sfab_0 failed a test or passed fewer than rxe0 (tables in $res/pyverbs-vs-rxe.txt)"
}
exit 0
