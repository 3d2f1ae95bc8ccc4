# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the host halves of the opensm tests (tools/sfab-lab --host);
# the steps are described in tests/fabric/lib/sm.guest.bash.  Once every
# node is Active, check_switches writes SW.switch "LID GUID" for every
# switch, NODE.attach "SWITCH_LID SWITCH_PORT SWITCH_GUID" for every node,
# and then step.switches.
set -u
lab=$SFAB_LAB_OUT
ok() { echo "ok: $*"; }
fail() {
	echo "FAIL: $*"
	echo "$*" > "$lab/host.fail"
	exit 1
}

# a node failed: fail
watch_nodes() {
	local f
	for f in "$lab"/*.fail; do
		[ -e "$f" ] && [ "$f" != "$lab/host.fail" ] &&
			fail "$(basename "$f" .fail): $(cat "$f")"
	done
}

# wait_nodes SUFFIX SECONDS: every node's NODE.SUFFIX
wait_nodes() {
	local n end=$((SECONDS + $2))
	for n in $SFAB_NODES; do
		while [ ! -e "$lab/$n.$1" ]; do
			watch_nodes
			[ $SECONDS -lt $end ] || fail "no $n.$1 after $2 s"
			sleep 0.2
		done
	done
}

# put_file NAME TEXT...: write the lab file NAME whole at once (a temporary
# file renamed), so that whoever waits for it with wait_file never reads
# it half written
put_file() {
	local name=$1
	shift
	echo "$*" > "$lab/.$name.tmp" && mv "$lab/.$name.tmp" "$lab/$name"
}

# wait_file NAME SECONDS
wait_file() {
	local end=$((SECONDS + $2))
	while [ ! -e "$lab/$1" ]; do
		watch_nodes
		[ $SECONDS -lt $end ] || fail "no $1 after $2 s"
		sleep 0.2
	done
}

ctl_sock() { local v; v="SFAB_CTL_$(echo "$1" | tr a-z- A-Z_)"; echo "${!v}"; }
swctl() { "$SFAB_TOP/tools/sfab-switchctl" -S "$(ctl_sock "$1")" "${@:2}"; }
# "LID GUID" of a switch as sfab-switchd reports it
switch_lid_guid() {
	swctl "$1" ports | sed -n 's/^switch guid \(0x[0-9a-f]*\) lid \([0-9]*\) .*/\2 \1/p'
}

# the switch whose GUID is $1 (after check_switches); status 1 if none
switch_of_guid() {
	local s g
	for s in $SFAB_SWITCHES; do
		read -r _ g < "$lab/$s.switch"
		[ "$((g))" = "$(($1))" ] && { echo "$s"; return 0; }
	done
	return 1
}

# bad_port_counters SWITCH PORTS: for each cabled port of PORTS (what
# `ports` said) that is not LinkUp ACTIVE, its retrainings and link packets
bad_port_counters() {
	local p
	for p in $(printf '%s\n' "$2" | awk '$4 == "yes" && ($2 != "LinkUp" || $3 != "ACTIVE") { print $1 }'); do
		printf '; port %s: %s' "$p" "$(swctl "$1" counters "$p" |
			grep -o 'LinkDownedCounter [0-9]*\|FCPktsTx [0-9]* FCPktsRx [0-9]*' | tr '\n' ' ')"
	done
}

# every switch port with a cable is "LinkUp ACTIVE" (within SECONDS), and
# every switch has a LID; writes SW.switch and step.switches
check_switches() {
	local s got bad end=$((SECONDS + ${1:-30})) lid guid
	for s in $SFAB_SWITCHES; do
		while :; do
			got=$(swctl "$s" ports)
			bad=$(printf '%s\n' "$got" | awk '$4 == "yes" && ($2 != "LinkUp" || $3 != "ACTIVE") {
				printf "%s%s:%s %s", sep, $1, $2, $3; sep = ", " }')
			read -r lid guid <<< "$(switch_lid_guid "$s")"
			[ -z "$bad" ] && [ "${lid:-0}" -gt 0 ] && break
			watch_nodes
			[ $SECONDS -lt $end ] ||
				fail "$s: cabled ports not LinkUp ACTIVE: ${bad:-none}; LID ${lid:-?}$(bad_port_counters "$s" "$got")"
			sleep 0.5
		done
		ok "$s (LID $lid): every cabled port LinkUp ACTIVE" \
			"($(printf '%s\n' "$got" | awk '$4 == "yes"' | wc -l) ports)"
		echo "$lid $guid" > "$lab/$s.switch"
	done
	# NODE.attach "SWITCH_LID SWITCH_PORT SWITCH_GUID": where a node's
	# cable ends, from the topology file
	"$SFAB_TOP/tools/sfab-lab" check "$SFAB_LAB_TOPO" |
		sed -n 's/^node \([^:]*\):.* cable to \(.*\) port \([0-9]*\)$/\1 \2 \3/p' |
		while read -r n s p; do
			read -r lid guid < "$lab/$s.switch"
			echo "$lid $p $guid" > "$lab/$n.attach"
		done
	touch "$lab/step.switches"
}

# the LIDs the nodes reported are non-zero and distinct, also from the
# switches'
check_lids() {
	local n s all=
	for n in $SFAB_NODES; do
		all+=" $(cut -d' ' -f1 "$lab/$n.active")"
	done
	for s in $SFAB_SWITCHES; do
		[ -e "$lab/$s.switch" ] && all+=" $(cut -d' ' -f1 "$lab/$s.switch")"
	done
	local dup
	dup=$(printf '%s\n' $all | sort | uniq -d)
	[ -z "$dup" ] || fail "LIDs given twice: $dup (all: $all)"
	ok "LIDs distinct:$all"
}
