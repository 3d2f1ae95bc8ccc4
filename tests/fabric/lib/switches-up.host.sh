# SPDX-License-Identifier: GPL-2.0-only
# Host side of fabric/switches-up (run by tools/sfab-lab --host): the
# leaf/spine switches with no guests.  Every inter-switch link trains
# (LinkUp/INIT at both ends, flow-control packets both ways), node ports
# stay Polling without a cable; a spine port taken down takes its leaf's
# port down, and both come back when it is enabled again.
set -u
fail=0
ctl() { "$SFAB_TOP/tools/sfab-switchctl" -S "$1" "${@:2}"; }
sw_ctl() { local v; v="SFAB_CTL_$(echo "$1" | tr a-z- A-Z_)"; echo "${!v}"; }
# port_state SW P -> "phys state cable"
port_state() { ctl "$(sw_ctl "$1")" ports | awk -v p="$2" '$1 == p { print $2, $3, $4 }'; }
expect() {	# SW P "phys state cable" [seconds]
	local got end=$((SECONDS + ${4:-5}))
	while [ $SECONDS -lt $end ]; do
		got=$(port_state "$1" "$2")
		[ "$got" = "$3" ] && { echo "ok: $1 port $2: $got"; return 0; }
		sleep 0.1
	done
	echo "FAIL: $1 port $2 is '$got', want '$3'"
	exit 1
}
fc() {		# SW P: "FCPktsTx FCPktsRx"
	ctl "$(sw_ctl "$1")" counters "$2" |
		sed -n 's/.*FCPktsTx \([0-9]*\) FCPktsRx \([0-9]*\).*/\1 \2/p'
}

links="leaf1:7=spine1:1 leaf1:8=spine2:1 leaf2:7=spine1:2 leaf2:8=spine2:2"
t0=$(date +%s%N)
for l in $links; do
	a=${l%=*} b=${l#*=}
	expect "${a%:*}" "${a#*:}" "LinkUp INIT yes"
	expect "${b%:*}" "${b#*:}" "LinkUp INIT yes"
done
echo "checked in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
for l in $links; do
	for e in ${l%=*} ${l#*=}; do
		read -r tx rx <<< "$(fc "${e%:*}" "${e#*:}")"
		if [ "${tx:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ]; then
			echo "ok: $e flow control: $tx sent, $rx received"
		else
			echo "FAIL: $e flow control: sent '${tx:-}', received '${rx:-}'"
			fail=1
		fi
	done
done
for e in leaf1:1 leaf1:2 leaf2:1 leaf2:2; do
	expect "${e%:*}" "${e#*:}" "Polling DOWN no" 1
done

# a spine port down: the leaf sees its link go down; up: it retrains
ctl "$SFAB_CTL_SPINE1" port 1 down > /dev/null || { echo "FAIL: port 1 down"; fail=1; }
expect spine1 1 "Disabled DOWN no"
expect leaf1 7 "Polling DOWN no"
expect leaf1 8 "LinkUp INIT yes" 1
ctl "$SFAB_CTL_SPINE1" port 1 up > /dev/null || { echo "FAIL: port 1 up"; fail=1; }
expect spine1 1 "LinkUp INIT yes"
expect leaf1 7 "LinkUp INIT yes"
down=$(ctl "$SFAB_CTL_LEAF1" counters 7 | sed -n 's/.*LinkDownedCounter \([0-9]*\).*/\1/p')
if [ "${down:-0}" -ge 1 ]; then
	echo "ok: leaf1 port 7 LinkDownedCounter $down"
else
	echo "FAIL: leaf1 port 7 LinkDownedCounter '${down:-}', want >= 1"
	fail=1
fi
# bad control input gets an error, not a dead switch
if ctl "$SFAB_CTL_LEAF1" port 99 down > /dev/null 2>&1; then
	echo "FAIL: 'port 99 down' was accepted"
	fail=1
fi
expect leaf1 8 "LinkUp INIT yes" 1
exit $fail
