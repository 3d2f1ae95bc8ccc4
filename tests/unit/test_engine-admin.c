/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-admin: the admin queue and the v1 commands: success paths,
 * every bad-parameter status, bad opcodes, commands before firmware,
 * phase-bit wrap, async events.
 */
#include "harness.h"
#include "fake_host.h"

static struct fake_host *host_with_fw(void)
{
	struct fake_host *h = host_up(4);

	host_setup_aenq(h, 3);
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	return h;
}

TEST(query_device_before_firmware)
{
	struct fake_host *h = host_up(3);
	struct sfab_dev_attr a;

	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(a.fw_version[0], 0);
	CHECK_EQ(a.board_id[0], 0);
	CHECK_EQ(sfab_be64_to_cpu(a.node_guid), HOST_NODE_GUID);
	CHECK_EQ(sfab_be64_to_cpu(a.sys_image_guid), HOST_NODE_GUID);
	CHECK_EQ(sfab_le32_to_cpu(a.vendor_id), SFAB_PCI_VENDOR_ID);
	CHECK_EQ(sfab_le32_to_cpu(a.vendor_part_id), SFAB_PCI_DEVICE_ID);
	CHECK_EQ(sfab_le32_to_cpu(a.hw_rev), SFAB_PCI_REVISION);
	CHECK_EQ(sfab_le32_to_cpu(a.num_db_pages), SFAB_DB_NUM_PAGES);
	/* the datapath's capabilities do not wait for the firmware */
	CHECK_EQ(sfab_le32_to_cpu(a.dev_caps),
		 SFAB_DEV_CAP_CQE_WQE_INDEX | SFAB_DEV_CAP_QUERY_STATS |
		 SFAB_DEV_CAP_QUEUES | SFAB_DEV_CAP_MR | SFAB_DEV_CAP_SRQ |
		 SFAB_DEV_CAP_MR_UPDATE | SFAB_DEV_CAP_DBREC |
		 SFAB_DEV_CAP_MCAST | SFAB_DEV_CAP_RESIZE_CQ |
		 SFAB_DEV_CAP_RESIZE_SRQ | SFAB_DEV_CAP_MW |
		 SFAB_DEV_CAP_FLUSH | SFAB_DEV_CAP_XRC);
	CHECK(sfab_le64_to_cpu(a.page_size_cap) & (1ULL << 12));
	CHECK(sfab_le64_to_cpu(a.max_mr_size) != 0);
	/* the profile's limits come with the firmware */
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp), 0);
	CHECK_EQ(sfab_le32_to_cpu(a.max_eq), 0);
	CHECK_EQ(a.num_ports, 0);
	CHECK(all_zero_bytes(a.reserved, sizeof(a.reserved)));
	host_free(h);
}

TEST(commands_before_firmware)
{
	struct fake_host *h = host_up(3);
	struct sfab_aq_cmd c;

	c = cmd_query_port(h->scratch, 64, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	c = cmd_create_eq(h->scratch, 4, SFAB_MSIX_FIRST_COMP);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	c = cmd_destroy_eq(0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	/* an unknown opcode is still an unknown opcode */
	c = cmd_new(0x42);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_OPCODE);
	CHECK(!dev_fatal(h));
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_NONE);
	host_free(h);
}

