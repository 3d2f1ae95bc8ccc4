/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-fw: firmware download in chunks and activation, for a good
 * image and for every malformed kind, with the FW_STATE register checked
 * and the device still usable afterwards.
 */
#include "harness.h"
#include "fake_host.h"

#define IMG_MAX (SFAB_FW_HEADER_SIZE + 200000)
static uint8_t img[IMG_MAX];

static void check_usable(struct fake_host *h)
{
	struct sfab_dev_attr a;

	CHECK(!dev_fatal(h));
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
}

TEST(good_image_in_chunks)
{
	static const uint32_t chunks[] = { 1024, 4096, 777, SFAB_FW_MAX_CHUNK, 256 };
	unsigned int i;

	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct fake_host *h = host_up(4);
		uint32_t len = fw_build(img, 150000, FW_GOOD, NULL);
		struct sfab_dev_attr a;

		CHECK_EQ(host_fw_download(h, img, len, chunks[i]), SFAB_AQ_STS_OK);
		CHECK_EQ(fw_state(h), SFAB_FW_STATE_LOADING);
		CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_OK);
		CHECK_EQ(fw_state(h), SFAB_FW_STATE_ACTIVE);
		CHECK_EQ(fw_err(h), 0);
		CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
		CHECK(!strcmp(a.fw_version, FW_TEST_VERSION));
		host_free(h);
	}
}

TEST(chunks_out_of_order_after_offset_zero)
{
	struct fake_host *h = host_up(4);
	uint32_t len = fw_build(img, 9000, FW_GOOD, NULL);
	uint64_t buf = host_alloc(h, len, 4096);
	static const uint32_t order[] = { 0, 3, 1, 2 };	/* 4 chunks of 2314 */
	uint32_t chunk = (len + 3) / 4;
	unsigned int i;

	memcpy(hp(h, buf), img, len);
	for (i = 0; i < 4; i++) {
		uint32_t off = order[i] * chunk;
		uint32_t n = len - off < chunk ? len - off : chunk;
		struct sfab_aq_cmd c = cmd_fw_download(buf + off, off, n);

		CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	}
	CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_OK);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_ACTIVE);
	host_free(h);
}

TEST(largest_image)
{
	static uint8_t big[SFAB_FW_MAX_SIZE];
	struct fake_host *h = host_up(4);
	uint32_t len = fw_build(big, SFAB_FW_MAX_SIZE - SFAB_FW_HEADER_SIZE, FW_GOOD, NULL);

	CHECK_EQ(len, SFAB_FW_MAX_SIZE);
	CHECK_EQ(host_fw_download(h, big, len, SFAB_FW_MAX_CHUNK), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_OK);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_ACTIVE);
	host_free(h);
}

static void check_bad_kind(enum fw_kind kind, uint8_t want)
{
	struct fake_host *h = host_up(4);
	uint32_t len = fw_build(img, 20000, kind, NULL);
	struct sfab_dev_attr a;
	struct sfab_aq_cmd c;

	CHECK_EQ(host_fw_download(h, img, len, 4096), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, len), want);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_FAILED);
	CHECK_EQ(fw_err(h), want);
	/* safe: no firmware, commands that need it say so */
	check_usable(h);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(a.fw_version[0], 0);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	/* activating again needs a new download */
	CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_BAD_STATE);
	/* a good image afterwards works */
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_ACTIVE);
	CHECK_EQ(fw_err(h), 0);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	host_free(h);
}

TEST(malformed_images)
{
	check_bad_kind(FW_BAD_MAGIC, SFAB_AQ_STS_FW_BAD_MAGIC);
	check_bad_kind(FW_BAD_FORMAT, SFAB_AQ_STS_FW_BAD_FORMAT);
	check_bad_kind(FW_BAD_SIZE, SFAB_AQ_STS_FW_BAD_SIZE);
	check_bad_kind(FW_BAD_CRC, SFAB_AQ_STS_FW_BAD_CRC);
	check_bad_kind(FW_BAD_PROFILE, SFAB_AQ_STS_FW_BAD_PROFILE);
	check_bad_kind(FW_TRUNCATED, SFAB_AQ_STS_FW_BAD_SIZE);
}

TEST(bad_profiles)
{
	struct sfab_fw_profile p;
	struct fake_host *h = host_up(4);

	fw_profile_default(&p);
	p.num_ports = 2;
	CHECK_EQ(host_fw_load_kind(h, FW_GOOD, &p), SFAB_AQ_STS_FW_BAD_PROFILE);
	fw_profile_default(&p);
	p.num_ports = 0;
	CHECK_EQ(host_fw_load_kind(h, FW_GOOD, &p), SFAB_AQ_STS_FW_BAD_PROFILE);
	fw_profile_default(&p);
	p.vl_buf_blocks = sfab_cpu_to_le16(SFAB_FW_MAX_VL_BLOCKS + 1);
	CHECK_EQ(host_fw_load_kind(h, FW_GOOD, &p), SFAB_AQ_STS_FW_BAD_PROFILE);
	fw_profile_default(&p);
	p.max_eq = 0;
	CHECK_EQ(host_fw_load_kind(h, FW_GOOD, &p), SFAB_AQ_STS_FW_BAD_PROFILE);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_FAILED);
	fw_profile_default(&p);
	p.num_vls = 8;
	CHECK_EQ(host_fw_load_kind(h, FW_GOOD, &p), SFAB_AQ_STS_OK);
	host_free(h);
}

