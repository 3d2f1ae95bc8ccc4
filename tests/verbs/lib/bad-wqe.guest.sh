# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/bad-wqe (host half: bad-wqe.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	prog=$SFAB_TOP/build/verbs/bad_wqe
	rm -f /tmp/victim.keys
	"$prog" victim /tmp/victim.keys > /tmp/victim.log 2>&1 &
	vpid=$!
	for ((i = 0; i < 100; i++)); do
		[ -s /tmp/victim.keys ] && break
		sleep 0.1
	done
	[ -s /tmp/victim.keys ] || fail "the victim did not start: $(cat /tmp/victim.log)"
	out=$(timeout 240 "$prog" attack /tmp/victim.keys 2>&1) || fail "bad_wqe attack: $out"
	while read -r line; do
		ok "${line#ok: }"
	done <<< "$(grep '^ok:' <<< "$out")"
	kill -TERM "$vpid"
	wait "$vpid" || fail "victim: $(cat /tmp/victim.log)"
	ok "$(grep '^ok:' /tmp/victim.log | sed 's/^ok: //')"
	bad=$(dmesg | tail -n +$((dmesg_mark + 1)) | "$SFAB_TOP/tools/sfab-kreport" -)
	[ -z "$bad" ] || fail "kernel log: $bad"
	touch "$lab/bad-wqe.done"
fi
sm_end
