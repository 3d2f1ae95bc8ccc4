# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/loopback (host half: loopback.host.sh).  With the
# fabric Active, every node runs an ibv_ud_pingpong server and its client
# in the same guest: the client's sends go to the node's own LID, which
# the HCA delivers to itself.  16 bytes (inline) and the active MTU, 200
# iterations each, both ends with rdma-core's -c check (which tests one
# byte per page, on the server: verbs/data-integrity tests the data).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 180
mtu=$(ibv_devinfo -d sfab_0 -i 1 | sed -n 's/.*active_mtu:[^0-9]*\([0-9]*\).*/\1/p')
[ -n "$mtu" ] || fail "no active_mtu from ibv_devinfo"
iters=200
port=18700
for size in 16 "$mtu"; do
	tag=$me-loop-$size
	port=$((port + 1))
	t0=$(now)
	(timeout 120 stdbuf -oL ibv_ud_pingpong -d sfab_0 -p "$port" -s "$size" \
		-n "$iters" -c > "$lab/$tag.server.log" 2>&1; echo $? > "$lab/$tag.server.rc") &
	srv=$!
	sleep 1
	rc=0
	timeout 120 stdbuf -oL ibv_ud_pingpong -d sfab_0 -p "$port" -s "$size" \
		-n "$iters" -c localhost > "$lab/$tag.client.log" 2>&1 || rc=$?
	wait "$srv"
	[ "$rc" = 0 ] || fail "$tag: client exited with $rc: $(tail -n 5 "$lab/$tag.client.log")"
	[ "$(cat "$lab/$tag.server.rc")" = 0 ] ||
		fail "$tag: server exited with $(cat "$lab/$tag.server.rc"): $(tail -n 5 "$lab/$tag.server.log")"
	pingpong_check "$tag" server "$iters"
	pingpong_check "$tag" client "$iters"
	# both ends on this node's LID
	lid=$(lid_of "$me")
	grep -q "local address: *LID 0x0*$(printf '%x' "$lid")," "$lab/$tag.client.log" &&
	grep -q "remote address: *LID 0x0*$(printf '%x' "$lid")," "$lab/$tag.client.log" ||
		fail "$tag: not a loopback to LID $lid: $(grep address "$lab/$tag.client.log")"
	ok "$tag ($(since "$t0") s): $(grep ' iters in ' "$lab/$tag.client.log")"
done
touch "$lab/$me.loop.done"
sm_end
