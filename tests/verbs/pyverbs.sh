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
/usr/bin/python3 "$SFAB_TOP/tests/verbs/lib/pyverbs-table.py" "$log" > "$res/pyverbs-results.txt" ||
	sfab_fail "could not read the suite's output"
sed 's/^/# /' "$res/pyverbs-results.txt" | head -n 12
grep -q '^Ran [0-9]* tests' "$log" || sfab_fail "the suite did not finish: $(tail -n 5 "$log")"
bad=$(grep -E '\.\.\. (ERROR|FAIL)$' "$log" || true)
[ -z "$bad" ] || {
	printf '%s\n' "$bad" | sed 's/^/# /'
	sfab_fail "$(wc -l <<< "$bad") tests failed or ended in error"
}
grep -qE '^OK( \(|$)' "$log" || sfab_fail "the suite did not end with OK: $(tail -n 3 "$log")"
exit 0
