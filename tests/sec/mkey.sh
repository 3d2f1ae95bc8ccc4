#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sec/mkey: opensm run with an M_Key (protection level 2) on the 2-node
# fabric sets it on every SMA (the HCAs' and the switch's) and keeps
# managing the fabric; from n2, which is not the SM, smpquery and
# ibportstate without the key get no answer and change nothing, each try
# counts in M_KeyViolations and reaches opensm as trap 256 (Bad M_Key);
# with the key they work.  Halves: lib/mkey.{guest,host}.sh.
set -u
. "$(dirname "$0")/../fabric/lib/common.bash"
SFAB_LAB_LIB=$SFAB_TOP/tests/sec/lib sfab_sm_lab mkey 2node.topo
grep -q '^ok: mkey done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
