# SPDX-License-Identifier: GPL-2.0-only
# Shared by the tests in tests/fabric/ (sourced).  Each test is one script:
# exit 0 pass, 1 fail, 77 skip with `SKIP: <reason>` as the last line.
. "$(dirname "${BASH_SOURCE[0]}")/../../build/common.bash"

SFAB_TOPOS=$SFAB_TOP/tests/configs/topologies
SFAB_LAB=$SFAB_TOP/tools/sfab-lab

# the project's QEMU (tools/setup/build-qemu.sh, cached) has sfab-hca,cable=
sfab_have_cable() {
	local out q
	if ! out=$("$SFAB_TOP/tools/setup/build-qemu.sh" 2>&1); then
		printf '%s\n' "$out" | tail -n 20
		sfab_fail "tools/setup/build-qemu.sh failed"
	fi
	q=$(printf '%s\n' "$out" | tail -n 1)
	[ -x "$q" ] || sfab_fail "tools/setup/build-qemu.sh printed '$q', not a QEMU binary"
	"$q" -device sfab-hca,help 2>&1 | grep -q '^ *cable='
}

# print a lab's summary and, on failure, what it needs to be understood
sfab_lab_report() {
	local dir=$1 f
	[ -f "$dir/summary" ] && sed 's/^/# /' "$dir/summary"
	[ -f "$dir/host.log" ] && sed 's/^/# host: /' "$dir/host.log"
	for f in "$dir"/*/console.log; do
		[ -f "$f" ] || continue
		echo "# --- $(basename "$(dirname "$f")") console (last lines)"
		tail -n 25 "$f" | sed 's/^/# /'
	done
}
