# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/resize-cq and verbs/rereg-mr (sourced by their
# *.guest.sh with $mode set): in the node running opensm,
# lib/resize_rereg.py $mode on sfab_0; the others only bring the fabric up.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	out=$(timeout 240 /usr/bin/python3 "$SFAB_TOP/tests/verbs/lib/resize_rereg.py" "$mode" sfab_0 2>&1) ||
		fail "resize_rereg.py $mode: $(tail -n 12 <<< "$out")"
	while read -r line; do
		ok "${line#ok: }"
	done <<< "$(grep '^ok:' <<< "$out")"
	touch "$lab/$mode.done"
fi
sm_end
