// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_contract: the hardware contract as the driver sees it:
 * field masks and accessors, byte order of device and wire fields, and
 * the sizes and offsets of every structure the device reads or writes.
 *
 * This file also carries the module information of sfab_kunit.ko.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/stddef.h>

#include <rdma/sfab-abi.h>
#include <sfab/sfab_admin.h>
#include <sfab/sfab_fw.h>
#include <sfab/sfab_regs.h>

static void sfab_contract_genmask(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SFAB_GENMASK(0, 0), 0x1U);
	KUNIT_EXPECT_EQ(test, SFAB_GENMASK(7, 0), 0xffU);
	KUNIT_EXPECT_EQ(test, SFAB_GENMASK(15, 8), 0xff00U);
	KUNIT_EXPECT_EQ(test, SFAB_GENMASK(31, 16), 0xffff0000U);
	KUNIT_EXPECT_EQ(test, SFAB_GENMASK(31, 0), 0xffffffffU);
}

static void sfab_contract_version_fields(struct kunit *test)
{
	u32 v = SFAB_FIELD_PREP(SFAB_VERSION_MAJOR_MASK, SFAB_IF_VERSION_MAJOR) |
		SFAB_FIELD_PREP(SFAB_VERSION_MINOR_MASK, 7);

	KUNIT_EXPECT_EQ(test, v, 0x00010007U);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_VERSION_MAJOR_MASK, v), 1U);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_VERSION_MINOR_MASK, v), 7U);
	KUNIT_EXPECT_EQ(test, SFAB_VERSION_MAJOR_MASK & SFAB_VERSION_MINOR_MASK, 0U);
	KUNIT_EXPECT_EQ(test, SFAB_VERSION_MAJOR_MASK | SFAB_VERSION_MINOR_MASK,
			0xffffffffU);
}

static void sfab_contract_db_layout_fields(struct kunit *test)
{
	u32 v = SFAB_FIELD_PREP(SFAB_DB_LAYOUT_PAGE_SHIFT_MASK, SFAB_DB_PAGE_SHIFT) |
		SFAB_FIELD_PREP(SFAB_DB_LAYOUT_KPAGES_MASK, SFAB_DB_KERNEL_PAGES) |
		SFAB_FIELD_PREP(SFAB_DB_LAYOUT_NPAGES_MASK, SFAB_DB_NUM_PAGES);

	KUNIT_EXPECT_EQ(test, v, 0x0200010cU);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_DB_LAYOUT_PAGE_SHIFT_MASK, v), 12U);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_DB_LAYOUT_KPAGES_MASK, v), 1U);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_DB_LAYOUT_NPAGES_MASK, v), 512U);
	KUNIT_EXPECT_EQ(test, SFAB_DB_LAYOUT_PAGE_SHIFT_MASK |
			SFAB_DB_LAYOUT_KPAGES_MASK | SFAB_DB_LAYOUT_NPAGES_MASK,
			0xffffffffU);
	KUNIT_EXPECT_EQ(test, SFAB_DB_BAR_SIZE, 0x200000U);
	KUNIT_EXPECT_EQ(test, SFAB_DB_PAGE_SIZE, 4096U);
}

static void sfab_contract_queue_cfg_fields(struct kunit *test)
{
	u32 v = SFAB_FIELD_PREP(SFAB_QCFG_LOG_DEPTH_MASK, 5) |
		SFAB_FIELD_PREP(SFAB_QCFG_VECTOR_MASK, SFAB_MSIX_AENQ) |
		SFAB_QCFG_ENABLE;

	KUNIT_EXPECT_EQ(test, v, 0x80000105U);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_QCFG_LOG_DEPTH_MASK, v), 5U);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_QCFG_VECTOR_MASK, v), 1U);
	KUNIT_EXPECT_EQ(test, SFAB_QCFG_LOG_DEPTH_MASK & SFAB_QCFG_VECTOR_MASK, 0U);
	KUNIT_EXPECT_EQ(test, (SFAB_QCFG_LOG_DEPTH_MASK | SFAB_QCFG_VECTOR_MASK) &
			SFAB_QCFG_ENABLE, 0U);
	/* the largest depth fits the depth field */
	v = SFAB_FIELD_PREP(SFAB_QCFG_LOG_DEPTH_MASK, SFAB_EQ_MAX_LOG_DEPTH);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_QCFG_LOG_DEPTH_MASK, v),
			(u32)SFAB_EQ_MAX_LOG_DEPTH);
}

