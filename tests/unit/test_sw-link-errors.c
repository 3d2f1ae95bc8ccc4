/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sw-link-errors: link errors on purpose in the switch.
 *  - the control commands (port P ber|drop|flap|errors, seed): good input
 *    is applied and echoed, bad input answered with "error:" and ignored;
 *  - ber 1 corrupts every frame a port sends: the next switch counts each
 *    in PortRcvErrors (a VCRC error, never a malformed one) and forwards
 *    none; the corrupted FC packets count in SymbolErrorCounter; the
 *    periodic FC packet gives every lost credit back;
 *  - ber 0 corrupts nothing; a partial rate is reproducible from its seed;
 *  - drop discards data packets in PortXmitDiscards without spending or
 *    losing a credit anywhere;
 *  - flap takes the port down and up on schedule, LinkDownedCounter
 *    counting each down.
 */
#include "harness.h"
#include "sw_fabric.h"
#include "../../qemu-model/switch/sfab_swd.h"

#define PERIOD_NS	100000ULL	/* FC refresh in the fabric */
#define SRC_LID		1
#define DST_LID		2
#define PAYLOAD		200

static struct sfab_sw_cfg cfg;
static struct tf tf;

static void base_cfg(unsigned int nports)
{
	sfab_sw_default_cfg(&cfg);
	cfg.nports = nports;
	cfg.fc_period_ns = PERIOD_NS;
}

/* a UD packet from SRC_LID to DST_LID carrying @seq, checkable */
static size_t seq_pkt(uint8_t *buf, uint32_t seq)
{
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = DST_LID, .slid = SRC_LID,
		.pkey = 0xffff, .dqpn = 9, .sqpn = 9, .qkey = 1, .psn = seq,
	};
	uint8_t pl[PAYLOAD];
	unsigned int i;

	for (i = 0; i < PAYLOAD; i++)
		pl[i] = (uint8_t)(seq * 13 + i);
	memcpy(pl, &seq, sizeof(seq));
	return sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl));
}

/* the seq of an intact packet from seq_pkt(), or -1 */
static long seq_of(const uint8_t *f, size_t len)
{
	struct sfab_pkt_ud u;
	uint32_t seq;
	unsigned int i;

	if (!sfab_link_pkt_parse_ud(f, len, &u) || u.len != PAYLOAD)
		return -1;
	memcpy(&seq, u.payload, sizeof(seq));
	for (i = sizeof(seq); i < PAYLOAD; i++)
		if (u.payload[i] != (uint8_t)(seq * 13 + i))
			return -1;
	return seq;
}

/* send one packet from node 0, waiting out credit with FC refreshes */
static bool send_seq(uint32_t seq)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t n = seq_pkt(buf, seq);
	unsigned int tries;

	for (tries = 0; tries < 8; tries++) {
		if (tf_node_send(&tf, 0, buf, n)) {
			tf_pump(&tf);
			return true;
		}
		tf.now += PERIOD_NS;
		tf_pump(&tf);
	}
	return false;
}

/* the whole VL0 window of a link whose receiver holds nothing */
static unsigned int full_window(void)
{
	return cfg.vl_blocks < SFAB_LINK_MAX_FCCL_AHEAD ?
	       cfg.vl_blocks : SFAB_LINK_MAX_FCCL_AHEAD;
}

/*
 * node 0 -- sw0:1, sw0:2 -- sw1:2, sw1:1 -- node 1; SRC_LID and DST_LID
 * routed both ways.  Injection goes on sw0:2, toward sw1.
 */
static void two_switches(void)
{
	base_cfg(4);
	tf_init(&tf);
	tf.now = 1000;
	tf_add_sw(&tf, 0, &cfg);
	tf_add_sw(&tf, 1, &cfg);
	tf_add_node(&tf, 0, &cfg);
	tf_add_node(&tf, 1, &cfg);
	tf_cable_node(&tf, 0, 0, 1);
	tf_cable_sw(&tf, 0, 2, 1, 2);
	tf_cable_node(&tf, 1, 1, 1);
	tf_pump(&tf);
	tf_activate(&tf);
	sfab_sw_lft_set(tf.sw[0], DST_LID, 2);
	sfab_sw_lft_set(tf.sw[0], SRC_LID, 1);
	sfab_sw_lft_set(tf.sw[1], DST_LID, 1);
	sfab_sw_lft_set(tf.sw[1], SRC_LID, 2);
}

