#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/ibnetdiscover: on the leaf/spine fabric (tests/configs/topologies/
# leafspine.topo: 4 switches, 4 nodes) opensm in n1 brings every port
# Active, then Debian's ibnetdiscover in n1 finds exactly the fabric of the
# topology file: the same switches and port counts, the same HCAs and every
# cable port to port (compared with `tools/sfab-lab check` by
# lib/ibnet-compare.py).  Halves: lib/ibnetdiscover.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
topo=leafspine.topo
sfab_sm_lab ibnetdiscover "$topo" 400
sfab_sm_need ibnetdiscover.txt
disc=$OUT/shared/ibnetdiscover.txt
"$SFAB_LAB" check "$SFAB_TOPOS/$topo" > "$OUT/check.txt" || sfab_fail "sfab-lab check failed"
if ! /usr/bin/python3 "$SFAB_TOP/tests/fabric/lib/ibnet-compare.py" "$OUT/check.txt" "$disc"; then
	sed 's/^/# ibnetdiscover: /' "$disc"
	sfab_fail "ibnetdiscover differs from $topo (results in $OUT)"
fi
exit 0
