/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gda/cuda-engine-cpu, gda/cuda-gpu-post: the host side (cuda_engine_host.c,
 * plain C, the unit tests' fake host and RC pair) as the poster
 * (cuda_engine.cu) sees it.  Node 0's host memory and its doorbell page
 * are the caller's (pinned and mapped for a GPU); node 1 is the peer.
 */
#ifndef SFAB_GDA_CUDA_ENGINE_H
#define SFAB_GDA_CUDA_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* node 0's queues, as byte offsets into its host memory */
struct ce_layout {
	uint64_t sq_off, sq_dbrec_off;	/* the QP's SQ ring and its record */
	uint64_t cq_off, cq_dbrec_off;	/* its CQ ring and record */
	uint64_t src_off;		/* the data the WRITEs send */
	uint64_t laddr;			/* its bus address (the MR's iova) */
	uint64_t raddr;			/* node 1's registered memory */
	uint64_t db_off;		/* the SQ doorbell in the doorbell page */
	uint32_t qpn, lkey, rkey;
	uint8_t sq_log, sq_slog, cq_log;
};

struct ce_pump_stats {
	unsigned long doorbells;	/* doorbell words seen changed */
	unsigned long dbrec_reads;	/* node 0 read its CQ's record */
	unsigned long frames;		/* data frames node 1 received */
};

/* bytes of node 0's host memory (HOST_MEM_SIZE) */
size_t ce_mem_size(void);

/*
 * Both nodes up, cabled, RC QPs connected; node 0's CQ and QP with
 * doorbell records, its source data (@n WRITEs of @len bytes) filled in.
 * @mem0: ce_mem_size() bytes for node 0's host memory.  0, or -1 with a
 * reason in @err.
 */
int ce_setup(void *mem0, unsigned int n, uint32_t len, struct ce_layout *l,
	     char *err, size_t errlen);

/*
 * The "PCIe" side: a thread that watches the doorbell page (4 KiB the
 * poster stores doorbells into) and hands every change to node 0's
 * engine as its BAR2 write would, then moves the frames both ways.
 */
int ce_pump_start(volatile void *db_page);
/* stop it (bounded), its counts; -1 when the engine reported an error */
int ce_pump_stop(struct ce_pump_stats *st, char *err, size_t errlen);

/* every byte landed on node 1 and nothing else changed there; 0 or -1 */
int ce_verify(unsigned int n, uint32_t len, char *err, size_t errlen);

void ce_teardown(void);

#ifdef __cplusplus
}
#endif

#endif /* SFAB_GDA_CUDA_ENGINE_H */