static void sfab_contract_fw_state_fields(struct kunit *test)
{
	u32 v = SFAB_FIELD_PREP(SFAB_FW_STATE_MASK, SFAB_FW_STATE_FAILED) |
		SFAB_FIELD_PREP(SFAB_FW_STATE_ERR_MASK, SFAB_AQ_STS_FW_BAD_CRC);

	KUNIT_EXPECT_EQ(test, v, 0x1303U);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_FW_STATE_MASK, v),
			(u32)SFAB_FW_STATE_FAILED);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_FW_STATE_ERR_MASK, v),
			(u32)SFAB_AQ_STS_FW_BAD_CRC);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_MSIX_CFG_NVEC_MASK, 0xabcd22U),
			0x22U);
}

static void sfab_contract_doorbell_fields(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_PREP(SFAB_DB_QPN_MASK, 0x123456), 0x123456U);
	KUNIT_EXPECT_EQ(test, SFAB_FIELD_GET(SFAB_DB_IDX_MASK, 0xdead1234U), 0x1234U);
	KUNIT_EXPECT_EQ(test, SFAB_QIDX_MASK, 0xffffU);
	KUNIT_EXPECT_LT(test, SFAB_DB_CQ, SFAB_DB_PAGE_SIZE);
}

static void sfab_contract_msix_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SFAB_MSIX_ADMIN, 0);
	KUNIT_EXPECT_EQ(test, SFAB_MSIX_AENQ, 1);
	KUNIT_EXPECT_EQ(test, SFAB_MSIX_FIRST_COMP, 2);
	KUNIT_EXPECT_GT(test, SFAB_MSIX_MAX_VECTORS, SFAB_MSIX_FIRST_COMP);
	KUNIT_EXPECT_LE(test, SFAB_MSIX_MAX_VECTORS,
			(int)SFAB_FIELD_GET(SFAB_MSIX_CFG_NVEC_MASK, ~0U));
}

/* device structures are little-endian whatever the CPU's order */
static void sfab_contract_le_fields(struct kunit *test)
{
	static const u8 raw[16] = {
		0x34, 0x12,			/* cmd_id */
		SFAB_AQ_STS_FW_BAD_CRC,		/* status */
		SFAB_ACQ_FLAGS_PHASE,		/* flags */
		0x78, 0x56, 0x34, 0x12,		/* result0 */
		0xef, 0xbe, 0xad, 0xde,		/* result1 */
	};
	struct sfab_acq_entry e;
	struct sfab_aq_cmd cmd = {};
	const u8 *p = (const u8 *)&cmd;

	memcpy(&e, raw, sizeof(e));
	KUNIT_EXPECT_EQ(test, sfab_le16_to_cpu(e.cmd_id), 0x1234);
	KUNIT_EXPECT_EQ(test, e.status, SFAB_AQ_STS_FW_BAD_CRC);
	KUNIT_EXPECT_EQ(test, e.flags & SFAB_ACQ_FLAGS_PHASE, 1);
	KUNIT_EXPECT_EQ(test, sfab_le32_to_cpu(e.result0), 0x12345678U);
	KUNIT_EXPECT_EQ(test, sfab_le32_to_cpu(e.result1), 0xdeadbeefU);

	cmd.opcode = SFAB_AQ_FW_DOWNLOAD;
	cmd.cmd_id = sfab_cpu_to_le16(0xa1b2);
	cmd.u.fw_download.addr = sfab_cpu_to_le64(0x0102030405060708ULL);
	cmd.u.fw_download.offset = sfab_cpu_to_le32(0x10000);
	cmd.u.fw_download.length = sfab_cpu_to_le32(0x20);
	KUNIT_EXPECT_EQ(test, p[0], SFAB_AQ_FW_DOWNLOAD);
	KUNIT_EXPECT_EQ(test, p[2], 0xb2);
	KUNIT_EXPECT_EQ(test, p[3], 0xa1);
	KUNIT_EXPECT_EQ(test, p[8], 0x08);
	KUNIT_EXPECT_EQ(test, p[15], 0x01);
	KUNIT_EXPECT_EQ(test, p[18], 0x01);
	KUNIT_EXPECT_EQ(test, p[20], 0x20);
	KUNIT_EXPECT_EQ(test, sfab_le64_to_cpu(cmd.u.fw_download.addr),
			0x0102030405060708ULL);
}

