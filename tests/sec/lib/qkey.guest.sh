# SPDX-License-Identifier: GPL-2.0-only
# Guest half of sec/qkey: in the node running opensm, lib/qkey.py on
# sfab_0 (its whole output in the lab share, qkey.out); the other node
# only brings the fabric up.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	rc=0
	timeout -k 10 120 /usr/bin/python3 "$SFAB_TOP/tests/sec/lib/qkey.py" sfab_0 \
		> "$lab/qkey.out" 2>&1 || rc=$?
	out=$(cat "$lab/qkey.out")
	[ "$rc" = 0 ] || fail "qkey.py (exit $rc): $(tail -n 12 <<< "$out")"
	while read -r line; do
		ok "${line#ok: }"
	done <<< "$(grep '^ok:' <<< "$out")"
	touch "$lab/qkey.done"
fi
sm_end
