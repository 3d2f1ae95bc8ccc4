/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab: InfiniBand-class 400 Gb/s PCIe HCA.  The device structure and the
 * objects ib_core allocates for the driver.
 */
#ifndef _SFAB_H_
#define _SFAB_H_

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/kfifo.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <rdma/ib_verbs.h>

#include <sfab/sfab_admin.h>
#include <sfab/sfab_regs.h>

#include "sfab_com.h"
#include "sfab_db.h"
#include "sfab_com_cmd.h"
#include "sfab_wqe.h"

#define SFAB_DRV_NAME			"sfab"
#define SFAB_IRQ_NAME_LEN		40

/* completion event queues: one page of struct sfab_eqe each */
#define SFAB_EQ_LOG_DEPTH		9
#define SFAB_EQ_DEPTH			BIT(SFAB_EQ_LOG_DEPTH)
static_assert((SFAB_EQ_LOG_DEPTH) >= SFAB_EQ_MIN_LOG_DEPTH);
static_assert((SFAB_EQ_LOG_DEPTH) <= SFAB_EQ_MAX_LOG_DEPTH);

/* the port this driver exposes (IBA ports are numbered from 1) */
#define SFAB_PORT_NUM			1

/* port events the AENQ interrupt queues for the port work */
#define SFAB_PORT_EVQ_LEN		32

struct devlink_health_reporter;
struct netlink_ext_ack;
struct sfab_dev;
struct sfab_peer_mem;

/* what the driver saw when it lost a device: the fw_fatal dump */
struct sfab_loss {
	char why[48];			/* as the kernel log says it */
	u32 arg;
	u32 dev_sts;			/* SFAB_REG_DEV_STS then */
	u32 err_info;			/* SFAB_REG_ERR_INFO */
	u32 heartbeat;			/* SFAB_REG_HEARTBEAT */
	unsigned int hb_misses;		/* polls it had stood still */
	time64_t when;			/* wall clock, seconds */
};

/*
 * The PCI function, from probe to remove: the private data of its devlink
 * instance.  It outlives the sfab_dev it runs: the fw_fatal health
 * reporter's recovery and devlink reload unload one device and load the
 * next (sfab_pf_unload(), sfab_pf_load()) with the devlink instance lock
 * held, which orders every change of @dev.
 */
struct sfab_pf {
	struct pci_dev *pdev;
	struct sfab_dev *dev;		/* the running device or NULL */
	struct devlink_health_reporter *fw_fatal;
	/* reports a lost device to devlink health, from process context */
	struct work_struct lost_work;
	bool removing;			/* remove or shutdown: no more reports */
	spinlock_t loss_lock;		/* protects @loss */
	struct sfab_loss loss;
	/* the image devlink dev flash stored for the next load, or NULL */
	void *flash;
	size_t flash_len;
};

struct sfab_port_ev {
	u8 type;			/* enum sfab_aenq_type */
	u64 data;			/* its data1 */
};

struct sfab_eq {
	struct sfab_dev *dev;
	struct sfab_eqe *ring;		/* coherent DMA, page aligned */
	dma_addr_t dma;
	u32 eqn;			/* from CREATE_EQ */
	u16 vector;			/* MSI-X vector */
	u16 cc;				/* consumer; only its interrupt uses it */
	char irq_name[SFAB_IRQ_NAME_LEN];
};

struct sfab_dev {
	struct ib_device ibdev;
	struct pci_dev *pdev;
	struct sfab_pf *pf;
	struct sfab_com_dev edev;

	u32 caps;			/* SFAB_REG_CAPS */
	struct sfab_com_dev_attr attr;	/* QUERY_DEVICE, host byte order */
	u64 fw_ver;			/* attr.fw_version as major.minor.patch */

	/* doorbell BAR: pages [db_first_user, db_num_pages) go to users */
	resource_size_t db_bar_addr;
	unsigned int db_page_shift;
	u32 db_first_user;
	u32 db_num_pages;
	struct sfab_db_pool *db_pool;	/* user doorbell pages in use */
	/*
	 * struct sfab_ibv_dev_status, which every user context maps
	 * read-only: LIVE until the device is lost or unregistered
	 * (sfab_status_lost()).  Its mappings hold references on the page.
	 */
	struct page *status_page;
	struct ida pd_ida;		/* protection domain numbers in use */
	struct ida xrcd_ida;		/* XRC domain numbers in use */

