// SPDX-License-Identifier: GPL-2.0-only
/*
 * gda/cuda-gpu-post and gda/cuda-engine-cpu: a poster writes RDMA WRITEs
 * into host-pinned rings through libsfab's device-side header
 * (sfabdv_cuda.cuh) while the model's engine, linked into this program
 * (cuda_engine_host.c), executes them against a second engine on an
 * in-memory cable.
 *
 *	cuda_engine		a CUDA kernel (one thread) is the poster;
 *				exit 77 when there is no CUDA device
 *	cuda_engine --cpu	a host thread is, running the same header
 *				(its host pass: GCC atomics for the PTX)
 *
 * The GPU cannot reach the engine's MMIO handler: its doorbell store
 * (st.mmio, sfabdv_cuda_ring_sq()) lands in a pinned host page that the
 * host's pump thread watches and forwards to the engine as the QEMU
 * shell's BAR2 write would.  N WRITEs of LEN bytes in batches of BATCH,
 * the last of each batch signaled; every CQE must succeed, name its
 * batch's last WQE, and every byte must land on node 1.  One summary
 * line; exit 0 pass, 1 fail, 77 skip.  Every wait is bounded.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "sfabdv_cuda.cuh"
#include "cuda_engine.h"

#define CE_N		1000
#define CE_LEN		1024
#define CE_BATCH	16
#define CE_POST_TIMEOUT_NS	(20ULL * 1000000000ULL)	/* the poster gives up */
#define CE_WAIT_S	30				/* the host gives up */

enum ce_err {
	CE_OK,
	CE_ERR_POST,		/* sfabdv_cuda_post_1sge() refused */
	CE_ERR_TIMEOUT,		/* CE_POST_TIMEOUT_NS without all CQEs */
	CE_ERR_ABORT,		/* the host said stop */
	CE_ERR_ORDER,		/* a CQE for another WQE than expected */
	CE_ERR_RETIRE,		/* SQ not fully retired at the end */
};

static const char *const ce_err_name[] = {
	"ok", "post refused", "timed out", "aborted by the host",
	"CQE for an unexpected WQE", "SQ not retired",
};

/* what the poster is given (by value) */
struct ce_job {
	struct sfabdv_cuda_sq sq;
	struct sfabdv_cuda_cq cq;
	uint64_t raddr, laddr;
	uint32_t rkey, lkey;
	uint32_t n, len, batch;
	uint64_t timeout_ns;
	const volatile uint32_t *abort;	/* set by the host: stop */
};

/* what the poster reports, in pinned memory; done is written last */
struct ce_result {
	uint32_t err;			/* enum ce_err */
	uint32_t posted, cqes, bad_cqes, doorbells;
	uint32_t first_bad_status, first_bad_wqe;
	uint64_t last_wr_id, expected_wr_id;
	uint32_t done;
};

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- one poster loop, compiled for the GPU and for the host ------------ */

static __host__ __device__ uint64_t ce_now_ns(void)
{
#ifdef __CUDA_ARCH__
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
#else
	return cpu_now_ns();
#endif
}

static __host__ __device__ void ce_relax(void)
{
#ifdef __CUDA_ARCH__
	__nanosleep(100);
#else
	sched_yield();
#endif
}

static __host__ __device__ void ce_post_all(struct ce_job j, struct ce_result *r)
{
	struct sfab_cqe_info ci;
	uint32_t posted = 0, cqes = 0, bad = 0, doorbells = 0;
	uint32_t want = (j.n + j.batch - 1) / j.batch;
	uint32_t err = CE_OK, spins = 0;
	uint64_t t0 = ce_now_ns();

	memset(&ci, 0, sizeof(ci));
	while (cqes < want) {
		uint32_t k = j.n - posted < j.batch ? j.n - posted : j.batch;
		bool progress = false;

		if (posted < j.n && sfabdv_cuda_sq_room(&j.sq) >= k) {
			uint32_t i;

			for (i = 0; i < k; i++) {
				uint64_t at = (uint64_t)(posted + i) * j.len;

				if (sfabdv_cuda_post_1sge(&j.sq, SFAB_WQE_RDMA_WRITE,
					    i == k - 1 ? SFAB_WQE_SIGNALED : 0,
					    posted + i, j.raddr + at, j.rkey,
					    j.laddr + at, j.len, j.lkey)) {
					err = CE_ERR_POST;
					goto out;
				}
			}
			posted += k;
			sfabdv_cuda_ring_sq(&j.sq);
			doorbells++;
			progress = true;
		}
		while (sfabdv_cuda_poll_cq(&j.cq, &j.sq, &ci)) {
			/* batch cqes ends at its last WQE */
			uint64_t last = (uint64_t)(cqes + 1) * j.batch;
			uint64_t expect = (last < j.n ? last : j.n) - 1;

			progress = true;
			if (ci.status != SFAB_CQE_STS_SUCCESS && !bad++) {
				r->first_bad_status = ci.status;
				r->first_bad_wqe = (uint32_t)ci.wr_id;
			}
			r->last_wr_id = ci.wr_id;
			if (ci.recv || ci.wr_id != expect) {
				r->expected_wr_id = expect;
				err = CE_ERR_ORDER;
				cqes++;
				goto out;
			}
			cqes++;
		}
		if (progress) {
			spins = 0;
			continue;
		}
		if (++spins % 64)
			continue;
		if (*j.abort) {
			err = CE_ERR_ABORT;
			break;
		}
		if (ce_now_ns() - t0 > j.timeout_ns) {
			err = CE_ERR_TIMEOUT;
			break;
		}
		ce_relax();
	}
	if (err == CE_OK && j.sq.ci != j.sq.pi)
		err = CE_ERR_RETIRE;
out:
	r->err = err;
	r->posted = posted;
	r->cqes = cqes;
	r->bad_cqes = bad;
	r->doorbells = doorbells;
	sfabdv_cuda_fence();
	sfabdv_cuda_st_release(&r->done, 1);
}