/* node 0 -- sw0:1, sw0:2 -- node 1 */
static void one_switch(void)
{
	base_cfg(4);
	tf_one_switch(&tf, &cfg, SRC_LID, DST_LID);
}

/* --- the control commands ------------------------------------------------ */

static int nop_xmit(void *opaque, unsigned int port, const uint8_t *frame,
		    size_t len)
{
	(void)opaque;
	(void)port;
	(void)frame;
	(void)len;
	return 0;
}

static const struct sfab_sw_ops nop_ops = { .xmit = nop_xmit };

static struct sfab_swd swd;
static char reply[65536];

static const char *ctl(const char *cmd)
{
	sfab_swd_command(&swd, cmd, reply, sizeof(reply));
	return reply;
}

static bool errinj_clear(const struct sfab_sw_errinj *e)
{
	return !e->ber_thr && !e->drop_thr && !e->flap_period_ns &&
	       !e->flap_down_ns && !e->flap_is_down && e->ber == 0 &&
	       e->drop == 0;
}

#define CHECK_REPLY(cmd, want)						\
	do {								\
		const char *r_ = ctl(cmd);				\
		CHECK(!strcmp(r_, want));				\
		if (strcmp(r_, want))					\
			fprintf(stderr, "  '%s' -> '%s'\n", cmd, r_);	\
	} while (0)