	unsigned int num_vectors;	/* MSI-X vectors allocated */
	char admin_irq_name[SFAB_IRQ_NAME_LEN];
	char aenq_irq_name[SFAB_IRQ_NAME_LEN];
	struct sfab_eq *eqs;
	unsigned int num_eqs;

	/*
	 * Orders @ib_registered against async event dispatch to ib_core;
	 * protects @port_evq and @port_ev_lost.
	 */
	spinlock_t event_lock;
	bool ib_registered;
	/*
	 * Health (sfab_main.c): the heartbeat register polled while the
	 * ib_device is registered; the device is lost once (@lost, an
	 * atomic bit) when it goes fatal, stops beating or stops answering.
	 */
	struct delayed_work health_work;
	u32 hb_last;
	unsigned int hb_misses;
	unsigned long lost;
	/* port events, queued by the AENQ interrupt, reported by @port_work */
	DECLARE_KFIFO(port_evq, struct sfab_port_ev, SFAB_PORT_EVQ_LEN);
	bool port_ev_lost;		/* @port_evq overflowed */
	struct work_struct port_work;
	/* serialises @port_work's runs' view of the port */
	struct mutex port_lock;
	struct sfab_com_port_attr port_attr; /* last QUERY_PORT */
	/* the P_Key table as the SMA last gave it (sfab_query_pkey()) */
	struct mutex pkey_lock;
	u16 pkeys[SFAB_PORT_PKEY_TBL_LEN];
	u8 port_state;			/* logical state last reported */
	bool has_mad_ifc;		/* firmware SMA/PMA: sfab_mad_dev_ops */
	/* AENQ types already reported as unknown; only the AENQ irq writes */
	DECLARE_BITMAP(aenq_unknown_seen, 256);

	/*
	 * Kernel verbs datapath: set with SFAB_DEV_CAP_QUEUES in dev_caps.
	 * Without it no CQ or QP can exist and ib_core sees no kernel verbs
	 * provider (sfab_datapath_probe()).
	 */
	bool has_datapath;
	void __iomem *kdb;		/* doorbell page 0, the kernel's */
	/*
	 * CQs by CQN for the EQ interrupts (xa_load() under RCU); QPs by
	 * QPN for poll_cq.  Stores and erases take the xarray's own lock.
	 */
	struct xarray cq_xa;
	struct xarray qp_xa;
	struct xarray srq_xa;		/* SRQs by SRQN, for their events */
	/* SFAB_DEV_CAP_MR: user MRs and fast registration */
	bool has_mr;
	/* SFAB_DEV_CAP_MR_UPDATE too (and user memory): dma-buf MRs */
	bool has_dmabuf_mr;
	/* SFAB_DEV_CAP_MW too, with the datapath: memory windows */
	bool has_mw;
	/* SFAB_DEV_CAP_FLUSH too, with the datapath: ATOMIC WRITE and FLUSH */
	bool has_flush;
	/* SFAB_DEV_CAP_SRQ, with the datapath */
	bool has_srq;
	/* SFAB_DEV_CAP_DBREC, with the datapath: queues have doorbell records */
	bool has_dbrec;
	/* SFAB_DEV_CAP_MCAST, with the datapath: UD QPs join multicast groups */
	bool has_mcast;
	/* SFAB_DEV_CAP_RESIZE_CQ, with the datapath: resize_cq */
	bool has_resize_cq;
	/* SFAB_DEV_CAP_RESIZE_SRQ, with SRQs: modify_srq of IB_SRQ_MAX_WR */
	bool has_resize_srq;
	/* SFAB_DEV_CAP_XRC, with SRQs and user access: XRC domains, SRQs, QPs */
	bool has_xrc;
};

static inline struct sfab_dev *to_sfab_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sfab_dev, ibdev);
}

/*
 * The device is lost (sfab_device_lost()): it completes nothing more, and
 * the kernel queues' outstanding work completes in software
 * (sfab_cq_flush_lost()).
 */
static inline bool sfab_dev_is_lost(const struct sfab_dev *dev)
{
	return test_bit(0, &dev->lost);
}

/*
 * The device tells a send CQE's WQE index and writes no CQE for a
 * successful unsignaled send (SFAB_DEV_CAP_CQE_WQE_INDEX).
 */
static inline bool sfab_dev_cqe_wqe_index(const struct sfab_dev *dev)
{
	return dev->attr.dev_caps & SFAB_DEV_CAP_CQE_WQE_INDEX;
}