__global__ void ce_kernel(struct ce_job j, struct ce_result *r)
{
	if (threadIdx.x || blockIdx.x)
		return;
	ce_post_all(j, r);
}

struct ce_cpu_arg {
	struct ce_job j;
	struct ce_result *r;
};

static void *ce_cpu_poster(void *p)
{
	struct ce_cpu_arg *a = (struct ce_cpu_arg *)p;

	ce_post_all(a->j, a->r);
	return NULL;
}

/* ---- the host program -------------------------------------------------- */

static bool gpu;

static void *ce_alloc(size_t size)
{
	void *p = NULL;

	if (gpu) {
		cudaError_t e = cudaHostAlloc(&p, size, cudaHostAllocMapped);

		if (e != cudaSuccess) {
			printf("cudaHostAlloc(%zu): %s\n", size, cudaGetErrorString(e));
			return NULL;
		}
	} else if (posix_memalign(&p, 4096, size)) {
		printf("posix_memalign(%zu) failed\n", size);
		return NULL;
	}
	memset(p, 0, size);
	return p;
}

/* the address the poster uses for host memory at @p */
static uint8_t *ce_dev(void *p)
{
	void *d = p;

	if (gpu) {
		cudaError_t e = cudaHostGetDevicePointer(&d, p, 0);

		if (e != cudaSuccess) {
			printf("cudaHostGetDevicePointer: %s\n", cudaGetErrorString(e));
			return NULL;
		}
	}
	return (uint8_t *)d;
}

