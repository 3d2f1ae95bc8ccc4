#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/resize-srq: on the 2-node fabric with opensm Active, in n1, an RC
# QP pair of one process through the port's own LID, the receiver on an
# SRQ (pyverbs, libsfab): ibv_modify_srq with IBV_SRQ_MAX_WR grows the
# SRQ with receives posted and takes more; shrinks and grows it (8, 32, 8)
# while 4-packet SENDs arrive: every receive completes once, in order,
# with its bytes; a shrink below the receives posted is EINVAL and loses
# none; query_srq reports each max_wr (lib/resize_rereg.py resize-srq).
# Halves: lib/resize-srq.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab resize-srq 2node.topo 400
grep -q '^ok: resize-srq done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