/* the device reports its transport counters (SFAB_DEV_CAP_QUERY_STATS) */
static inline bool sfab_dev_query_stats(const struct sfab_dev *dev)
{
	return dev->attr.dev_caps & SFAB_DEV_CAP_QUERY_STATS;
}

struct sfab_ucontext {
	struct ib_ucontext ibucontext;
	/* this context's doorbell page, mapped uncached and write-combining */
	struct rdma_user_mmap_entry *db_entry;
	struct rdma_user_mmap_entry *db_wc_entry;	/* NULL without SFAB_CAP_DB_WC */
	/* the page, held by the mmap entries while the context lives */
	struct sfab_db_page *db;
	u32 db_page;
	/* the page's dma-buf exports (sfab_db.c); NULL without uverbs */
	struct sfab_db_exports *exports;
	/* the device's status page (struct sfab_ibv_dev_status), mapped read-only */
	struct rdma_user_mmap_entry *status_entry;
};

static inline struct sfab_ucontext *to_sfab_ucontext(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct sfab_ucontext, ibucontext);
}

enum sfab_mmap_type {
	SFAB_MMAP_IO_NC,		/* uncached MMIO */
	SFAB_MMAP_IO_WC,		/* write-combining MMIO */
	SFAB_MMAP_STATUS,		/* the device's status page, read-only */
};

struct sfab_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	struct sfab_db_page *db;	/* SFAB_MMAP_IO_*: a doorbell page */
	struct page *page;		/* SFAB_MMAP_STATUS: a reference on it */
	u64 address;			/* bus address of the first byte */
	enum sfab_mmap_type type;
};

static inline struct sfab_user_mmap_entry *
to_sfab_mmap_entry(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct sfab_user_mmap_entry, rdma_entry);
}

struct sfab_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct sfab_pd *to_sfab_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sfab_pd, ibpd);
}

struct sfab_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

static inline struct sfab_xrcd *to_sfab_xrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct sfab_xrcd, ibxrcd);
}

/* a user ring's page list, in coherent memory the device reads */
struct sfab_pbl {
	__le64 *buf;
	dma_addr_t dma;
	size_t size;			/* bytes */
};

struct sfab_cq {
	struct ib_cq ibcq;
	struct sfab_cqe *ring;		/* coherent DMA; NULL for a user CQ */
	dma_addr_t dma;
	struct ib_umem *umem;		/* a user CQ's ring */
	struct sfab_pbl pbl;
	struct sfab_eq *eq;		/* signals this CQ's events */
	u32 cqn;
	u8 log_depth;
	/*
	 * Protects @cc, the ring, @resizing, @rearm and @armed; a QP being
	 * destroyed takes it once to know that no poll still uses the QP.
	 */
	spinlock_t lock;
	u16 cc;				/* consumer index */
	/*
	 * req_notify_cq asked for an event since the last one the driver
	 * raised itself for a lost device (sfab_cq_kick_one()): as with the
	 * device's, an unarmed CQ gets none
	 */
	bool armed;
	/*
	 * resize_cq: one at a time, and not while sfab_cq_clean() walks
	 * the ring.  While the device moves a kernel CQ's CQEs (@resizing)
	 * poll_cq finds none and an arm waits in @rearm for the new ring.
	 */
	struct mutex resize_lock;
	bool resizing;
	u8 rearm;			/* SFAB_DB_ARM_*: ring it after the move */
	/*
	 * a kernel CQ's doorbell record, after its ring (has_dbrec): poll
	 * publishes @cc there instead of ringing the CQ doorbell; else NULL
	 */
	struct sfab_dbrec *dbrec;
};

static inline struct sfab_cq *to_sfab_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sfab_cq, ibcq);
}

/* a send or receive queue of a kernel QP */
struct sfab_wq {
	void *ring;			/* coherent DMA; NULL for a user queue */
	dma_addr_t dma;
	struct ib_umem *umem;		/* a user queue's ring */
	struct sfab_pbl pbl;
	u8 log_depth;
	u8 log_stride;
	/* serialises posts: protects @pi, the ring slots and @unsignaled */
	spinlock_t lock;
	u16 pi;				/* producer index */
	u16 ci;				/* consumer: written by poll_cq only */
	bool resizing;			/* a kernel SRQ moving: no posts */
	/*
	 * send slots posted without IB_SEND_SIGNALED, whose CQE is hidden;
	 * only without SFAB_DEV_CAP_CQE_WQE_INDEX (else NULL)
	 */
	unsigned long *unsignaled;
	/*
	 * the doorbell record (has_dbrec): a kernel queue's is after its
	 * ring, @dbrec its CPU address (a user queue's: NULL); @dbrec_dma
	 * the bus address the device reads, 0 for none
	 */
	struct sfab_dbrec *dbrec;
	u64 dbrec_dma;
};

