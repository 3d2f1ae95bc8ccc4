# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/bad-rkey (host half: bad-rkey.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	out=$(timeout 240 /usr/bin/python3 "$SFAB_TOP/tests/verbs/lib/remote_access.py" sfab_0 2>&1) ||
		fail "remote_access.py: $out"
	while read -r line; do
		ok "${line#ok: }"
	done <<< "$(grep '^ok:' <<< "$out")"
	touch "$lab/bad-rkey.done"
fi
sm_end