TEST(query_device_with_firmware)
{
	struct fake_host *h = host_with_fw();
	struct sfab_dev_attr a;

	CHECK_EQ(fw_state(h), SFAB_FW_STATE_ACTIVE);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK(!strcmp(a.fw_version, FW_TEST_VERSION));
	CHECK(!strcmp(a.board_id, FW_TEST_BOARD));
	CHECK_EQ(sfab_be64_to_cpu(a.node_guid), HOST_NODE_GUID);
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp), 1024);
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp_wr), 4096);
	CHECK_EQ(sfab_le32_to_cpu(a.max_sge), 16);
	CHECK_EQ(sfab_le32_to_cpu(a.max_cq), 2048);
	CHECK_EQ(sfab_le32_to_cpu(a.max_cqe), 65536);
	CHECK_EQ(sfab_le32_to_cpu(a.max_mr), 4096);
	CHECK_EQ(sfab_le32_to_cpu(a.max_pd), 256);
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq), 128);
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq_wr), 4096);
	CHECK_EQ(sfab_le32_to_cpu(a.max_eq), FW_TEST_MAX_EQ);
	CHECK_EQ(sfab_le32_to_cpu(a.max_inline), 256);
	CHECK_EQ(sfab_le32_to_cpu(a.max_msg_size), SFAB_FW_MAX_MSG_SIZE);
	CHECK_EQ(a.num_ports, 1);
	CHECK_EQ(a.num_vls, 4);
	CHECK_EQ(sfab_le16_to_cpu(a.vl_buf_blocks), 256);
	host_free(h);
}

TEST(query_port_no_cable)
{
	struct fake_host *h = host_with_fw();
	struct sfab_aq_cmd c = cmd_query_port(h->scratch, 64, 1);
	struct sfab_port_attr *p = hp(h, h->scratch);

	memset(p, 0xee, sizeof(*p));
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_be64_to_cpu(p->subnet_prefix), 0xfe80000000000000ULL);
	CHECK_EQ(sfab_be64_to_cpu(p->port_guid), HOST_NODE_GUID + 1);
	CHECK_EQ(sfab_le16_to_cpu(p->lid), 0);
	CHECK_EQ(sfab_le16_to_cpu(p->sm_lid), 0);
	CHECK_EQ(p->state, SFAB_PORT_DOWN);
	CHECK_EQ(p->phys_state, SFAB_PHYS_POLLING);
	CHECK_EQ(p->lmc, 0);
	CHECK_EQ(p->max_mtu, 5);
	CHECK_EQ(p->max_vl_num, 3);		/* 4 VLs: VL0-3 */
	CHECK(sfab_le16_to_cpu(p->gid_tbl_len) >= 1);
	CHECK(sfab_le16_to_cpu(p->pkey_tbl_len) >= 1);
	CHECK_EQ(sfab_le32_to_cpu(p->qkey_viol_cntr), 0);
	CHECK(all_zero_bytes(p->reserved, sizeof(p->reserved)));
	host_free(h);
}

TEST(init_and_teardown)
{
	struct fake_host *h = host_with_fw();
	struct sfab_aq_cmd c;

	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_HCA_INIT);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_HCA_INIT, 0);
	c = cmd_init_hca(16);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	/* a reset undoes INIT_HCA and the firmware */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	host_setup_aq(h, 3);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	host_free(h);
}

TEST(bad_opcodes)
{
	struct fake_host *h = host_with_fw();
	static const uint8_t bad[] = { 0x00, SFAB_AQ_MAX_OPCODE + 1, 0x20, 0x7f, 0x80, 0xff };
	struct sfab_acq_entry cpl;
	unsigned int i;

	for (i = 0; i < sizeof(bad); i++) {
		struct sfab_aq_cmd c = cmd_new(bad[i]);

		CHECK_EQ(host_cmd_full(h, &c, &cpl), SFAB_AQ_STS_BAD_OPCODE);
		CHECK_EQ(sfab_le32_to_cpu(cpl.result0), 0);
	}
	CHECK(!dev_fatal(h));
	host_free(h);
}

/* header fields every command has */
TEST(bad_header_fields)
{
	struct fake_host *h = host_with_fw();
	uint8_t op;

	for (op = SFAB_AQ_QUERY_DEVICE; op <= SFAB_AQ_MAX_OPCODE; op++) {
		struct sfab_aq_cmd c = cmd_query_device(h->scratch, 256);

		c.opcode = op;
		c.flags = 1;
		CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
		c.flags = 0;
		c.reserved = sfab_cpu_to_le32(0x100);
		CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	}
	host_free(h);
}

