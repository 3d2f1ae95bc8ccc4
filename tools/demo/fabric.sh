#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The fabric demo (`make demo`): tools/sfab-lab boots the 2-node fabric of
# tests/configs/topologies/2node.topo (one sfab-switchd, two QEMU guests
# each with an sfab HCA cabled to it).  In n1 Debian's opensm sweeps the
# fabric; then n1 shows ibstat, ibnetdiscover and perfquery, and the host
# shows the switch's ports.  Everything started is stopped at the end.
# Where sfab_0 has no MAD agents yet (no host QP0/QP1, so opensm cannot
# bind), the demo shows both ports LinkUp/Initializing instead and says so.
# Guest part: fabric.guest.sh, host part: fabric.host.sh.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d /tmp/sfab-demo.XXXXXX)
trap 'rm -rf "$out"' EXIT
t0=$(date +%s)
rc=0
"$top/tools/sfab-lab" run "$top/tests/configs/topologies/2node.topo" --out "$out" \
	--timeout 300 --scenario "$top/tools/demo/fabric.guest.sh" \
	--host "$top/tools/demo/fabric.host.sh" || rc=$?
for f in "$out"/shared/demo-*.txt "$out/shared/switch.txt"; do
	[ -f "$f" ] && cat "$f"
done
echo
if [ "$rc" -ne 0 ]; then
	for f in "$out"/*/console.log "$out/host.log"; do
		[ -f "$f" ] || continue
		echo "=== $f (last lines)"
		tail -n 30 "$f"
	done
	echo "sfab demo: the fabric demo failed (sfab-lab exit status $rc)"
	exit 1
fi
echo "sfab demo: done in $(( $(date +%s) - t0 )) s; every guest and switch is stopped."