TEST(ctl_commands)
{
	static const char *const bad[] = {
		"port 0 ber 0.1", "port 5 ber 0.1", "port x ber 0.1",
		"port -1 ber 0.1", "port +2 ber 0.1", "port 2x ber 0.1",
		"port 99999999999999999999999 ber 0.1",
		"port 2 ber", "port 2 ber 1.5", "port 2 ber -0.1",
		"port 2 ber -0", "port 2 ber nan", "port 2 ber inf",
		"port 2 ber 0.1x", "port 2 ber 1e-400", "port 2 ber ''",
		"port 2 ber 0x1p-3", "port 2 ber 1%",
		"port 2 ber 0.1 0.2", "port 2 drop abc", "port 2 drop 2",
		"port 2 flap 100 100", "port 2 flap 100 0", "port 2 flap 100",
		"port 2 flap 100 200", "port 2 flap 3600001 1",
		"port 2 flap -100 10", "port 2 flap 100 10 5", "port 2 flap on",
		"port 2 flap 1e3 10", "port 2 errors on", "port 2 errors off x",
		"port 2 bogus", "port 2 down now", "port", "port 2",
		"port 2 ber 0.1 a b c d e f", "seed", "seed -1", "seed abc",
		"seed 1 2", "seed 99999999999999999999",
	};
	struct sfab_sw *sw;
	char longcmd[400];
	unsigned int i, p;
	uint64_t rng;

	base_cfg(4);
	memset(&swd, 0, sizeof(swd));
	swd.sw = sw = sfab_sw_create(&cfg, &nop_ops, NULL);
	swd.port = calloc(cfg.nports + 1, sizeof(*swd.port));
	REQUIRE(sw && swd.port);
	for (p = 0; p <= cfg.nports; p++)
		sfab_link_cable_init(&swd.port[p].cable, -1);

	/* bad input: an error, nothing changed */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ctl(bad[i]);
		CHECK(!strncmp(reply, "error: ", 7));
		if (strncmp(reply, "error: ", 7))
			fprintf(stderr, "  '%s' -> '%s'\n", bad[i], reply);
		for (p = 1; p <= cfg.nports; p++)
			CHECK(errinj_clear(&sw->port[p].inj));
		CHECK(sw->port[2].link.phys != SFAB_PHYS_DISABLED);
	}
	memset(longcmd, ' ', sizeof(longcmd));
	memcpy(longcmd, "port 2 ber 1", 12);
	longcmd[sizeof(longcmd) - 1] = '\0';
	CHECK_REPLY(longcmd, "error: command too long\n");
	CHECK_REPLY("port 9 ber 0.1", "error: no port '9'\n");
	CHECK_REPLY("port 2 ber 7",
		    "error: port 2 ber: want a rate from 0 to 1 (a probability"
		    " per frame, e.g. 1e-3), got '7'\n");
	CHECK_REPLY("port 2 flap 10 20",
		    "error: port 2 flap: want PERIOD_MS DOWN_MS, 0 < DOWN_MS <"
		    " PERIOD_MS <= 3600000, or off\n");
	CHECK_REPLY("port 2 errors off x",
		    "error: port 2 errors: unexpected 'x'\n");

	/* good input: applied and echoed */
	CHECK_REPLY("port 2 ber 1e-3", "port 2 ber 0.001\n");
	CHECK(sw->port[2].inj.ber == 1e-3);
	CHECK(sw->port[2].inj.ber_thr > 18446744073709551ULL - 2 &&
	      sw->port[2].inj.ber_thr < 18446744073709551ULL + 2);
	CHECK_REPLY("port 2 ber 1", "port 2 ber 1\n");
	CHECK_EQ(sw->port[2].inj.ber_thr, UINT64_MAX);
	CHECK_REPLY("port 2 ber 0", "port 2 ber 0\n");
	CHECK_EQ(sw->port[2].inj.ber_thr, 0);
	CHECK_REPLY("port 3\tdrop  0.5", "port 3 drop 0.5\n");
	CHECK_EQ(sw->port[3].inj.drop_thr, 1ULL << 63);
	CHECK_EQ(sw->port[2].inj.drop_thr, 0);
	CHECK_REPLY("port 4 ber 0.25", "port 4 ber 0.25\n");
	CHECK_REPLY("port 4 flap 1000 200", "port 4 flap 1000 200\n");
	CHECK_EQ(sw->port[4].inj.flap_period_ns, 1000000000ULL);
	CHECK_EQ(sw->port[4].inj.flap_down_ns, 200000000ULL);
	CHECK_REPLY("port 4 errors",
		    "port 4 ber 0.25 drop 0 flap 1000 200 corrupted 0"
		    " fc-corrupted 0 dropped 0 flaps 0\n");
	CHECK_REPLY("port 4 flap off", "port 4 flap off\n");
	CHECK_EQ(sw->port[4].inj.flap_period_ns, 0);
	CHECK_REPLY("port 4 flap 3600000 3599999",
		    "port 4 flap 3600000 3599999\n");
	CHECK_REPLY("port 4 errors off", "port 4 errors off\n");
	CHECK(errinj_clear(&sw->port[4].inj));
	CHECK_REPLY("port 3 errors off", "port 3 errors off\n");
	CHECK(errinj_clear(&sw->port[3].inj));
	/* down and up as before; they end a flap */
	CHECK_REPLY("port 2 flap 100 10", "port 2 flap 100 10\n");
	CHECK_REPLY("port 2 down", "port 2 down\n");
	CHECK_EQ(sw->port[2].link.phys, SFAB_PHYS_DISABLED);
	CHECK_EQ(sw->port[2].inj.flap_period_ns, 0);
	CHECK_REPLY("port 2 up", "port 2 up\n");
	CHECK(sw->port[2].link.phys != SFAB_PHYS_DISABLED);
	/* seed: the same seed, the same streams */
	CHECK_REPLY("seed 42", "seed 42\n");
	rng = sw->port[3].inj.rng;
	sfab_sw_seed(sw, 43);
	CHECK(sw->port[3].inj.rng != rng);
	CHECK(sw->port[2].inj.rng != sw->port[3].inj.rng);
	CHECK_REPLY("seed 42", "seed 42\n");
	CHECK_EQ(sw->port[3].inj.rng, rng);
	/* the counters command shows a port's injection */
	CHECK_REPLY("port 1 drop 0.125", "port 1 drop 0.125\n");
	ctl("counters 1");
	CHECK(strstr(reply, "  inject: port 1 ber 0 drop 0.125 flap off"
			    " corrupted 0 fc-corrupted 0 dropped 0 flaps 0\n"));
	ctl("counters 2");
	CHECK(!strstr(reply, "inject:"));
	/* the unknown-command help names them */
	ctl("frob");
	CHECK(strstr(reply, "port P down|up|ber|drop|flap|errors, seed N"));

	sfab_sw_destroy(sw);
	free(swd.port);
}

