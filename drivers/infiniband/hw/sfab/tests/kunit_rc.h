/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KUnit helper shared by the live suites: take an RC QP of sfab_0 from
 * Reset to RTS, connected to @dest_qpn at @dlid on port 1.
 */
#ifndef SFAB_KUNIT_RC_H
#define SFAB_KUNIT_RC_H

#include <rdma/ib_verbs.h>

static inline int sfab_kunit_rc_rts(struct ib_qp *qp, u32 dest_qpn, u16 dlid,
				    int access, u32 psn, u8 min_rnr_timer)
{
	struct ib_qp_attr a = {};
	int err;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = access;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = min_rnr_timer;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&a.ah_attr, dlid);
	rdma_ah_set_port_num(&a.ah_attr, 1);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

#endif /* SFAB_KUNIT_RC_H */
