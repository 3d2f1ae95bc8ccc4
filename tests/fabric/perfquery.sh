#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/perfquery: on the 2-node fabric with opensm Active, Debian's
# perfquery in n1 reads the PMA counters of n2's HCA port and of the
# switch port n2 is cabled to; after 20 SMPs to n2 PortXmitData and
# PortXmitPkts (+20 at least) grew at both; perfquery -x (extended
# counters) works on both.  Halves: lib/perfquery.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab perfquery 2node.topo
grep -q '^ok: perfquery done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
