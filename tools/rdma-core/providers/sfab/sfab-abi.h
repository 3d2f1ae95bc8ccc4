/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sfab provider view of the kernel ABI (kernel-headers/rdma/sfab-abi.h):
 * the uverbs command and response wrappers the provider sends.
 */

#ifndef __SFAB_ABI_H__
#define __SFAB_ABI_H__

#include <infiniband/kern-abi.h>
#include <kernel-abi/sfab-abi.h>
#include <rdma/sfab-abi.h>

DECLARE_DRV_CMD(sfab_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		sfab_ibv_alloc_ucontext_cmd, sfab_ibv_alloc_ucontext_resp);
DECLARE_DRV_CMD(sfab_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD, empty,
		sfab_ibv_alloc_pd_resp);
DECLARE_DRV_CMD(sfab_query_device_ex, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
		empty, sfab_ibv_ex_query_device_resp);
DECLARE_DRV_CMD(sfab_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		sfab_ibv_create_cq, sfab_ibv_create_cq_resp);
DECLARE_DRV_CMD(sfab_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		sfab_ibv_create_cq, sfab_ibv_create_cq_resp);
DECLARE_DRV_CMD(sfab_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		sfab_ibv_resize_cq, sfab_ibv_resize_cq_resp);
DECLARE_DRV_CMD(sfab_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		sfab_ibv_create_qp, sfab_ibv_create_qp_resp);
DECLARE_DRV_CMD(sfab_create_qp_ex, IB_USER_VERBS_EX_CMD_CREATE_QP,
		sfab_ibv_create_qp, sfab_ibv_create_qp_resp);
DECLARE_DRV_CMD(sfab_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		sfab_ibv_create_srq, sfab_ibv_create_srq_resp);
DECLARE_DRV_CMD(sfab_create_srq_ex, IB_USER_VERBS_CMD_CREATE_XSRQ,
		sfab_ibv_create_srq, sfab_ibv_create_srq_resp);
DECLARE_DRV_CMD(sfab_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ,
		sfab_ibv_modify_srq, empty);

#endif /* __SFAB_ABI_H__ */