/* --- ber ------------------------------------------------------------------- */

#define BER_PKTS	20

TEST(ber_all_corrupted)
{
	struct sfab_sw_port *out, *in;
	struct sfab_link_counters lc;
	struct sfab_sw_port_cnt sc;
	unsigned int i, blocks;
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];

	two_switches();
	out = &tf.sw[0]->port[2];
	in = &tf.sw[1]->port[2];
	REQUIRE(out->link.state == SFAB_PORT_ACTIVE);
	REQUIRE(in->link.state == SFAB_PORT_ACTIVE);
	blocks = sfab_link_blocks(seq_pkt(buf, 0));
	CHECK_EQ(sfab_sw_port_ber(tf.sw[0], 2, 1.0), 0);
	/*
	 * the FC packet for VL0 goes right after a corrupted packet, in the
	 * same batch, to give its credit back at once; at ber 1 it is
	 * corrupted too
	 */
	CHECK(send_seq(0));
	CHECK_EQ(out->inj.corrupted, 1);
	CHECK_EQ(out->inj.fc_corrupted, 1);
	for (i = 1; i < BER_PKTS; i++)
		CHECK(send_seq(i));
	/* every one left, every one was corrupted... */
	CHECK_EQ(out->inj.corrupted, BER_PKTS);
	CHECK_EQ(out->link.cnt.xmit_pkts, BER_PKTS);
	/* ... and the receiver dropped and counted each, as a bad VCRC */
	CHECK_EQ(in->link.cnt.rcv_errors, BER_PKTS);
	CHECK_EQ(in->link.cnt.vcrc_errors, BER_PKTS);
	CHECK_EQ(in->link.cnt.malformed, 0);
	CHECK_EQ(in->link.cnt.rcv_pkts, 0);
	/* never forwarded */
	CHECK_EQ(tf.sw[1]->port[1].link.cnt.xmit_pkts, 0);
	CHECK_EQ(tf.node[1].ninbox, 0);
	/* (one a batch: two packets may leave in one) */
	CHECK(out->inj.fc_corrupted > 1 && out->inj.fc_corrupted <= BER_PKTS);
	CHECK_EQ(in->link.cnt.symbol_errors, out->inj.fc_corrupted);
	CHECK_EQ(in->link.cnt.bad_fc_pkts, out->inj.fc_corrupted);
	/* the PMA shows it */
	sfab_sw_pma_counters(tf.sw[1], 2, &lc, &sc);
	CHECK_EQ(lc.rcv_errors, BER_PKTS);
	CHECK_EQ(lc.symbol_errors, out->inj.fc_corrupted);
	/* the credits of the lost packets are missing until an FC gets through */
	CHECK_EQ(sfab_link_tx_credits(&out->link, 0),
		 full_window() - BER_PKTS * blocks);
	/* fixed cable: the next periodic FC packet gives them all back */
	CHECK_EQ(sfab_sw_port_errors_clear(tf.sw[0], 2), 0);
	tf.now += PERIOD_NS;
	tf_pump(&tf);
	CHECK_EQ(sfab_link_tx_credits(&out->link, 0), full_window());
	CHECK_EQ(in->link.vl[0].abr, out->link.vl[0].fctbs);
	CHECK_EQ(in->link.vl[0].used, 0);
	/* and everything gets through intact again */
	for (i = 0; i < BER_PKTS; i++)
		CHECK(send_seq(100 + i));
	REQUIRE(tf.node[1].ninbox == BER_PKTS);
	for (i = 0; i < BER_PKTS; i++)
		CHECK_EQ(seq_of(tf.node[1].inbox[i].data, tf.node[1].inbox[i].len),
			 100 + i);
	CHECK_EQ(in->link.cnt.rcv_errors, BER_PKTS);
	CHECK_EQ(out->inj.corrupted, BER_PKTS);
	tf_fini(&tf);
}

