/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-faults: the faults a test injects into the device model
 * (sfab_engine_inject(); QEMU: the sfab-hca "inject" property), each as
 * registers.rst's "Fault injection" says: an admin command failed
 * without being run, admin commands never completed until a reset, a
 * CQE with a bad status, a lost interrupt, the device fatal (FATAL,
 * ERR_INFO, the AENQ event, the heartbeat standing), BAR0 reading all
 * ones with writes and doorbells lost until a reset; and the heartbeat
 * that counts device milliseconds meanwhile.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS	1000000ULL

static struct sfab_aq_cmd query_device(struct fake_host *h)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_QUERY_DEVICE);

	c.u.query_device.resp_addr = sfab_cpu_to_le64(h->scratch);
	c.u.query_device.resp_len = sfab_cpu_to_le32(sizeof(struct sfab_dev_attr));
	return c;
}

TEST(names)
{
	unsigned int f;

	for (f = SFAB_FAULT_AQ_STALL; f <= SFAB_FAULT_MMIO_DEAD; f++)
		CHECK_EQ(sfab_engine_fault_parse(sfab_engine_fault_name(f)), f);
	CHECK_EQ(sfab_engine_fault_parse("fatal"), SFAB_FAULT_FATAL);
	CHECK_EQ(sfab_engine_fault_parse("nonsense"), 0);
	CHECK_EQ(sfab_engine_fault_parse(""), 0);
	CHECK_EQ(sfab_engine_fault_parse(NULL), 0);
	CHECK(!strcmp(sfab_engine_fault_name(0), "none"));
	CHECK(!strcmp(sfab_engine_fault_name(99), "none"));
}

TEST(heartbeat)
{
	struct fake_host *h = host_up(4);
	uint32_t a, b;

	CHECK(rd(h, SFAB_REG_CAPS) & SFAB_CAP_HEARTBEAT);
	a = rd(h, SFAB_REG_HEARTBEAT);
	h->now += 250 * MS;
	b = rd(h, SFAB_REG_HEARTBEAT);
	CHECK_EQ(b - a, 250);
	/* bad fault numbers: nothing happens */
	CHECK(!sfab_engine_inject(h->e, 0));
	CHECK(!sfab_engine_inject(h->e, 99));
	CHECK_EQ(h->e->stats.faults_injected, 0);
	CHECK(!dev_fatal(h));
	host_free(h);
}

TEST(aq_error)
{
	struct fake_host *h = host_up(4);
	struct sfab_aq_cmd c;

	REQUIRE(sfab_engine_inject(h->e, SFAB_FAULT_AQ_ERROR));
	c = query_device(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_DEV_ERROR);
	/* once: the next one runs */
	c = query_device(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(h->e->stats.faults_injected, 1);
	CHECK(!dev_fatal(h));
	host_free(h);
}

TEST(aq_stall)
{
	struct fake_host *h = host_up(4);
	struct sfab_aq_cmd c;
	unsigned int i;

	REQUIRE(sfab_engine_inject(h->e, SFAB_FAULT_AQ_STALL));
	for (i = 0; i < 3; i++) {
		c = query_device(h);
		CHECK_EQ(host_cmd(h, &c), -1);
		h->now += 1000 * MS;
		sfab_engine_timer(h->e);
		host_run(h);
	}
	CHECK_EQ(h->e->stats.admin_cmds, 0);
	/* the heartbeat goes on: the device is alive, its queue is not */
	CHECK(!dev_fatal(h));
	/* a reset ends it */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	host_setup_aq(h, 4);
	c = query_device(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	host_free(h);
}

TEST(msix_lost)
{
	struct fake_host *h = host_up(4);
	struct sfab_aq_cmd c;
	unsigned long before = h->irq_total;

	REQUIRE(sfab_engine_inject(h->e, SFAB_FAULT_MSIX_LOST));
	c = query_device(h);
	/* completed, and no interrupt said so */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(h->irq_total, before);
	CHECK_EQ(h->e->stats.irqs_lost, 1);
	c = query_device(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(h->irq_total, before + 1);
	host_free(h);
}

TEST(cqe_error)
{
	struct rp_cfg cfg = { 0 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	REQUIRE(sfab_engine_inject(RP[0].h->e, SFAB_FAULT_CQE_ERROR));
	rp_recv(1, 7, 0, 4096);
	s = rp_wqe(SFAB_WQE_SEND, 1, 0, 0, 64);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_GENERAL_ERR);
	CHECK_EQ(cqe.vendor_err, SFAB_CQE_VENDOR_INJECTED);
	/* the receiver's was not touched, and the next send's is right */
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	rp_recv(1, 8, 0, 4096);
	s = rp_wqe(SFAB_WQE_SEND, 2, 0, 0, 64);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	rp_down();
}

TEST(fatal)
{
	struct fake_host *h = host_up(4);
	struct sfab_aenq_entry ev;
	struct sfab_aq_cmd c;
	uint32_t hb;

	host_setup_aenq(h, 4);
	REQUIRE(sfab_engine_inject(h->e, SFAB_FAULT_FATAL));
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_INJECTED);
	REQUIRE(host_aenq_poll(h, &ev));
	CHECK_EQ(ev.type, SFAB_AENQ_FATAL);
	CHECK_EQ(sfab_le32_to_cpu(ev.data0), SFAB_ERR_INJECTED);
	hb = rd(h, SFAB_REG_HEARTBEAT);
	h->now += 3000 * MS;
	CHECK_EQ(rd(h, SFAB_REG_HEARTBEAT), hb);
	c = query_device(h);
	CHECK_EQ(host_cmd(h, &c), -1);
	/* a reset brings it back */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK(!dev_fatal(h));
	h->now += 10 * MS;
	CHECK(rd(h, SFAB_REG_HEARTBEAT) != hb);
	host_free(h);
}

TEST(mmio_dead)
{
	struct fake_host *h = host_up(4);
	struct sfab_aq_cmd c;
	uint64_t dbs;

	REQUIRE(sfab_engine_inject(h->e, SFAB_FAULT_MMIO_DEAD));
	CHECK_EQ(rd(h, SFAB_REG_ID), 0xffffffffU);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), 0xffffffffU);
	CHECK_EQ(rd(h, SFAB_REG_HEARTBEAT), 0xffffffffU);
	/* writes are lost, a reset through DEV_CTL too */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(rd(h, SFAB_REG_ID), 0xffffffffU);
	c = query_device(h);
	CHECK_EQ(host_cmd(h, &c), -1);
	dbs = h->e->stats.db_writes;
	sfab_engine_db_write(h->e, SFAB_DB_CQ, 0, 8, SFAB_DB_SRC_CPU);
	CHECK_EQ(h->e->stats.db_writes, dbs);
	/* the function's reset (PCI, as QEMU's device reset does it) */
	sfab_engine_reset(h->e);
	CHECK_EQ(rd(h, SFAB_REG_ID), SFAB_ID_MAGIC);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	host_free(h);
}
