// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_kverbs: kernel verbs on a live sfab_0 through ib_core
 * only, as a kernel ULP uses them.  Two RC QPs of one PD connected to
 * each other through the port's own LID: a fast-registration MR
 * (ib_alloc_mr, ib_map_mr_sg, IB_WR_REG_MR with a new key variant) as the
 * target of an RDMA WRITE and an RDMA READ, fetch-and-add and
 * compare-and-swap on it when the device has atomics, a SEND with
 * immediate data, rounds of unsignaled WRITEs that end in a signaled one
 * (one completion each), then IB_WR_LOCAL_INV: an unsignaled WRITE with
 * the invalidated key completes with IB_WC_REM_ACCESS_ERR, the next one
 * with IB_WC_WR_FLUSH_ERR.  Every byte is checked.
 *
 * On a fabric (tests/verbs/kernel-rc loads it there) the subnet manager
 * has given the port its LID; with no subnet manager at all (kunit.py
 * with an sfab-hca and no fabric, tests/build/kunit-py.sh) the suite
 * gives the port a LID itself (sfab_kunit_own_lid()).  It skips only
 * where there is no sfab_0.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <rdma/ib_verbs.h>

#include "kunit_rc.h"

#define KV_LEN		8192
#define KV_SEND_LEN	100
#define KV_SQ_DEPTH	16
#define KV_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

struct kv {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qa, *qb;
	struct ib_mr *mr;
	u16 lid;
	void *src, *dst, *rbuf;
	u64 src_dma, rbuf_dma;
	struct scatterlist sg;
	bool sg_mapped;
};

