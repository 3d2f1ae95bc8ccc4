# SPDX-License-Identifier: GPL-2.0-only
# Guest half of sec/mkey (host half: mkey.host.sh).  $SFAB_OPENSM runs
# opensm with m_key KEY at protection level 2 (no lease: the protection
# never lapses); the other node tries the SMAs without the key.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
KEY=0x5fab5fab0000cafe
SM_CONF_EXTRA="m_key $KEY
m_key_protection_level 2
m_key_lease_period 0
m_key_lookup FALSE"
sm_node_up
sm_start 5
wait_file sm.up 300
sm_wait_active 120
sm_wait_fabric
read -r mylid _ < "$lab/$me.active"
smp() {
	out=$(smpquery -t 1000 "$@" 2>&1) || fail "smpquery $*: $out"
}
# no answer within a few MAD timeouts: the SMA refused it
refused() {
	local rc=0 t0
	t0=$(now)
	out=$(timeout 60 "$@" 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "$* without the M_Key was answered: $out"
	[ $rc -ne 124 ] || fail "$* hung for 60 s"
	ok "refused without the key: $* ($(since "$t0") s)"
}
hex() { printf '0x%016x' "$(($1))"; }

if [ "$me" = "$sm" ]; then
	for peer in $SFAB_NODES; do
		[ "$peer" != "$me" ] && break
	done
	read -r plid _ < "$lab/$peer.active"
	read -r swlid _ < "$lab/$peer.attach"
	# opensm gave every SMA its key and protection level
	for t in "$plid 1" "$swlid 0" "$mylid 1"; do
		# shellcheck disable=SC2086
		smp -K -y "$KEY" portinfo $t
		expect "Mkey of $t" "$(hex "$(field Mkey <<< "$out")")" "$(hex "$KEY")"
		expect "ProtectBits of $t" "$(field ProtectBits <<< "$out")" 2
	done
	ok "opensm set M_Key $KEY at level 2 on both HCAs and the switch"
	put_file mkey.set set
	wait_file mkey.tried 300

	# each refusal counted where it happened
	smp -y "$KEY" portinfo "$plid" 1
	v=$(field MkeyViolations <<< "$out")
	[ "${v:-0}" -ge 3 ] || fail "$peer's M_KeyViolations is '$v', want >= 3: $out"
	smp -y "$KEY" portinfo "$swlid" 0
	w=$(field MkeyViolations <<< "$out")
	[ "${w:-0}" -ge 1 ] || fail "the switch's M_KeyViolations is '$w', want >= 1: $out"
	ok "M_KeyViolations: $peer $v, the switch $w"
	# ... and reported to the SM as trap 256
	sm_traps 256 2
	ok "opensm received $SM_TRAPS trap 256 (Bad M_Key) notices"
	grep -m1 'num:256' /var/log/opensm.log

	# opensm still manages the fabric: master, every port Active, and a
	# heavy sweep it is asked for (a port bounced with the key) comes back
	smp -y "$KEY" portinfo "$plid" 1
	expect "$peer LinkState" "$(field LinkState <<< "$out")" Active
	sminfo -t 1000 -y "$KEY" > /tmp/sminfo 2>&1 || fail "sminfo: $(cat /tmp/sminfo)"
	grep -q 'state 3 SMINFO_MASTER' /tmp/sminfo || fail "sminfo: $(cat /tmp/sminfo)"
	ok "opensm is still master: $(cat /tmp/sminfo)"
	touch "$lab/mkey.done"
else
	wait_file mkey.set 300
	read -r swlid swport _ < "$lab/$me.attach"
	# no key: Gets (level 2) and Sets refused, by the HCA and the switch
	refused smpquery -t 300 portinfo "$mylid" 1
	refused smpquery -t 300 -D portinfo 0 1
	refused smpquery -t 300 portinfo "$swlid" "$swport"
	refused ibportstate -t 300 "$mylid" 1 disable
	refused ibportstate -t 300 -D 0 1 disable
	read -r st _ <<< "$(port_info)"
	[ "$st" = Active ] || fail "port 1 is '$st' after ibportstate without the key"
	ok "port 1 still Active"
	# a wrong key is as good as none
	refused smpquery -t 300 -y 0x1234 portinfo "$mylid" 1
	# the key opens them
	smp -y "$KEY" portinfo "$mylid" 1
	expect "own LinkState" "$(field LinkState <<< "$out")" Active
	smp -y "$KEY" portinfo "$swlid" "$swport"
	expect "switch port $swport LinkState" "$(field LinkState <<< "$out")" Active
	ok "with the key smpquery reads both SMAs"
	touch "$lab/mkey.tried"
	wait_file mkey.done 300
fi
sm_end
