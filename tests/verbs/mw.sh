#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/mw: memory windows on the 2-node fabric with opensm Active, in n1,
# RC QPs of one process connected through the port's own LID (pyverbs,
# libsfab, sfab.ko): type 1 windows bound by ibv_bind_mw and type 2 by
# IBV_WR_BIND_MW and ibv_wr_bind_mw on an MR with no remote rights of its
# own; WRITEs, READs through them checked byte for byte; every misuse
# with its IBA completion status (REM_ACCESS_ERR beyond a window, with a
# right it lacks, with an old key or through another QP; MW_BIND_ERR for
# bad binds; LOCAL_INV and SEND with invalidate of a type 1 window
# refused); type 2 freed by local and remote invalidation and by
# dealloc; dereg and rereg of the MR under a bound window EBUSY; a
# process killed with windows bound leaves nothing in rdma resource
# (lib/mw.py).  Halves: lib/mw.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab mw 2node.topo 400
grep -q '^ok: mw done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
