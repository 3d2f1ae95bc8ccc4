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
# "pd 1 cq 2 qp 3 ..." for sfab_0, from `rdma resource`
res_counts() {
	rdma resource show 2>/dev/null | awk '$2 == "sfab_0:" {
		for (i = 3; i < NF; i += 2) printf "%s %s ", $i, $(i + 1) }'
}
case "$me" in
n1)
	run_xrc tgt peer
	# a process killed holding a domain, an XRC SRQ and both kinds of
	# XRC QP leaves nothing behind
	base=$(res_counts)
	[ -n "$base" ] || fail "rdma resource show has no sfab_0 line"
	"$prog" hold sfab_0 "$d" > "$d/hold.log" 2>&1 &
	hold=$!
	for ((i = 0; i < 100; i++)); do
		[ -e "$d/hold.ready" ] && break
		sleep 0.1
	done
	[ -e "$d/hold.ready" ] || fail "xrc hold did not start: $(cat "$d/hold.log")"
	held=$(res_counts)
	[ "$held" != "$base" ] || fail "rdma resource did not count xrc hold's objects: $held"
	kill -9 "$hold"
	wait "$hold" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		[ "$(res_counts)" = "$base" ] && break
		sleep 0.1
	done
	[ "$(res_counts)" = "$base" ] ||
		fail "after kill -9 of xrc hold: rdma resource $(res_counts), before it $base"
	ok "a process killed holding XRC objects ($held) leaves rdma resource as it was ($base)"
	;;
n2) run_xrc ini ;;
esac
touch "$lab/$me.xrc.done"
sm_end 400
