#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark (`make bench`; not a pass/fail test): on the two guests of
# tests/configs/topologies/bench.topo, in one lab run, perftest and the
# ibverbs ping-pong examples between n1 and n2 over sfab_0 (through
# sfab-switchd, opensm in n1) and over rdma_rxe (rxe0 on a virtio-net link
# between the same guests, AF_UNIX datagram sockets: rxe's best link
# here) at MTU 1500 and at MTU 9000, the same tools with the same sizes;
# then NVMe over RDMA on both, and GPU-direct storage over sfab_0 against
# the bounce through host RAM (tests/ulp/lib/gds.bash).  Then, on this
# machine alone, the copy-path benchmark (copy-path.c: 1 MiB RDMA WRITEs
# between two in-process engines against memcpy) and switch-path
# (switch-path.c: what one switch hop costs per 4 KiB packet, at 2, 36
# and 254 ports).  Results:
# build/bench/results.txt (the raw output in build/bench/raw), the plot
# build/bench/bench.{svg,png}, and the tables printed at the end, with
# the ratios against rxe's better MTU.
# Guest part: bench.guest.sh, host part: bench.host.sh.
# Documentation/sfab/benchmark.rst has the how and the why.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
res=${SFAB_BENCH_OUT:-$top/build/bench}
out=$(mktemp -d /tmp/sfab-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
make -s -C "$top" guest-prereqs switch || exit 1
make -s -C "$top/tools/bench" O="$top/build" || exit 1
# GPU-direct storage: gds-read and the nvme-rdma.ko that takes P2PDMA pages
"$top/tests/ulp/lib/gds-build.sh" > "$out/gds-build.log" 2>&1 ||
	{ tail -n 5 "$out/gds-build.log"; echo "sfab bench: gds-build.sh failed: no GPU-direct storage figures"; }
# BENCH_CASES (globs of case names) and BENCH_DEVS (sfab_0 rxe1500
# rxe9000): a part of the run, for a quick before and after
mkdir -p "$top/build"
printf 'BENCH_CASES=%q\nBENCH_DEVS=%q\n' "${BENCH_CASES:-}" "${BENCH_DEVS:-}" \
	> "$top/build/bench.filter"
rc=0
"$top/tools/sfab-lab" run "$top/tests/configs/topologies/bench.topo" --no-build \
	--out "$out" --timeout 3600 --scenario "$top/tools/bench/bench.guest.sh" \
	--host "$top/tools/bench/bench.host.sh" > "$out/lab.log" 2>&1 || rc=$?
mkdir -p "$res"
rm -rf "$res/raw"
cp -r "$out/shared/bench" "$res/raw" 2>/dev/null
if [ "$rc" -ne 0 ]; then
	grep -h '^ok:\|^FAIL\|^skip:' "$out"/*/console.log "$out/host.log" 2>/dev/null
	for f in "$out"/*/console.log; do
		echo "=== $f (last lines)"
		tr -d '\r' < "$f" | tail -n 30
	done
	echo "sfab bench: the lab failed (sfab-lab exit status $rc); raw output in $res/raw"
	"$top/build/bench/copy-path"
	exit 1
fi
grep -h '^ok:\|^skip:' "$out"/*/console.log "$out/host.log" 2>/dev/null | tr -d '\r'
/usr/bin/python3 "$top/tools/bench/report.py" "$res/raw" --plot "$res/bench" > "$res/results.txt" || exit 1
# the host part, with the guests gone: 1 MiB WRITEs engine to engine
echo >> "$res/results.txt"
"$top/build/bench/copy-path" >> "$res/results.txt" ||
	echo "copy-path: failed" >> "$res/results.txt"
for p in 2 36 254; do
	"$top/build/bench/switch-path" 5 $p >> "$res/results.txt" ||
		echo "switch-path: $p ports: failed" >> "$res/results.txt"
done
cat "$res/results.txt"
echo "sfab bench: results in $res/results.txt"
