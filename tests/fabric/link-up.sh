#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/link-up: the 2-node fabric (tests/configs/topologies/2node.topo).
# In each guest sfab.ko brings port 1 to LinkUp/Init (no SM yet) as
# ibv_devinfo shows; sw1's ports 1 and 2 are LinkUp/Init per sfab-switchctl;
# sw1 port 1 taken down takes n1's port to Down/Polling, and brought up
# returns it to LinkUp/Init; no WARN/BUG/Oops in either guest.  The
# cables carry their frames in their ring pairs (SFAB_CABLE=socket:
# on their sockets, fabric/link-up-socket), again after the replug.
# Guest side: lib/link-up.guest.sh, host side: lib/link-up.host.sh.
set -u
. "$(dirname "$0")/lib/common.bash"

sfab_need_cable
make -s -C "$SFAB_TOP" guest-prereqs switch || sfab_fail "make guest-prereqs switch failed"

out=$(mktemp -d /tmp/sfab-fab-link.XXXXXX)
trap 'rm -rf "$out"' EXIT
t0=$(date +%s)
rc=0
"$SFAB_LAB" run "$SFAB_TOPOS/2node.topo" --no-build --out "$out" --timeout 600 \
	--scenario "$SFAB_TOP/tests/fabric/lib/link-up.guest.sh" \
	--host "$SFAB_TOP/tests/fabric/lib/link-up.host.sh" > "$out/lab.log" 2>&1 || rc=$?
echo "# lab: $(( $(date +%s) - t0 )) s, exit status $rc"
grep -h '^ok:' "$out"/n*/console.log 2>/dev/null | sed 's/^/# /'
grep '^sfab-lab:' "$out/lab.log" | sed 's/^/# /'
if [ $rc -ne 0 ] || grep -q 'kernel-reports [1-9]' "$out/summary" 2>/dev/null; then
	sfab_lab_report "$out"
	exit 1
fi
grep -q '^ok: sw1 port 1 LinkDownedCounter' "$out/host.log" || {
	sfab_lab_report "$out"
	sfab_fail "the host side did not finish"
}
exit 0
