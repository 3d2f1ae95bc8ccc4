#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The scaling benchmark (`make bench-scale`; a measurement, not a test):
# the same perftest phases on 2, 4 and 8 guests on one switch and on the
# leaf/spine fabric (three switch hops between the pairs), one lab run
# each: one pair's 64 KiB RDMA WRITE bandwidth alone, every pair's at
# once, 2-byte WRITE latency idle and under the other pairs' streams,
# and the host's CPUs busy meanwhile.  SCALE_TOPOS picks the fabrics
# (default: scale2 scale4 scale8 scale-leafspine, in
# tests/configs/topologies); SCALE_PERF=1 records the host with perf
# during each fabric's bw1 phase (build/bench/scale/<topo>/perf-bw1.data).  Results: build/bench/scale.txt (the table)
# and build/bench/scale/<topo>/ (every tool's output).
# Guest part: scale.guest.sh, host part: scale.host.sh.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
res=${SFAB_BENCH_OUT:-$top/build/bench}
topos=${SCALE_TOPOS:-scale2 scale4 scale8 scale-leafspine}
make -s -C "$top" guest-prereqs switch || exit 1
mkdir -p "$res/scale"
fail=0
for t in $topos; do
	topo=$top/tests/configs/topologies/$t.topo
	[ -f "$topo" ] || { echo "sfab bench-scale: no $topo"; exit 1; }
	out=$(mktemp -d /tmp/sfab-scale.XXXXXX)
	t0=$(date +%s)
	rc=0
	echo "sfab bench-scale: $t ..."
	"$top/tools/sfab-lab" run "$topo" --no-build --out "$out" --timeout 2400 \
		--scenario "$top/tools/bench/scale.guest.sh" \
		--host "$top/tools/bench/scale.host.sh" > "$out/lab.log" 2>&1 || rc=$?
	rm -rf "${res:?}/scale/$t"
	cp -r "$out/shared/bench" "$res/scale/$t" 2>/dev/null || mkdir -p "$res/scale/$t"
	grep -h '^ok:\|^skip:\|^FAIL' "$out"/*/console.log "$out/host.log" 2>/dev/null |
		tr -d '\r' | grep -v ': port 1 \|MAD agents\|Initializing' | sed "s/^/  $t: /"
	echo "sfab bench-scale: $t: $(( $(date +%s) - t0 )) s, lab exit status $rc"
	if [ "$rc" -ne 0 ]; then
		fail=1
		for f in "$out"/*/console.log; do
			echo "=== $f (last lines)"
			tr -d '\r' < "$f" | tail -n 15
		done
	fi
	rm -rf "$out"
done
# shellcheck disable=SC2086 # one argument per fabric
/usr/bin/python3 "$top/tools/bench/scale-report.py" "$res/scale" $topos > "$res/scale.txt" || exit 1
cat "$res/scale.txt"
echo "sfab bench-scale: results in $res/scale.txt"
exit $fail
