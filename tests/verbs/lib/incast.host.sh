# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/incast: every node Active; the switch's counters
# before the traffic (incast.before); once the guests are done, every loss
# and error counter of every cabled switch port is there and 0, no link
# went down, and the switch dropped nothing for want of a route.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
# what sfab-switchctl counters shows per port that a lost or damaged
# packet moves (sfab_link_counters, sfab_sw_port_cnt); LinkDownedCounter
# is compared with before: a link that trains counts one already
SW_LOSS="PortXmitDiscards PortRcvErrors PortRcvSwitchRelayErrors
	SymbolErrorCounter ExcessiveBufferOverrunErrors VL15Dropped VCRCErrors
	ICRCErrors Malformed BadFCPkts"

# sw_port_bad OUT0 OUT PORT NODE: "port P (NODE) NAME VALUE; " for each
# SW_LOSS counter of PORT's block in OUT that is not 0, "NAME missing; "
# for one that is not there exactly once, and LinkDownedCounter if it
# differs from OUT0's
sw_port_bad() {
	awk -v p="$3" -v node="$4" -v names="$(echo $SW_LOSS)" '
		FNR == 1 { f++ }
		/^port / { inp = ($2 == p ":") }
		inp { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^[0-9]+$/) { seen[f, $i]++; val[f, $i] = $(i + 1) } }
		END {
			k = split(names, want, " ")
			for (j = 1; j <= k; j++) {
				m = want[j]
				if (seen[2, m] != 1)
					printf "port %s (%s) %s missing; ", p, node, m
				else if (val[2, m] != 0)
					printf "port %s (%s) %s %s; ", p, node, m, val[2, m]
			}
			m = "LinkDownedCounter"
			if (seen[1, m] != 1 || seen[2, m] != 1)
				printf "port %s (%s) %s missing; ", p, node, m
			else if (val[1, m] != val[2, m])
				printf "port %s (%s) %s %s -> %s; ", p, node, m, val[1, m], val[2, m]
		}' <(echo "$1") <(echo "$2")
}

wait_nodes up 500
wait_nodes active 300
check_switches 60
out0=$(swctl sw1 counters) || fail "sfab-switchctl counters failed"
touch "$lab/incast.before"
wait_file incast.traffic 500
out=$(swctl sw1 counters) || fail "sfab-switchctl counters failed"
echo "$out" | sed 's/^/  /'
bad=
for n in $SFAB_NODES; do
	read -r _ p _ < "$lab/$n.attach"
	bad+=$(sw_port_bad "$out0" "$out" "$p" "$n")
done
nr=$(sed -n 's/.* no-route \([0-9]*\) .*/\1/p' <<< "$out")
[ "$nr" = 0 ] || bad+="no-route ${nr:-missing}; "
# every verdict in the share before any party fails (incast.guest.sh)
put_file switch.counters "${bad:-ok}"
for n in $SFAB_NODES; do
	wait_file "$n.counters" 200
done
for n in $SFAB_NODES; do
	echo "$n: $(cat "$lab/$n.counters")"
done
[ -z "$bad" ] || fail "switch after the incast: $bad"
ok "switch: $(wc -w <<< "$SW_LOSS") loss and error counters 0 and LinkDownedCounter" \
	"as before on each of the $(wc -w <<< "$SFAB_NODES") node ports, no-route 0"
wait=$(awk '/PortXmitWait/ { for (i = 1; i < NF; i++) if ($i == "PortXmitWait") s += $(i + 1) } END { print s + 0 }' <<< "$out")
ok "switch: PortXmitWait summed over its ports $wait"
touch "$lab/incast.switch"
wait_file incast.done 200
ok "incast done"
touch "$lab/step.done"
