# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for sfab's build and setup scripts (sourced, not run).

SFAB_TOP=${SFAB_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SFAB_CACHE=${SFAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sfab}
SFAB_JOBS=${SFAB_JOBS:-$(nproc)}
mkdir -p "$SFAB_CACHE"

# sfab_key FILE|STRING... : a short hash of the given inputs.  Arguments
# that name files contribute their contents, others their text.
sfab_key() {
	local a
	for a in "$@"; do
		if [ -f "$a" ]; then
			sha256sum < "$a"
		elif [ -d "$a" ]; then
			(cd "$a" && find . -type f ! -name '*.o' -print0 | LC_ALL=C sort -z |
				xargs -0 sha256sum)
		else
			printf '%s\n' "$a"
		fi
	done | sha256sum | cut -c1-16
}

# sfab_stage NAME: print a stage header and start its clock.
sfab_stage() {
	SFAB_STAGE=$1
	SFAB_STAGE_T0=$(date +%s)
	echo "sfab: [$SFAB_STAGE] start"
}

sfab_stage_done() {
	echo "sfab: [$SFAB_STAGE] done in $(( $(date +%s) - SFAB_STAGE_T0 ))s${1:+ ($1)}"
}

# sfab_sync SRC DST: copy a tree, touching only files whose contents
# changed, so incremental builds stay incremental.
sfab_sync() {
	mkdir -p "$2"
	rsync -rc --delete "$1"/ "$2"/
}
