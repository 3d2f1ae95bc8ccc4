# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/pyverbs-vs-rxe (host half: pyverbs-vs-rxe.host.sh):
# in $SFAB_OPENSM, with IPoIB up on sfab_0 (ib0) and rdma_rxe on eth0
# (rxe0), rdma-core's run_tests.py on sfab_0 and then on rxe0, each
# verbose, their output in the lab share (pyverbs-sfab_0.log,
# pyverbs-rxe0.log).  The other node only brings the fabric up.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/ulp/lib/ulp.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
# both nodes: the ethernet link drains only with both ends up
out=$(rxe_up 2>&1) || fail "rxe: $out"
if [ "$me" = "$sm" ]; then
	out=$(ib_up 2>&1) || fail "IPoIB: $out"
	ok "ib0 $(ip_of "$me") up with carrier"
	ok "rxe0 on eth0 (MTU $(cat /sys/class/net/eth0/mtu)) Active"
	suite() {
		t0=$(now)
		(cd /tmp && timeout 900 "$SFAB_RDMA/bin/run_tests.py" --dev "$1" -v) \
			> "$lab/pyverbs-$1.log" 2>&1
		ok "run_tests.py --dev $1 exited $? after $(since "$t0") s: $(grep -E '^(Ran|OK|FAILED)' "$lab/pyverbs-$1.log" | tr '\n' ' ')"
	}
	suite sfab_0
	# sfab's part of the kernel log must be clean; Linux 6.12's rxe
	# reports bugs of its own under this suite (WARNINGs in
	# __rxe_cleanup, a refcount underflow in rxe_skb_tx_dtor): its run
	# is fenced off (tools/sfab-kreport) and its reports kept apart
	bad=$(dmesg | tail -n +$((dmesg_mark + 1)) | "$SFAB_TOP/tools/sfab-kreport" -)
	[ -z "$bad" ] || fail "kernel log during the sfab_0 run: $bad"
	# The fence stays up to the end of the log: rxe's skbs outlive its
	# run (a refcount underflow in rxe_skb_tx_dtor at shutdown; with the
	# module removed, a jump into freed module text), so rdma_rxe is
	# neither unloaded nor held to account after its run.
	echo "sfab-kreport: ignore from here: rdma_rxe's pyverbs run" > /dev/kmsg
	mark=$(dmesg | wc -l)
	suite rxe0
	dmesg | tail -n +$((mark + 1)) > "$lab/kernel-rxe0.log"
	dmesg_mark=$(dmesg | wc -l)
	n=$("$SFAB_TOP/tools/sfab-kreport" "$lab/kernel-rxe0.log" | grep -c . || true)
	ok "rxe0's run: $n kernel report lines (rxe's own, in kernel-rxe0.log)"
	touch "$lab/pyverbs.done"
fi
sm_end 2000
