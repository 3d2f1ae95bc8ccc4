# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/ud-srq (host half: ud-srq.host.sh).  With the
# fabric Active, every node runs lib/ud_srq.py (pyverbs on the project's
# rdma-core): UD sends to its own LID received through a shared receive
# queue, data compared byte for byte, unsignalled sends without
# completions, the SRQ limit event, and a send CQ smaller than the SQ.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 180
t0=$(now)
out=$(timeout 120 /usr/bin/python3 -u "$SFAB_TOP/tests/verbs/lib/ud_srq.py" "$(lid_of "$me")" 2>&1) ||
	fail "ud_srq.py: $(tail -n 8 <<< "$out")"
while read -r line; do
	case "$line" in ok:*) ok "${line#ok: }" ;; esac
done <<< "$out"
ok "ud_srq.py done ($(since "$t0") s)"
touch "$lab/$me.srq.done"
sm_end
