# SPDX-License-Identifier: GPL-2.0-only
# Host part of the scaling benchmark (tools/bench/scale.sh): while the
# guests run their phases (scale.guest.sh), sample this machine's CPUs
# once a second; bench/cpu.txt gets, for each phase, the share of all
# host CPU time spent busy between its go and its end (the guests'
# vCPUs, the QEMUs' main loops, the switches: everything on the 2 cores).
# SCALE_PERF=1 also records the whole host with perf during bw1 (8 s):
# bench/perf-bw1.data.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 900
# busy and total jiffies of all CPUs so far
cpu_now() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }
declare -A b0 t0 done_
phases="bw1 bwall lat0 latload_bw latload"
mkdir -p "$lab/bench"
: > "$lab/bench/cpu.txt"
end=$((SECONDS + 3000))
perf_pid=
while [ ! -e "$lab/bench.done" ] && [ $SECONDS -lt $end ]; do
	# SCALE_PERF=1: the whole host's profile during bw1 (perf record -a)
	if [ -n "${SCALE_PERF:-}" ] && [ -z "$perf_pid" ] && [ -e "$lab/go.bw1" ]; then
		perf record -a -g -F 499 -o "$lab/bench/perf-bw1.data" -- sleep 8 \
			> "$lab/bench/perf-bw1.log" 2>&1 &
		perf_pid=$!
	fi
	read -r b t <<< "$(cpu_now)"
	for p in $phases; do
		if [ -e "$lab/go.$p" ] && [ -z "${t0[$p]:-}" ]; then
			b0[$p]=$b
			t0[$p]=$t
		fi
		if [ -e "$lab/end.$p" ] && [ -n "${t0[$p]:-}" ] && [ -z "${done_[$p]:-}" ]; then
			done_[$p]=1
			awk -v p="$p" -v b="$((b - b0[$p]))" -v t="$((t - t0[$p]))" \
				'BEGIN { printf "%s %.0f\n", p, t ? 100 * b / t : 0 }' >> "$lab/bench/cpu.txt"
		fi
	done
	sleep 1
done
[ -z "$perf_pid" ] || wait "$perf_pid"
[ -e "$lab/bench.done" ] || { echo "FAIL: no bench.done"; exit 1; }
ok "bench done; host CPU busy per phase: $(tr '\n' ' ' < "$lab/bench/cpu.txt")"
touch "$lab/step.done"
