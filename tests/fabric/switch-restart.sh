#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/switch-restart: the 2-node fabric Active under opensm; sw1's
# sfab-switchd is killed (SIGKILL) while the guests run: both HCA ports go
# Down; it is started again (tools/sfab-lab switch): the cables reconnect,
# opensm (still running) re-sweeps and every HCA port and cabled switch
# port is Active again; no WARN/BUG/Oops in the guests.  Halves:
# lib/switch-restart.{guest,host}.sh.
set -u
. "$(dirname "$0")/lib/common.bash"
sfab_sm_lab switch-restart 2node.topo
grep -q '^ok: switch-restart done' "$OUT/host.log" || {
	sfab_lab_report "$OUT"
	sfab_fail "the host half did not finish"
}
exit 0
