/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab HCA engine: memory regions (include/sfab/sfab_queue.h).
 *
 *  - CREATE_MR copies the page list into the engine (mr_pool, first fit
 *    on a bitmap of it; no sort, no walk over the MR table); the host may
 *    free its copy when the command completes.  The list and the search
 *    count against the admin work budget (SFAB_ENGINE_WORK_BYTES).  Keys are
 *    index << 8 | variant; index 0 is never used, so a zeroed lkey never
 *    matches.  The local DMA lkey's index is outside the table.
 *  - A fast-register MR (SFAB_MR_FAST_REG) reserves room for its largest
 *    page list and is free (no access) until a REG_MR WQE registers it;
 *    LOCAL_INV and SEND_INV free it again.  Only privileged (SFAB_QP_PRIV)
 *    QPs may post REG_MR: the device reads its page list of bus addresses.
 *  - UPDATE_MR invalidates a CREATE_MR region (no access through it) or
 *    gives it a new page list of the same length, in place: same index,
 *    same extent of the pool.  The new list is read twice, once to check
 *    it and once into the pool, so a list that cannot be read leaves the
 *    old one in use; both reads count against the admin work budget.
 *  - Every access names a key, a PD, a range and the rights it needs; the
 *    checks are the IBA ones (C10-x): the current variant, the same PD,
 *    the range inside [iova, iova + length), the access flags.  Each
 *    access looks the MR up again (per packet, per SGE), so an
 *    invalidation is seen by work already begun at its next access.
 *  - A memory window (SFAB_MR_WINDOW) is an entry of the same table with
 *    no pages: a BIND_MW WQE gives it a range of an MR and remote rights
 *    (sfab_engine_mw_bind()); a peer's access through it is checked
 *    against the window and then uses the MR's pages.  An MR counts the
 *    windows bound to it and cannot be destroyed while there are any.
 */
#include <string.h>

#include "sfab_engine.h"
#include "sfab_engine_int.h"

static bool hca_up(const struct sfab_engine *e)
{
	return (e->dev_sts & SFAB_DEV_STS_HCA_INIT) &&
	       !(e->dev_sts & SFAB_DEV_STS_FATAL);
}

static bool tail_zero(const struct sfab_aq_cmd *c, size_t used)
{
	size_t i;

	for (i = used; i < sizeof(c->u.raw); i++)
		if (c->u.raw[i])
			return false;
	return true;
}

/*
 * The first bit in [from, end) of bitmap @m that is @set; @end when there
 * is none.  *words counts the words looked at.
 */
static uint32_t map_find(const uint64_t *m, uint32_t from, uint32_t end,
			 bool set, uint32_t *words)
{
	while (from < end) {
		uint32_t w = from / 64, bit;
		uint64_t x = (set ? m[w] : ~m[w]) & (~0ULL << (from % 64));

		(*words)++;
		if (x) {
			bit = w * 64 + (uint32_t)__builtin_ctzll(x);
			return bit < end ? bit : end;
		}
		from = (w + 1) * 64;
	}
	return end;
}

static void map_set(uint64_t *m, uint32_t from, uint32_t n, bool set)
{
	while (n) {
		uint32_t w = from / 64, b = from % 64;
		uint32_t k = 64 - b < n ? 64 - b : n;
		uint64_t bits = (k == 64 ? ~0ULL : ((1ULL << k) - 1)) << b;

		if (set)
			m[w] |= bits;
		else
			m[w] &= ~bits;
		from += k;
		n -= k;
	}
}

/*
 * First fit in mr_pool for @n entries: the lowest offset with @n free
 * entries; UINT32_MAX when there is no room.  The pool map is walked
 * once, run by run: at most its words plus two per free run (one per MR
 * extent and one), each charged to the command's work (8 bytes a word).
 */
static uint32_t pool_alloc(struct sfab_engine *e, uint32_t n)
{
	uint32_t pos = 0, start, end, words = 0, found = UINT32_MAX;

	if (!n)
		return 0;
	while (pos <= SFAB_ENGINE_MR_POOL - n) {
		start = map_find(e->pool_map, pos, SFAB_ENGINE_MR_POOL, false,
				 &words);
		if (start > SFAB_ENGINE_MR_POOL - n)
			break;
		end = map_find(e->pool_map, start, start + n, true, &words);
		if (end == start + n) {
			found = start;
			break;
		}
		pos = end;
	}
	e->work_bytes += words * 8;
	return found;
}