/* a rejected image leaves the running one running */
TEST(bad_image_keeps_previous_firmware)
{
	struct fake_host *h = host_up(4);
	struct sfab_aq_cmd c;
	struct sfab_dev_attr a;

	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_load_kind(h, FW_BAD_MAGIC, NULL), SFAB_AQ_STS_FW_BAD_MAGIC);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_FAILED);
	CHECK_EQ(fw_err(h), SFAB_AQ_STS_FW_BAD_MAGIC);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK(!strcmp(a.fw_version, FW_TEST_VERSION));
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp), 1024);
	c = cmd_query_port(h->scratch, 64, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	host_free(h);
}

TEST(download_bad_params)
{
	struct fake_host *h = host_up(4);
	uint64_t buf = host_alloc(h, SFAB_FW_MAX_CHUNK, 4096);
	struct sfab_aq_cmd c;

	c = cmd_fw_download(buf, 0, 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_fw_download(buf, 0, SFAB_FW_MAX_CHUNK + 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_fw_download(buf, SFAB_FW_MAX_SIZE - 16, 17);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_fw_download(buf, 0xffffff00U, 0x200);	/* offset + length wraps */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_fw_download(buf, 0, 16);
	c.u.raw[20] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_NONE);

	/* a chunk past offset 0 needs a download started at offset 0 */
	c = cmd_fw_download(buf, 4096, 16);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	/* activation needs a download */
	CHECK_EQ(host_fw_activate(h, 4096), SFAB_AQ_STS_BAD_STATE);

	/* the chunk's DMA fails */
	c = cmd_fw_download(HOST_MEM_BASE + HOST_MEM_SIZE - 8, 0, 16);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_DMA_ERROR);
	c = cmd_fw_download(0, 0, 16);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_DMA_ERROR);
	CHECK(!dev_fatal(h));

	/* the last possible chunk is fine */
	c = cmd_fw_download(buf, 0, 16);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	c = cmd_fw_download(buf, SFAB_FW_MAX_SIZE - SFAB_FW_MAX_CHUNK, SFAB_FW_MAX_CHUNK);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_LOADING);
	host_free(h);
}

TEST(activate_bad_params)
{
	struct fake_host *h = host_up(4);
	uint32_t len = fw_build(img, 3000, FW_GOOD, NULL);
	struct sfab_aq_cmd c;

	CHECK_EQ(host_fw_download(h, img, len, 1024), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, 0), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(host_fw_activate(h, SFAB_FW_MAX_SIZE + 1), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_fw_activate(len);
	c.u.fw_activate.reserved = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_fw_activate(len);
	c.u.raw[8] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	/* parameter errors leave the download open */
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_LOADING);
	/* claiming more than was downloaded: a truncated image */
	CHECK_EQ(host_fw_activate(h, len + 1), SFAB_AQ_STS_FW_BAD_SIZE);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_FAILED);
	CHECK_EQ(fw_err(h), SFAB_AQ_STS_FW_BAD_SIZE);
	/* claiming less: the header's length disagrees */
	CHECK_EQ(host_fw_download(h, img, len, 1024), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, len - 1), SFAB_AQ_STS_FW_BAD_SIZE);
	/* a header alone is too short */
	CHECK_EQ(host_fw_download(h, img, 100, 100), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, 100), SFAB_AQ_STS_FW_BAD_SIZE);
	CHECK_EQ(host_fw_download(h, img, len, 1024), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_OK);
	host_free(h);
}

TEST(firmware_locked_while_hca_initialized)
{
	struct fake_host *h = host_up(4);
	uint32_t len = fw_build(img, 3000, FW_GOOD, NULL);
	struct sfab_aq_cmd c;

	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	/* a download started before INIT_HCA cannot be activated after it */
	CHECK_EQ(host_fw_download(h, img, len, 1024), SFAB_AQ_STS_OK);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(host_fw_download(h, img, len, 1024), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_LOADING);
	CHECK(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_HCA_INIT);
	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_download(h, img, len, 1024), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_OK);
	host_free(h);
}