int main(int argc, char **argv)
{
	const char *mode;
	struct ce_layout l;
	struct ce_pump_stats ps;
	struct ce_job j;
	struct ce_cpu_arg cpu_arg;
	pthread_t cpu_tid;
	struct ce_result *r;
	uint32_t *abort_flag;
	uint8_t *mem0, *db_page, *dmem0, *ddb;
	char err[512];
	uint64_t t0, t1;
	int rc = 1;

	if (argc == 2 && !strcmp(argv[1], "--cpu")) {
		gpu = false;
	} else if (argc == 1) {
		int n = 0, major = 0;
		cudaError_t e = cudaGetDeviceCount(&n);

		if (e != cudaSuccess) {
			printf("no CUDA device: %s\n", cudaGetErrorString(e));
			return 77;
		}
		if (n == 0) {
			printf("no CUDA device: none found\n");
			return 77;
		}
		/* built for sm_90 (and its PTX, for later GPUs) */
		e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
		if (e != cudaSuccess) {
			printf("no CUDA device: device 0: %s\n", cudaGetErrorString(e));
			return 77;
		}
		if (major < 9) {
			printf("no CUDA device: device 0 is compute capability %d.x, this test is built for 9.0 and later\n",
			       major);
			return 77;
		}
		gpu = true;
	} else {
		fprintf(stderr, "usage: %s [--cpu]\n", argv[0]);
		return 2;
	}
	mode = gpu ? "gpu" : "cpu";

	mem0 = (uint8_t *)ce_alloc(ce_mem_size());
	db_page = (uint8_t *)ce_alloc(4096);
	r = (struct ce_result *)ce_alloc(sizeof(*r) + sizeof(*abort_flag));
	if (!mem0 || !db_page || !r)
		return 1;
	abort_flag = (uint32_t *)(r + 1);
	dmem0 = ce_dev(mem0);
	ddb = ce_dev(db_page);
	if (!dmem0 || !ddb)
		return 1;
	if (ce_setup(mem0, CE_N, CE_LEN, &l, err, sizeof(err))) {
		printf("%s\n", err);
		return 1;
	}

	memset(&j, 0, sizeof(j));
	j.sq.ring = dmem0 + l.sq_off;
	j.sq.dbrec = (struct sfab_dbrec *)(dmem0 + l.sq_dbrec_off);
	j.sq.db = (uint64_t *)(ddb + l.db_off);
	j.sq.qpn = l.qpn;
	j.sq.log_depth = l.sq_log;
	j.sq.log_stride = l.sq_slog;
	j.cq.ring = dmem0 + l.cq_off;
	j.cq.dbrec = (struct sfab_dbrec *)(dmem0 + l.cq_dbrec_off);
	j.cq.log_depth = l.cq_log;
	j.cq.log_stride = SFAB_CQE_LOG_STRIDE;
	j.raddr = l.raddr;
	j.laddr = l.laddr;
	j.rkey = l.rkey;
	j.lkey = l.lkey;
	j.n = CE_N;
	j.len = CE_LEN;
	j.batch = CE_BATCH;
	j.timeout_ns = CE_POST_TIMEOUT_NS;
	j.abort = (const volatile uint32_t *)((uint8_t *)ce_dev(r) + sizeof(*r));

	if (ce_pump_start(db_page)) {
		printf("cannot start the pump thread\n");
		return 1;
	}
	t0 = cpu_now_ns();
	if (gpu) {
		cudaError_t e;

		ce_kernel<<<1, 1>>>(j, (struct ce_result *)ce_dev(r));
		e = cudaGetLastError();
		if (e != cudaSuccess) {
			printf("kernel launch: %s\n", cudaGetErrorString(e));
			goto stop;
		}
	} else {
		cpu_arg.j = j;
		cpu_arg.r = r;
		if (pthread_create(&cpu_tid, NULL, ce_cpu_poster, &cpu_arg)) {
			printf("cannot start the poster thread\n");
			goto stop;
		}
	}
	/* the poster gives up after 20 s; after 30 s, tell it to stop */
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 1000000 };

		if (gpu) {
			cudaError_t e = cudaStreamQuery(0);

			if (e != cudaSuccess && e != cudaErrorNotReady) {
				printf("kernel: %s\n", cudaGetErrorString(e));
				goto stop;
			}
		}
		if (cpu_now_ns() - t0 > CE_WAIT_S * 1000000000ULL) {
			__atomic_store_n(abort_flag, 1, __ATOMIC_RELEASE);
			if (cpu_now_ns() - t0 > (CE_WAIT_S + 5) * 1000000000ULL) {
				printf("%s poster: no result in %d s\n", mode, CE_WAIT_S + 5);
				goto stop;
			}
		}
		nanosleep(&ts, NULL);
	}
	t1 = cpu_now_ns();
	if (gpu) {
		cudaError_t e = cudaDeviceSynchronize();

		if (e != cudaSuccess) {
			printf("kernel: %s\n", cudaGetErrorString(e));
			goto stop;
		}
	} else {
		pthread_join(cpu_tid, NULL);
	}
	rc = 0;
stop:
	if (ce_pump_stop(&ps, err, sizeof(err))) {
		printf("%s\n", err);
		return 1;	/* the engines may still be in use: no teardown */
	}
	if (rc)
		return 1;
	rc = 1;
	if (r->err != CE_OK || r->bad_cqes) {
		printf("%s poster: %s: %u of %u WRITEs posted, %u CQEs, %u failed",
		       mode, ce_err_name[r->err < 6 ? r->err : 0], r->posted, CE_N,
		       r->cqes, r->bad_cqes);
		if (r->bad_cqes)
			printf(" (the first: status %u, WQE %u)",
			       r->first_bad_status, r->first_bad_wqe);
		if (r->err == CE_ERR_ORDER)
			printf("; wr_id %llu where %llu was due",
			       (unsigned long long)r->last_wr_id,
			       (unsigned long long)r->expected_wr_id);
		printf("\n");
	} else if (ce_verify(CE_N, CE_LEN, err, sizeof(err))) {
		printf("%s\n", err);
	} else if (ps.doorbells == 0 || ps.doorbells > r->doorbells) {
		printf("%s: %u doorbells rung, %lu seen\n", mode, r->doorbells,
		       ps.doorbells);
	} else {
		printf("%s poster: %u RDMA WRITEs of %u bytes verified on node 1, %u CQEs, %u doorbells rung, %lu seen by the engine, %lu CQ record reads, %.1f ms\n",
		       mode, CE_N, CE_LEN, r->cqes, r->doorbells, ps.doorbells,
		       ps.dbrec_reads, (double)(t1 - t0) / 1e6);
		rc = 0;
	}
	ce_teardown();
	if (gpu) {
		cudaFreeHost(mem0);
		cudaFreeHost(db_page);
		cudaFreeHost(r);
	} else {
		free(mem0);
		free(db_page);
		free(r);
	}
	return rc;
}
