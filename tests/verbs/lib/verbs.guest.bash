# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest halves of the verbs tests (tests/verbs/lib/
# *.guest.sh) after tests/fabric/lib/sm.guest.bash.  ibv_*_pingpong from
# Debian's ibverbs-utils run on the project's libibverbs and libsfab
# (LD_LIBRARY_PATH); the two ends exchange their QP numbers over TCP,
# which lib/relay.py carries between the guests through the lab share.

# pingpong_server TAG PORT TOOL ARGS...: start TOOL as the server on PORT
# with a relay to the client's guest; writes $lab/TAG.srv.ready.  The
# server's output goes to $lab/TAG.server.log, its status to
# $lab/TAG.server.rc when it ends (pingpong_server_wait).
pingpong_server() {
	local tag=$1 port=$2 tool=$3
	shift 3
	rm -rf "$lab/$tag.relay"
	(timeout 120 stdbuf -oL "$tool" -d sfab_0 -p "$port" "$@" \
		> "$lab/$tag.server.log" 2>&1; echo $? > "$lab/$tag.server.rc") &
	SRV_PID=$!
	"$SFAB_TOP/tests/verbs/lib/relay.py" connect "$port" "$lab/$tag.relay" 110 \
		> "$lab/$tag.relay-b.log" 2>&1 &
	RELAY_PID=$!
	touch "$lab/$tag.srv.ready"
}

# pingpong_server_wait TAG: wait for the server and its relay; fails
# unless the server exited 0
pingpong_server_wait() {
	local tag=$1 rc
	wait "$SRV_PID"
	wait "$RELAY_PID" || fail "$tag: relay: $(cat "$lab/$tag.relay-b.log")"
	rc=$(cat "$lab/$tag.server.rc" 2>/dev/null)
	[ "$rc" = 0 ] || fail "$tag: server exited with '$rc': $(tail -n 5 "$lab/$tag.server.log")"
}

# pingpong_client TAG PORT TOOL ARGS...: once the server is ready, run TOOL
# as the client of it (through the relay); its output in
# $lab/TAG.client.log; fails unless it exited 0
pingpong_client() {
	local tag=$1 port=$2 tool=$3 rc=0 relay
	shift 3
	wait_file "$tag.srv.ready" 120
	"$SFAB_TOP/tests/verbs/lib/relay.py" listen "$port" "$lab/$tag.relay" 110 \
		> "$lab/$tag.relay-a.log" 2>&1 &
	relay=$!
	# python starting in a TCG guest on a loaded host: seconds to tens
	wait_file "$tag.relay/listening" 90
	timeout 120 stdbuf -oL "$tool" -d sfab_0 -p "$port" "$@" localhost \
		> "$lab/$tag.client.log" 2>&1 || rc=$?
	wait "$relay" || fail "$tag: relay: $(cat "$lab/$tag.relay-a.log")"
	[ "$rc" = 0 ] || fail "$tag: client exited with $rc: $(tail -n 5 "$lab/$tag.client.log")"
	touch "$lab/$tag.cli.done"
}

# pingpong_check TAG SIDE ITERS: the side's log reports ITERS iterations
# and no bad data or failed completion
pingpong_check() {
	local log=$lab/$1.$2.log
	grep -q "^$3 iters in " "$log" ||
		fail "$1: the $2 did not report $3 iterations: $(tail -n 5 "$log")"
	! grep -qiE 'invalid data|failed status|mismatch|error' "$log" ||
		fail "$1: the $2 reported: $(grep -iE 'invalid data|failed status|mismatch|error' "$log" | head -n 3)"
}

# pingpong_pair PREFIX TOOL ITERS RUN...: one TOOL run per RUN between the
# node that is not $SFAB_OPENSM (the servers) and $SFAB_OPENSM (the
# clients), both with -c.  RUN is SIZE or SIZE:OPTIONS (options for both
# ends, e.g. -e to sleep on CQ events).  Every run must report ITERS
# iterations on both ends.  -c is rdma-core's check, which only the
# server makes and which compares one byte per page: these runs test
# completions, not data; verbs/data-integrity tests the data.
pingpong_pair() {
	local prefix=$1 tool=$2 iters=$3 run size opt tag t0 port=${PINGPONG_PORT:-18600}
	shift 3
	for run in "$@"; do
		size=${run%%:*}
		opt=
		[ "$size" = "$run" ] || opt=${run#*:}
		tag=$prefix-$size${opt:+$(tr -d ' ' <<< "$opt")}
		port=$((port + 1))
		if [ "$me" != "$sm" ]; then
			pingpong_server "$tag" "$port" "$tool" -s "$size" -n "$iters" -c $opt
			wait_file "$tag.cli.done" 150
			pingpong_server_wait "$tag"
			pingpong_check "$tag" server "$iters"
			ok "$tag: server: $(grep ' iters in ' "$lab/$tag.server.log")"
		else
			t0=$(now)
			pingpong_client "$tag" "$port" "$tool" -s "$size" -n "$iters" -c $opt
			pingpong_check "$tag" client "$iters"
			ok "$tag: client ($(since "$t0") s): $(grep ' iters in ' "$lab/$tag.client.log")"
		fi
	done
}

# active_mtu: port 1's active MTU in bytes
active_mtu() {
	local mtu
	mtu=$(ibv_devinfo -d sfab_0 -i 1 | sed -n 's/.*active_mtu:[^0-9]*\([0-9]*\).*/\1/p')
	[ -n "$mtu" ] || fail "no active_mtu from ibv_devinfo"
	echo "$mtu"
}

# verbs_fabric_up: this node's driver and port up, opensm in $SFAB_OPENSM,
# and every node's port Active with a LID (NODE.active of all)
verbs_fabric_up() {
	local n
	sm_node_up
	sm_start 5
	wait_file sm.up 300
	sm_wait_active 180
	for n in $SFAB_NODES; do
		wait_file "$n.active" 120
	done
}