/*
 * A free MR index, round robin from mr_next: mr_next + 1 .. @limit, then
 * 1 .. mr_next; 0 when every one is in use.
 */
static uint32_t index_alloc(struct sfab_engine *e, uint32_t limit)
{
	uint32_t next = e->mr_next % limit, words = 0, idx;

	idx = map_find(e->mr_map, next + 1, limit + 1, false, &words);
	if (idx > limit) {
		idx = map_find(e->mr_map, 1, next + 1, false, &words);
		if (idx > next)
			idx = 0;
	}
	e->work_bytes += words * 8;
	return idx;
}

/*
 * Read a page list from the host: into @dst, or with @dst NULL only to
 * see that every entry can be read and is aligned.  false on DMA or
 * alignment, said under mr-page-list.
 */
static bool pbl_read(struct sfab_engine *e, uint64_t *dst, uint64_t addr,
		     uint32_t n, unsigned int shift)
{
	uint64_t mask = (1ULL << shift) - 1, scratch[512];
	uint32_t i;

	if (n && (addr & 7)) {
		sfab_engine_guest_error(e, SFAB_GE_MR_PAGE_LIST,
					"MR page list at 0x%llx: not 8-byte aligned",
					(unsigned long long)addr);
		return false;
	}
	for (i = 0; i < n; i += 512) {
		uint32_t k, chunk = n - i < 512 ? n - i : 512;
		uint64_t *d = dst ? &dst[i] : scratch;

		if (sfab_engine_dma_read(e, addr + (uint64_t)i * 8, d, chunk * 8)) {
			sfab_engine_guest_error(e, SFAB_GE_MR_PAGE_LIST,
						"MR page list at 0x%llx: DMA read of entries %u..%u failed",
						(unsigned long long)addr, i,
						i + chunk - 1);
			return false;
		}
		for (k = 0; k < chunk; k++) {
			d[k] = sfab_le64_to_cpu(d[k]);
			if (d[k] & mask) {
				sfab_engine_guest_error(e, SFAB_GE_MR_PAGE_LIST,
							"MR page list entry %u: 0x%llx not aligned to 2^%u",
							i + k,
							(unsigned long long)d[k],
							shift);
				return false;
			}
		}
	}
	return true;
}

/* read a page list from the host into the pool; false on DMA or alignment */
static bool pbl_load(struct sfab_engine *e, uint32_t off, uint64_t addr,
		     uint32_t n, unsigned int shift)
{
	return pbl_read(e, &e->mr_pool[off], addr, n, shift);
}

/* a CREATE_MR/DESTROY_MR field the guest got wrong: BAD_PARAM */
#define mr_bad(e, fmt, ...)						\
	(sfab_engine_guest_error((e), SFAB_GE_MR_PARAM, "MR: " fmt,	\
				 __VA_ARGS__), SFAB_AQ_STS_BAD_PARAM)

/* the pages [iova, iova + length) needs at 2^shift with its first-byte offset */
static uint64_t pages_needed(uint64_t iova, uint64_t length, unsigned int shift)
{
	uint64_t fbo = iova & ((1ULL << shift) - 1);

	return (fbo + length + (1ULL << shift) - 1) >> shift;
}

static bool shift_ok(unsigned int shift)
{
	return shift >= SFAB_MR_MIN_PAGE_SHIFT &&
	       shift <= SFAB_MR_MAX_PAGE_SHIFT &&
	       (SFAB_ENGINE_PAGE_SIZE_CAP >> shift & 1);
}

