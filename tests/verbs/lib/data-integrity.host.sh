# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/data-integrity: hands the nodes the seed and the pair
# (di.conf "SEED REQUESTER RESPONDER HOPS API", from SFAB_DI_SEED,
# SFAB_DI_PAIR, SFAB_DI_HOPS and SFAB_DI_API, which data-integrity.sh
# exports), then waits for both
# ends of the pair.  What failed goes to the file SFAB_DI_WHY names too.
. "$SFAB_TOP/tests/fabric/lib/sm.host.bash"
trap 'if [ -s "$lab/host.fail" ] && [ -n "${SFAB_DI_WHY:-}" ]; then
	cp "$lab/host.fail" "$SFAB_DI_WHY"; fi' EXIT
set -- ${SFAB_DI_PAIR:?}
echo "${SFAB_DI_SEED:?} $1 $2 ${SFAB_DI_HOPS:?} ${SFAB_DI_API:-legacy}" > "$lab/di.conf.tmp"
mv "$lab/di.conf.tmp" "$lab/di.conf"
ok "seed $SFAB_DI_SEED: $1 (requester) and $2 (responder), $SFAB_DI_HOPS switch(es) between"
wait_nodes up 500
wait_nodes active 300
wait_file "$1.di.done" 700
wait_file "$2.di.done" 120
ok "data-integrity done"
touch "$lab/step.done"
