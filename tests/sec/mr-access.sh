#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sec/mr-access: on the 2-node fabric with opensm Active, in n1, memory
# protection tried from user space (lib/mr_access.py, pyverbs): WRITE,
# READ and atomic into an MR without the right fail on both ends (the
# requester's IBV_WC_REM_ACCESS_ERR, the responder's QP in Error with
# IBV_EVENT_QP_ACCESS_ERR); another PD's MR is out of reach; rkeys after
# deregistration and after invalidation name nothing; another process's
# doorbells naming a QP do nothing to it; the device's BARs cannot be
# registered.  Halves: lib/mr-access.{guest,host}.sh.
set -u
. "$(dirname "$0")/../fabric/lib/common.bash"
SFAB_LAB_LIB=$SFAB_TOP/tests/sec/lib sfab_sm_lab mr-access 2node.topo
grep -q '^ok: mr-access done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
