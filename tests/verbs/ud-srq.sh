#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/ud-srq: on the 2-node fabric (tests/configs/topologies/2node.topo)
# with opensm Active, each node runs lib/ud_srq.py (pyverbs on libsfab): a
# UD QP on a shared receive queue sends 8 messages of 512 distinct bytes
# to its own LID, half of them unsignalled; the signalled sends complete,
# the unsignalled ones give no completion, the 8 receives complete in
# order from the SRQ with every byte as sent; armed at 6, the SRQ raises
# IBV_EVENT_SRQ_LIMIT_REACHED when 5 receives are left and is disarmed;
# a send CQ of 2 entries takes rounds of a full SQ of sends, only the
# last of each signalled, without overflowing.
# Halves: lib/ud-srq.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab ud-srq 2node.topo 600
grep -q '^ok: ud-srq done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
