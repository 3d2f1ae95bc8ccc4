# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/kill9 (host half: kill9.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
# "pd 1 cq 2 qp 3 ..." for sfab_0, from `rdma resource`
res_counts() {
	rdma resource show 2>/dev/null | awk '$2 == "sfab_0:" {
		for (i = 3; i < NF; i += 2) printf "%s %s ", $i, $(i + 1) }'
}
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
if [ "$me" = "$sm" ]; then
	base=$(res_counts)
	[ -n "$base" ] || fail "rdma resource show has no sfab_0 line: $(rdma resource show 2>&1)"
	ok "baseline: $base"
	for round in 1 2 3; do
		port=$((18800 + round))
		ib_write_bw -d sfab_0 -p "$port" -n 1000000 -s 4096 > /tmp/srv.log 2>&1 &
		srv=$!
		sleep 1
		ib_write_bw -d sfab_0 -p "$port" -n 1000000 -s 4096 localhost > /tmp/cli.log 2>&1 &
		cli=$!
		# mid-transfer: both have their QPs (more QPs than at the baseline)
		busy=
		for ((i = 0; i < 100; i++)); do
			now_c=$(res_counts)
			q0=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "qp") print $(i + 1) }' <<< "$base")
			q1=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "qp") print $(i + 1) }' <<< "$now_c")
			[ "${q1:-0}" -ge $((q0 + 2)) ] && { busy=$now_c; break; }
			kill -0 "$cli" 2>/dev/null || break
			sleep 0.1
		done
		[ -n "$busy" ] || fail "round $round: the transfer never had its QPs: $(tail -n 3 /tmp/cli.log /tmp/srv.log)"
		sleep 1
		kill -0 "$cli" 2>/dev/null || fail "round $round: the client ended before the kill: $(tail -n 3 /tmp/cli.log)"
		kill -KILL "$cli" "$srv"
		wait "$cli" "$srv" 2>/dev/null
		got=
		for ((i = 0; i < 100; i++)); do
			got=$(res_counts)
			[ "$got" = "$base" ] && break
			sleep 0.1
		done
		[ "$got" = "$base" ] || fail "round $round: after kill -9: $got, baseline $base"
		ok "round $round: killed mid-transfer ($busy); back to $got"
	done
	bad=$(dmesg | tail -n +$((dmesg_mark + 1)) | "$SFAB_TOP/tools/sfab-kreport" -)
	[ -z "$bad" ] || fail "kernel log: $bad"
	touch "$lab/kill9.done"
fi
sm_end
