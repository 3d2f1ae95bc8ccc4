# SPDX-License-Identifier: GPL-2.0-only
# Guest half of the one-node pyverbs tests of the sec tier (sec/qkey,
# sec/mr-access; sourced by their *.guest.sh with $name and $script set):
# in the node running opensm, tests/sec/lib/$script on sfab_0, its whole
# output in the lab share ($name.out); the other node only brings the
# fabric up.
: "${name:?}" "${script:?}"
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	rc=0
	timeout -k 10 120 /usr/bin/python3 "$SFAB_TOP/tests/sec/lib/$script" sfab_0 \
		> "$lab/$name.out" 2>&1 || rc=$?
	out=$(cat "$lab/$name.out")
	[ "$rc" = 0 ] || fail "$script (exit $rc): $(tail -n 12 <<< "$out")"
	while read -r line; do
		ok "${line#ok: }"
	done <<< "$(grep '^ok:' <<< "$out")"
	touch "$lab/$name.done"
fi
sm_end
