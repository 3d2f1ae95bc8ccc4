#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/pyverbs: rdma-core 56.1's own test suite (tests/run_tests.py, on
# the project's pyverbs built with Debian's cython3) against sfab_0, on the
# 2-node fabric with opensm Active (the tests that need a peer run their
# two sides in n1, through the port's own LID).  No test may fail or end
# in error; the pass/skip table, with every skip's reason as the suite
# gives it, goes to build/verbs/pyverbs-results.txt.  Halves:
# lib/pyverbs.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab pyverbs 2node.topo 1500
grep -q '^ok: pyverbs done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
log=$OUT/shared/pyverbs.log
res=$SFAB_TOP/build/verbs
mkdir -p "$res"
# every skip for a reason tests/verbs/lib/pyverbs-skips allows (what sfab
# does not have); at least PYVERBS_MIN_OK tests pass: the count has been
# 52 to 56, moving with the suite's random choice of create_qp variants
PYVERBS_MIN_OK=50
rc=0
/usr/bin/python3 "$SFAB_TOP/tests/verbs/lib/pyverbs-table.py" "$log" \
	--skips "$SFAB_TOP/tests/verbs/lib/pyverbs-skips" --min-ok $PYVERBS_MIN_OK \
	> "$res/pyverbs-results.txt" || rc=$?
sed 's/^/# /' "$res/pyverbs-results.txt" | head -n 12
grep -q '^Ran [0-9]* tests' "$log" || sfab_fail "the suite did not finish: $(tail -n 5 "$log")"
if [ $rc != 0 ]; then
	sed -n '/^\(failed or in error\|skipped for a reason\|only [0-9]* tests\)/,$p' \
		"$res/pyverbs-results.txt" | sed 's/^/# /'
	sfab_fail "the pyverbs suite: a failure, an error, a skip that is not allowed, or fewer than $PYVERBS_MIN_OK passed (table in $res/pyverbs-results.txt)"
fi
grep -qE '^OK( \(|$)' "$log" || sfab_fail "the suite did not end with OK: $(tail -n 3 "$log")"
exit 0
