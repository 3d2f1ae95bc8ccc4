#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/bad-rkey: on the 2-node fabric with opensm Active, in n1, two RC
# QPs of one process connected through the port's own LID (pyverbs, on
# libsfab): RDMA WRITEs and READs with a wrong rkey, a key of another
# variant, an address outside the MR, or an MR without the remote right
# complete with IBV_WC_REM_ACCESS_ERR at the requester and leave the target
# unchanged; a bad lkey or an SGE past its MR's end complete with
# IBV_WC_LOC_PROT_ERR; correct ones then move the right bytes
# (lib/remote_access.py).  The kernel log stays clean.  Halves:
# lib/bad-rkey.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab bad-rkey 2node.topo 400
grep -q '^ok: bad-rkey done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
