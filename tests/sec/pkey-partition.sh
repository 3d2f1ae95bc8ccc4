#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sec/pkey-partition: opensm with a partitions.conf of its own on the
# 2-node fabric (lib/pkey.guest.sh): partition A with both nodes full, B
# with n1 only, L with both limited.  opensm's P_Keys reach both HCAs'
# tables (ibv_query_pkey) and the switch ports facing them (with
# PartitionEnforcementInbound/Outbound on); UD and RC inside A work; from
# B into A nothing arrives: the switch drops it at the server's port
# (PortXmitConstraintErrors, perfquery) and RC ends in RETRY_EXC_ERR;
# between the two limited members of L nothing arrives either: the
# receiving HCA drops and counts it, and opensm gets trap 257 (Bad P_Key).
# Halves: lib/pkey.{guest,host}.sh, lib/pkey.py.
set -u
. "$(dirname "$0")/../fabric/lib/common.bash"
SFAB_LAB_LIB=$SFAB_TOP/tests/sec/lib sfab_sm_lab pkey 2node.topo
grep -q '^ok: pkey done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
