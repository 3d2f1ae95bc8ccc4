# SPDX-License-Identifier: GPL-2.0-only
# Guest part of the scaling benchmark (tools/bench/scale.sh): N nodes
# (scale4.topo, scale8.topo, scale-leafspine.topo), opensm in n1, IPoIB
# on ib0 (10.77.0.<n>) for perftest's connection set-up.  Node k of the
# first half is the client of node k + N/2, its server.  Phases, each
# started by n1 once every node of the one before is done:
#   bw1      pair 1 alone: ib_write_bw -s 65536 -D 10
#   bwall    every pair at once: ib_write_bw -s 65536 -D 10 (aggregate)
#   lat0     pair 1 alone: ib_write_lat -s 2 -n 1000
#   latload  pair 1: ib_write_lat -s 2 -n 1000 while every other pair
#            runs ib_write_bw -s 65536 -D 30 (latency under load)
# Client output: bench/<phase>.<client>.txt in the lab share; the host
# part samples the host's CPUs meanwhile (scale.host.sh).
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$(dirname "$SFAB_MODDIR")/guest.env"
read -ra nodes <<< "$SFAB_NODES"
n=${#nodes[@]}
half=$((n / 2))
idx=${me#n}
if [ "$idx" -le "$half" ]; then
	role=client
	peer=$((idx + half))
else
	role=server
	peer=$((idx - half))
fi
pair=$((idx <= half ? idx : idx - half))

sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 300
load_ko ib_ipoib || fail "ib_ipoib"
ip link set ib0 up && ip addr add "10.77.0.$idx/24" dev ib0 || fail "ib0: $(ip link 2>&1)"
for ((i = 0; i < 1200; i++)); do
	[ "$(cat /sys/class/net/ib0/carrier 2>/dev/null)" = 1 ] && break
	sleep 0.2
done
[ "$(cat /sys/class/net/ib0/carrier)" = 1 ] || fail "ib0 has no carrier (IPoIB broadcast group)"
ok "sfab_0 Active, ib0 10.77.0.$idx, pair $pair ($role of n$peer)"
touch "$lab/$me.ready"
mkdir -p "$lab/bench"
for x in "${nodes[@]}"; do
	wait_file "$x.ready" 600
done

# in PAIRS ("all", or a list of pair numbers)
in_pairs() { [ "$2" = all ] || [[ " $2 " == *" $1 "* ]]; }

# phase NAME PAIRS [AFTER] -- TOOL ARGS...: the pairs in PAIRS run TOOL,
# servers first; n1 says go once every server listens (and, with AFTER,
# 3 s after AFTER's go), and that the phase is over once every client is
# done; every node waits for that
phase() {
	local name=$1 pairs=$2 after=$3 port=$((18515 + ${#1} * 7 + pair)) srv k
	shift 4
	if [ "$me" = n1 ]; then
		(
			for ((k = 1; k <= half; k++)); do
				in_pairs $k "$pairs" && wait_file "srv.$name.n$((k + half))" 120
			done
			if [ -n "$after" ]; then
				wait_file "go.$after" 120
				sleep 3
			fi
			touch "$lab/go.$name"
		) &
	fi
	if in_pairs $pair "$pairs"; then
		if [ $role = server ]; then
			timeout 300 "$@" -d sfab_0 -p "$port" > "/tmp/$name.srv" 2>&1 &
			srv=$!
			sleep 1
			touch "$lab/srv.$name.$me"
			wait_file "done.$name.n$peer" 330
			for ((k = 0; k < 30; k++)); do
				kill -0 "$srv" 2>/dev/null || break
				sleep 0.1
			done
			kill "$srv" 2>/dev/null
			wait "$srv" 2>/dev/null
		else
			wait_file "srv.$name.n$peer" 120
			wait_file "go.$name" 120
			t0=$(now)
			if timeout 300 "$@" -d sfab_0 -p "$port" "10.77.0.$peer" \
				> "$lab/bench/$name.$me.txt" 2>&1; then
				ok "$name: pair $pair: $(since "$t0") s"
			else
				echo "skip: $name: pair $pair: $1 failed: $(tail -n 3 "$lab/bench/$name.$me.txt" | tr '\n' ' ')"
				touch "$lab/bench/$name.$me.failed"
			fi
			touch "$lab/done.$name.$me"
		fi
	fi
	if [ "$me" = n1 ]; then
		for ((k = 1; k <= half; k++)); do
			in_pairs $k "$pairs" && wait_file "done.$name.n$k" 400
		done
		touch "$lab/end.$name"
	fi
	wait_file "end.$name" 500
}

others_pairs=$(seq -s ' ' 2 "$half")
phase bw1 1 '' -- ib_write_bw -s 65536 -D 10
phase bwall all '' -- ib_write_bw -s 65536 -D 10
phase lat0 1 '' -- ib_write_lat -s 2 -n 1000
# latency under load: the others' streams run 3 s before pair 1's samples
phase latload_bw "$others_pairs" '' -- ib_write_bw -s 65536 -D 30 &
bgp=$!
phase latload 1 latload_bw -- ib_write_lat -s 2 -n 1000
wait $bgp
[ "$me" = n1 ] && touch "$lab/bench.done"
sm_end 3000
