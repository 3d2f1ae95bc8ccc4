// SPDX-License-Identifier: GPL-2.0-only
/*
 * gda/cuda-header: a CUDA kernel that uses every function of libsfab's
 * device-side header (sfabdv_cuda.cuh): post one-SGE WQEs, ring the send
 * queue, poll the CQ.  tests/gda/run-gda compiles it with nvcc (warnings
 * are errors) and checks the PTX for the ordering the header promises.
 */
#include "sfabdv_cuda.cuh"

__global__ void gda_cuda_post(struct sfabdv_cuda_sq *sq,
			      struct sfabdv_cuda_cq *cq, uint64_t raddr,
			      uint32_t rkey, uint64_t laddr, uint32_t lkey,
			      int n, int *out)
{
	struct sfab_cqe_info ci;
	int i, got = 0, err = 0;

	if (threadIdx.x || blockIdx.x)
		return;
	for (i = 0; i < n; i++) {
		while (!sfabdv_cuda_sq_room(sq))
			got += sfabdv_cuda_poll_cq(cq, sq, &ci);
		err |= sfabdv_cuda_post_1sge(sq, SFAB_WQE_RDMA_WRITE,
					     i == n - 1 ? SFAB_WQE_SIGNALED : 0,
					     i, raddr + 64 * i, rkey,
					     laddr + 64 * i, 64, lkey);
	}
	sfabdv_cuda_ring_sq(sq);
	while (!got)
		got = sfabdv_cuda_poll_cq(cq, sq, &ci);
	out[0] = err;
	out[1] = ci.status;
}