static uint8_t cmd_create_mr(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			     uint32_t *result0)
{
	const struct sfab_aq_create_mr *q = &c->u.create_mr;
	uint64_t iova = sfab_le64_to_cpu(q->iova);
	uint64_t length = sfab_le64_to_cpu(q->length);
	uint64_t pbl = sfab_le64_to_cpu(q->pbl_addr);
	uint32_t npages = sfab_le32_to_cpu(q->npages);
	uint32_t pdn = sfab_le32_to_cpu(q->pdn);
	uint32_t access = sfab_le32_to_cpu(q->access);
	uint32_t limit = sfab_engine_mr_limit(e), idx, off;
	bool fast = q->flags & SFAB_MR_FAST_REG;
	bool window = q->flags & SFAB_MR_WINDOW;
	struct sfab_engine_mr *mr;

	if (window) {
		if ((q->flags & ~(SFAB_MR_WINDOW | SFAB_MR_WINDOW_TYPE2)) ||
		    q->reserved || iova || length || pbl || npages || access ||
		    q->page_shift ||
		    pdn >= sfab_le32_to_cpu(e->profile.max_pd) ||
		    !tail_zero(c, sizeof(*q)))
			return mr_bad(e, "window: flags 0x%x, pdn %u, or a range, pages, rights or reserved bytes",
				      q->flags, pdn);
		if (e->num_mr >= limit)
			return SFAB_AQ_STS_NO_RESOURCES;
		idx = index_alloc(e, limit);
		if (!idx)
			return SFAB_AQ_STS_NO_RESOURCES;
		mr = &e->mr[idx];
		memset(mr, 0, sizeof(*mr));
		mr->valid = true;
		mr->mw_type = q->flags & SFAB_MR_WINDOW_TYPE2 ? 2 : 1;
		mr->pdn = pdn;
		map_set(e->mr_map, idx, 1, true);
		e->num_mr++;
		e->mr_next = idx % limit;
		*result0 = idx << SFAB_MR_KEY_INDEX_SHIFT;
		return SFAB_AQ_STS_OK;
	}
	if ((q->flags & ~SFAB_MR_FAST_REG) || q->reserved ||
	    (access & ~SFAB_ACCESS_MASK) ||
	    pdn >= sfab_le32_to_cpu(e->profile.max_pd) ||
	    !tail_zero(c, sizeof(*q)))
		return mr_bad(e, "flags 0x%x access 0x%x pdn %u or reserved bytes",
			      q->flags, access, pdn);
	/* IBA: remote write or atomic needs local write */
	if ((access & (SFAB_ACCESS_REMOTE_WRITE | SFAB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & SFAB_ACCESS_LOCAL_WRITE))
		return mr_bad(e, "access 0x%x: remote write without local write",
			      access);
	if (fast) {
		if (iova || length || pbl || !npages ||
		    npages > SFAB_ENGINE_MAX_FAST_REG_PAGES ||
		    (q->page_shift && !shift_ok(q->page_shift)))
			return mr_bad(e, "fast-reg: iova/length/pbl set, npages %u or page_shift %u",
				      npages, q->page_shift);
	} else {
		if (!shift_ok(q->page_shift) || !length ||
		    length > SFAB_ENGINE_MAX_MR_SIZE || iova + length < iova ||
		    !pbl || npages != pages_needed(iova, length, q->page_shift))
			return mr_bad(e, "iova 0x%llx length 0x%llx page_shift %u npages %u pbl 0x%llx",
				      (unsigned long long)iova,
				      (unsigned long long)length,
				      q->page_shift, npages,
				      (unsigned long long)pbl);
	}
	if (npages > SFAB_ENGINE_MR_POOL || e->num_mr >= limit)
		return SFAB_AQ_STS_NO_RESOURCES;
	idx = index_alloc(e, limit);
	if (!idx)
		return SFAB_AQ_STS_NO_RESOURCES;
	off = pool_alloc(e, npages);
	if (off == UINT32_MAX)
		return SFAB_AQ_STS_NO_RESOURCES;
	if (!fast) {
		/* the page list counts against the admin work budget */
		e->work_bytes += npages * 8;
		if (!pbl_load(e, off, pbl, npages, q->page_shift))
			return SFAB_AQ_STS_BAD_PARAM;
	}
	mr = &e->mr[idx];
	memset(mr, 0, sizeof(*mr));
	mr->valid = true;
	mr->fast_reg = fast;
	mr->live = !fast;
	mr->pdn = pdn;
	mr->access = fast ? 0 : access;
	mr->iova = iova;
	mr->length = length;
	mr->page_shift = q->page_shift;
	mr->npages = fast ? 0 : npages;
	mr->max_pages = npages;
	mr->pool_off = off;
	map_set(e->mr_map, idx, 1, true);
	map_set(e->pool_map, off, npages, true);
	e->num_mr++;
	e->mr_next = idx % limit;
	*result0 = idx << SFAB_MR_KEY_INDEX_SHIFT;
	return SFAB_AQ_STS_OK;
}

static struct sfab_engine_mr *mr_of_key(struct sfab_engine *e, uint32_t key)
{
	uint32_t idx = key >> SFAB_MR_KEY_INDEX_SHIFT;

	if (!idx || idx > e->cfg.max_mr || !e->mr[idx].valid)
		return NULL;
	return &e->mr[idx];
}

/* a bound window lets go of its MR */
static void mw_unbind(struct sfab_engine *e, struct sfab_engine_mr *mw)
{
	if (mw->live && mw->parent && e->mr[mw->parent].windows)
		e->mr[mw->parent].windows--;
	if (mw->live && mw->mw_type == 2 && e->num_mw2_bound)
		e->num_mw2_bound--;
	mw->live = false;
	mw->parent = 0;
	mw->qpn = 0;
}

static uint8_t cmd_destroy_mr(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_destroy_mr *q = &c->u.destroy_mr;
	struct sfab_engine_mr *mr = mr_of_key(e, sfab_le32_to_cpu(q->key));

	if (!mr || q->reserved || !tail_zero(c, sizeof(*q)))
		return mr_bad(e, "DESTROY_MR key 0x%x: no such MR or reserved bytes",
			      sfab_le32_to_cpu(q->key));
	if (mr->windows) {
		sfab_engine_guest_error(e, SFAB_GE_MR_PARAM,
					"MR: DESTROY_MR key 0x%x: %u windows bound to it",
					sfab_le32_to_cpu(q->key), mr->windows);
		return SFAB_AQ_STS_BAD_STATE;
	}
	if (mr->mw_type)
		mw_unbind(e, mr);
	map_set(e->mr_map, (uint32_t)(mr - e->mr), 1, false);
	map_set(e->pool_map, mr->pool_off, mr->max_pages, false);
	memset(mr, 0, sizeof(*mr));
	e->num_mr--;
	return SFAB_AQ_STS_OK;
}

/* an UPDATE_MR field the guest got wrong, said once: BAD_PARAM */
#define upd_bad(e, fmt, ...)						\
	(sfab_engine_guest_error((e), SFAB_GE_MR_PARAM,			\
				 "UPDATE_MR: " fmt, __VA_ARGS__),	\
	 SFAB_AQ_STS_BAD_PARAM)

static uint8_t cmd_update_mr(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_update_mr *q = &c->u.update_mr;
	uint32_t key = sfab_le32_to_cpu(q->key);
	uint32_t pdn = sfab_le32_to_cpu(q->pdn);
	uint32_t npages = sfab_le32_to_cpu(q->npages);
	uint64_t pbl = sfab_le64_to_cpu(q->pbl_addr);
	uint32_t new_pdn = sfab_le32_to_cpu(q->new_pdn);
	uint32_t new_access = sfab_le32_to_cpu(q->new_access);
	struct sfab_engine_mr *mr;

	if (q->op != SFAB_MR_UPDATE_INVALIDATE && q->op != SFAB_MR_UPDATE_REMAP &&
	    q->op != SFAB_MR_UPDATE_MODIFY)
		return upd_bad(e, "op %u is not INVALIDATE (%u), REMAP (%u) or MODIFY (%u)",
			       q->op, SFAB_MR_UPDATE_INVALIDATE,
			       SFAB_MR_UPDATE_REMAP, SFAB_MR_UPDATE_MODIFY);
	if (q->reserved)
		return upd_bad(e, "reserved 0x%x not zero",
			       sfab_le16_to_cpu(q->reserved));
	if (!tail_zero(c, sizeof(*q)))
		return upd_bad(e, "%s", "bytes after the command not zero");
	mr = mr_of_key(e, key);
	if (!mr || (key & SFAB_MR_KEY_VARIANT_MASK) != mr->variant)
		return upd_bad(e, "key 0x%x: no such MR", key);
	if (mr->fast_reg)
		return upd_bad(e, "key 0x%x: a fast-registration MR", key);
	if (mr->mw_type)
		return upd_bad(e, "key 0x%x: a memory window", key);
	if (pdn != mr->pdn)
		return upd_bad(e, "key 0x%x: pdn %u, the MR's is %u", key, pdn,
			       mr->pdn);
	if (q->op != SFAB_MR_UPDATE_MODIFY && (new_pdn || new_access))
		return upd_bad(e, "new_pdn %u, new_access 0x%x without MODIFY",
			       new_pdn, new_access);
	if (q->op == SFAB_MR_UPDATE_MODIFY) {
		if (pbl || npages || q->page_shift)
			return upd_bad(e, "MODIFY with a page list (0x%llx, %u, %u)",
				       (unsigned long long)pbl, npages,
				       q->page_shift);
		if (new_access & ~SFAB_ACCESS_MASK ||
		    ((new_access & (SFAB_ACCESS_REMOTE_WRITE |
				    SFAB_ACCESS_REMOTE_ATOMIC)) &&
		     !(new_access & SFAB_ACCESS_LOCAL_WRITE)))
			return upd_bad(e, "key 0x%x: new_access 0x%x", key,
				       new_access);
		if (new_pdn >= sfab_le32_to_cpu(e->profile.max_pd))
			return upd_bad(e, "key 0x%x: new_pdn %u >= max_pd %u", key,
				       new_pdn,
				       sfab_le32_to_cpu(e->profile.max_pd));
		/* IBA: re-registering an MR with windows bound fails */
		if (mr->windows) {
			sfab_engine_guest_error(e, SFAB_GE_MR_PARAM,
						"MR: UPDATE_MR MODIFY key 0x%x: %u windows bound to it",
						key, mr->windows);
			return SFAB_AQ_STS_BAD_STATE;
		}
		mr->pdn = new_pdn;
		mr->access = new_access;
		return SFAB_AQ_STS_OK;
	}
	if (q->op == SFAB_MR_UPDATE_INVALIDATE) {
		if (pbl)
			return upd_bad(e, "INVALIDATE with pbl_addr 0x%llx",
				       (unsigned long long)pbl);
		if (npages)
			return upd_bad(e, "INVALIDATE with npages %u", npages);
		if (q->page_shift)
			return upd_bad(e, "INVALIDATE with page_shift %u",
				       q->page_shift);
		mr->live = false;
		return SFAB_AQ_STS_OK;
	}
	if (q->page_shift != mr->page_shift)
		return upd_bad(e, "key 0x%x: page_shift %u, the MR's is %u", key,
			       q->page_shift, mr->page_shift);
	if (npages != mr->npages)
		return upd_bad(e, "key 0x%x: npages %u, the MR has %u", key,
			       npages, mr->npages);
	if (!pbl)
		return upd_bad(e, "key 0x%x: REMAP without a page list", key);
	/* check the whole list before the old one is overwritten */
	e->work_bytes += npages * 8;
	if (!pbl_read(e, NULL, pbl, npages, mr->page_shift))
		return SFAB_AQ_STS_BAD_PARAM;
	e->work_bytes += npages * 8;
	if (!pbl_load(e, mr->pool_off, pbl, npages, mr->page_shift)) {
		/* the host changed the list under the command: half of it is in */
		mr->live = false;
		return SFAB_AQ_STS_BAD_PARAM;
	}
	mr->live = true;
	return SFAB_AQ_STS_OK;
}

uint8_t sfab_engine_mr_cmd(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			   uint32_t *result0)
{
	if (!hca_up(e))
		return SFAB_AQ_STS_BAD_STATE;
	switch (c->opcode) {
	case SFAB_AQ_CREATE_MR:
		return cmd_create_mr(e, c, result0);
	case SFAB_AQ_DESTROY_MR:
		return cmd_destroy_mr(e, c);
	case SFAB_AQ_UPDATE_MR:
		return cmd_update_mr(e, c);
	default:
		return SFAB_AQ_STS_BAD_OPCODE;
	}
}

void sfab_engine_mr_teardown(struct sfab_engine *e)
{
	memset(e->mr, 0, ((size_t)e->cfg.max_mr + 1) * sizeof(*e->mr));
	memset(e->mr_map, 0, sfab_engine_mr_map_words(e) * sizeof(*e->mr_map));
	memset(e->pool_map, 0, SFAB_ENGINE_POOL_MAP_WORDS * sizeof(*e->pool_map));
	e->num_mr = 0;
	e->num_mw2_bound = 0;
	e->mr_next = 0;
}

struct sfab_engine_mr *sfab_engine_mr_find(struct sfab_engine *e, uint32_t key,
					   uint32_t pdn, uint64_t addr,
					   uint64_t len, uint32_t access,
					   enum sfab_mr_err *err)
{
	struct sfab_engine_mr *mr = mr_of_key(e, key);

	if (!mr || !mr->live || mr->mw_type ||
	    (key & SFAB_MR_KEY_VARIANT_MASK) != mr->variant) {
		*err = SFAB_MR_BAD_KEY;
		return NULL;
	}
	if (mr->pdn != pdn) {
		*err = SFAB_MR_BAD_PD;
		return NULL;
	}
	if (addr < mr->iova || len > mr->length ||
	    addr - mr->iova > mr->length - len) {
		*err = SFAB_MR_BOUNDS;
		return NULL;
	}
	if ((mr->access & access) != access) {
		*err = SFAB_MR_ACCESS;
		return NULL;
	}
	*err = SFAB_MR_OK;
	return mr;
}

int sfab_engine_mr_dma(struct sfab_engine *e, const struct sfab_engine_mr *mr,
		       uint64_t addr, void *buf, size_t len, bool write)
{
	uint64_t psize = 1ULL << mr->page_shift;
	uint64_t pos = (mr->iova & (psize - 1)) + (addr - mr->iova);
	uint8_t *p = buf;

	while (len) {
		uint64_t pg = pos >> mr->page_shift, in = pos & (psize - 1);
		size_t chunk = psize - in < len ? (size_t)(psize - in) : len;
		uint64_t bus;

		if (pg >= mr->npages)
			return -1;
		bus = e->mr_pool[mr->pool_off + pg] + in;
		if (write ? sfab_engine_dma_write(e, bus, p, chunk) :
			    sfab_engine_dma_read(e, bus, p, chunk))
			return -1;
		p += chunk;
		pos += chunk;
		len -= chunk;
	}
	return 0;
}

uint8_t sfab_engine_mr_fast_reg(struct sfab_engine *e,
				const struct sfab_engine_qp *qp,
				const struct sfab_wqe_reg_mr *w)
{
	uint32_t pdn = qp->pdn;
	uint32_t key = sfab_le32_to_cpu(w->key);
	struct sfab_engine_mr *mr = mr_of_key(e, key);
	uint64_t iova = sfab_le64_to_cpu(w->iova);
	uint64_t length = sfab_le64_to_cpu(w->length);
	uint32_t npages = sfab_le32_to_cpu(w->npages);
	uint32_t access = sfab_le32_to_cpu(w->access);

	/*
	 * The page list names bus addresses, as local_dma_lkey does: a user
	 * QP must not make the device read (and then map) arbitrary memory.
	 * Checked before anything of the WQE is looked at.
	 */
	if (!qp->priv) {
		sfab_engine_guest_error(e, SFAB_GE_MR_FAST_REG,
					"QP %u: REG_MR WQE on a user QP",
					sfab_qp_qpn(e, qp));
		return SFAB_CQE_STS_LOC_QP_OP_ERR;
	}
	if (!mr || !mr->fast_reg || mr->live || mr->pdn != pdn || mr->windows) {
		sfab_engine_guest_error(e, SFAB_GE_MR_FAST_REG,
					"QP %u: REG_MR WQE key 0x%x: not a free fast-reg MR of PD %u",
					sfab_qp_qpn(e, qp), key, pdn);
		return SFAB_CQE_STS_MW_BIND_ERR;
	}
	if ((access & ~SFAB_ACCESS_MASK) || !shift_ok(w->page_shift) ||
	    ((access & (SFAB_ACCESS_REMOTE_WRITE | SFAB_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & SFAB_ACCESS_LOCAL_WRITE)) ||
	    !length || length > SFAB_ENGINE_MAX_MR_SIZE || iova + length < iova ||
	    npages > mr->max_pages ||
	    npages < pages_needed(iova, length, w->page_shift)) {
		sfab_engine_guest_error(e, SFAB_GE_MR_FAST_REG,
					"QP %u: REG_MR WQE key 0x%x: access 0x%x iova 0x%llx "
					"length 0x%llx page_shift %u npages %u",
					sfab_qp_qpn(e, qp), key, access,
					(unsigned long long)iova,
					(unsigned long long)length,
					w->page_shift, npages);
		return SFAB_CQE_STS_MW_BIND_ERR;
	}
	if (!pbl_load(e, mr->pool_off, sfab_le64_to_cpu(w->pbl_addr), npages,
		      w->page_shift))
		return SFAB_CQE_STS_LOC_PROT_ERR;
	mr->variant = key & SFAB_MR_KEY_VARIANT_MASK;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->page_shift = w->page_shift;
	mr->npages = npages;
	mr->live = true;
	return SFAB_CQE_STS_SUCCESS;
}

bool sfab_engine_mr_invalidate(struct sfab_engine *e, uint32_t pdn,
			       uint32_t qpn, uint32_t key)
{
	struct sfab_engine_mr *mr = mr_of_key(e, key);

	if (!mr || !mr->live || mr->pdn != pdn ||
	    (key & SFAB_MR_KEY_VARIANT_MASK) != mr->variant)
		return false;
	/* type 2 windows: by the QP they are bound to; type 1: never */
	if (mr->mw_type == 2 && mr->qpn == qpn) {
		mw_unbind(e, mr);
		return true;
	}
	/* a fast-reg MR with windows on it stays (IBA: invalidation fails) */
	if (!mr->fast_reg || mr->windows)
		return false;
	mr->live = false;
	return true;
}

/* a BIND_MW the device refuses: said once, MW_BIND_ERR */
#define bind_bad(e, qp, fmt, ...)					\
	(sfab_engine_guest_error((e), SFAB_GE_MR_FAST_REG,		\
				 "QP %u: BIND_MW WQE: " fmt,		\
				 sfab_qp_qpn((e), (qp)), __VA_ARGS__),	\
	 (uint8_t)SFAB_CQE_STS_MW_BIND_ERR)

uint8_t sfab_engine_mw_bind(struct sfab_engine *e,
			    const struct sfab_engine_qp *qp,
			    const struct sfab_wqe_bind_mw *w)
{
	uint32_t mw_key = sfab_le32_to_cpu(w->mw_key);
	uint32_t mr_key = sfab_le32_to_cpu(w->mr_key);
	uint32_t access = sfab_le32_to_cpu(w->access);
	uint64_t addr = sfab_le64_to_cpu(w->addr);
	uint64_t length = sfab_le64_to_cpu(w->length);
	struct sfab_engine_mr *mw = mr_of_key(e, mw_key);
	struct sfab_engine_mr *mr = mr_of_key(e, mr_key);
	const uint32_t remote = SFAB_ACCESS_REMOTE_WRITE |
				SFAB_ACCESS_REMOTE_READ |
				SFAB_ACCESS_REMOTE_ATOMIC;

	if (qp->type != SFAB_QPT_RC && qp->type != SFAB_QPT_UC)
		return SFAB_CQE_STS_LOC_QP_OP_ERR;
	if (!mw || !mw->mw_type || mw->pdn != qp->pdn)
		return bind_bad(e, qp, "key 0x%x: not a window of PD %u",
				mw_key, qp->pdn);
	if (mw->mw_type == 2 && mw->live)
		return bind_bad(e, qp, "key 0x%x: a type 2 window bound already",
				mw_key);
	/* type 1 with length 0: unbound; no MR is looked at */
	if (mw->mw_type == 1 && !length) {
		if (access & ~remote)
			return bind_bad(e, qp, "access 0x%x", access);
		mw_unbind(e, mw);
		mw->variant = mw_key & SFAB_MR_KEY_VARIANT_MASK;
		return SFAB_CQE_STS_SUCCESS;
	}
	if (!mr || mr->mw_type || !mr->live || mr->pdn != qp->pdn ||
	    (mr_key & SFAB_MR_KEY_VARIANT_MASK) != mr->variant)
		return bind_bad(e, qp, "MR key 0x%x: not a valid MR of PD %u",
				mr_key, qp->pdn);
	if (!(mr->access & SFAB_ACCESS_MW_BIND))
		return bind_bad(e, qp, "MR key 0x%x: registered without MW_BIND",
				mr_key);
	if ((access & ~remote) ||
	    ((access & (SFAB_ACCESS_REMOTE_WRITE | SFAB_ACCESS_REMOTE_ATOMIC)) &&
	     !(mr->access & SFAB_ACCESS_LOCAL_WRITE)))
		return bind_bad(e, qp, "access 0x%x on MR access 0x%x", access,
				mr->access);
	if (addr < mr->iova || length > mr->length ||
	    addr - mr->iova > mr->length - length)
		return bind_bad(e, qp, "[0x%llx, +0x%llx) not inside MR key 0x%x",
				(unsigned long long)addr,
				(unsigned long long)length, mr_key);
	mw_unbind(e, mw);
	mw->variant = mw_key & SFAB_MR_KEY_VARIANT_MASK;
	mw->iova = addr;
	mw->length = length;
	mw->access = access;
	mw->parent = (uint32_t)(mr - e->mr);
	mw->qpn = mw->mw_type == 2 ? sfab_qp_qpn(e, qp) : 0;
	mw->live = true;
	mr->windows++;
	if (mw->mw_type == 2)
		e->num_mw2_bound++;
	return SFAB_CQE_STS_SUCCESS;
}

void sfab_engine_mw_qp_gone(struct sfab_engine *e, uint32_t qpn)
{
	uint32_t i;

	/* no walk over the MR table unless a type 2 window is bound */
	if (!e->num_mw2_bound)
		return;
	for (i = 1; i <= e->cfg.max_mr; i++)
		if (e->mr[i].valid && e->mr[i].mw_type == 2 && e->mr[i].live &&
		    e->mr[i].qpn == qpn)
			mw_unbind(e, &e->mr[i]);
}

bool sfab_engine_rkey_extent(struct sfab_engine *e, uint32_t key,
			     uint64_t *iova, uint64_t *length)
{
	struct sfab_engine_mr *mr = mr_of_key(e, key);

	if (!mr || !mr->live ||
	    (key & SFAB_MR_KEY_VARIANT_MASK) != mr->variant)
		return false;
	*iova = mr->iova;
	*length = mr->length;
	return true;
}

struct sfab_engine_mr *sfab_engine_rkey_find(struct sfab_engine *e,
					     const struct sfab_engine_qp *qp,
					     uint32_t key, uint64_t addr,
					     uint64_t len, uint32_t access,
					     enum sfab_mr_err *err)
{
	struct sfab_engine_mr *mw = mr_of_key(e, key), *mr;

	if (!mw || !mw->mw_type)
		return sfab_engine_mr_find(e, key, qp->pdn, addr, len, access,
					   err);
	if (!mw->live || (key & SFAB_MR_KEY_VARIANT_MASK) != mw->variant) {
		*err = SFAB_MR_BAD_KEY;
		return NULL;
	}
	if (mw->pdn != qp->pdn ||
	    (mw->mw_type == 2 && mw->qpn != sfab_qp_qpn(e, qp))) {
		*err = SFAB_MR_BAD_PD;
		return NULL;
	}
	if (addr < mw->iova || len > mw->length ||
	    addr - mw->iova > mw->length - len) {
		*err = SFAB_MR_BOUNDS;
		return NULL;
	}
	if ((mw->access & access) != access) {
		*err = SFAB_MR_ACCESS;
		return NULL;
	}
	mr = &e->mr[mw->parent];
	/* the MR under it invalidated (UPDATE_MR): no access */
	if (!mr->valid || !mr->live) {
		*err = SFAB_MR_BAD_KEY;
		return NULL;
	}
	*err = SFAB_MR_OK;
	return mr;
}
