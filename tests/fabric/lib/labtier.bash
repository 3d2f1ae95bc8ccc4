# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the runners of the tiers that one lab runs whole
# (tests/gda/run-gda, tests/ulp/run-ulp), after common.bash.  The names
# come from tests/TIER/expected; each test's guest half leaves
# TIER/NAME.NODE.rc ("STATUS SECONDS") and TIER/NAME.NODE.log in the lab
# share (tests/fabric/lib/sm.guest.bash ltest).  The runner prints
# `ok TIER/NAME` or `not ok TIER/NAME` for every name, each after the
# lines that explain it.  SFAB_KEEP_LAB=1 keeps the lab's results.

# tkey NAME: the key of NAME's result: NAME without "TIER/"; a name with
# another prefix (devlink/info in the fault tier) keeps it, with "-" for
# "/".  Its guest half is ltest PREFIX NAME ... all the same.
tkey() {
	local t=${1#"$TIER"/}
	echo "${t//\//-}"
}

# tier_init TIER: names[], R (results), OUT (the lab's output), keep
tier_init() {
	TIER=$1
	TIER_DIR=$SFAB_TOP/tests/$TIER
	mapfile -t names < <(grep -v '^#' "$TIER_DIR/expected" | grep .)
	R=$(mktemp -d "/tmp/sfab-$TIER.XXXXXX")
	OUT=$R/lab
	keep=${SFAB_KEEP_LAB:-0}
}

# result NAME STATUS DETAIL: STATUS pass, fail or "skip REASON"
result() {
	printf '%s\n' "$3" > "$R/$1.detail"
	printf '%s\n' "$2" > "$R/$1.status"
}

# result_all STATUS DETAIL: every name that has no result yet
result_all() {
	local n
	for n in "${names[@]}"; do
		[ -f "$R/$(tkey "$n").status" ] || result "$(tkey "$n")" "$1" "$2"
	done
}

finish() {
	local n t st failed=0
	for n in "${names[@]}"; do
		t=$(tkey "$n")
		[ -f "$R/$t.detail" ] && sed 's/^/# /' "$R/$t.detail"
		st=$(cat "$R/$t.status" 2>/dev/null || echo "fail")
		case "$st" in
		pass) echo "ok $n" ;;
		skip\ *) echo "ok $n # SKIP ${st#skip }" ;;
		*) [ -f "$R/$t.detail" ] || echo "# no result"
		   echo "not ok $n"; failed=1 ;;
		esac
	done
	if [ "$failed" = 0 ] && [ "$keep" != 1 ]; then
		rm -rf "$R"
	else
		echo "# results in $R"
	fi
	exit "$failed"
}

# tier_lab TOPO GUEST_SCRIPT HOST_SCRIPT [SFAB_LAB_RUN_OPTION...]: run the
# lab; labinfo, lab_rc, nodes
tier_lab() {
	local t0 topo=$1 scenario=$2 host=$3
	shift 3
	t0=$(date +%s)
	lab_rc=0
	"$SFAB_LAB" run "$topo" --no-build --out "$OUT" --timeout 1800 \
		--scenario "$scenario" --host "$host" "$@" > "$R/lab.log" 2>&1 || lab_rc=$?
	labinfo="lab ($(basename "$topo")): $(( $(date +%s) - t0 )) s, exit status $lab_rc"
	nodes=$(sed -n 's/^node \([^:]*\):.*/\1/p' <("$SFAB_LAB" check "$topo"))
}

# tier_collect: every name with no result yet and no other source than
# the guests (not kernel-log) gets the nodes' results
tier_collect() {
	local n t st det seen node f trc secs
	for n in "${names[@]}"; do
		t=$(tkey "$n")
		[ "$t" = "$(tkey "${KLOG_NAME:-$TIER/kernel-log}")" ] && continue
		[ -f "$R/$t.status" ] && continue
		st=pass det= seen=0
		for node in $nodes; do
			f=$OUT/shared/$n.$node.rc
			[ -f "$f" ] || continue
			seen=1
			read -r trc secs < "$f"
			det+="$node ($secs s): $(cat "$OUT/shared/$n.$node.log")"$'\n'
			[ "$trc" = 0 ] || { st=fail; det+="$node: exit status $trc"$'\n'; }
		done
		if [ $seen = 0 ]; then
			st=fail
			det="did not run: $labinfo"$'\n'$(sfab_lab_report "$OUT" 2>/dev/null | tail -n 60)
		fi
		result "$t" "$st" "$det"
	done
}

# tier_kernel_log: TIER/kernel-log (or KLOG_NAME), no node's kernel
# log has a report (tools/sfab-kreport) and the lab ended well
tier_kernel_log() {
	local k
	k=$(tkey "${KLOG_NAME:-$TIER/kernel-log}")
	if grep -q 'kernel-reports [1-9]' "$OUT/summary" 2>/dev/null || [ ! -f "$OUT/summary" ]; then
		result "$k" fail "$labinfo"$'\n'"$(cat "$OUT/summary" 2>/dev/null)"$'\n'"$(sfab_lab_report "$OUT" | tail -n 80)"
	elif [ "$lab_rc" -ne 0 ]; then
		result "$k" fail "$labinfo"$'\n'"$(sfab_lab_report "$OUT" | tail -n 80)"
	else
		result "$k" pass "$labinfo; $(grep -c . "$OUT/summary") summary lines, no kernel reports"
	fi
}
