#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/resize-cq: on the 2-node fabric with opensm Active, in n1, RC QPs
# of one process connected through the port's own LID (pyverbs, libsfab):
# a send CQ grown and shrunk (4 -> 16, 8, 64, 5, 128, 100, 4, 16) with
# completions waiting in it and with RDMA WRITEs still completing; every
# completion comes once, in order, and every WRITE's bytes are at the
# target; a shrink below the completions waiting fails with EINVAL and
# loses none; an arm made before or after a resize raises its event
# (lib/resize_rereg.py resize-cq).  Halves: lib/resize-cq.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab resize-cq 2node.topo 400
grep -q '^ok: resize-cq done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