TEST(ber_zero_none)
{
	struct sfab_sw_port *out, *in;
	unsigned int i;
	uint64_t rng;

	two_switches();
	out = &tf.sw[0]->port[2];
	in = &tf.sw[1]->port[2];
	/* set and taken back */
	CHECK_EQ(sfab_sw_port_ber(tf.sw[0], 2, 0.5), 0);
	CHECK_EQ(sfab_sw_port_ber(tf.sw[0], 2, 0), 0);
	rng = out->inj.rng;
	for (i = 0; i < 200; i++)
		CHECK(send_seq(i));
	tf.now += PERIOD_NS;
	tf_pump(&tf);
	CHECK_EQ(out->inj.corrupted, 0);
	CHECK_EQ(out->inj.fc_corrupted, 0);
	CHECK_EQ(out->inj.rng, rng);	/* rate 0 draws nothing */
	CHECK_EQ(in->link.cnt.rcv_errors, 0);
	CHECK_EQ(in->link.cnt.symbol_errors, 0);
	REQUIRE(tf.node[1].ninbox == 200);
	for (i = 0; i < 200; i++)
		CHECK_EQ(seq_of(tf.node[1].inbox[i].data, tf.node[1].inbox[i].len),
			 i);
	CHECK_EQ(sfab_link_tx_credits(&out->link, 0), full_window());
	tf_fini(&tf);
}

#define PART_PKTS	400

/* ber 0.25 with @seed: which packets arrive, as a bitmap; the count lost */
static unsigned int ber_run(uint64_t seed, uint8_t *arrived)
{
	struct sfab_sw_port *out, *in;
	unsigned int i, lost;

	two_switches();
	out = &tf.sw[0]->port[2];
	in = &tf.sw[1]->port[2];
	sfab_sw_seed(tf.sw[0], seed);
	CHECK_EQ(sfab_sw_port_ber(tf.sw[0], 2, 0.25), 0);
	for (i = 0; i < PART_PKTS; i++)
		CHECK(send_seq(i));
	CHECK_EQ(sfab_sw_port_errors_clear(tf.sw[0], 2), 0);
	tf.now += PERIOD_NS;
	tf_pump(&tf);
	memset(arrived, 0, PART_PKTS);
	for (i = 0; i < tf.node[1].ninbox; i++) {
		long s = seq_of(tf.node[1].inbox[i].data, tf.node[1].inbox[i].len);

		CHECK(s >= 0 && s < PART_PKTS);
		if (s >= 0 && s < PART_PKTS)
			arrived[s] = 1;
	}
	lost = PART_PKTS - tf.node[1].ninbox;
	/* every packet either arrived intact or was counted lost */
	CHECK_EQ(out->inj.corrupted, lost);
	CHECK_EQ(in->link.cnt.rcv_errors, lost);
	CHECK_EQ(in->link.cnt.vcrc_errors, lost);
	CHECK_EQ(in->link.cnt.symbol_errors, out->inj.fc_corrupted);
	/* credits conserved: nothing held, the whole window back */
	CHECK_EQ(tf.sw[0]->queued, 0);
	CHECK_EQ(tf.sw[1]->queued, 0);
	tf_refresh(&tf);
	CHECK_EQ(sfab_link_tx_credits(&out->link, 0), full_window());
	CHECK_EQ(in->link.vl[0].abr, out->link.vl[0].fctbs);
	CHECK_EQ(sfab_link_tx_credits(&tf.node[0].link, 0), full_window());
	tf_fini(&tf);
	return lost;
}

