# SPDX-License-Identifier: GPL-2.0-only
# Host half of make soak: hands the guests the duration and the seed
# (soak.conf), then, until both soak pairs have stopped, injects a fault
# every 8 to 20 s, picked at random (bash's RANDOM seeded with the seed):
# a bit-error rate or a drop rate on one switch port for 4 s, a flap of
# one port (down 2 s), or an opensm restart (soak/sm-restart.N, which
# n1 serves).  Each goes to soak/faults.log; the counts per kind to
# soak/faults.json.  Every switch port must be Active again at the end.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
secs=${SFAB_SOAK_SECONDS:?} seed=${SFAB_SOAK_SEED:?}
echo "$secs $seed" > "$lab/.soak.conf" && mv "$lab/.soak.conf" "$lab/soak.conf"
wait_nodes up 500
wait_nodes active 300
check_switches 60
S=$lab/soak
mkdir -p "$S"
RANDOM=$seed
# the switch ports with a cable (leafspine.topo): the nodes' ports,
# which all traffic crosses, three times as likely as the inter-switch
# ones, of which opensm's routes use some
HOSTP=(leaf1:1 leaf1:2 leaf2:1 leaf2:2)
PORTS=("${HOSTP[@]}" "${HOSTP[@]}" "${HOSTP[@]}" leaf1:7 leaf1:8 leaf2:7 leaf2:8
	spine1:1 spine1:2 spine2:1 spine2:2)
declare -A count=([ber]=0 [drop]=0 [flap]=0 [sm-restart]=0)
t0=$SECONDS

stopped() { [ -e "$S/a.stop" ] && [ -e "$S/b.stop" ]; }

# pause SECONDS: sleep, watching the nodes; status 1 once the soak stopped
pause() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		watch_nodes
		stopped && return 1
		[ $((SECONDS - t0)) -lt $((secs + 900)) ] || fail "the soak did not stop in $((secs + 900)) s"
		sleep 0.2
	done
}

logf() { echo "$((SECONDS - t0)) $*" >> "$S/faults.log"; ok "fault at $((SECONDS - t0)) s: $*"; }

n=0
while pause $((8 + RANDOM % 13)); do
	p=${PORTS[RANDOM % ${#PORTS[@]}]}
	sw=${p%:*} port=${p#*:}
	k=$((RANDOM % 4))
	case $k in
	0|1)
		kind=$([ $k = 0 ] && echo ber || echo drop)
		rate=0.0$((1 + RANDOM % 5))
		swctl "$sw" port "$port" "$kind" "$rate" > /dev/null || fail "$sw port $port $kind $rate"
		logf "$kind $rate on $p for 4 s"
		count[$kind]=$((count[$kind] + 1))
		sleep 4
		swctl "$sw" port "$port" errors off > /dev/null || fail "$sw port $port errors off"
		;;
	2)
		# down for 2 s once: a period longer than the soak's rest
		swctl "$sw" port "$port" flap 600000 2000 > /dev/null || fail "$sw port $port flap"
		logf "flap of $p (down 2 s)"
		count[flap]=$((count[flap] + 1))
		sleep 3
		swctl "$sw" port "$port" flap off > /dev/null || fail "$sw port $port flap off"
		;;
	3)
		n=$((n + 1))
		touch "$S/sm-restart.$n"
		logf "opensm restart $n"
		count[sm-restart]=$((count[sm-restart] + 1))
		;;
	esac
done
printf '{"ber": %d, "drop": %d, "flap": %d, "sm-restart": %d}\n' \
	"${count[ber]}" "${count[drop]}" "${count[flap]}" "${count[sm-restart]}" > "$S/faults.json"
ok "soak stopped after $((SECONDS - t0)) s: faults ber ${count[ber]}, drop ${count[drop]}, flap ${count[flap]}, opensm restarts ${count[sm-restart]}"
check_switches 120
wait_nodes soak.done $((secs + 900))
ok "soak done"
touch "$lab/step.done"