/* IBA wire fields (GUIDs, GID prefix) are big-endian */
static void sfab_contract_be_fields(struct kunit *test)
{
	struct sfab_port_attr pa = {};
	const u8 *p = (const u8 *)&pa;

	pa.subnet_prefix = sfab_cpu_to_be64(0xfe80000000000000ULL);
	pa.port_guid = sfab_cpu_to_be64(0x0002c90300a1b2c3ULL);
	pa.lid = sfab_cpu_to_le16(0x0102);
	KUNIT_EXPECT_EQ(test, p[0], 0xfe);
	KUNIT_EXPECT_EQ(test, p[1], 0x80);
	KUNIT_EXPECT_EQ(test, p[8], 0x00);
	KUNIT_EXPECT_EQ(test, p[9], 0x02);
	KUNIT_EXPECT_EQ(test, p[15], 0xc3);
	KUNIT_EXPECT_EQ(test, p[20], 0x02);
	KUNIT_EXPECT_EQ(test, sfab_be64_to_cpu(pa.port_guid), 0x0002c90300a1b2c3ULL);
	KUNIT_EXPECT_EQ(test, sfab_be16_to_cpu(sfab_cpu_to_be16(0xffff)), 0xffff);
}

static void sfab_contract_admin_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_aq_cmd), 64);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_acq_entry), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_aenq_entry), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_eqe), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_dev_attr), 256);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_port_attr), 64);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_fw_profile), 64);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_fw_header), SFAB_FW_HEADER_SIZE);
	/* every command body fits the 56 bytes after the common header */
	KUNIT_EXPECT_LE(test, sizeof(struct sfab_aq_query_device), 56);
	KUNIT_EXPECT_LE(test, sizeof(struct sfab_aq_query_port), 56);
	KUNIT_EXPECT_LE(test, sizeof(struct sfab_aq_fw_download), 56);
	KUNIT_EXPECT_LE(test, sizeof(struct sfab_aq_create_eq), 56);
	KUNIT_EXPECT_LE(test, sizeof(struct sfab_aq_query_stats), 56);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_aq_update_mr), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_aq_resize_cq), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_aq_resize_srq), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_port_stats), 128);
}

static void sfab_contract_admin_offsets(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, opcode), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, flags), 1);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, cmd_id), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.query_port.port_num), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.fw_download.offset), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.fw_download.length), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.create_eq.log_depth), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.create_eq.msix_vector), 18);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.destroy_eq.eqn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.update_mr.key), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.update_mr.pdn), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.update_mr.pbl_addr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.update_mr.npages), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.update_mr.op), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.update_mr.page_shift), 29);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.update_mr.new_pdn), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.update_mr.new_access), 36);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.resize_cq.cqn), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.resize_cq.ci), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.resize_cq.dbrec_addr), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.resize_srq.ci), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.resize_srq.pi), 30);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.mcast.qpn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.mcast.mlid), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.mcast.mgid), 16);

	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_acq_entry, cmd_id), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_acq_entry, status), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_acq_entry, flags), 3);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_acq_entry, result0), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_acq_entry, result1), 8);

	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aenq_entry, flags), 1);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aenq_entry, data0), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aenq_entry, data1), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aenq_entry, timestamp_ns), 16);

	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_eqe, type), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_eqe, flags), 5);
}