TEST(query_bad_params)
{
	struct fake_host *h = host_with_fw();
	struct sfab_aq_cmd c;

	c = cmd_query_device(h->scratch, 255);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_device(h->scratch, 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_device(h->scratch, 256);
	c.u.query_device.reserved = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_device(h->scratch, 256);
	c.u.raw[55] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_device(h->scratch, 4096);	/* bigger is fine */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);

	c = cmd_query_port(h->scratch, 63, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_port(h->scratch, 64, 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_port(h->scratch, 64, 2);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_port(h->scratch, 64, 255);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_port(h->scratch, 64, 1);
	c.u.query_port.reserved[2] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_port(h->scratch, 64, 1);
	c.u.raw[20] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);

	/* response buffers the device cannot write to */
	c = cmd_query_device(0, 256);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_DMA_ERROR);
	c = cmd_query_device(0xfffffffffffffff0ULL, 256);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_DMA_ERROR);
	c = cmd_query_port(HOST_MEM_BASE + HOST_MEM_SIZE - 32, 64, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_DMA_ERROR);
	/* a command's own DMA failure is not fatal */
	CHECK(!dev_fatal(h));
	c = cmd_query_device(h->scratch, 256);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	host_free(h);
}

TEST(init_teardown_bad_params)
{
	struct fake_host *h = host_with_fw();
	struct sfab_aq_cmd c;

	c = cmd_init_hca(11);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_init_hca(17);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_init_hca(0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_init_hca(12);
	c.u.init_hca.reserved[6] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_init_hca(12);
	c.u.raw[40] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_HCA_INIT, 0);

	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	c.u.raw[0] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_HCA_INIT);
	host_free(h);
}

/* several passes over a 4-entry ring, one command at a time */
TEST(phase_wrap_single)
{
	struct fake_host *h = host_new();
	unsigned int i;

	host_setup_aq(h, SFAB_AQ_MIN_LOG_DEPTH);
	for (i = 0; i < 4 * 5 + 1; i++) {
		struct sfab_aq_cmd c = cmd_query_device(h->scratch, 256);
		uint8_t want = ((h->acq_head >> 2) & 1) ? 0 : 1;
		struct sfab_acq_entry cpl;

		CHECK_EQ(host_cmd_full(h, &c, &cpl), SFAB_AQ_STS_OK);
		CHECK_EQ(cpl.flags & SFAB_ACQ_FLAGS_PHASE, want);
	}
	CHECK_EQ(h->e->stats.admin_cmds, 21);
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 21);
	/* nothing more: the next slot still carries the old phase */
	{
		struct sfab_acq_entry cpl;

		CHECK(!host_poll(h, &cpl));
	}
	host_free(h);
}

/* whole ring batches, with the 16-bit index wrapping past 65535 */
TEST(phase_wrap_batches_and_index_wrap)
{
	struct fake_host *h = host_new();
	unsigned int pass, i, total = 0;

	host_setup_aq_raw(h, 3, 4, SFAB_MSIX_ADMIN);
	for (pass = 0; total < 66000; pass++) {
		unsigned int n = 1 + (pass % 8);
		uint16_t first = 0;

		for (i = 0; i < n; i++) {
			struct sfab_aq_cmd c = cmd_query_device(h->scratch, 256);
			uint16_t id = host_post(h, &c);

			if (!i)
				first = id;
		}
		host_ring(h);
		for (i = 0; i < n; i++) {
			struct sfab_acq_entry cpl;

			if (!host_poll(h, &cpl)) {
				CHECK(!"completion missing");
				host_free(h);
				return;
			}
			CHECK_EQ(cpl.status, SFAB_AQ_STS_OK);
			CHECK_EQ(sfab_le16_to_cpu(cpl.cmd_id), (uint16_t)(first + i));
			total++;
		}
	}
	CHECK_EQ(h->e->stats.admin_cmds, total);
	CHECK(!dev_fatal(h));
	/* the free-running 16-bit indices wrapped past 65535 */
	CHECK_EQ(h->aq_tail, (uint16_t)total);
	CHECK(h->aq_tail < total);
	host_free(h);
}