/* one completion within 5 s; its status is the caller's to check */
static int kv_poll(struct kv *k, struct ib_wc *wc)
{
	unsigned long end = jiffies + 5 * HZ;
	int n;

	do {
		n = ib_poll_cq(k->cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		usleep_range(200, 1000);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

static int kv_connect(struct kv *k, struct ib_qp *qp, struct ib_qp *peer)
{
	return sfab_kunit_rc_rts(qp, peer->qp_num, k->lid, KV_ACCESS, 0x100, 12);
}

/* a KUnit action: runs when the test ends, however it ends */
static void kv_free(void *data)
{
	struct kv *k = data;

	if (!k->dev)
		return;
	if (k->qb)
		ib_destroy_qp(k->qb);
	if (k->qa)
		ib_destroy_qp(k->qa);
	if (k->mr)
		ib_dereg_mr(k->mr);
	if (k->sg_mapped)
		ib_dma_unmap_sg(k->dev, &k->sg, 1, DMA_BIDIRECTIONAL);
	if (k->src_dma)
		ib_dma_unmap_single(k->dev, k->src_dma, KV_LEN, DMA_BIDIRECTIONAL);
	if (k->rbuf_dma)
		ib_dma_unmap_single(k->dev, k->rbuf_dma, KV_LEN, DMA_BIDIRECTIONAL);
	if (k->cq)
		ib_free_cq(k->cq);
	if (k->pd)
		ib_dealloc_pd(k->pd);
	kfree(k->src);
	kfree(k->dst);
	kfree(k->rbuf);
	ib_device_put(k->dev);
}

/* a new pair of RC QPs, qa and qb, connected to each other (old ones go) */
static int kv_pair(struct kv *k)
{
	struct ib_qp_init_attr init = {};
	int err;

	if (k->qb)
		ib_destroy_qp(k->qb);
	if (k->qa)
		ib_destroy_qp(k->qa);
	k->qa = NULL;
	k->qb = NULL;
	init.send_cq = k->cq;
	init.recv_cq = k->cq;
	init.cap.max_send_wr = KV_SQ_DEPTH;
	init.cap.max_recv_wr = 16;
	init.cap.max_send_sge = 2;
	init.cap.max_recv_sge = 2;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	k->qa = ib_create_qp(k->pd, &init);
	if (IS_ERR(k->qa)) {
		err = PTR_ERR(k->qa);
		k->qa = NULL;
		return err;
	}
	k->qb = ib_create_qp(k->pd, &init);
	if (IS_ERR(k->qb)) {
		err = PTR_ERR(k->qb);
		k->qb = NULL;
		return err;
	}
	err = kv_connect(k, k->qa, k->qb);
	if (!err)
		err = kv_connect(k, k->qb, k->qa);
	return err;
}

static int kv_setup(struct kunit *test, struct kv *k)
{
	int err;

	k->dev = ib_device_get_by_name("sfab_0", RDMA_DRIVER_UNKNOWN);
	if (!k->dev)
		kunit_skip(test, "no sfab_0");
	err = kunit_add_action_or_reset(test, kv_free, k);
	if (err)
		return err;
	err = sfab_kunit_own_lid(test, k->dev, &k->lid);
	if (err)
		return err;

	k->src = kzalloc(KV_LEN, GFP_KERNEL);
	k->dst = kzalloc(KV_LEN, GFP_KERNEL);
	k->rbuf = kzalloc(KV_LEN, GFP_KERNEL);
	if (!k->src || !k->dst || !k->rbuf)
		return -ENOMEM;

	k->pd = ib_alloc_pd(k->dev, 0);
	if (IS_ERR(k->pd)) {
		err = PTR_ERR(k->pd);
		k->pd = NULL;
		return err;
	}
	k->cq = ib_alloc_cq(k->dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(k->cq)) {
		err = PTR_ERR(k->cq);
		k->cq = NULL;
		return err;
	}
	err = kv_pair(k);
	if (err)
		return err;

	k->src_dma = ib_dma_map_single(k->dev, k->src, KV_LEN, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(k->dev, k->src_dma)) {
		k->src_dma = 0;
		return -ENOMEM;
	}
	k->rbuf_dma = ib_dma_map_single(k->dev, k->rbuf, KV_LEN, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(k->dev, k->rbuf_dma)) {
		k->rbuf_dma = 0;
		return -ENOMEM;
	}
	sg_init_one(&k->sg, k->dst, KV_LEN);
	if (ib_dma_map_sg(k->dev, &k->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -ENOMEM;
	k->sg_mapped = true;
	return 0;
}

/* the MR's buffer, for the CPU or for the device */
static void kv_sync_dst(struct kv *k, bool for_cpu)
{
	if (for_cpu)
		ib_dma_sync_single_for_cpu(k->dev, sg_dma_address(&k->sg),
					   KV_LEN, DMA_BIDIRECTIONAL);
	else
		ib_dma_sync_single_for_device(k->dev, sg_dma_address(&k->sg),
					      KV_LEN, DMA_BIDIRECTIONAL);
}

static void kv_fill(void *buf, size_t len, u8 seed)
{
	u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 7 + seed + (i >> 8));
}

/* post one send WR on @qp and expect its completion with @status */
static void kv_send(struct kunit *test, struct kv *k, struct ib_qp *qp,
		    const struct ib_send_wr *wr, enum ib_wc_status status,
		    enum ib_wc_opcode opcode)
{
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_post_send(qp, wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, kv_poll(k, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr->wr_id);
	KUNIT_ASSERT_EQ_MSG(test, wc.status, status, "wr_id %llu: %s",
			    wr->wr_id, ib_wc_status_msg(wc.status));
	if (status == IB_WC_SUCCESS)
		KUNIT_EXPECT_EQ(test, wc.opcode, opcode);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, qp);
}

static void sfab_kverbs_rc(struct kunit *test)
{
	struct ib_sge sge = { .length = KV_LEN };
	struct ib_sge ssge = {};
	struct ib_rdma_wr rdma = {};
	struct ib_reg_wr reg = {};
	struct ib_send_wr inv = {};
	struct ib_recv_wr rwr = {};
	const struct ib_recv_wr *rbad;
	struct ib_device_attr *da;
	struct ib_atomic_wr at = {};
	const struct ib_send_wr *sbad;
	struct ib_send_wr snd = {};
	struct ib_wc wcs[2];
	struct kv *k;
	u64 *word;
	int i, n;

	k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_EQ(test, kv_setup(test, k), 0);
	da = &k->dev->attrs;
	KUNIT_EXPECT_TRUE(test, da->device_cap_flags &
			  IB_DEVICE_MEM_MGT_EXTENSIONS);

	/* fast registration of dst, with a new key variant */
	k->mr = ib_alloc_mr(k->pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(k->mr)) {
		KUNIT_FAIL(test, "ib_alloc_mr: %ld", PTR_ERR(k->mr));
		k->mr = NULL;
		return;
	}
	n = ib_map_mr_sg(k->mr, &k->sg, 1, NULL, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, k->mr->length, KV_LEN);
	ib_update_fast_reg_key(k->mr, ib_inc_rkey(k->mr->rkey) & 0xff);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 1;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = k->mr;
	reg.key = k->mr->rkey;
	reg.access = KV_ACCESS;
	kv_send(test, k, k->qb, &reg.wr, IB_WC_SUCCESS, IB_WC_REG_MR);

	/* RDMA WRITE of src into the MR */
	kv_fill(k->src, KV_LEN, 0x31);
	ib_dma_sync_single_for_device(k->dev, k->src_dma, KV_LEN, DMA_BIDIRECTIONAL);
	sge.addr = k->src_dma;
	sge.lkey = k->pd->local_dma_lkey;
	rdma.wr.opcode = IB_WR_RDMA_WRITE;
	rdma.wr.wr_id = 2;
	rdma.wr.send_flags = IB_SEND_SIGNALED;
	rdma.wr.sg_list = &sge;
	rdma.wr.num_sge = 1;
	rdma.remote_addr = k->mr->iova;
	rdma.rkey = k->mr->rkey;
	kv_send(test, k, k->qa, &rdma.wr, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	kv_sync_dst(k, true);
	KUNIT_EXPECT_MEMEQ(test, k->dst, k->src, KV_LEN);

	/* RDMA READ of the MR (new contents) back into src */
	kv_fill(k->dst, KV_LEN, 0x77);
	kv_sync_dst(k, false);
	memset(k->src, 0, KV_LEN);
	ib_dma_sync_single_for_device(k->dev, k->src_dma, KV_LEN, DMA_BIDIRECTIONAL);
	rdma.wr.opcode = IB_WR_RDMA_READ;
	rdma.wr.wr_id = 3;
	kv_send(test, k, k->qa, &rdma.wr, IB_WC_SUCCESS, IB_WC_RDMA_READ);
	ib_dma_sync_single_for_cpu(k->dev, k->src_dma, KV_LEN, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_MEMEQ(test, k->src, k->dst, KV_LEN);

	/* atomics on the MR's first word, the old value into src */
	if (da->atomic_cap != IB_ATOMIC_NONE) {
		word = k->dst;
		*word = 1000;
		kv_sync_dst(k, false);
		sge.length = 8;
		at.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
		at.wr.wr_id = 4;
		at.wr.send_flags = IB_SEND_SIGNALED;
		at.wr.sg_list = &sge;
		at.wr.num_sge = 1;
		at.remote_addr = k->mr->iova;
		at.rkey = k->mr->rkey;
		at.compare_add = 23;
		kv_send(test, k, k->qa, &at.wr, IB_WC_SUCCESS, IB_WC_FETCH_ADD);
		at.wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
		at.wr.wr_id = 5;
		at.compare_add = 1023;
		at.swap = 7;
		kv_send(test, k, k->qa, &at.wr, IB_WC_SUCCESS, IB_WC_COMP_SWAP);
		ib_dma_sync_single_for_cpu(k->dev, k->src_dma, KV_LEN, DMA_BIDIRECTIONAL);
		kv_sync_dst(k, true);
		/* FA returned 1000 and made 1023; CS saw 1023 and swapped */
		KUNIT_EXPECT_EQ(test, *(u64 *)k->src, 1023);
		KUNIT_EXPECT_EQ(test, *word, 7);
		sge.length = KV_LEN;
	}

	/* SEND with immediate data into a receive of qb */
	sge.addr = k->rbuf_dma;
	sge.length = KV_LEN;
	rwr.wr_id = 6;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	KUNIT_ASSERT_EQ(test, ib_post_recv(k->qb, &rwr, &rbad), 0);
	kv_fill(k->src, KV_SEND_LEN, 0x55);
	ib_dma_sync_single_for_device(k->dev, k->src_dma, KV_LEN, DMA_BIDIRECTIONAL);
	ssge.addr = k->src_dma;
	ssge.length = KV_SEND_LEN;
	ssge.lkey = k->pd->local_dma_lkey;
	snd.opcode = IB_WR_SEND_WITH_IMM;
	snd.wr_id = 7;
	snd.send_flags = IB_SEND_SIGNALED;
	snd.sg_list = &ssge;
	snd.num_sge = 1;
	snd.ex.imm_data = cpu_to_be32(0xabcd1234);
	KUNIT_ASSERT_EQ(test, ib_post_send(k->qa, &snd, &sbad), 0);
	/* the send's and the receive's completions, in either order */
	KUNIT_ASSERT_EQ(test, kv_poll(k, &wcs[0]), 0);
	KUNIT_ASSERT_EQ(test, kv_poll(k, &wcs[1]), 0);
	if (wcs[0].wr_id == 7)
		swap(wcs[0], wcs[1]);
	KUNIT_EXPECT_EQ(test, wcs[1].wr_id, 7);
	KUNIT_EXPECT_EQ(test, wcs[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wcs[1].opcode, IB_WC_SEND);
	KUNIT_EXPECT_PTR_EQ(test, wcs[1].qp, k->qa);
	KUNIT_EXPECT_EQ(test, wcs[0].wr_id, 6);
	KUNIT_EXPECT_EQ(test, wcs[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wcs[0].opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wcs[0].byte_len, KV_SEND_LEN);
	KUNIT_EXPECT_TRUE(test, wcs[0].wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wcs[0].ex.imm_data), 0xabcd1234);
	KUNIT_EXPECT_PTR_EQ(test, wcs[0].qp, k->qb);
	ib_dma_sync_single_for_cpu(k->dev, k->rbuf_dma, KV_LEN, DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_cpu(k->dev, k->src_dma, KV_LEN, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_MEMEQ(test, k->rbuf, k->src, KV_SEND_LEN);

	/*
	 * Unsignaled WRITEs then a signaled one: one completion, the last's
	 * (with SFAB_DEV_CAP_CQE_WQE_INDEX the device writes no CQE for the
	 * others, else the driver hides theirs), and the SQ slots all free.
	 */
	kv_fill(k->src, KV_LEN, 0x19);
	ib_dma_sync_single_for_device(k->dev, k->src_dma, KV_LEN, DMA_BIDIRECTIONAL);
	sge.addr = k->src_dma;
	sge.length = KV_LEN;
	rdma.wr.opcode = IB_WR_RDMA_WRITE;
	/* rounds of a full SQ: the unsignaled slots come free too */
	for (i = 0; i < 4; i++) {
		rdma.wr.send_flags = 0;
		for (n = 0; n < KV_SQ_DEPTH - 1; n++) {
			rdma.wr.wr_id = 100 + n;
			KUNIT_ASSERT_EQ(test, ib_post_send(k->qa, &rdma.wr, &sbad), 0);
		}
		rdma.wr.wr_id = 200 + i;
		rdma.wr.send_flags = IB_SEND_SIGNALED;
		kv_send(test, k, k->qa, &rdma.wr, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(k->cq, 2, wcs), 0);
	}
	kv_sync_dst(k, true);
	KUNIT_EXPECT_MEMEQ(test, k->dst, k->src, KV_LEN);

	/* LOCAL_INV: the key stops working */
	inv.opcode = IB_WR_LOCAL_INV;
	inv.wr_id = 8;
	inv.send_flags = IB_SEND_SIGNALED;
	inv.ex.invalidate_rkey = k->mr->rkey;
	kv_send(test, k, k->qb, &inv, IB_WC_SUCCESS, IB_WC_LOCAL_INV);
	sge.addr = k->src_dma;
	rdma.wr.opcode = IB_WR_RDMA_WRITE;
	rdma.wr.wr_id = 9;
	/* unsignaled: its error completes all the same */
	rdma.wr.send_flags = 0;
	kv_send(test, k, k->qa, &rdma.wr, IB_WC_REM_ACCESS_ERR, IB_WC_RDMA_WRITE);
	/* and so does an unsignaled WQE flushed in Error */
	rdma.wr.wr_id = 10;
	kv_send(test, k, k->qa, &rdma.wr, IB_WC_WR_FLUSH_ERR, IB_WC_RDMA_WRITE);
}

/* @n SENDs of qa into receives of qb: 2 * @n completions in k->cq */
static void kv_sends(struct kunit *test, struct kv *k, int first, int n)
{
	struct ib_sge rsge = {
		.addr = k->rbuf_dma, .length = KV_SEND_LEN,
		.lkey = k->pd->local_dma_lkey,
	};
	struct ib_sge ssge = {
		.addr = k->src_dma, .length = KV_SEND_LEN,
		.lkey = k->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr snd = {
		.sg_list = &ssge, .num_sge = 1, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	int i;

	for (i = 0; i < n; i++) {
		rwr.wr_id = 1000 + first + i;
		KUNIT_ASSERT_EQ(test, ib_post_recv(k->qb, &rwr, &rbad), 0);
	}
	for (i = 0; i < n; i++) {
		snd.wr_id = first + i;
		KUNIT_ASSERT_EQ(test, ib_post_send(k->qa, &snd, &sbad), 0);
	}
}

/* exactly the completions of kv_sends(@first, @n): each once, in order */
static void kv_expect_sends(struct kunit *test, struct kv *k, int first,
			    int n)
{
	int sends = 0, recvs = 0, i;
	struct ib_wc wc;

	for (i = 0; i < 2 * n; i++) {
		KUNIT_ASSERT_EQ(test, kv_poll(k, &wc), 0);
		KUNIT_ASSERT_EQ_MSG(test, wc.status, IB_WC_SUCCESS, "wr_id %llu: %s",
				    wc.wr_id, ib_wc_status_msg(wc.status));
		if (wc.opcode == IB_WC_SEND)
			KUNIT_EXPECT_EQ(test, wc.wr_id, first + sends++);
		else
			KUNIT_EXPECT_EQ(test, wc.wr_id, 1000 + first + recvs++);
	}
	KUNIT_EXPECT_EQ(test, sends, n);
	KUNIT_EXPECT_EQ(test, recvs, n);
	msleep(50);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(k->cq, 1, &wc), 0);
}

/*
 * ib_resize_cq() of a kernel CQ: with completions waiting it grows and
 * keeps them, in order; below them it is -EINVAL and keeps them too;
 * with sends still completing, none is lost or seen twice.
 */
static void sfab_kverbs_resize_cq(struct kunit *test)
{
	struct kv *k;
	int i;

	k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_EQ(test, kv_setup(test, k), 0);

	kv_sends(test, k, 0, 6);
	msleep(500);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(k->cq, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(k->cq, 200), 0);
	KUNIT_EXPECT_GE(test, k->cq->cqe, 200);
	kv_expect_sends(test, k, 0, 6);

	/* sends in flight while the CQ shrinks and grows */
	for (i = 0; i < 4; i++) {
		kv_sends(test, k, 10 * (i + 1), 6);
		KUNIT_EXPECT_EQ(test, ib_resize_cq(k->cq, i & 1 ? 300 : 16), 0);
		kv_expect_sends(test, k, 10 * (i + 1), 6);
	}
}

/* an SRQ and a pair whose receiver takes from it, freed before kv_free() */
struct kv_srq {
	struct ib_srq *srq;
	struct ib_qp *qs, *qx;		/* on the SRQ; its sender */
};

static void kv_srq_free(void *data)
{
	struct kv_srq *ks = data;

	if (ks->qx)
		ib_destroy_qp(ks->qx);
	if (ks->qs)
		ib_destroy_qp(ks->qs);
	if (ks->srq)
		ib_destroy_srq(ks->srq);
}

/* @n receives of 100 bytes into rbuf, wr_id 1000 + @first ... */
static void kv_srq_recvs(struct kunit *test, struct kv *k, struct kv_srq *ks,
			 int first, int n)
{
	struct ib_sge sge = {
		.addr = k->rbuf_dma, .length = KV_SEND_LEN,
		.lkey = k->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	int i;

	for (i = 0; i < n; i++) {
		wr.wr_id = 1000 + first + i;
		KUNIT_ASSERT_EQ(test, ib_post_srq_recv(ks->srq, &wr, &bad), 0);
	}
}

/*
 * ib_modify_srq() with IB_SRQ_MAX_WR of a kernel SRQ: grown with
 * receives posted, it takes more than it held and every SEND lands in
 * order; shrunk below the receives posted, -EINVAL and none lost.
 */
static void sfab_kverbs_resize_srq(struct kunit *test)
{
	struct ib_srq_init_attr sinit = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_qp_init_attr init = {};
	struct ib_srq_attr attr = {};
	struct kv_srq *ks;
	struct kv *k;
	int err, i;

	k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	ks = kunit_kzalloc(test, sizeof(*ks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_NOT_NULL(test, ks);
	KUNIT_ASSERT_EQ(test, kv_setup(test, k), 0);
	if (!(k->dev->attrs.device_cap_flags & IB_DEVICE_SRQ_RESIZE))
		kunit_skip(test, "sfab_0 does not resize SRQs");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kv_srq_free, ks), 0);
	ks->srq = ib_create_srq(k->pd, &sinit);
	if (IS_ERR(ks->srq)) {
		err = PTR_ERR(ks->srq);
		ks->srq = NULL;
		KUNIT_FAIL(test, "ib_create_srq: %d", err);
		return;
	}
	init.send_cq = k->cq;
	init.recv_cq = k->cq;
	init.cap.max_send_wr = KV_SQ_DEPTH;
	init.cap.max_send_sge = 1;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	init.srq = ks->srq;
	ks->qs = ib_create_qp(k->pd, &init);
	if (IS_ERR(ks->qs)) {
		KUNIT_FAIL(test, "ib_create_qp on the SRQ: %ld", PTR_ERR(ks->qs));
		ks->qs = NULL;
		return;
	}
	init.srq = NULL;
	init.cap.max_recv_wr = 1;
	init.cap.max_recv_sge = 1;
	ks->qx = ib_create_qp(k->pd, &init);
	if (IS_ERR(ks->qx)) {
		KUNIT_FAIL(test, "ib_create_qp: %ld", PTR_ERR(ks->qx));
		ks->qx = NULL;
		return;
	}
	KUNIT_ASSERT_EQ(test, kv_connect(k, ks->qs, ks->qx), 0);
	KUNIT_ASSERT_EQ(test, kv_connect(k, ks->qx, ks->qs), 0);

	/* 3 posted, grown to 16, 10 more: 13 SENDs in order */
	kv_srq_recvs(test, k, ks, 0, 3);
	attr.max_wr = 16;
	KUNIT_ASSERT_EQ(test, ib_modify_srq(ks->srq, &attr, IB_SRQ_MAX_WR), 0);
	KUNIT_ASSERT_EQ(test, ib_query_srq(ks->srq, &attr), 0);
	KUNIT_EXPECT_GE(test, attr.max_wr, 16);
	kv_srq_recvs(test, k, ks, 3, 10);
	for (i = 0; i < 13; i += 6) {
		struct ib_sge ssge = {
			.addr = k->src_dma, .length = KV_SEND_LEN,
			.lkey = k->pd->local_dma_lkey,
		};
		struct ib_send_wr snd = {
			.sg_list = &ssge, .num_sge = 1, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		};
		const struct ib_send_wr *sbad;
		int j, n = min(6, 13 - i);
		int sends = 0, recvs = 0;
		struct ib_wc wc;

		for (j = 0; j < n; j++) {
			snd.wr_id = i + j;
			KUNIT_ASSERT_EQ(test, ib_post_send(ks->qx, &snd, &sbad), 0);
		}
		for (j = 0; j < 2 * n; j++) {
			KUNIT_ASSERT_EQ(test, kv_poll(k, &wc), 0);
			KUNIT_ASSERT_EQ_MSG(test, wc.status, IB_WC_SUCCESS, "wr_id %llu: %s",
					    wc.wr_id, ib_wc_status_msg(wc.status));
			if (wc.opcode == IB_WC_SEND)
				KUNIT_EXPECT_EQ(test, wc.wr_id, i + sends++);
			else
				KUNIT_EXPECT_EQ(test, wc.wr_id, 1000 + i + recvs++);
		}
		KUNIT_EXPECT_EQ(test, sends, n);
		KUNIT_EXPECT_EQ(test, recvs, n);
	}

	/* below the receives posted: -EINVAL, the SRQ as it was */
	kv_srq_recvs(test, k, ks, 20, 6);
	attr.max_wr = 2;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(ks->srq, &attr, IB_SRQ_MAX_WR),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, ib_query_srq(ks->srq, &attr), 0);
	KUNIT_EXPECT_GE(test, attr.max_wr, 16);
}

/*
 * Suite sfab_dma_own_bar: the device's DMA pointed at its own BARs from
 * the kernel, the way a hostile or broken guest kernel can: a fast-reg MR
 * whose pages are the first page of BAR0 (registers), BAR2 (doorbells)
 * and BAR4 (MSI-X table), and plain local_dma_lkey addresses in them.
 * Every transfer into or out of them is refused by the device (QEMU's
 * re-entrancy guard: the access fails instead of running the BAR's
 * handler inside the engine) and ends as the IBA error for a DMA that
 * failed, never as success; the device goes on working.
 */
#define DOB_NBARS	3
#define DOB_LEN		64

struct dob {
	struct kv k;
	struct ib_mr *mr;
	u64 bar[DOB_NBARS];	/* bus address of each BAR's first page */
	struct scatterlist sg[DOB_NBARS];
	enum ib_port_state port_state;	/* before the BARs were touched */
};

static void dob_free(void *data)
{
	struct dob *d = data;

	if (d->mr)
		ib_dereg_mr(d->mr);
}

/* kv_setup, then an MR over the BARs' first pages, at d->mr->iova */
static void dob_setup(struct kunit *test, struct dob *d)
{
	static const int bars[DOB_NBARS] = { 0, 2, 4 };
	struct ib_reg_wr reg = {};
	struct ib_port_attr pa;
	struct pci_dev *pdev;
	int i, n;

	KUNIT_ASSERT_EQ(test, kv_setup(test, &d->k), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dob_free, d), 0);
	KUNIT_ASSERT_EQ(test, ib_query_port(d->k.dev, 1, &pa), 0);
	d->port_state = pa.state;
	KUNIT_ASSERT_TRUE(test, dev_is_pci(d->k.dev->dev.parent));
	pdev = to_pci_dev(d->k.dev->dev.parent);
	sg_init_table(d->sg, DOB_NBARS);
	for (i = 0; i < DOB_NBARS; i++) {
		/* a whole page of the BAR's own, so nothing else is hit */
		KUNIT_ASSERT_GE(test, pci_resource_len(pdev, bars[i]), PAGE_SIZE);
		d->bar[i] = pci_bus_address(pdev, bars[i]);
		KUNIT_ASSERT_EQ(test, d->bar[i] & ~PAGE_MASK, 0);
		sg_dma_address(&d->sg[i]) = d->bar[i];
		sg_dma_len(&d->sg[i]) = PAGE_SIZE;
	}
	d->mr = ib_alloc_mr(d->k.pd, IB_MR_TYPE_MEM_REG, DOB_NBARS);
	if (IS_ERR(d->mr)) {
		KUNIT_FAIL(test, "ib_alloc_mr: %ld", PTR_ERR(d->mr));
		d->mr = NULL;
		return;
	}
	n = ib_map_mr_sg(d->mr, d->sg, DOB_NBARS, NULL, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, n, DOB_NBARS);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 1;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = d->mr;
	reg.key = d->mr->rkey;
	reg.access = KV_ACCESS;
	kv_send(test, &d->k, d->k.qb, &reg.wr, IB_WC_SUCCESS, IB_WC_REG_MR);
	kv_fill(d->k.src, KV_LEN, 0x5a);
	ib_dma_sync_single_for_device(d->k.dev, d->k.src_dma, KV_LEN,
				      DMA_BIDIRECTIONAL);
}

/* the device still moves data: a SEND of src into rbuf on new QPs */
static void dob_still_works(struct kunit *test, struct dob *d)
{
	struct kv *k = &d->k;
	struct ib_port_attr pa;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, kv_pair(k), 0);
	while (ib_poll_cq(k->cq, 1, &wc) > 0)
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	memset(k->rbuf, 0, KV_LEN);
	ib_dma_sync_single_for_device(k->dev, k->rbuf_dma, KV_LEN,
				      DMA_BIDIRECTIONAL);
	kv_sends(test, k, 0, 1);
	kv_expect_sends(test, k, 0, 1);
	ib_dma_sync_single_for_cpu(k->dev, k->rbuf_dma, KV_LEN,
				   DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_MEMEQ(test, k->rbuf, k->src, KV_SEND_LEN);
	/* the port as it was (Active on a fabric; alone, whatever it was) */
	KUNIT_ASSERT_EQ(test, ib_query_port(k->dev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.state, d->port_state);
}

/* RDMA WRITE and READ at each BAR's page: IB_WC_REM_ACCESS_ERR each */
static void sfab_dma_own_bar_remote(struct kunit *test)
{
	struct ib_sge sge = { .length = DOB_LEN };
	struct ib_rdma_wr rdma = {};
	struct dob *d;
	int i, rd;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	dob_setup(test, d);
	sge.addr = d->k.src_dma;
	sge.lkey = d->k.pd->local_dma_lkey;
	rdma.wr.send_flags = IB_SEND_SIGNALED;
	rdma.wr.sg_list = &sge;
	rdma.wr.num_sge = 1;
	rdma.rkey = d->mr->rkey;
	for (rd = 0; rd < 2; rd++) {
		for (i = 0; i < DOB_NBARS; i++) {
			/* a QP that saw an error is in Error: new ones each time */
			KUNIT_ASSERT_EQ(test, kv_pair(&d->k), 0);
			rdma.wr.opcode = rd ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
			rdma.wr.wr_id = 10 + rd * DOB_NBARS + i;
			rdma.remote_addr = d->mr->iova + i * PAGE_SIZE;
			kv_send(test, &d->k, d->k.qa, &rdma.wr,
				IB_WC_REM_ACCESS_ERR, 0);
		}
	}
	dob_still_works(test, d);
}

/*
 * A SEND gathering from, and a receive scattering into, a BAR page: by
 * the MR's lkey and by the bare bus address with local_dma_lkey.  The
 * gather fails at the sender (IB_WC_LOC_PROT_ERR); the scatter at the
 * receiver (its receive IB_WC_LOC_PROT_ERR, the sender an error).
 */
static void sfab_dma_own_bar_local(struct kunit *test)
{
	struct ib_sge sge = { .length = DOB_LEN }, rsge = { .length = KV_LEN };
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	struct ib_send_wr snd = {};
	struct ib_recv_wr rwr = {};
	struct ib_wc wc;
	struct dob *d;
	int i, j, bare;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	dob_setup(test, d);
	snd.opcode = IB_WR_SEND;
	snd.send_flags = IB_SEND_SIGNALED;
	snd.sg_list = &sge;
	snd.num_sge = 1;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	for (bare = 0; bare < 2; bare++) {
		for (i = 0; i < DOB_NBARS; i++) {
			u64 at = bare ? d->bar[i] : d->mr->iova + i * PAGE_SIZE;
			u32 key = bare ? d->k.pd->local_dma_lkey : d->mr->lkey;

			/* gather from the BAR; a receive waits in rbuf */
			KUNIT_ASSERT_EQ(test, kv_pair(&d->k), 0);
			rsge.addr = d->k.rbuf_dma;
			rsge.lkey = d->k.pd->local_dma_lkey;
			rwr.wr_id = 200 + bare * DOB_NBARS + i;
			KUNIT_ASSERT_EQ(test, ib_post_recv(d->k.qb, &rwr, &rbad), 0);
			sge.addr = at;
			sge.lkey = key;
			snd.wr_id = 100 + bare * DOB_NBARS + i;
			kv_send(test, &d->k, d->k.qa, &snd, IB_WC_LOC_PROT_ERR, 0);

			/* scatter into the BAR: a SEND from src */
			KUNIT_ASSERT_EQ(test, kv_pair(&d->k), 0);
			/* the old receive's flush, if the device made one */
			while (ib_poll_cq(d->k.cq, 1, &wc) > 0)
				KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
			rsge.addr = at;
			rsge.lkey = key;
			rsge.length = DOB_LEN;
			rwr.wr_id = 400 + bare * DOB_NBARS + i;
			KUNIT_ASSERT_EQ(test, ib_post_recv(d->k.qb, &rwr, &rbad), 0);
			rsge.length = KV_LEN;
			sge.addr = d->k.src_dma;
			sge.lkey = d->k.pd->local_dma_lkey;
			snd.wr_id = 300 + bare * DOB_NBARS + i;
			KUNIT_ASSERT_EQ(test, ib_post_send(d->k.qa, &snd, &sbad), 0);
			for (j = 0; j < 2; j++) {
				KUNIT_ASSERT_EQ(test, kv_poll(&d->k, &wc), 0);
				if (wc.wr_id == rwr.wr_id)
					KUNIT_EXPECT_EQ_MSG(test, wc.status,
							    IB_WC_LOC_PROT_ERR,
							    "receive into BAR page %d: %s",
							    i, ib_wc_status_msg(wc.status));
				else
					KUNIT_EXPECT_NE_MSG(test, wc.status,
							    IB_WC_SUCCESS,
							    "SEND into BAR page %d", i);
			}
		}
	}
	dob_still_works(test, d);
}

static struct kunit_case sfab_dma_own_bar_cases[] = {
	KUNIT_CASE(sfab_dma_own_bar_remote),
	KUNIT_CASE(sfab_dma_own_bar_local),
	{}
};

static struct kunit_suite sfab_dma_own_bar_suite = {
	.name = "sfab_dma_own_bar",
	.test_cases = sfab_dma_own_bar_cases,
};

static struct kunit_case sfab_kverbs_cases[] = {
	KUNIT_CASE(sfab_kverbs_rc),
	KUNIT_CASE(sfab_kverbs_resize_cq),
	KUNIT_CASE(sfab_kverbs_resize_srq),
	{}
};

static struct kunit_suite sfab_kverbs_suite = {
	.name = "sfab_kverbs",
	.test_cases = sfab_kverbs_cases,
};

kunit_test_suites(&sfab_kverbs_suite, &sfab_dma_own_bar_suite);

MODULE_DESCRIPTION("KUnit: sfab kernel verbs on a live device");
MODULE_LICENSE("Dual BSD/GPL");
