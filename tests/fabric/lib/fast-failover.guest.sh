# SPDX-License-Identifier: GPL-2.0-only
# Guest half of fabric/fast-failover (host half: fast-failover.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
sm_node_up
sm_start 2
wait_file sm.up 300
sm_wait_active 120
if [ "$me" != "$sm" ]; then
	sm_ibping_server
	sm_end 400
fi
sm_wait_fabric
set -- $SFAB_NODES
dst=$3
wait_file "$dst.pingd" 120
read -r slid _ < "$lab/$me.active"
read -r dlid _ < "$lab/$dst.active"
# leaf 1 and its port towards the spine: ibtracert's lines "[OUT] -> switch
# port {GUID}[IN] ...": the first names leaf 1, the second starts with
# leaf 1's port out
out=$(timeout 60 ibtracert "$slid" "$dlid" 2>&1) || fail "ibtracert $slid $dlid: $out"
hop=$(awk '/-> switch port/ { n++; if (n == 1) { g = $0; sub(/.*\{/, "", g); sub(/\}.*/, "", g) }
	if (n == 2) { p = $1; gsub(/[][]/, "", p); print g, p + 0 } }' <<< "$out")
[ -n "$hop" ] || fail "ibtracert $slid $dlid: no leaf hop in: $out"
got=$(timeout 120 ibping -f -c 10 -t 2000 -L "$dlid" 2>&1 |
	sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p')
[ "$got" = "10 10" ] || fail "ibping $dst before the pull: '$got', not 10 of 10"
ok "$me -> $dst leaves leaf GUID ${hop% *} by port ${hop#* }; 10 of 10 pings"
# from here on no sweep: only the switches can move a route
sm_stop
ok "opensm stopped"
# one ping at a time, each answered within 500 ms or lost: "TIME ok|lost"
# (ibping's exit status is 0 either way: its summary line says)
(
	while [ ! -e "$lab/failover.stop" ]; do
		t=$(now)
		if timeout 10 ibping -c 1 -t 500 -L "$dlid" 2>&1 |
			grep -q '^1 packets transmitted, 1 received'; then
			echo "$t ok"
		else
			echo "$t lost"
		fi
	done
) > /tmp/pings.log 2>&1 &
pinger=$!
sleep 3
put_file failover.req "$hop"
wait_file failover.down 60
tdown=$(now)
# 10 answered in a row after the pull, within 30 s
for ((i = 0; i < 300; i++)); do
	run=$(awk -v t="$tdown" '$1 > t { if ($2 == "ok") n++; else n = 0 } END { print n + 0 }' /tmp/pings.log)
	[ "$run" -ge 10 ] && break
	sleep 0.1
done
touch "$lab/failover.stop"
wait "$pinger"
read -r before lostb after lost first <<< "$(awk -v t="$tdown" '
	$1 <= t { b++; if ($2 == "lost") lb++ }
	$1 > t { a++; if ($2 == "lost") la++; else if (f == "") f = $1 - t }
	END { printf "%d %d %d %d %s\n", b, lb, a, la, f == "" ? "-" : f }' /tmp/pings.log)"
[ "$run" -ge 10 ] || fail "after the pull, no 10 pings in a row answered within 30 s: $(tail -n 20 /tmp/pings.log | tr '\n' ' ')"
[ "$lostb" = 0 ] || fail "$lostb of $before pings lost before the pull"
[ "$lost" -le 2 ] || fail "$lost of $after pings lost after the pull (want at most 2): $(tr '\n' ' ' < /tmp/pings.log)"
ok "opensm stopped, port pulled: $before pings before ($lostb lost), $after after ($lost lost), the first answered ${first} s after the pull"
touch "$lab/failover.seen"
sm_end 400