struct sfab_qp {
	struct ib_qp ibqp;
	u32 qpn;
	u8 port_num;
	bool sig_all;			/* IB_SIGNAL_ALL_WR */
	bool user;			/* rings in user memory */
	bool has_rq;			/* false with an SRQ */
	struct sfab_wq sq;
	struct sfab_wq rq;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	/*
	 * serialises modify_qp; protects @state, @retry_cnt, @rnr_retry,
	 * @max_rd_atomic, @max_dest_rd_atomic (the device's values)
	 */
	struct mutex state_lock;
	enum ib_qp_state state;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	/* SQD: forward SQ_DRAINED (IB_QP_EN_SQD_ASYNC_NOTIFY); READ_ONCE */
	bool sqd_notify;
};

static inline struct sfab_qp *to_sfab_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sfab_qp, ibqp);
}

/* kernel address handles: only what a UD WQE needs, no device object */
struct sfab_ah {
	struct ib_ah ibah;
	struct sfab_ud_av av;
};

static inline struct sfab_ah *to_sfab_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sfab_ah, ibah);
}

struct sfab_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	bool user;
	struct sfab_wq rq;		/* kernel SRQs: the ring; users: umem */
	u32 max_sge;
	u32 limit;			/* armed limit, 0: none */
	struct mutex lock;		/* serialises modify_srq and resizes */
};

static inline struct sfab_srq *to_sfab_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sfab_srq, ibsrq);
}

enum sfab_mr_kind {
	SFAB_MR_DMA,			/* get_dma_mr: the local_dma_lkey, no device MR */
	SFAB_MR_USER,			/* reg_user_mr: pinned pages */
	SFAB_MR_FAST,			/* alloc_mr: REG_MR WQEs point it */
	SFAB_MR_DMABUF,			/* reg_user_mr_dmabuf: a dma-buf's pages */
};

struct sfab_mr {
	struct ib_mr ibmr;
	enum sfab_mr_kind kind;
	struct ib_umem *umem;
	u32 pdn;			/* USER, DMABUF */
	int access;			/* USER: IB_ACCESS_* (rereg_user_mr) */
	/* SFAB_MR_FAST: the page list map_mr_sg fills, coherent DMA */
	__le64 *pages;
	dma_addr_t pages_dma;
	u32 max_pages;
	/* FAST: the pages mapped; USER, DMABUF: the device page list's */
	u32 npages;
	u8 page_shift;			/* USER, DMABUF: the device's pages */
	/*
	 * SFAB_MR_DMABUF: @dmabuf_moves when the dynamic importer follows
	 * the exporter's moves (not pinned).  Then the dma-buf's
	 * reservation lock protects @hw_mapped (the device has the pages:
	 * the MR is valid there) and the umem's mapping; @remap_work
	 * re-maps after a move_notify.
	 */
	bool dmabuf_moves;
	bool hw_mapped;
	struct sfab_dev *dev;		/* USER, DMABUF */
	struct work_struct remap_work;
	/* USER: a peer-memory client's pages (sfab_peer_mem.c), no umem */
	struct sfab_peer_mem *peer;
};

/* a memory window: the device keeps all of it (sfab_alloc_mw()) */
struct sfab_mw {
	struct ib_mw ibmw;
};

static inline struct sfab_mr *to_sfab_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sfab_mr, ibmr);
}

/* sfab_mad.c */
extern const struct ib_device_ops sfab_mad_dev_ops;
int sfab_mad_probe(struct sfab_dev *dev);
void sfab_dispatch_event(struct sfab_dev *dev, enum ib_event_type type,
			 u32 port);
void sfab_port_event_queue(struct sfab_dev *dev, u8 type, u64 data);
void sfab_port_events_init(struct sfab_dev *dev);
void sfab_port_events_start(struct sfab_dev *dev);
void sfab_port_events_stop(struct sfab_dev *dev);

