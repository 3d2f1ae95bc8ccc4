# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/data-integrity (host half: data-integrity.host.sh).
# With the fabric Active, the pair of nodes the host half names in
# di.conf ("SEED REQUESTER RESPONDER HOPS API") runs lib/data_integrity.py
# against each other (its log: di-NODE.log in the share); the requester
# first checks with ibtracert that the path to the responder crosses HOPS
# switches.  The other nodes only bring their ports up.
. "$SFAB_TOP/tests/fabric/lib/sm.guest.bash"
. "$SFAB_TOP/tests/verbs/lib/verbs.guest.bash"
verbs_fabric_up
wait_file di.conf 60
read -r seed req resp hops api < "$lab/di.conf"
case "$me" in
"$req") role=requester peer=$resp ;;
"$resp") role=responder peer=$req ;;
*) sm_end 900 ;;
esac
if [ "$role" = requester ]; then
	out=$(timeout 60 ibtracert "$(lid_of "$me")" "$(lid_of "$peer")" 2>&1) ||
		fail "ibtracert $me -> $peer: $out"
	n=$(grep -c -- '-> switch port' <<< "$out")
	[ "$n" = "$hops" ] || fail "the path $me -> $peer crosses $n switch(es), want $hops: $out"
	ok "path $me -> $peer through $n switch(es):" \
		"$(grep -- '-> switch port' <<< "$out" | grep -o '"[^"]*"' | tr '\n' ' ')"
fi
t0=$(now)
log=$lab/di-$me.log
rc=0
timeout 600 /usr/bin/python3 -u "$SFAB_TOP/tests/verbs/lib/data_integrity.py" \
	"$role" "$lab" "$seed" "$me" "$peer" "$api" > "$log" 2>&1 || rc=$?
while read -r line; do
	case "$line" in ok:*) ok "${line#ok: }" ;; esac
done < "$log"
[ $rc != 124 ] || fail "data_integrity.py $role: not done after 600 s (a hang): $(tail -n 3 "$log")"
[ $rc = 0 ] || fail "data_integrity.py: $(sed -n 's/^FAIL: //p' "$log" | head -n 1 | grep . ||
	tail -n 5 "$log")"
ok "data_integrity.py $role done ($(since "$t0") s)"
touch "$lab/$me.di.done"
sm_end 900
