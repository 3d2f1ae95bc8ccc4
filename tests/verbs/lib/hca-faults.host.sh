# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/hca-faults: every node Active, then the faults into
# n2 (fatal), n3 (mmio-dead) and n4 (aq-error, msix-lost, aq-stall) as each
# is ready for them (tools/sfab-lab inject).
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
wait_nodes up 500
wait_nodes active 300
inject() {
	out=$(sfab-lab inject "$SFAB_LAB_DIR" "$1" "$2" 2>&1) ||
		fail "sfab-lab inject $1 $2: $out"
	ok "$out"
}
for n in n2 n3 n4; do
	wait_file "$n.watching" 120
done
inject n2 fatal
touch "$lab/n2.injected"
inject n3 mmio-dead
touch "$lab/n3.injected"
inject n4 aq-error
touch "$lab/n4.injected"
wait_file n4.step2 120
inject n4 msix-lost
touch "$lab/n4.injected2"
wait_file n4.step3 120
inject n4 aq-stall
touch "$lab/n4.injected3"
for n in n2 n3 n4; do
	wait_file "$n.faults.done" 120
done
ok "hca-faults done"
touch "$lab/step.done"
