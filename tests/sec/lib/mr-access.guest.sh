# SPDX-License-Identifier: GPL-2.0-only
# Guest half of sec/mr-access: in the node running opensm, lib/mr_access.py on
# sfab_0 (its whole output in the lab share, mr-access.out); the other node
# only brings the fabric up.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	rc=0
	timeout -k 10 120 /usr/bin/python3 "$SFAB_TOP/tests/sec/lib/mr_access.py" sfab_0 \
		> "$lab/mr-access.out" 2>&1 || rc=$?
	out=$(cat "$lab/mr-access.out")
	[ "$rc" = 0 ] || fail "mr_access.py (exit $rc): $(tail -n 12 <<< "$out")"
	while read -r line; do
		ok "${line#ok: }"
	done <<< "$(grep '^ok:' <<< "$out")"
	touch "$lab/mr-access.done"
fi
sm_end
