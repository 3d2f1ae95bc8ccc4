# SPDX-License-Identifier: GPL-2.0-only
# Host side of fabric/link-up (tools/sfab-lab --host), with
# tests/fabric/lib/link-up.guest.sh in every node of 2node.topo.
set -u
lab=$SFAB_LAB_OUT
ctl() { "$SFAB_TOP/tools/sfab-switchctl" -S "$SFAB_CTL_SW1" "$@"; }
fail() {
	echo "FAIL: $*"
	echo "$*" > "$lab/host.fail"
	exit 1
}
# wait_node FILE SECONDS: a guest's step file; a NODE.fail ends us
wait_node() {
	local f end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		[ -e "$lab/$1" ] && return 0
		for f in "$lab"/*.fail; do
			[ -e "$f" ] && fail "$(basename "$f" .fail): $(cat "$f")"
		done
		sleep 0.2
	done
	fail "no $1 after $2 s"
}
# switch_port P "phys state" SECONDS
switch_port() {
	local got end=$((SECONDS + $3))
	while [ $SECONDS -lt $end ]; do
		got=$(ctl ports | awk -v p="$1" '$1 == p { print $2, $3 }')
		[ "$got" = "$2" ] && { echo "ok: sw1 port $1: $got"; return 0; }
		sleep 0.2
	done
	fail "sw1 port $1 is '$got', want '$2'"
}
t0=$(date +%s)
for n in $SFAB_NODES; do
	wait_node "$n.up" 500
	echo "ok: $n LinkUp/Init $(cat "$lab/$n.up") s after insmod (host: $(( $(date +%s) - t0 )) s after start)"
done
# cable_mode P: port P's cable carries its frames as the lab asked
# (SFAB_CABLE: ring, the default, or socket)
cable_mode() {
	local want=${SFAB_CABLE:-ring} got
	got=$(ctl counters "$1" | sed -n 's/^ *cable: \([a-z]*\) .*/\1/p')
	[ "$got" = "$want" ] || fail "sw1 port $1's cable carries its frames on '$got', want '$want'"
	echo "ok: sw1 port $1's frames: $want"
}
switch_port 1 "LinkUp INIT" 10
switch_port 2 "LinkUp INIT" 10
ctl counters 1 | sed 's/^/  /'
cable_mode 1
cable_mode 2

ctl port 1 down > /dev/null || fail "sfab-switchctl port 1 down failed"
touch "$lab/step.down"
switch_port 1 "Disabled DOWN" 10
switch_port 2 "LinkUp INIT" 1
wait_node "${SFAB_NODES%% *}.down" 60
ctl port 1 up > /dev/null || fail "sfab-switchctl port 1 up failed"
touch "$lab/step.up"
wait_node "${SFAB_NODES%% *}.reup" 60
switch_port 1 "LinkUp INIT" 10
switch_port 2 "LinkUp INIT" 1
# the cable plugged in again made its ring pair again
cable_mode 1
down=$(ctl counters 1 | sed -n 's/.*LinkDownedCounter \([0-9]*\).*/\1/p')
[ "${down:-0}" -ge 1 ] || fail "sw1 port 1 LinkDownedCounter '${down:-}', want >= 1"
echo "ok: sw1 port 1 LinkDownedCounter $down"
touch "$lab/step.done"
exit 0
