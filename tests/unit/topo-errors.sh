#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# unit/topo-errors: `sfab-lab check` on topology files that are wrong in
# the ways fuzz/topo (tests/fuzz/fuzz_topo.py) tries, including those it
# found crashing the parser: each is refused with exit status 2 and one
# "sfab-lab: FILE:LINE: ..." message naming the problem, never a Python
# traceback; a good one is described.  The crashes found:
#   - bytes that are not UTF-8 (a binary file, Latin-1 text) raised
#     UnicodeDecodeError out of the parser (fuzz/topo, 4 Dec 2026)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
lab=$top/tools/sfab-lab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# refused TEXT WHAT: the file holding TEXT (printf format) is refused
# with a message that contains WHAT
refused() {
	local f=$tmp/t.topo out rc
	# shellcheck disable=SC2059
	printf "$1" >"$f"
	out=$("$lab" check "$f" 2>&1)
	rc=$?
	if [ $rc = 2 ] && [[ $out == "sfab-lab: $f:"*"$2"* ]] &&
	   [ "$(printf '%s\n' "$out" | wc -l)" = 1 ]; then
		echo "ok: refused: $2"
	else
		echo "not ok: $(printf '%q' "$1"): want exit 2 and '$2', got $rc:"
		printf '%s\n' "$out" | head -20
		fail=1
	fi
}

refused 'switch sw1\nnode n\xa0\nlink n sw1:1\n' '2: not UTF-8 text (byte 0xa0)'
refused '\xff\xfe\x00s\x00w\x00' '1: not UTF-8 text (byte 0xff)'
refused 'switch sw1\nnode n1\nlink n1 sw1:9\n' 'sw1 port=9 is out of range 1..8'
refused 'switch sw1\nnode n1\nlink n1 sw1:0x1\n' "sw1 port: '0x1' is not a number"
refused 'switch sw1\nnode n1\n' 'node n1 has no link'
refused 'switch sw1\nnode n1 guid=0x5346ab0000010001\nlink n1 sw1:1\n' \
	'is also sw1'"'"'s'
refused 'switch sw1 "\n' 'No closing quotation'
refused 'switch shared\n' "bad name 'shared'"
refused 'frobnicate\n' "unknown keyword 'frobnicate'"
refused 'switch sw1\nnode n1 mem=99999999999999999999999\nlink n1 sw1:1\n' \
	'out of range 128..65536'

good=$tmp/good.topo
printf 'switch sw1 ports=2\nnode n1\nlink n1 sw1:2\nopensm n1\n' >"$good"
if out=$("$lab" check "$good" 2>&1) && [[ $out == *"node n1:"*"sw1 port 2"* ]]; then
	echo "ok: a good topology is described"
else
	echo "not ok: a good topology: $out"
	fail=1
fi
exit $fail
