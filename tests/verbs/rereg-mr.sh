#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/rereg-mr: on the 2-node fabric with opensm Active, in n1, RC QPs
# of one process connected through the port's own LID (pyverbs, libsfab):
# an MR re-registered without REMOTE_WRITE (the peer's WRITE gets
# IBV_WC_REM_ACCESS_ERR, the buffer unchanged) and back, keys kept; onto another
# buffer (WRITEs land there, the old rkey and range are refused); into
# another PD (local use gets IBV_WC_LOC_PROT_ERR) and back, keys kept; a refused
# re-registration leaves the MR working with its keys; `rdma resource`
# counts one MR per registration (lib/resize_rereg.py rereg-mr).
# Halves: lib/rereg-mr.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_verbs_lab rereg-mr 2node.topo 400
grep -q '^ok: rereg-mr done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