TEST(ber_partial_seeded)
{
	static uint8_t a[PART_PKTS], b[PART_PKTS], c[PART_PKTS];
	unsigned int la, lb, lc;

	la = ber_run(7, a);
	lb = ber_run(7, b);
	lc = ber_run(8, c);
	/* about a quarter */
	CHECK(la > PART_PKTS / 8 && la < PART_PKTS / 2);
	CHECK(lc > PART_PKTS / 8 && lc < PART_PKTS / 2);
	/* the same seed, the same packets lost; another seed, others */
	CHECK_EQ(la, lb);
	CHECK(!memcmp(a, b, sizeof(a)));
	CHECK(memcmp(a, c, sizeof(a)));
}

/* --- drop ------------------------------------------------------------------ */

#define DROP_PKTS	500

/*
 * Drop @rate on the switch's port 2 (toward node 1).  500 packets are
 * 2000 blocks through 256-block buffers: a credit lost per dropped packet
 * anywhere would stall node 0.  Nothing waits for a periodic FC packet.
 */
static unsigned int drop_run(double rate)
{
	struct sfab_link_counters lc;
	struct sfab_sw_port_cnt sc;
	struct sfab_sw_port *out;
	struct sfab_sw *sw;
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int i, dropped;
	uint32_t next = 0;

	one_switch();
	sw = tf.sw[0];
	out = &sw->port[2];
	CHECK_EQ(sfab_sw_port_drop(sw, 2, rate), 0);
	for (i = 0; i < DROP_PKTS; i++) {
		size_t n = seq_pkt(buf, i);

		CHECK(tf_node_send(&tf, 0, buf, n));
		tf_pump(&tf);
	}
	dropped = out->inj.dropped;
	CHECK_EQ(dropped + tf.node[1].ninbox, DROP_PKTS);
	/* counted as discards, PMA too; the rest went out */
	CHECK_EQ(out->cnt.xmit_discards, dropped);
	sfab_sw_pma_counters(sw, 2, &lc, &sc);
	CHECK_EQ(sc.xmit_discards, dropped);
	CHECK_EQ(lc.xmit_pkts, DROP_PKTS - dropped);
	CHECK_EQ(sw->port[1].cnt.xmit_discards, 0);
	/* what arrived is intact, in order */
	for (i = 0; i < tf.node[1].ninbox; i++) {
		long s = seq_of(tf.node[1].inbox[i].data, tf.node[1].inbox[i].len);

		CHECK(s >= next);
		next = s + 1;
	}
	/* no credit leaked: nothing held, every window whole */
	CHECK_EQ(sw->queued, 0);
	CHECK_EQ(sw->port[1].link.vl[0].used, 0);
	tf_refresh(&tf);
	CHECK_EQ(sfab_link_tx_credits(&tf.node[0].link, 0), full_window());
	CHECK_EQ(sfab_link_tx_credits(&out->link, 0), full_window());
	CHECK_EQ(tf.node[1].link.vl[0].abr, out->link.vl[0].fctbs);
	CHECK_EQ(tf.node[1].link.cnt.rcv_errors, 0);
	/* FC packets are never dropped: the link stays up through refreshes */
	tf.now += 3 * PERIOD_NS;
	tf_pump(&tf);
	CHECK_EQ(out->link.state, SFAB_PORT_ACTIVE);
	CHECK_EQ(tf.node[1].link.cnt.link_downed, 0);
	CHECK_EQ(out->inj.dropped, dropped);
	tf_fini(&tf);
	return dropped;
}

TEST(drop_counted_credits_kept)
{
	unsigned int d;

	CHECK_EQ(drop_run(0), 0);
	CHECK_EQ(drop_run(1), DROP_PKTS);
	d = drop_run(0.3);
	CHECK(d > DROP_PKTS / 6 && d < DROP_PKTS / 2);
}

