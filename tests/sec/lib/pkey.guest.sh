# SPDX-License-Identifier: GPL-2.0-only
# Guest half of sec/pkey-partition (host half: pkey.host.sh).  $SFAB_OPENSM
# runs opensm with the partitions below and is lib/pkey.py's client; the
# other node is its server.  Port GUIDs are sfab-lab's: node i (from 1) has
# port GUID 0x5346ab0001000000 + (i << 8) + 1.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
i=0
for n in $SFAB_NODES; do
	i=$((i + 1))
	g=$(printf '0x%016x' $((0x5346ab0001000000 + (i << 8) + 1)))
	if [ "$n" = "$sm" ]; then gc=$g; else gs=$g; fi
done
cat > /tmp/partitions.conf <<-CONF
Default=0x7fff, ipoib : ALL=full;
A=0x0001 : $gc=full, $gs=full;
B=0x0002 : $gc=full;
L=0x0003 : $gc=limited, $gs=limited;
CONF
SM_CONF_EXTRA="partition_config_file /tmp/partitions.conf"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
sm_wait_fabric
role=server
[ "$me" = "$sm" ] && role=client
rc=0
timeout -k 10 300 /usr/bin/python3 "$SFAB_TOP/tests/sec/lib/pkey.py" "$role" "$lab" sfab_0 \
	> "$lab/pkey-$role.out" 2>&1 || rc=$?
out=$(cat "$lab/pkey-$role.out")
[ "$rc" = 0 ] || fail "pkey.py $role (exit $rc): $(tail -n 12 <<< "$out")"
while read -r line; do
	ok "${line#ok: }"
done <<< "$(grep '^ok:' <<< "$out")"
if [ "$role" = server ]; then
	# the switch port this node hangs off: opensm turned partition
	# enforcement on and gave it this node's table (no B), so B's packets
	# died there, counted by the switch's PMA (perfquery)
	read -r swlid swport _ < "$lab/$me.attach" || fail "no $me.attach"
	pi=$(smpquery -D portinfo "0,1" "$swport" 2>&1) || fail "smpquery portinfo: $pi"
	for f in PartEnforceInb PartEnforceOutb; do
		v=$(sed -n "s/^$f:\.*\([0-9]*\)\$/\1/p" <<< "$pi")
		[ "$v" = 1 ] || fail "switch port $swport: $f '$v': $pi"
	done
	pk=$(smpquery -D pkeys "0,1" "$swport" 2>&1) || fail "smpquery pkeys: $pk"
	grep -q '0x8002\|0x0002' <<< "$pk" && fail "switch port $swport has B: $pk"
	grep -q '0x8001' <<< "$pk" || fail "switch port $swport lacks A: $pk"
	ok "switch port $swport: PartEnforceInb and PartEnforceOutb 1, P_Keys $(grep -o '0x[0-9a-f]*' <<< "$pk" | grep -v 0x0000 | tr '\n' ' ')"
	pq=$(perfquery "$swlid" "$swport" 2>&1) || fail "perfquery $swlid $swport: $pq"
	xc=$(sed -n 's/^PortXmitConstraintErrors:\.*\([0-9]*\)$/\1/p' <<< "$pq")
	# 2 UD sends and the RC send with its 2 retries
	[ "${xc:-0}" -ge 5 ] ||
		fail "switch port $swport: PortXmitConstraintErrors '${xc}', want >= 5: $pq"
	ok "switch port $swport: PortXmitConstraintErrors $xc (partition B's packets)"
	touch "$lab/pkey-server.done"
else
	wait_file pkey-server.done 300
	# the server's HCA reported the drops to the SM
	sm_traps 257 1
	ok "opensm received $SM_TRAPS trap 257 (Bad P_Key) notices"
	grep -m1 'Bad P_Key' /var/log/opensm.log
	touch "$lab/pkey.done"
fi
sm_end
