# SPDX-License-Identifier: GPL-2.0-only
# Guest half of the one-process pyverbs tests (verbs/resize-cq,
# verbs/resize-srq, verbs/rereg-mr, verbs/cq-ex; sourced by their
# *.guest.sh with $mode set, and $script unless lib/resize_rereg.py $mode):
# in the node running opensm, the script on sfab_0; the others only bring
# the fabric up.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	if [ -n "${script:-}" ]; then
		run=("$SFAB_TOP/tests/verbs/lib/$script" sfab_0)
	else
		run=("$SFAB_TOP/tests/verbs/lib/resize_rereg.py" "$mode" sfab_0)
	fi
	# the whole output stays in the lab's shared folder ($mode.out)
	rc=0
	timeout -k 10 240 /usr/bin/python3 "${run[@]}" > "$lab/$mode.out" 2>&1 || rc=$?
	out=$(cat "$lab/$mode.out")
	[ "$rc" = 0 ] ||
		fail "${run[0]##*/} $mode (exit $rc): $(tail -n 12 <<< "$out")"
	while read -r line; do
		ok "${line#ok: }"
	done <<< "$(grep '^ok:' <<< "$out")"
	touch "$lab/$mode.done"
fi
sm_end
