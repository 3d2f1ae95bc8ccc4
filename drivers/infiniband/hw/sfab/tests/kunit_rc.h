/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KUnit helpers shared by the live suites: take an RC QP of sfab_0 from
 * Reset to RTS, connected to @dest_qpn at @dlid on port 1; give port 1 a
 * LID when no subnet manager has.
 */
#ifndef SFAB_KUNIT_RC_H
#define SFAB_KUNIT_RC_H

#include <kunit/test.h>
#include <linux/slab.h>

#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

/* PortInfo (IBA 14.2.5.6): where the LIDs and the state fields are */
#define SFAB_KUNIT_PI_LID		16
#define SFAB_KUNIT_PI_SM_LID		18
#define SFAB_KUNIT_PI_STATE		32	/* low nibble: PortState */
#define SFAB_KUNIT_PI_PHYS		33	/* high nibble: PortPhysicalState */
/* the LID a one-node subnet gives its only port */
#define SFAB_KUNIT_OWN_LID		1

/*
 * One local directed-route PortInfo Get or Set on port 1, as ib_mad hands
 * an SMP for the local port to the device (process_mad); @data is the
 * attribute, in and out.
 */
static inline int sfab_kunit_port_info(struct ib_device *dev, u8 method,
				       u8 data[IB_SMP_DATA_SIZE])
{
	size_t out_size = sizeof(struct ib_mad);
	struct ib_mad *in, *out;
	struct ib_smp *smp;
	u16 pkey_index = 0;
	int ret;

	in = kzalloc(sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		ret = -ENOMEM;
		goto out;
	}
	smp = (struct ib_smp *)in;
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	smp->class_version = 1;
	smp->method = method;
	smp->tid = cpu_to_be64(0x5346ab00ULL + method);
	smp->attr_id = IB_SMP_ATTR_PORT_INFO;
	smp->attr_mod = cpu_to_be32(1);
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
	if (method == IB_MGMT_METHOD_SET)
		memcpy(smp->data, data, IB_SMP_DATA_SIZE);
	ret = dev->ops.process_mad(dev, IB_MAD_IGNORE_MKEY, 1, NULL, NULL, in,
				   out, &out_size, &pkey_index);
	if (!(ret & IB_MAD_RESULT_REPLY)) {
		ret = -EIO;
		goto out;
	}
	smp = (struct ib_smp *)out;
	if (smp->status & ~IB_SMP_DIRECTION) {
		ret = -EREMOTEIO;
		goto out;
	}
	memcpy(data, smp->data, IB_SMP_DATA_SIZE);
	ret = 0;
out:
	kfree(out);
	kfree(in);
	return ret;
}

/* set port 1's LID, leaving its states and everything else as they are */
static inline int sfab_kunit_set_lid(struct ib_device *dev, u16 lid)
{
	u8 pi[IB_SMP_DATA_SIZE];
	__be16 be_lid = cpu_to_be16(lid);
	int err;

	err = sfab_kunit_port_info(dev, IB_MGMT_METHOD_GET, pi);
	if (err)
		return err;
	memcpy(&pi[SFAB_KUNIT_PI_LID], &be_lid, sizeof(be_lid));
	pi[SFAB_KUNIT_PI_STATE] &= 0xf0;	/* PortState: no change */
	pi[SFAB_KUNIT_PI_PHYS] &= 0x0f;		/* PortPhysicalState: no change */
	return sfab_kunit_port_info(dev, IB_MGMT_METHOD_SET, pi);
}

static void sfab_kunit_clear_lid(void *dev)
{
	sfab_kunit_set_lid(dev, 0);
}

/**
 * sfab_kunit_own_lid() - the LID of port 1 for traffic to the port itself
 * @test: the test, which gets the LID back when it ends
 * @dev: the device
 * @lid: the LID, out
 *
 * On a fabric the subnet manager has made port 1 Active with a LID.  With
 * no subnet manager at all (no SM LID, no LID: kunit.py boots one HCA and
 * no fabric) the test acts as the SM of a one-node subnet: a local
 * SubnSet(PortInfo) gives the port LID 1, to which the HCA loops packets
 * back without a link, and the LID is taken away again when the test
 * ends.  A port that an SM manages but that is not Active is an error.
 *
 * Return: 0 or a negative errno; -EAGAIN when an SM manages the port and
 * it is not Active with a LID.
 */
static inline int sfab_kunit_own_lid(struct kunit *test, struct ib_device *dev,
				     u16 *lid)
{
	struct ib_port_attr pa;
	int err;

	err = ib_query_port(dev, 1, &pa);
	if (err)
		return err;
	if (pa.state == IB_PORT_ACTIVE && pa.lid) {
		*lid = pa.lid;
		return 0;
	}
	if (pa.sm_lid || pa.lid)
		return -EAGAIN;
	kunit_info(test, "port 1 has no SM: it gets LID %u for this test\n",
		   SFAB_KUNIT_OWN_LID);
	err = sfab_kunit_set_lid(dev, SFAB_KUNIT_OWN_LID);
	if (err)
		return err;
	err = kunit_add_action_or_reset(test, sfab_kunit_clear_lid, dev);
	if (err)
		return err;
	err = ib_query_port(dev, 1, &pa);
	if (err)
		return err;
	if (pa.lid != SFAB_KUNIT_OWN_LID)
		return -EIO;
	*lid = pa.lid;
	return 0;
}

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
