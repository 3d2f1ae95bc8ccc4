#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/pcap-tshark: on the 2-node fabric, opensm sweeps (directed-route
# and LID-routed SMPs, SA queries), n1 reads n2's PMA counters (perfquery)
# and pings it (ibping: vendor-class MADs on QP1).  The switch captured
# every port (link type 247, LINKTYPE_INFINIBAND); tshark dissects every
# frame of every capture as InfiniBand with no malformed frame and no
# expert warning, and the captures hold SMPs both ways, SA, PMA and
# vendor MADs.  Halves: lib/pcap-tshark.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
command -v tshark > /dev/null || sfab_fail "tshark is not installed (tools/setup/host-deps.sh installs it)"
sfab_sm_lab pcap-tshark 2node.topo
grep -q '^ok: pcap-tshark done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
pcaps=$(ls "$OUT"/sw1/port*.pcap 2>/dev/null)
[ -n "$pcaps" ] || sfab_fail "the switch wrote no captures in $OUT/sw1"
# shellcheck disable=SC2086
out=$("$SFAB_TOP/tools/sfab-pcap" check $pcaps 2>&1) || {
	printf '%s\n' "$out" | sed 's/^/# /'
	sfab_fail "tshark found problems in the captures (results in $OUT)"
}
printf '%s\n' "$out" | grep -v '^ ' | sed 's/^/# /'
total=$(awk '/ frames, / { n += $2 } END { print n + 0 }' <<< "$out")
[ "$total" -ge 20 ] || sfab_fail "only $total frames captured"
# requests and responses, SMPs, SA, PMA (perfquery) and vendor (ibping) MADs
for want in 'SubnGet(NodeInfo)' 'SubnGetResp(NodeInfo)' 'SubnSet(PortInfo)' \
	'SubnGetResp(PortInfo)' 'SubnSet(LinearForwardingTable)' 'SubnAdm' \
	'PERF (PortCounters)' 'VENDOR'; do
	grep -q -F "$want" <<< "$out" ||
		{ printf '%s\n' "$out" | sed 's/^/# /'; sfab_fail "no $want frame captured"; }
done
echo "# $total frames dissected, no malformed frames or expert warnings"
exit 0
