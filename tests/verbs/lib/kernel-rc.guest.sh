# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/kernel-rc (host half: kernel-rc.host.sh).  With the
# fabric Active, $SFAB_OPENSM loads the KUnit module sfab_kverbs_kunit.ko:
# kernel RC QPs connected through the port's own LID, fast registration,
# RDMA WRITE/READ, atomics, SEND with immediate and LOCAL_INV
# (drivers/infiniband/hw/sfab/tests/kverbs_kunit.c).  The suite must pass,
# not skip, and the module must unload.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 180
if [ "$me" = "$sm" ]; then
	t0=$(now)
	out=$(timeout 120 insmod "$SFAB_MODDIR/sfab_kverbs_kunit.ko" 2>&1) ||
		fail "insmod sfab_kverbs_kunit.ko: $out"
	f=/sys/kernel/debug/kunit/sfab_kverbs/results
	[ -f "$f" ] || fail "no KUnit results for sfab_kverbs"
	# every case of the source ran and passed, none skipped
	res=$(/usr/bin/python3 "$SFAB_TOP/tests/lib/ktap.py" --suite sfab_kverbs \
		"$SFAB_TOP/drivers/infiniband/hw/sfab/tests" "$f") ||
		fail "sfab_kverbs: $res $(grep -E 'Expected|ASSERT|EXPECT|wr_id' "$f" | head -n 20)"
	ok "kunit sfab_kverbs passed ($(since "$t0") s):" \
		"$(grep -oE 'ok [0-9]+ sfab_kverbs_[a-z_]+' "$f" | sed 's/^ok [0-9]* //' | tr '\n' ' ')"
	rmmod sfab_kverbs_kunit || fail "rmmod sfab_kverbs_kunit failed"
	touch "$lab/kernel-rc.done"
fi
sm_end
