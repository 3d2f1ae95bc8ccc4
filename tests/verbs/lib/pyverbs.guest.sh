# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/pyverbs (host half: pyverbs.host.sh): in
# $SFAB_OPENSM, with IPoIB up (ib0 has an address, for the suite's
# rdma_cm tests), rdma-core's run_tests.py on sfab_0, verbose, its output
# in the lab share (pyverbs.log).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/ulp/lib/ulp.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	out=$(ib_up 2>&1) || fail "IPoIB: $out"
	ok "ib0 $(ip_of "$me") up with carrier"
	t0=$(now)
	(cd /tmp && timeout 1200 "$SFAB_RDMA/bin/run_tests.py" --dev sfab_0 -v) \
		> "$lab/pyverbs.log" 2>&1
	ok "run_tests.py --dev sfab_0 exited $? after $(since "$t0") s: $(grep -E '^(Ran|OK|FAILED)' "$lab/pyverbs.log" | tr '\n' ' ')"
	touch "$lab/pyverbs.done"
fi
sm_end 1300
