/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sfab direct verbs for CUDA device code: a GPU kernel posts work requests
 * to a queue pair whose rings live in GPU memory (sfabdv_create_qp(3) over
 * a dma-buf of it), rings the HCA's doorbell itself and polls completions
 * in GPU memory, with no CPU on the path.  See sfabdv(7) and
 * Documentation/sfab/gda.rst.
 *
 * Every layout and rule comes from the hardware contract (include/sfab):
 * the WQE encoder, the ring arithmetic, the doorbell value and record, the
 * CQE's poll word and its decoder are the same static inline helpers the
 * driver, libsfab, the device model and the accelerator programs compile;
 * here they are compiled for the GPU too.  This header adds only what a
 * GPU needs beyond them: where things are (device pointers) and the memory
 * ordering (release stores and system-scope fences).
 *
 * The rules (sfabdv_create_qp(3), "POSTING FROM THE ACCELERATOR"):
 *   WQE(s) -> fence -> doorbell record -> fence -> one 64-bit doorbell store;
 *   CQE poll word (acquire) -> the CQE -> the CQ's record (release).
 */
#ifndef __SFABDV_CUDA_CUH__
#define __SFABDV_CUDA_CUH__

#ifndef __CUDACC__
#error "sfabdv_cuda.cuh is for CUDA (nvcc); C code uses sfabdv.h"
#endif

#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <stddef.h>

#include <sfab/sfab_types.h>

/*
 * The contract's helpers are "static inline" C; make them
 * __host__ __device__ while their headers are read.  Only the contract's
 * own headers are read in between: the system headers they include are
 * already in.
 */
#pragma push_macro("inline")
#undef inline
#define inline __host__ __device__ __inline__
#include <sfab/sfab_regs.h>
#include <sfab/sfab_ring.h>
#include <sfab/sfab_queue.h>
#pragma pop_macro("inline")

/* a send queue in GPU memory, as sfabdv_query_qp(3) describes it */
struct sfabdv_cuda_sq {
	uint8_t *ring;			/* device pointer: dma-buf base + sq_offset */
	struct sfab_dbrec *dbrec;	/* device pointer: base + sq_dbrec_offset */
	uint64_t *db;			/* device pointer to the doorbell page + sq_db_offset */
	uint32_t qpn;
	uint8_t log_depth;
	uint8_t log_stride;
	uint16_t pi;			/* free-running producer index */
	uint16_t ci;			/* retired up to here (CQE_WQE_INDEX) */
};

/* a completion queue in GPU memory, as sfabdv_query_cq(3) describes it */
struct sfabdv_cuda_cq {
	const uint8_t *ring;		/* device pointer: base + ring_offset */
	struct sfab_dbrec *dbrec;	/* device pointer: base + dbrec_offset */
	uint8_t log_depth;
	uint8_t log_stride;		/* SFAB_CQE_LOG_STRIDE */
	uint16_t ci;			/* free-running consumer index */
};

/* ---- memory ordering -------------------------------------------------- */

/*
 * Every function here is __host__ __device__: on the GPU the ordering is
 * PTX; compiled for the host (a CPU thread posting into the same rings,
 * as tests/gda/lib/cuda_engine.cu's --cpu mode does) it is the
 * compiler's atomics with the same semantics, so both run this code.
 */

