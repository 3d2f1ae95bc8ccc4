#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/kill9: on the 2-node fabric with opensm Active, in n1, an
# ib_write_bw server and client over sfab_0 (loopback through the port's
# own LID) are killed with SIGKILL in the middle of the transfer, three
# times; each time every RDMA object they held is released: `rdma
# resource` counts (pd, cq, qp, mr, cm_id, ctx) are back to what they
# were before, and the kernel log has no WARNING/BUG/Oops.  Halves:
# lib/kill9.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab kill9 2node.topo 400
grep -q '^ok: kill9 done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