/* --- flap ------------------------------------------------------------------ */

#define FLAP_T		1000000ULL	/* period, ns */
#define FLAP_D		200000ULL	/* down, ns */

/* the fabric at time @t, after every FC exchange */
static void at(uint64_t t)
{
	tf.now = t;
	tf_pump(&tf);
}

TEST(flap_schedule)
{
	struct sfab_link_counters lc;
	struct sfab_sw_port_cnt sc;
	struct sfab_sw_port *p;
	struct sfab_sw *sw;
	uint64_t t0;
	unsigned int k;

	one_switch();
	sw = tf.sw[0];
	p = &sw->port[1];
	REQUIRE(p->link.state == SFAB_PORT_ACTIVE);
	CHECK_EQ(sfab_sw_port_flap(sw, 1, FLAP_T, 0), -1);
	CHECK_EQ(sfab_sw_port_flap(sw, 1, FLAP_T, FLAP_T), -1);
	CHECK_EQ(sfab_sw_port_flap(sw, 0, FLAP_T, FLAP_D), -1);
	CHECK_EQ(sfab_sw_port_flap(sw, 5, FLAP_T, FLAP_D), -1);
	t0 = tf.now;
	CHECK_EQ(sfab_sw_port_flap(sw, 1, FLAP_T, FLAP_D), 0);
	CHECK(sfab_sw_deadline(sw) <= t0);
	for (k = 0; k < 3; k++) {
		uint64_t c = t0 + k * FLAP_T;

		/* down at the start of each period, for FLAP_D */
		at(c);
		CHECK_EQ(p->link.phys, SFAB_PHYS_DISABLED);
		CHECK_EQ(p->inj.flaps, k + 1);
		CHECK_EQ(p->link.cnt.link_downed, k + 1);
		CHECK_EQ(p->inj.flap_next, c + FLAP_D);
		CHECK(sfab_sw_deadline(sw) <= c + FLAP_D);
		at(c + FLAP_D - 1);
		CHECK_EQ(p->link.phys, SFAB_PHYS_DISABLED);
		/* then up: it trains again with its peer, to Init */
		at(c + FLAP_D);
		CHECK_EQ(p->link.phys, SFAB_PHYS_LINKUP);
		CHECK_EQ(p->link.state, SFAB_PORT_INIT);
		CHECK_EQ(p->inj.flap_next, c + FLAP_T);
		tf_activate(&tf);
		at(c + FLAP_T - 1);
		CHECK_EQ(p->link.state, SFAB_PORT_ACTIVE);
		CHECK_EQ(p->inj.flaps, k + 1);
	}
	sfab_sw_pma_counters(sw, 1, &lc, &sc);
	CHECK_EQ(lc.link_downed, 3);
	/* the other port never moved */
	CHECK_EQ(sw->port[2].link.cnt.link_downed, 0);
	CHECK_EQ(sw->port[2].link.state, SFAB_PORT_ACTIVE);

	/* slept through whole periods: down now, the schedule from now */
	at(t0 + 10 * FLAP_T + 12345);
	CHECK_EQ(p->link.phys, SFAB_PHYS_DISABLED);
	CHECK_EQ(p->inj.flaps, 4);
	CHECK_EQ(p->inj.flap_next, t0 + 10 * FLAP_T + 12345 + FLAP_D);

	/* off while down: the port comes back, and stays */
	CHECK_EQ(sfab_sw_port_flap(sw, 1, 0, 0), 0);
	CHECK(p->link.phys != SFAB_PHYS_DISABLED);
	at(tf.now + 1);
	CHECK_EQ(p->link.phys, SFAB_PHYS_LINKUP);
	tf_activate(&tf);
	at(tf.now + 5 * FLAP_T);
	CHECK_EQ(p->link.state, SFAB_PORT_ACTIVE);
	CHECK_EQ(p->inj.flaps, 4);
	CHECK_EQ(p->link.cnt.link_downed, 4);
	tf_fini(&tf);
}