/* holes in a download read as zero, never as an earlier image's bytes */
TEST(new_download_forgets_old_bytes)
{
	struct fake_host *h = host_up(4);
	uint32_t len = fw_build(img, 20000, FW_GOOD, NULL);
	uint64_t buf;
	struct sfab_aq_cmd c;

	CHECK_EQ(host_fw_download(h, img, len, 4096), SFAB_AQ_STS_OK);
	/* also across a function reset */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	host_setup_aq(h, 4);
	buf = host_alloc(h, len, 4096);
	memcpy(hp(h, buf), img, len);
	c = cmd_fw_download(buf, 0, 4096);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	c = cmd_fw_download(buf + len - 100, len - 100, 100);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_activate(h, len), SFAB_AQ_STS_FW_BAD_CRC);
	check_usable(h);
	host_free(h);
}

TEST(reset_drops_firmware)
{
	struct fake_host *h = host_up(4);
	struct sfab_aq_cmd c;

	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_NONE);
	CHECK_EQ(fw_err(h), 0);
	host_setup_aq(h, 4);
	c = cmd_query_port(h->scratch, 64, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	host_free(h);
}

/*
 * firmware in flash (sfab-hca's "fw" property): runs at once and after
 * every reset, with no AENQ event; the host can download another; a bad
 * image is refused and forgotten
 */
TEST(flash_image_runs_at_every_reset)
{
	struct fake_host *h = host_up(4);
	uint32_t len = fw_build(img, 9000, FW_GOOD, NULL);
	static uint8_t bad[SFAB_FW_HEADER_SIZE + 9000];
	uint32_t blen = fw_build(bad, 9000, FW_BAD_CRC, NULL);
	struct sfab_dev_attr a;
	struct sfab_aq_cmd c;

	CHECK_EQ(sfab_engine_set_flash(h->e, img, len), SFAB_AQ_STS_OK);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_ACTIVE);
	CHECK_EQ(h->e->aenq_backlog_len, 0);
	host_setup_aq(h, 4);
	c = cmd_query_port(h->scratch, 64, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK(!strcmp(a.fw_version, FW_TEST_VERSION));
	/* the reset register: the flash image runs again */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_ACTIVE);
	host_setup_aq(h, 4);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	/* a download replaces it until the next reset */
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	/* a bad image: refused, forgotten, no firmware after a reset */
	CHECK_EQ(sfab_engine_set_flash(h->e, bad, blen), SFAB_AQ_STS_FW_BAD_CRC);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_FAILED);
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_NONE);
	host_setup_aq(h, 4);
	c = cmd_query_port(h->scratch, 64, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_FW);
	/* sizes out of range; NULL clears */
	CHECK_EQ(sfab_engine_set_flash(h->e, img, 0), SFAB_AQ_STS_FW_BAD_SIZE);
	CHECK_EQ(sfab_engine_set_flash(h->e, img, SFAB_FW_MAX_SIZE + 1),
		 SFAB_AQ_STS_FW_BAD_SIZE);
	CHECK_EQ(sfab_engine_set_flash(h->e, NULL, 0), SFAB_AQ_STS_OK);
	CHECK_EQ(fw_state(h), SFAB_FW_STATE_NONE);
	host_free(h);
}

/* the engine's check is the contract's, byte for byte */
TEST(validate_matches_contract)
{
	enum fw_kind k;

	for (k = FW_GOOD; k <= FW_TRUNCATED; k++) {
		uint32_t len = fw_build(img, 1000, k, NULL);
		struct fake_host *h = host_up(4);
		int st = host_fw_download(h, img, len, 512);

		CHECK_EQ(st, 0);
		CHECK_EQ(host_fw_activate(h, len), sfab_fw_validate(img, len));
		host_free(h);
	}
}

/* a ring full of large chunks is handled over several process calls */
TEST(bounded_work_per_process)
{
	struct fake_host *h = host_up(7);
	uint64_t buf = host_alloc(h, SFAB_FW_MAX_CHUNK, 4096);
	struct sfab_acq_entry cpl;
	unsigned int i, n, first, got = 0;

	for (i = 0; i < 96; i++) {
		uint32_t off = (i % 16) * SFAB_FW_MAX_CHUNK;
		struct sfab_aq_cmd c = cmd_fw_download(buf, off, SFAB_FW_MAX_CHUNK);

		host_post(h, &c);
	}
	/* ring the doorbell without running the work */
	CHECK(sfab_engine_reg_write(h->e, SFAB_REG_AQ_DB, h->aq_tail));
	first = sfab_engine_process(h->e);
	CHECK(first >= 1);
	CHECK(first * SFAB_FW_MAX_CHUNK <= SFAB_ENGINE_WORK_BYTES);
	CHECK(sfab_engine_work_pending(h->e));
	for (n = first, i = 0; i < 10 && sfab_engine_work_pending(h->e); i++)
		n += sfab_engine_process(h->e);
	CHECK_EQ(n, 96);
	CHECK(!sfab_engine_work_pending(h->e));
	while (host_poll(h, &cpl)) {
		CHECK_EQ(cpl.status, SFAB_AQ_STS_OK);
		got++;
	}
	CHECK_EQ(got, 96);
	host_free(h);
}
