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
. "$SFAB_TOP/tests/ulp/lib/ulp.bash"
. "$SFAB_TOP/tools/bench/perftest.guest.bash"
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
# ib0 at 10.77.0.<n> (tests/ulp/lib/ulp.bash)
out=$(ib_up 2>&1) || fail "IPoIB: $out"
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
	local name=$1 pairs=$2 after=$3 port=$((18515 + ${#1} * 7 + pair)) k
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
			pt_serve "srv.$name.$me" "done.$name.n$peer" "/tmp/$name.srv" \
				"$@" -d sfab_0 -p "$port"
		else
			wait_file "srv.$name.n$peer" 120
			wait_file "go.$name" 120
			pt_client "$name.$me" 300 "$lab/bench/$name.$me.txt" \
				"$@" -d sfab_0 -p "$port" "10.77.0.$peer"
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