/* sfab_datapath.c */
extern const struct ib_device_ops sfab_datapath_dev_ops;
extern const struct ib_device_ops sfab_port_dev_ops;
extern const struct ib_device_ops sfab_srq_dev_ops;
extern const struct ib_device_ops sfab_xrc_dev_ops;
extern const struct ib_device_ops sfab_mcast_dev_ops;
extern const struct ib_device_ops sfab_resize_cq_dev_ops;
int sfab_datapath_probe(struct sfab_dev *dev);
void sfab_datapath_remove(struct sfab_dev *dev);
void sfab_eq_process(struct sfab_eq *eq);
int sfab_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs);
int sfab_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sfab_resize_cq(struct ib_cq *ibcq, int entries, struct ib_udata *udata);
int sfab_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata);
int sfab_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int sfab_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void sfab_cq_error(struct sfab_dev *dev, u32 cqn);
void sfab_qp_event(struct sfab_dev *dev, u32 qpn, u64 ev);
void sfab_srq_event(struct sfab_dev *dev, u32 srqn, u64 ev);

/* sfab_mr.c */
extern const struct ib_device_ops sfab_mr_dev_ops;
extern const struct ib_device_ops sfab_mw_dev_ops;
extern const struct ib_device_ops sfab_dmabuf_mr_dev_ops;
extern const struct ib_device_ops sfab_fast_reg_dev_ops;
void sfab_mr_probe(struct sfab_dev *dev);
struct ib_mr *sfab_get_dma_mr(struct ib_pd *ibpd, int access_flags);
int sfab_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int sfab_umem_ring_map(struct sfab_dev *dev, struct ib_umem *umem, u64 addr,
		       size_t size, u64 dbrec_off, struct sfab_pbl *pbl,
		       struct sfab_com_ring *desc, u64 *dbrec);
int sfab_umem_ring(struct sfab_dev *dev, struct ib_udata *udata, u64 addr,
		   size_t size, u64 dbrec_off, struct ib_umem **umem,
		   struct sfab_pbl *pbl, struct sfab_com_ring *desc,
		   u64 *dbrec);
int sfab_umem_ring_dmabuf(struct sfab_dev *dev, int fd, u64 offset,
			  size_t size, u64 dbrec_off, struct ib_umem **umem,
			  struct sfab_pbl *pbl, struct sfab_com_ring *desc,
			  u64 *dbrec);
void sfab_umem_ring_free(struct sfab_dev *dev, struct ib_umem *umem,
			 struct sfab_pbl *pbl);
u32 sfab_access(int ib_flags);
#if IS_ENABLED(CONFIG_KUNIT)
size_t sfab_pbl_fill(__le64 *buf, size_t n, struct ib_umem *umem,
		     unsigned long pgsz);
unsigned long sfab_mr_pgsz(struct ib_umem *umem, u64 page_size_cap, u64 iova,
			   bool movable);
#endif

/* sfab_verbs.c */
extern const struct attribute_group sfab_attr_group;

int sfab_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
		      struct ib_udata *udata);
int sfab_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *props);
int sfab_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int sfab_pkey_table_read(struct sfab_dev *dev, u16 *pkeys);
int sfab_query_gid(struct ib_device *ibdev, u32 port, int index,
		   union ib_gid *gid);
int sfab_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable);
enum rdma_link_layer sfab_get_link_layer(struct ib_device *ibdev, u32 port);
void sfab_get_dev_fw_str(struct ib_device *ibdev, char *str);
int sfab_status_alloc(struct sfab_dev *dev);
void sfab_status_lost(struct sfab_dev *dev);
void sfab_status_put(struct sfab_dev *dev);
int sfab_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sfab_dealloc_ucontext(struct ib_ucontext *ibuc);
void sfab_disassociate_ucontext(struct ib_ucontext *ibuc);
int sfab_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void sfab_mmap_free(struct rdma_user_mmap_entry *rdma_entry);
int sfab_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sfab_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sfab_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int sfab_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* sfab_main.c: the PCI function's devices, devlink instance lock held */
extern struct workqueue_struct *sfab_wq;
int sfab_pf_load(struct sfab_pf *pf, struct netlink_ext_ack *extack);
void sfab_pf_unload(struct sfab_pf *pf);
int sfab_pf_reset(struct sfab_pf *pf);
int sfab_pf_recover(struct sfab_pf *pf, struct netlink_ext_ack *extack);

/* sfab_devlink.c */
extern const struct devlink_ops sfab_devlink_ops;
int sfab_fw_fatal_create(struct sfab_pf *pf);
void sfab_fw_fatal_destroy(struct sfab_pf *pf);
void sfab_lost_work(struct work_struct *work);

#endif /* _SFAB_H_ */
