# SPDX-License-Identifier: GPL-2.0-only
# Shared by the tests in tests/verbs/ (sourced).  They run user-space
# verbs programs (rdma-core's ibv_*_pingpong, on the project's libibverbs
# and libsfab) in the guests of a lab with opensm, the way the opensm
# tests of tests/fabric/ do; the lab machinery is tests/fabric/lib's.
. "$(dirname "${BASH_SOURCE[0]}")/../../fabric/lib/common.bash"

SFAB_VERBS_LIB=$SFAB_TOP/tests/verbs/lib

# sfab_verbs_lab NAME TOPO [TIMEOUT]: sfab_sm_lab (tests/fabric/lib/
# common.bash) for a verbs test: guest half tests/verbs/lib/NAME.guest.sh,
# host half tests/verbs/lib/NAME.host.sh, rdma-core built; results in $OUT.
sfab_verbs_lab() {
	SFAB_LAB_LIB=$SFAB_VERBS_LIB SFAB_LAB_PREREQS="guest-prereqs switch rdma-core" \
		sfab_sm_lab "$@"
}
