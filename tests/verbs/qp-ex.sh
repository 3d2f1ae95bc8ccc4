#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# verbs/qp-ex: verbs/data-integrity's schedule on the 2-node fabric with
# the requester on the extended APIs: QPs from ibv_create_qp_ex with
# send_ops_flags, every request posted with ibv_wr_start, the opcode's
# ibv_wr_* (rdma_write, _imm, rdma_read, send, send_imm,
# atomic_cmp_swp, atomic_fetch_add, atomic_write, flush of a range and of
# a whole MR; bind_mw and local_inv: verbs/mw), ibv_wr_set_sge or _sge_list (two
# SGEs), ibv_wr_set_inline_data or _list (two buffers),
# ibv_wr_set_ud_addr, ibv_wr_complete; its send CQ from ibv_create_cq_ex,
# polled with ibv_start_poll/ibv_next_poll/ibv_end_poll and every field
# read with ibv_wc_read_*.  The same checks, byte for byte: see
# data-integrity.sh and lib/data_integrity.py.
set -u
SFAB_DI_API=ex SFAB_DI_LABS=2node exec "$(dirname "$0")/data-integrity.sh"