/* a system-scope release fence: what came before is visible to the HCA */
static __host__ __device__ __forceinline__ void sfabdv_cuda_fence(void)
{
#ifdef __CUDA_ARCH__
	__threadfence_system();
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* a 32-bit store with system-scope release semantics */
static __host__ __device__ __forceinline__ void
sfabdv_cuda_st_release(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
	asm volatile("st.release.sys.global.u32 [%0], %1;"
		     : : "l"(p), "r"(v) : "memory");
#else
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

/* a 32-bit load with system-scope acquire semantics */
static __host__ __device__ __forceinline__ uint32_t
sfabdv_cuda_ld_acquire(const uint32_t *p)
{
#ifdef __CUDA_ARCH__
	uint32_t v;

	asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
		     : "=r"(v) : "l"(p) : "memory");
	return v;
#else
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

/*
 * One 64-bit store to the doorbell: the device takes two 32-bit halves as
 * a malformed doorbell, so this must be a single access (the doorbell
 * page is mapped uncached or write-combining, cudaHostRegisterIoMemory).
 */
static __host__ __device__ __forceinline__ void
sfabdv_cuda_mmio_st64(uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
	asm volatile("st.mmio.relaxed.sys.global.u64 [%0], %1;"
		     : : "l"(p), "l"(v) : "memory");
#else
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

/* ---- posting ---------------------------------------------------------- */

/* room for this many more WQEs (retired by completions, sfab_sq_retire()) */
static __host__ __device__ __forceinline__ uint32_t sfabdv_cuda_sq_room(const struct sfabdv_cuda_sq *sq)
{
	return sfab_ring_free(sq->pi, sq->ci, sq->log_depth);
}

/*
 * Write one one-SGE RDMA WRITE, RDMA READ or SEND WQE into the next slot
 * (sfab_wqe_rdma_1sge()); nothing is visible to the HCA until
 * sfabdv_cuda_ring_sq().  Returns 0, -EINVAL for a WQE the encoder
 * refuses or -ENOSPC when the ring is full.
 */
static __host__ __device__ __forceinline__ int
sfabdv_cuda_post_1sge(struct sfabdv_cuda_sq *sq, uint8_t opcode, uint8_t flags,
		      uint64_t wr_id, uint64_t raddr, uint32_t rkey,
		      uint64_t laddr, uint32_t len, uint32_t lkey)
{
	struct sfab_wqe_rdma_1sge *w;

	if (!sfabdv_cuda_sq_room(sq))
		return -ENOSPC;
	w = (struct sfab_wqe_rdma_1sge *)(sq->ring +
		((size_t)sfab_ring_slot(sq->pi, sq->log_depth) << sq->log_stride));
	if (sfab_wqe_rdma_1sge(w, opcode, flags, wr_id, raddr, rkey, laddr,
			       len, lkey) < 0)
		return -EINVAL;
	sq->pi++;
	return 0;
}

/*
 * Publish every WQE written so far and ring the doorbell: fence, the
 * record (release), fence, one 64-bit doorbell store.
 */
static __host__ __device__ __forceinline__ void sfabdv_cuda_ring_sq(struct sfabdv_cuda_sq *sq)
{
	sfabdv_cuda_fence();
	sfabdv_cuda_st_release((uint32_t *)&sq->dbrec->idx,
			       sfab_le32_to_cpu(sfab_dbrec_val(sq->pi)));
	sfabdv_cuda_fence();
	sfabdv_cuda_mmio_st64(sq->db, sfab_db_val(sq->qpn, sq->pi, 0));
}

/* ---- polling ---------------------------------------------------------- */

/*
 * Take the next completion if there is one: 1 with *info filled (and the
 * send queue's slots retired up to its WQE when @sq is given), 0 when the
 * CQ is empty.  The CQ's record then says the slot is free: no MMIO.
 */
static __host__ __device__ __forceinline__ int
sfabdv_cuda_poll_cq(struct sfabdv_cuda_cq *cq, struct sfabdv_cuda_sq *sq,
		    struct sfab_cqe_info *info)
{
	const struct sfab_cqe *cqe = (const struct sfab_cqe *)(cq->ring +
		((size_t)sfab_ring_slot(cq->ci, cq->log_depth) << cq->log_stride));
	uint32_t word = sfabdv_cuda_ld_acquire((const uint32_t *)
		((const uint8_t *)cqe + SFAB_CQE_POLL_OFFSET));

	if (!sfab_ring_entry_is_new((uint8_t)(word >> 24), cq->ci, cq->log_depth))
		return 0;
	sfab_cqe_decode(cqe, info);
	if (sq && !info->recv)
		sfab_sq_retire(&sq->ci, sq->pi, sfab_cqe_wqe_index(cqe));
	cq->ci++;
	sfabdv_cuda_st_release((uint32_t *)&cq->dbrec->idx,
			       sfab_le32_to_cpu(sfab_dbrec_val(cq->ci)));
	return 1;
}

#endif /* __SFABDV_CUDA_CUH__ */