static void sfab_contract_attr_offsets(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, board_id), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, node_guid), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, max_mr_size), 64);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, vendor_id), 80);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, max_qp), 92);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, num_db_pages), 136);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, num_ports), 140);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, vl_buf_blocks), 142);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, max_msg_size), 144);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, atomic_cap), 164);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, dev_caps), 168);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, max_mcast_grp), 172);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, max_mcast_qp_attach),
			176);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, max_xrcd), 180);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_dev_attr, reserved), 184);

	/* XRC (SFAB_DEV_CAP_XRC): fields of the commands it extends */
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_create_qp, xrcdn), 52);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_create_qp, srqn), 52);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_create_srq, flags), 22);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_create_srq, cqn), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_create_srq, xrcdn), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_wqe_xrc), 16);

	/* a send CQE's wqe_index is where a receive CQE has its slid */
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_cqe, slid), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_cqe, wqe_index), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_cqe, pkey_index), 26);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_cqe, status), 28);

	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, port_guid), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, cap_flags), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, lid), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, state), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, phys_state), 25);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, active_speed), 31);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, gid_tbl_len), 34);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, qkey_viol_cntr), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_attr, subnet_timeout), 48);

	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.query_stats.resp_len), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_aq_cmd, u.query_stats.port_num), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats, retrans_pkts), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats, out_of_sequence), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats,
				       req_rnr_retries_exceeded), 72);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats, db_writes_cpu), 80);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats, db_writes_peer), 88);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats, fast_reg_wqes), 96);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats, local_inv_wqes), 104);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats, remote_invs), 112);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_port_stats, reserved), 120);

	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_header, format_version), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_header, header_len), 6);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_header, image_len), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_header, crc32), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_header, fw_version), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_header, board_id), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_header, profile), 64);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_profile, vl_buf_blocks), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_fw_profile, max_msg_size), 44);
}

/* the uverbs ABI: 64-bit fields 8-byte aligned, sizes fixed */
static void sfab_contract_uapi_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_alloc_ucontext_cmd), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_alloc_ucontext_resp), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_alloc_ucontext_resp,
				       db_mmap_key), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_alloc_ucontext_resp,
				       db_wc_mmap_key), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_alloc_ucontext_resp,
				       db_page_index), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_alloc_ucontext_resp,
				       db_page_size), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_alloc_ucontext_resp,
				       status_mmap_key), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_dev_status), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_alloc_pd_resp), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_ex_query_device_resp), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_ex_query_device_resp,
				       device_caps), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_ex_query_device_resp,
				       max_inline), 20);
	/* user queues: the rings' addresses 8-byte aligned */
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_create_cq), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_cq, buf_addr), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_cq, dbrec_off), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_cq, dmabuf_fd), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_create_cq_resp), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_create_qp), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_qp, sq_buf_addr), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_qp, rq_buf_addr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_qp, sq_dbrec_off), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_qp, rq_dbrec_off), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_qp, dmabuf_fd), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_create_qp_resp), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_create_srq), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_srq, buf_addr), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sfab_ibv_create_srq, dbrec_off), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct sfab_ibv_create_srq_resp), 8);
}

static struct kunit_case sfab_contract_cases[] = {
	KUNIT_CASE(sfab_contract_genmask),
	KUNIT_CASE(sfab_contract_version_fields),
	KUNIT_CASE(sfab_contract_db_layout_fields),
	KUNIT_CASE(sfab_contract_queue_cfg_fields),
	KUNIT_CASE(sfab_contract_fw_state_fields),
	KUNIT_CASE(sfab_contract_doorbell_fields),
	KUNIT_CASE(sfab_contract_msix_layout),
	KUNIT_CASE(sfab_contract_le_fields),
	KUNIT_CASE(sfab_contract_be_fields),
	KUNIT_CASE(sfab_contract_admin_sizes),
	KUNIT_CASE(sfab_contract_admin_offsets),
	KUNIT_CASE(sfab_contract_attr_offsets),
	KUNIT_CASE(sfab_contract_uapi_layout),
	{}
};

static struct kunit_suite sfab_contract_suite = {
	.name = "sfab_contract",
	.test_cases = sfab_contract_cases,
};

kunit_test_suite(sfab_contract_suite);

MODULE_DESCRIPTION("KUnit tests for the sfab HCA driver");
MODULE_LICENSE("Dual BSD/GPL");
