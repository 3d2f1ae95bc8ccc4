# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest halves of the verbs tests that check this node's
# HCA port counters (after tests/fabric/lib/sm.guest.bash): the PMA's error
# counters as perfquery and `rdma statistic` show them, and the transport
# counters the driver reads with QUERY_STATS (`rdma statistic` only).  A
# counter missing from the output is a failure, never a zero.

# the PortCounters error counters, as perfquery names them ...
HCA_PQ_ERRORS="SymbolErrorCounter LinkErrorRecoveryCounter PortRcvErrors
	PortRcvRemotePhysicalErrors PortRcvSwitchRelayErrors PortXmitDiscards
	PortXmitConstraintErrors PortRcvConstraintErrors LocalLinkIntegrityErrors
	ExcessiveBufferOverrunErrors VL15Dropped"
# ... and as `rdma statistic` does
HCA_RS_ERRORS="symbol_error link_error_recovery port_rcv_errors
	port_rcv_remote_physical_errors port_rcv_switch_relay_errors
	port_xmit_discards port_xmit_constraint_errors port_rcv_constraint_errors
	local_link_integrity_errors excessive_buffer_overrun_errors vl15_dropped"
# LinkDownedCounter / link_downed: a link that trains counts one already
# (the second Init of the training), so a test compares it with before
# the RC/UC transport counters (struct sfab_port_stats)
HCA_RS_TRANSPORT="retransmits retrans_pkts local_ack_timeout_err packet_seq_err
	implied_nak_seq_err rnr_nak_retry_err out_of_sequence duplicate_request
	req_transport_retries_exceeded req_rnr_retries_exceeded"

# hca_perfquery / hca_rdma_stat: this port's counters, as the tools print them
hca_perfquery() { perfquery 2>&1; }
hca_rdma_stat() { rdma statistic show link sfab_0/1 2>&1; }

# pq_val TEXT NAME: NAME's value in perfquery output TEXT, one line per match
pq_val() { sed -n "s/^$2:\.*\([0-9][0-9]*\)\$/\1/p" <<< "$1"; }

# rs_val TEXT NAME: NAME's value in `rdma statistic show` output TEXT
rs_val() {
	awk -v n="$2" '{ for (i = 1; i < NF; i++)
		if ($i == n && $(i + 1) ~ /^[0-9]+$/) print $(i + 1) }' <<< "$1"
}

# cnt_one FN TEXT NAME: the one value FN finds for NAME; status 1 when
# there is none or more than one
cnt_one() {
	local v
	v=$("$1" "$2" "$3")
	[[ $v =~ ^[0-9]+$ ]] || return 1
	echo "$v"
}

# cnt_zero FN TEXT NAME...: "NAME missing; " or "NAME VALUE; " for every
# NAME that is not there exactly once with the value 0
cnt_zero() {
	local fn=$1 text=$2 n v
	shift 2
	for n in "$@"; do
		if ! v=$(cnt_one "$fn" "$text" "$n"); then
			printf '%s missing; ' "$n"
		elif [ "$v" != 0 ]; then
			printf '%s %s; ' "$n" "$v"
		fi
	done
}

# cnt_moved FN BEFORE AFTER NAME...: "NAME +DELTA; " for every NAME whose
# value changed between the outputs BEFORE and AFTER, "NAME missing; " for
# one either lacks
cnt_moved() {
	local fn=$1 before=$2 after=$3 n a b
	shift 3
	for n in "$@"; do
		if ! a=$(cnt_one "$fn" "$before" "$n") ||
		   ! b=$(cnt_one "$fn" "$after" "$n"); then
			printf '%s missing; ' "$n"
		elif [ "$a" != "$b" ]; then
			printf '%s +%s; ' "$n" $((b - a))
		fi
	done
}

# cnt_delta FN BEFORE AFTER NAME: how much NAME grew; status 1 when missing
cnt_delta() {
	local a b
	a=$(cnt_one "$1" "$2" "$4") && b=$(cnt_one "$1" "$3" "$4") || return 1
	echo $((b - a))
}
