# SPDX-License-Identifier: GPL-2.0-only
# Shared by the tests in tests/fabric/ (sourced).  Each test is one script:
# exit 0 pass, 1 fail, 77 skip with `SKIP: <reason>` as the last line.
. "$(dirname "${BASH_SOURCE[0]}")/../../build/common.bash"

SFAB_TOPOS=$SFAB_TOP/tests/configs/topologies
SFAB_LAB=$SFAB_TOP/tools/sfab-lab

# the project's QEMU (tools/setup/build-qemu.sh, cached) has sfab-hca with
# its cable= property, a link to an sfab-cable backend object; the test
# fails when it does not (a feature sfab ships is never a reason to skip)
sfab_need_cable() {
	local out q help
	if ! out=$("$SFAB_TOP/tools/setup/build-qemu.sh" 2>&1); then
		printf '%s\n' "$out" | tail -n 20
		sfab_fail "tools/setup/build-qemu.sh failed"
	fi
	q=$(printf '%s\n' "$out" | tail -n 1)
	[ -x "$q" ] || sfab_fail "tools/setup/build-qemu.sh printed '$q', not a QEMU binary"
	help=$("$q" -device sfab-hca,help 2>&1) ||
		sfab_fail "$q -device sfab-hca,help failed: $help"
	grep -q '^ *cable=<link<sfab-cable>>' <<< "$help" ||
		sfab_fail "$q: sfab-hca has no cable property (a link to an sfab-cable): $help"
}

# print a lab's summary and, on failure, what it needs to be understood
sfab_lab_report() {
	local dir=$1 f
	[ -f "$dir/summary" ] && sed 's/^/# /' "$dir/summary"
	[ -f "$dir/host.log" ] && sed 's/^/# host: /' "$dir/host.log"
	for f in "$dir"/shared/opensm.out "$dir"/shared/opensm.log; do
		[ -s "$f" ] || continue
		echo "# --- $(basename "$f") (last lines)"
		tail -n 30 "$f" | sed 's/^/# /'
	done
	for f in "$dir"/*/console.log; do
		[ -f "$f" ] || continue
		echo "# --- $(basename "$(dirname "$f")") console (last lines)"
		tr -d '\r' < "$f" | grep -v '^$' | tail -n 25 | sed 's/^/# /'
	done
}

# sfab_sm_lab NAME TOPO [TIMEOUT]: one lab run on topology TOPO (a file in
# tests/configs/topologies) for an opensm test: guest half
# lib/NAME.guest.sh in every node, host half lib/NAME.host.sh.  Prints the
# steps that passed; fails the test when the lab failed (sfab_0 without
# MAD agents, so that opensm cannot bind, is such a failure).  On success
# the results are in $OUT (removed when the test exits, unless
# SFAB_KEEP_LAB=1); on failure they stay and the path is printed.
# SFAB_LAB_LIB: where the halves are (default tests/fabric/lib);
# SFAB_LAB_PREREQS: the make targets the lab needs (default guest-prereqs
# switch).  On failure the share's *.log files are shown too.
sfab_sm_lab() {
	local name=$1 topo=$SFAB_TOPOS/$2 timeout=${3:-300} t0 rc=0 f
	local lib=${SFAB_LAB_LIB:-$SFAB_TOP/tests/fabric/lib}
	local prereqs=${SFAB_LAB_PREREQS:-guest-prereqs switch}
	sfab_need_cable
	# shellcheck disable=SC2086
	make -s -C "$SFAB_TOP" $prereqs > /dev/null || sfab_fail "make $prereqs failed"
	OUT=$(mktemp -d "/tmp/sfab-$name.XXXXXX")
	trap 'sfab_sm_lab_exit $?' EXIT
	t0=$(date +%s)
	"$SFAB_LAB" run "$topo" --no-build --out "$OUT" --timeout "$timeout" \
		--scenario "$lib/$name.guest.sh" \
		--host "$lib/$name.host.sh" > "$OUT/lab.log" 2>&1 || rc=$?
	echo "# lab ($2): $(( $(date +%s) - t0 )) s, exit status $rc"
	grep -h '^ok:' "$OUT"/*/console.log "$OUT/host.log" 2>/dev/null | sed 's/^/# /'
	grep '^sfab-lab:' "$OUT/lab.log" | sed 's/^/# /'
	if [ $rc -ne 0 ] || grep -q 'kernel-reports [1-9]' "$OUT/summary" 2>/dev/null; then
		sfab_lab_report "$OUT"
		for f in "$OUT"/shared/*.log; do
			[ -f "$f" ] || continue
			echo "# --- $(basename "$f")"
			tail -n 20 "$f" | sed 's/^/# /'
		done
		sfab_fail "the lab failed (results in $OUT)"
	fi
	# opensm's own complaints, for the record (they do not fail the test)
	f=$OUT/shared/opensm.log
	[ -f "$f" ] && grep -q ' ERR ' "$f" &&
		grep -o 'ERR [0-9A-F]*: .*' "$f" | sort | uniq -c | sort -rn | head -n 5 |
		sed 's/^ */# opensm log: /'
	return 0
}

sfab_sm_lab_exit() {
	[ "$1" = 1 ] || [ "${SFAB_KEEP_LAB:-0}" = 1 ] || rm -rf "$OUT"
}

# sfab_sm_need NAME: a step file of the lab share ($OUT/shared/NAME) that
# must be there and not empty
sfab_sm_need() {
	[ -s "$OUT/shared/$1" ] && return 0
	sfab_lab_report "$OUT"
	sfab_fail "the lab wrote no $1 (results in $OUT)"
}