TEST(completion_results_and_ids)
{
	struct fake_host *h = host_with_fw();
	struct sfab_aq_cmd c = cmd_init_hca(12);
	struct sfab_acq_entry cpl;

	CHECK_EQ(host_cmd_full(h, &c, &cpl), SFAB_AQ_STS_OK);
	c = cmd_create_eq(host_alloc(h, 4096, 4096), 4, SFAB_MSIX_FIRST_COMP);
	c.cmd_id = 0;
	CHECK_EQ(host_cmd_full(h, &c, &cpl), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_le32_to_cpu(cpl.result0), 0);
	CHECK_EQ(sfab_le32_to_cpu(cpl.result1), 0);
	CHECK_EQ(sfab_le32_to_cpu(cpl.reserved), 0);
	CHECK_EQ(cpl.flags & ~SFAB_ACQ_FLAGS_PHASE, 0);
	host_free(h);
}

TEST(async_events)
{
	struct fake_host *h = host_up(3);
	struct sfab_aenq_entry ev;
	unsigned int i;

	host_setup_aenq(h, 2);
	CHECK(!host_aenq_poll(h, &ev));
	/* a good image: one FW_STATE ACTIVE event on the AENQ vector */
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	CHECK(host_aenq_poll(h, &ev));
	CHECK_EQ(ev.type, SFAB_AENQ_FW_STATE);
	CHECK_EQ(sfab_le32_to_cpu(ev.data0), SFAB_FW_STATE_ACTIVE);
	CHECK(sfab_le64_to_cpu(ev.timestamp_ns) != 0);
	CHECK_EQ(h->irqs[SFAB_MSIX_AENQ], 1);
	/* a bad one: FAILED with the status in data1 */
	CHECK_EQ(host_fw_load_kind(h, FW_BAD_CRC, NULL), SFAB_AQ_STS_FW_BAD_CRC);
	CHECK(host_aenq_poll(h, &ev));
	CHECK_EQ(ev.type, SFAB_AENQ_FW_STATE);
	CHECK_EQ(sfab_le32_to_cpu(ev.data0), SFAB_FW_STATE_FAILED);
	CHECK_EQ(sfab_le64_to_cpu(ev.data1), SFAB_AQ_STS_FW_BAD_CRC);

	/* wrap the 4-entry AENQ several times */
	for (i = 0; i < 10; i++) {
		CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
		CHECK(host_aenq_poll(h, &ev));
		CHECK_EQ(ev.type, SFAB_AENQ_FW_STATE);
	}
	CHECK(!host_aenq_poll(h, &ev));
	CHECK(!dev_fatal(h));
	host_free(h);
}

TEST(async_events_wait_for_room)
{
	struct fake_host *h = host_up(3);
	struct sfab_aenq_entry ev;
	unsigned int i, got = 0;

	/* events before the AENQ runs are held, then delivered */
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	host_setup_aenq(h, 2);
	CHECK(host_aenq_poll(h, &ev));
	CHECK_EQ(ev.type, SFAB_AENQ_FW_STATE);

	/* a full AENQ holds the rest back until the host returns entries */
	for (i = 0; i < 6; i++)
		CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	CHECK_EQ(h->e->stats.aenq_dropped, 0);
	while (got < 6) {
		/* read without returning, then return all at once */
		struct sfab_aenq_entry *slot;
		uint32_t idx = h->aenq_head & 3;
		uint8_t phase = ((h->aenq_head >> 2) & 1) ? 0 : 1;

		slot = hp(h, h->aenq + idx * sizeof(*slot));
		if ((slot->flags & SFAB_AENQ_FLAGS_PHASE) != phase)
			break;
		h->aenq_head++;
		got++;
		if ((h->aenq_head & 3) == 0)
			wr(h, SFAB_REG_AENQ_HEAD, h->aenq_head);
	}
	wr(h, SFAB_REG_AENQ_HEAD, h->aenq_head);
	while (host_aenq_poll(h, &ev))
		got++;
	CHECK_EQ(got, 6);
	CHECK(!dev_fatal(h));
	host_free(h);
}
