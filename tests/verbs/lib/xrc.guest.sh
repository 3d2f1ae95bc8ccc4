# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/xrc (host half: xrc.host.sh): with every port
# Active, n1 runs build/verbs/xrc tgt and peer (one XRC domain, two
# processes), n2 runs xrc ini; their numbers go through $lab/xrc.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
verbs_fabric_up
prog=$SFAB_TOP/build/verbs/xrc
d=$lab/xrc
mkdir -p "$d"
# run_xrc ROLE...: each role in the background, its log in $d/ROLE.log;
# fails unless all exit 0
run_xrc() {
	local role pids=() rc
	for role in "$@"; do
		timeout -k 10 240 "$prog" "$role" sfab_0 "$d" > "$d/$role.log" 2>&1 &
		pids+=($!)
	done
	for role in "$@"; do
		rc=0
		wait "${pids[0]}" || rc=$?
		pids=("${pids[@]:1}")
		grep '^ok:' "$d/$role.log" | while read -r line; do ok "${line#ok: }"; done
		[ "$rc" = 0 ] || fail "xrc $role (exit $rc): $(tail -n 4 "$d/$role.log")"
	done
}
case "$me" in
n1) run_xrc tgt peer ;;
n2) run_xrc ini ;;
esac
touch "$lab/$me.xrc.done"
sm_end 400
