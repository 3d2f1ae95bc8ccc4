#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sec/qkey: on the 2-node fabric with opensm Active, in n1, UD datagrams
# to its own LID (lib/qkey.py, pyverbs): a wrong Q_Key is dropped and
# counted in qkey_viol_cntr; a send WQE naming a controlled Q_Key (high
# bit) sends its QP's own Q_Key (IBA 10.2.4); only a privileged process
# gives its QP a controlled Q_Key (EPERM for nobody), so an unprivileged
# one cannot reach a QP that holds one.  Halves: lib/qkey.{guest,host}.sh.
set -u
. "$(dirname "$0")/../fabric/lib/common.bash"
SFAB_LAB_LIB=$SFAB_TOP/tests/sec/lib sfab_sm_lab qkey 2node.topo
grep -q '^ok: qkey done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
