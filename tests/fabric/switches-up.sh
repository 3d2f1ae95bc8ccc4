#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/switches-up: tools/sfab-lab starts the leaf/spine topology's four
# switches with no guests; the inter-switch cables (--connect ports) train,
# and a spine port taken down and up again takes the leaf's port with it
# (tests/fabric/lib/switches-up.host.sh).  Host only, a few seconds.
set -u
. "$(dirname "$0")/lib/common.bash"

make -s -C "$SFAB_TOP" switch || sfab_fail "make switch failed"
out=$(mktemp -d /tmp/sfab-fab-sw.XXXXXX)
trap 'rm -rf "$out"' EXIT
rc=0
"$SFAB_LAB" run "$SFAB_TOPOS/leafspine.topo" --no-guests --out "$out" \
	--timeout 60 --host "$SFAB_TOP/tests/fabric/lib/switches-up.host.sh" \
	> "$out/lab.log" 2>&1 || rc=$?
grep -E '^sfab-lab: .*(after|FAILED)' "$out/lab.log" | sed 's/^/# /'
sed 's/^/# /' "$out/host.log" 2>/dev/null
if [ $rc -ne 0 ]; then
	sed 's/^/# /' "$out/lab.log"
	exit 1
fi
for s in spine1 spine2 leaf1 leaf2; do
	[ -s "$out/$s/counters.txt" ] || sfab_fail "no counters collected for $s"
	[ -e "$out/$s/ctl.sock" ] && sfab_fail "$s's control socket is left over"
done
pgrep -f "sfab-switchd.*$out" > /dev/null && sfab_fail "a switch is still running"
exit 0
