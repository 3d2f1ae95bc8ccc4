/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copy-path: how fast the HCA engine moves bulk data, against memcpy.
 *
 * Two engines in this process, cabled back to back the way the unit tests
 * cable them (tests/unit/rc_pair.h: each with its host memory, an RC QP
 * connected to the other's, 1 MiB registered), 4096-byte path MTU.  One
 * run is an RDMA WRITE of 1 MiB from node 0's memory into node 1's,
 * posted, carried and completed: WQE fetch, DMA reads of the source,
 * packets built and sealed (ICRC, VCRC), the link's credit accounting,
 * the cable (each frame copied, as a socket would), the receiver's checks
 * (VCRC, ICRC, PSN, rkey), DMA writes into the target, ACKs, the CQE.
 * Against it: memcpy() of the same 1 MiB between the same two buffers.
 * Both are timed over several repetitions of a batch; the best batch of
 * each counts (the least disturbed by the rest of the machine).
 *
 *	copy-path [REPS]	prints
 *	copy-path: sfab X MiB/s, memcpy Y MiB/s, ratio Z
 *
 * Exit status 0 when the data arrived intact every time.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REQUIRE(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "copy-path: %s:%d: %s failed\n",\
				__FILE__, __LINE__, #cond);		\
			exit(1);					\
		}							\
	} while (0)

#include "rc_pair.h"

#define LEN		(1U << 20)	/* one WRITE, RP_MEM */
#define BATCH		16		/* transfers per timed batch */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* one 1 MiB RDMA WRITE, node 0 -> node 1, to its completion */
static void one_write(uint64_t wr_id)
{
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	s = rp_wqe(SFAB_WQE_RDMA_WRITE, wr_id, 0, 0, LEN);
	s.raddr = RP[1].mem;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	REQUIRE(sfab_le64_to_cpu(cqe.wr_id) == wr_id);
	REQUIRE(cqe.status == SFAB_CQE_STS_SUCCESS);
}

int main(int argc, char **argv)
{
	struct rp_cfg cfg = { .mtu = SFAB_PI_MTU_4096, .sq_log = 6 };
	int reps = argc > 1 ? atoi(argv[1]) : 8;
	double best_sfab = 1e9, best_mcpy = 1e9, t;
	uint64_t wr_id = 1;
	uint8_t *src, *dst;
	int r, i;

	if (reps < 1 || reps > 1000) {
		fprintf(stderr, "usage: copy-path [REPS 1..1000]\n");
		return 2;
	}
	/*
	 * The in-memory cable keeps its frame buffers (rc_pair.h); whatever
	 * else is allocated and freed per transfer stays in the process too,
	 * rather than being faulted in again and again.
	 */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	rp_up(&cfg);
	src = rp_mem(0, 0);
	dst = rp_mem(1, 0);
	for (r = 0; r < reps; r++) {
		rp_fill(0, 0, LEN, (uint8_t)r);
		t = now_s();
		for (i = 0; i < BATCH; i++)
			one_write(wr_id++);
		t = now_s() - t;
		if (t < best_sfab)
			best_sfab = t;
		REQUIRE(!memcmp(src, dst, LEN));

		memset(dst, 0, LEN);
		t = now_s();
		for (i = 0; i < BATCH; i++) {
			memcpy(dst, src, LEN);
			/* the copy must happen each time */
			__asm__ __volatile__("" : : "r"(dst) : "memory");
		}
		t = now_s() - t;
		if (t < best_mcpy)
			best_mcpy = t;
		REQUIRE(!memcmp(src, dst, LEN));
	}
	/* the engines kept their books */
	REQUIRE(RP[0].h->e->stats.rc_retransmits == 0);
	REQUIRE(rp_state(0) == SFAB_QPS_RTS && rp_state(1) == SFAB_QPS_RTS);
	rp_down();
	printf("copy-path: sfab %.0f MiB/s, memcpy %.0f MiB/s, ratio %.3f\n",
	       BATCH / best_sfab, BATCH / best_mcpy, best_mcpy / best_sfab);
	return 0;
}
