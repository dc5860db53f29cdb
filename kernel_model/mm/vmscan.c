/*
 * Page reclaim (mm/vmscan.c, the classic LRU of 6.1 without MGLRU, memory cgroups, swap or
 * shrinkers): what can be freed is the page cache's clean pages, kept on the node's file LRU
 * lists (mm/swap.c adds them, `lru_add_fn`).
 *
 * kswapd, a kernel thread per node, is woken by the allocator's slow path when free pages fall
 * below the low watermark (`wakeup_kswapd`: `vmscan:mm_vmscan_wakeup_kswapd`) and reclaims until
 * they are above high (`balance_pgdat` → `shrink_node` → `shrink_lruvec`:
 * `mm_vmscan_kswapd_wake`, `mm_vmscan_kswapd_sleep`).  An allocation below min reclaims itself
 * (`try_to_free_pages` → `do_try_to_free_pages`: `mm_vmscan_direct_reclaim_begin/end`).
 * Both scan the lists a batch at a time, from the tail, by a priority that halves nothing and
 * scans twice as much at every step down: `shrink_active_list` moves pages the inactive list
 * lacks from the active one (`mm_vmscan_lru_shrink_active`), `shrink_inactive_list` isolates a
 * batch (`isolate_lru_folios`: `mm_vmscan_lru_isolate`) and `shrink_folio_list` frees its
 * clean, unreferenced-or-not, unlocked pages (`__remove_mapping`: out of the cache with the
 * reference count frozen, so a reader holding the page keeps it); a dirty page is marked for
 * reclaim and kept active while the flusher writes it (woken with WB_REASON_VMSCAN when a
 * batch had nothing but dirty pages), a page under writeback is kept
 * (`mm_vmscan_lru_shrink_inactive`).  6.1's kswapd writes dirty pages itself only when a node
 * is flagged PGDAT_DIRTY (pageout: `mm_vmscan_write_folio`), which the model never flags.
 */
#include "../include/pagemap.h"
#include "../include/mmzone.h"
#include "../include/timer.h"
#include "../include/trace/trace.h"

#define DEF_PRIORITY		12
#define SWAP_CLUSTER_MAX	32UL

struct scan_control {
	unsigned long nr_to_reclaim;
	gfp_t gfp_mask;
	int order;
	int priority;			/* scan (lru size >> priority) pages */
	enum zone_type reclaim_idx;	/* the highest zone to reclaim in */
	unsigned int may_writepage:1;
	unsigned int may_unmap:1;
	unsigned int may_swap:1;
	unsigned long nr_scanned;
	unsigned long nr_reclaimed;
	struct {			/* of the pages isolated in this round */
		unsigned int dirty;
		unsigned int unqueued_dirty;
		unsigned int congested;
		unsigned int writeback;
		unsigned int immediate;
		unsigned int file_taken;
		unsigned int taken;
	} nr;
};

enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_RECLAIM_CLEAN,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};

static __always_inline bool current_is_kswapd(void)
{
	return current->flags & PF_KSWAPD;
}

static __always_inline bool is_file_lru(enum lru_list lru)
{
	return lru == LRU_INACTIVE_FILE || lru == LRU_ACTIVE_FILE;
}

static __always_inline bool is_active_lru(enum lru_list lru)
{
	return lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE;
}

/* ---- the LRU lists (include/linux/mm_inline.h), under the lruvec's lru_lock ---- */
/* a page of the cache is on a file list; the model keeps anonymous pages on none */
static __always_inline enum lru_list folio_lru_list(struct page *page)
{
	return LRU_INACTIVE_FILE + (page->flags & PG_active ? LRU_ACTIVE : 0);
}

notrace void lruvec_add_folio(struct page *page)
{
	struct lruvec *lruvec = folio_lruvec(page);
	enum lru_list lru = folio_lru_list(page);

	list_add(&page->lru, &lruvec->lists[lru]);
	lruvec->nr_pages[lru]++;
}

notrace void lruvec_del_folio(struct page *page)
{
	struct lruvec *lruvec = folio_lruvec(page);

	list_del(&page->lru);
	lruvec->nr_pages[folio_lru_list(page)]--;
}

static __always_inline unsigned long lruvec_lru_size(struct lruvec *lruvec, enum lru_list lru)
{
	return READ_ONCE(lruvec->nr_pages[lru]);
}

/* The pages reclaim could free (zone_reclaimable_pages: the file lists; anonymous pages only
 * with swap) */
noinline unsigned long zone_reclaimable_pages(struct zone *zone)
{
	struct lruvec *lruvec = &zone->zone_pgdat->__lruvec;

	return lruvec_lru_size(lruvec, LRU_INACTIVE_FILE) + lruvec_lru_size(lruvec, LRU_ACTIVE_FILE);
}

/* Whether the inactive list is too small for the active one: their ratio grows with the
 * square root of the lists' size in GiB (1:1 below one) */
noinline bool inactive_is_low(struct lruvec *lruvec, enum lru_list inactive_lru)
{
	unsigned long inactive = lruvec_lru_size(lruvec, inactive_lru);
	unsigned long active = lruvec_lru_size(lruvec, inactive_lru + LRU_ACTIVE);
	unsigned long gb = (inactive + active) >> (30 - PAGE_SHIFT), inactive_ratio = 1, r;

	if (gb)		/* int_sqrt(10 * gb) */
		for (inactive_ratio = 0, r = 10 * gb; (inactive_ratio + 1) * (inactive_ratio + 1) <= r; )
			inactive_ratio++;
	return inactive * inactive_ratio < active;
}

/*
 * Up to nr_to_scan pages off the tail of the list onto dst, each with a reference taken and
 * off the LRU (PG_lru cleared); a page being freed (no reference left) goes to the head.
 */
noinline unsigned long isolate_lru_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
					  struct list_head *dst, unsigned long *nr_scanned,
					  struct scan_control *sc, enum lru_list lru)
{
	struct list_head *src = &lruvec->lists[lru];
	unsigned long nr_taken = 0, scan = 0;

	while (scan < nr_to_scan && !list_empty(src)) {
		struct page *page = list_entry(src->prev, struct page, lru);

		scan++;
		if (!folio_try_get(page_address(page))) {
			list_move(&page->lru, src);
			continue;
		}
		page->flags &= ~PG_lru;		/* folio_test_clear_lru */
		list_move(&page->lru, dst);
		nr_taken++;
	}
	*nr_scanned = scan;
	trace_mm_vmscan_lru_isolate(sc->reclaim_idx, sc->order, nr_to_scan, scan, 0, nr_taken,
				    sc->may_unmap ? 0 : 0x2 /* ISOLATE_UNMAPPED */, lru);
	lruvec->nr_pages[lru] -= nr_taken;	/* update_lru_sizes */
	return nr_taken;
}

/*
 * The isolated pages back on their lists (active or not, as now flagged), their isolation's
 * reference dropped; a page whose last reference that was (truncated meanwhile) goes to
 * list_to_free instead.  The lru_lock held.
 */
noinline unsigned int move_folios_to_lru(struct lruvec *lruvec, struct list_head *list)
{
	unsigned int nr_moved = 0;
	LIST_HEAD(folios_to_free);

	while (!list_empty(list)) {
		struct page *page = list_entry(list->prev, struct page, lru);

		list_del(&page->lru);
		if (!page->mapping) {		/* no longer in the cache: nothing holds it on a list */
			if (!__atomic_sub_fetch(&page->_refcount, 1, __ATOMIC_SEQ_CST))
				list_add(&page->lru, &folios_to_free);
			continue;
		}
		page->flags |= PG_lru;
		lruvec_add_folio(page);
		if (!__atomic_sub_fetch(&page->_refcount, 1, __ATOMIC_SEQ_CST)) {
			/* the cache let it go too (6.1: __folio_clear_lru_flags, then freed) */
			lruvec_del_folio(page);
			page->flags &= ~(PG_lru | PG_active);
			list_add(&page->lru, &folios_to_free);
			continue;
		}
		nr_moved++;
	}
	list_splice_init(&folios_to_free, list);
	return nr_moved;
}

/* Out of its mapping, if only the cache and the isolation hold it and it is still clean: the
 * reference count frozen at 0 under the mapping's lock, so no reader can take it any more. */
noinline int __remove_mapping(struct address_space *mapping, void *folio, bool reclaimed, void *target_memcg)
{
	struct page *page = page_of(folio);
	int refcount = 2;	/* 1 + folio_nr_pages(): the isolation's and the cache's */
	unsigned long flags;

	spin_lock_irqsave(&mapping->i_pages_lock, flags);
	if (!__atomic_compare_exchange_n(&page->_refcount, &refcount, 0, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))	/* folio_ref_freeze */
		goto cannot_free;
	if (page->flags & PG_dirty) {
		page->_refcount = 2;	/* folio_ref_unfreeze */
		goto cannot_free;
	}
	__filemap_remove_folio(mapping, folio, page->index);
	spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
	return 1;
cannot_free:
	spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
	return 0;
}

/* What the page's use says (an unmapped page: its PG_referenced, cleared here) */
static __always_inline enum folio_references folio_check_references(struct page *page, struct scan_control *sc)
{
	bool referenced_folio = page->flags & PG_referenced;

	page->flags &= ~PG_referenced;		/* folio_test_clear_referenced */
	if (referenced_folio)	/* reclaim if clean, defer dirty folios to writeback */
		return FOLIOREF_RECLAIM_CLEAN;
	return FOLIOREF_RECLAIM;
}

/* The isolated pages it can free freed; the others left on folio_list, those to activate
 * flagged active.  How many it freed. */
noinline unsigned int shrink_folio_list(struct list_head *folio_list, struct pglist_data *pgdat,
					struct scan_control *sc, struct reclaim_stat *stat,
					bool ignore_references)
{
	LIST_HEAD(ret_folios);
	LIST_HEAD(free_folios);
	unsigned int nr_reclaimed = 0;

	memset(stat, 0, sizeof(*stat));
	while (!list_empty(folio_list)) {
		struct page *page = list_entry(folio_list->prev, struct page, lru);
		void *folio = page_address(page);
		struct address_space *mapping;
		bool dirty, writeback;

		list_del(&page->lru);
		if (!folio_trylock(folio))
			goto keep;
		sc->nr_scanned++;
		mapping = page->mapping;
		if (!mapping)		/* truncated while isolated: its putback frees it */
			goto keep_locked;

		dirty = page->flags & PG_dirty;		/* folio_check_dirty_writeback */
		writeback = page->flags & PG_writeback;
		if (dirty || writeback)
			stat->nr_dirty++;
		if (dirty && !writeback)
			stat->nr_unqueued_dirty++;
		if (writeback && (page->flags & PG_reclaim))
			stat->nr_congested++;

		if (writeback) {
			/* its I/O is under way: marked, so that its end finds it reclaimable */
			page->flags |= PG_reclaim;
			stat->nr_writeback++;
			goto activate_locked;
		}
		if (!ignore_references)
			folio_check_references(page, sc);
		if (dirty) {
			/* the flusher writes it; kswapd would only on a PGDAT_DIRTY node */
			page->flags |= PG_reclaim;
			goto activate_locked;
		}
		if ((page->flags & PG_private) && !filemap_release_folio(folio, sc->gfp_mask))
			goto activate_locked;
		if (!__remove_mapping(mapping, folio, true, NULL))
			goto keep_locked;
		folio_unlock(folio);
		nr_reclaimed++;
		list_add(&page->lru, &free_folios);
		continue;
activate_locked:
		page->flags |= PG_active;
		stat->nr_activate[1]++;		/* a file page */
keep_locked:
		folio_unlock(folio);
keep:
		list_add(&page->lru, &ret_folios);
	}
	free_unref_page_list(&free_folios);
	list_splice_init(&ret_folios, folio_list);
	return nr_reclaimed;
}

/* A batch off the inactive list reclaimed; what it could not free back on the lists. */
static __always_inline unsigned long shrink_inactive_list(unsigned long nr_to_scan, struct lruvec *lruvec,
							  struct scan_control *sc, enum lru_list lru)
{
	struct pglist_data *pgdat = NODE_DATA(0);
	unsigned long nr_scanned, nr_taken, nr_reclaimed;
	struct reclaim_stat stat;
	bool file = is_file_lru(lru);
	LIST_HEAD(folio_list);

	spin_lock_irq(&lruvec->lru_lock);
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &folio_list, &nr_scanned, sc, lru);
	spin_unlock_irq(&lruvec->lru_lock);
	if (!nr_taken)
		return 0;
	nr_reclaimed = shrink_folio_list(&folio_list, pgdat, sc, &stat, false);
	spin_lock_irq(&lruvec->lru_lock);
	move_folios_to_lru(lruvec, &folio_list);
	spin_unlock_irq(&lruvec->lru_lock);
	free_unref_page_list(&folio_list);

	/* a batch of nothing but dirty pages no flusher had started on: start them */
	if (stat.nr_unqueued_dirty == nr_taken)
		wakeup_flusher_threads(WB_REASON_VMSCAN);
	sc->nr.dirty += stat.nr_dirty;
	sc->nr.congested += stat.nr_congested;
	sc->nr.unqueued_dirty += stat.nr_unqueued_dirty;
	sc->nr.writeback += stat.nr_writeback;
	sc->nr.immediate += stat.nr_immediate;
	sc->nr.taken += nr_taken;
	if (file)
		sc->nr.file_taken += nr_taken;
	trace_mm_vmscan_lru_shrink_inactive(pgdat->node_id, nr_scanned, nr_reclaimed, &stat, sc->priority, file);
	return nr_reclaimed;
}

/* A batch off the active list moved to the inactive one (an unmapped page of the cache has
 * no reason to stay: 6.1 keeps only mapped executable pages a PTE referenced) */
noinline void shrink_active_list(unsigned long nr_to_scan, struct lruvec *lruvec, struct scan_control *sc,
				 enum lru_list lru)
{
	unsigned long nr_taken, nr_scanned, nr_deactivate = 0;
	struct pglist_data *pgdat = NODE_DATA(0);
	struct page *page;
	LIST_HEAD(l_hold);

	spin_lock_irq(&lruvec->lru_lock);
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &l_hold, &nr_scanned, sc, lru);
	spin_unlock_irq(&lruvec->lru_lock);

	list_for_each_entry(page, &l_hold, lru) {
		page->flags &= ~PG_active;	/* folio_clear_active */
		nr_deactivate++;
	}
	spin_lock_irq(&lruvec->lru_lock);
	move_folios_to_lru(lruvec, &l_hold);
	spin_unlock_irq(&lruvec->lru_lock);
	free_unref_page_list(&l_hold);
	trace_mm_vmscan_lru_shrink_active(pgdat->node_id, nr_taken, 0, nr_deactivate, 0, sc->priority,
					  is_file_lru(lru));
}

static __always_inline unsigned long shrink_list(enum lru_list lru, unsigned long nr_to_scan, struct lruvec *lruvec,
						 struct scan_control *sc)
{
	if (is_active_lru(lru)) {
		/* prepare_scan_count's may_deactivate: only while the inactive list is low */
		if (inactive_is_low(lruvec, lru - LRU_ACTIVE))
			shrink_active_list(nr_to_scan, lruvec, sc, lru);
		return 0;
	}
	return shrink_inactive_list(nr_to_scan, lruvec, sc, lru);
}

/* The lists' sizes scaled down by the priority (get_scan_count without swap: SCAN_FILE) */
static __always_inline void get_scan_count(struct lruvec *lruvec, struct scan_control *sc, unsigned long *nr)
{
	enum lru_list lru;

	for (lru = 0; lru < LRU_UNEVICTABLE; lru++)
		nr[lru] = is_file_lru(lru) ? lruvec_lru_size(lruvec, lru) >> sc->priority : 0;
}

noinline void shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long nr[NR_LRU_LISTS], nr_reclaimed = 0;
	enum lru_list lru;

	get_scan_count(lruvec, sc, nr);
	while (nr[LRU_INACTIVE_FILE] || nr[LRU_ACTIVE_FILE]) {
		for (lru = 0; lru < LRU_UNEVICTABLE; lru++) {
			if (nr[lru]) {
				unsigned long nr_to_scan = min(nr[lru], SWAP_CLUSTER_MAX);

				nr[lru] -= nr_to_scan;
				nr_reclaimed += shrink_list(lru, nr_to_scan, lruvec, sc);
			}
		}
		if (nr_reclaimed >= sc->nr_to_reclaim)
			break;
	}
	sc->nr_reclaimed += nr_reclaimed;
}

noinline void shrink_node(pg_data_t *pgdat, struct scan_control *sc)
{
	unsigned long nr_reclaimed = sc->nr_reclaimed;

	memset(&sc->nr, 0, sizeof(sc->nr));
	shrink_lruvec(&pgdat->__lruvec, sc);	/* shrink_node_memcgs: the root's only */
	if (sc->nr_reclaimed - nr_reclaimed)
		pgdat->kswapd_failures = 0;
}

/* ---- direct reclaim ---- */
static __always_inline void shrink_zones(void *zonelist, struct scan_control *sc)
{
	shrink_node(NODE_DATA(0), sc);
}

/* Scan at falling priorities until enough is freed; what was.  0: nothing could be. */
noinline unsigned long do_try_to_free_pages(void *zonelist, struct scan_control *sc)
{
	do {
		sc->nr_scanned = 0;
		shrink_zones(zonelist, sc);
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
	} while (--sc->priority >= 0);
	return sc->nr_reclaimed;
}

/* A task's own reclaim, for an allocation that found free pages below the min watermark */
noinline unsigned long try_to_free_pages(void *zonelist, int order, gfp_t gfp_mask, void *nodemask)
{
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX,
		.gfp_mask = gfp_mask,
		.reclaim_idx = gfp_zone(gfp_mask),
		.order = order,
		.priority = DEF_PRIORITY,
		.may_writepage = 1,
		.may_unmap = 1,
		.may_swap = 1,
	};
	unsigned long nr_reclaimed;

	trace_mm_vmscan_direct_reclaim_begin(order, sc.gfp_mask);
	nr_reclaimed = do_try_to_free_pages(zonelist, &sc);
	trace_mm_vmscan_direct_reclaim_end(nr_reclaimed);
	return nr_reclaimed;
}

/* ---- kswapd ---- */
/* Whether a zone the allocation may use has its high watermark free */
noinline bool pgdat_balanced(pg_data_t *pgdat, int order, int highest_zoneidx)
{
	struct zone *zone = &pgdat->node_zones[ZONE_DMA32];

	if (highest_zoneidx < ZONE_DMA32)	/* (ZONE_DMA has no pages here) */
		return true;
	return zone_watermark_ok_safe(zone, order, high_wmark_pages(zone), highest_zoneidx);
}

noinline bool prepare_kswapd_sleep(pg_data_t *pgdat, int order, int highest_zoneidx)
{
	/* a node reclaim failed on too often is left to direct reclaim */
	if (pgdat->kswapd_failures >= MAX_RECLAIM_RETRIES)
		return true;
	return pgdat_balanced(pgdat, order, highest_zoneidx);
}

/* A round at sc's priority, aiming at the high watermark; whether it scanned that much */
static __always_inline bool kswapd_shrink_node(pg_data_t *pgdat, struct scan_control *sc)
{
	sc->nr_to_reclaim = max(high_wmark_pages(&pgdat->node_zones[ZONE_DMA32]), SWAP_CLUSTER_MAX);
	shrink_node(pgdat, sc);
	return sc->nr_scanned >= sc->nr_to_reclaim;
}

/* Reclaim until the node is balanced, raising the priority (scanning more) while a round
 * frees nothing; the order it reclaimed for */
noinline int balance_pgdat(pg_data_t *pgdat, int order, int highest_zoneidx)
{
	struct scan_control sc = {
		.gfp_mask = GFP_KERNEL,
		.order = order,
		.may_unmap = 1,
		.priority = DEF_PRIORITY,
	};

	do {
		unsigned long nr_reclaimed = sc.nr_reclaimed;
		bool raise_priority = true;

		sc.reclaim_idx = highest_zoneidx;
		if (pgdat_balanced(pgdat, sc.order, highest_zoneidx))
			goto out;
		sc.may_writepage = 1;
		sc.nr_scanned = 0;
		if (kswapd_shrink_node(pgdat, &sc))
			raise_priority = false;
		nr_reclaimed = sc.nr_reclaimed - nr_reclaimed;
		if (raise_priority || !nr_reclaimed)
			sc.priority--;
	} while (sc.priority >= 1);
	if (!sc.nr_reclaimed)
		pgdat->kswapd_failures++;
out:
	return sc.order;
}

/* Sleep until woken, unless the node is not balanced; a short nap first (HZ/10), and a wake
 * during it sends kswapd back to work at once */
static __always_inline void kswapd_try_to_sleep(pg_data_t *pgdat, int alloc_order, int reclaim_order,
						unsigned int highest_zoneidx)
{
	struct wait_queue_entry wait;
	long remaining = 0;

	init_wait_entry(&wait, 0);
	prepare_to_wait_event(&pgdat->kswapd_wait, &wait, TASK_INTERRUPTIBLE);
	if (prepare_kswapd_sleep(pgdat, reclaim_order, highest_zoneidx)) {
		remaining = schedule_timeout(HZ / 10);
		if (remaining) {
			if (READ_ONCE(pgdat->kswapd_highest_zoneidx) == MAX_NR_ZONES)
				WRITE_ONCE(pgdat->kswapd_highest_zoneidx, highest_zoneidx);
			if (READ_ONCE(pgdat->kswapd_order) < reclaim_order)
				WRITE_ONCE(pgdat->kswapd_order, reclaim_order);
		}
		finish_wait(&pgdat->kswapd_wait, &wait);
		init_wait_entry(&wait, 0);
		prepare_to_wait_event(&pgdat->kswapd_wait, &wait, TASK_INTERRUPTIBLE);
	}
	if (!remaining && prepare_kswapd_sleep(pgdat, reclaim_order, highest_zoneidx)) {
		trace_mm_vmscan_kswapd_sleep(pgdat->node_id);
		schedule();
	}
	finish_wait(&pgdat->kswapd_wait, &wait);
}

static __always_inline enum zone_type kswapd_highest_zoneidx(pg_data_t *pgdat, enum zone_type prev)
{
	enum zone_type curr = READ_ONCE(pgdat->kswapd_highest_zoneidx);

	return curr == MAX_NR_ZONES ? prev : curr;
}

/* The node's pageout daemon: PF_MEMALLOC, so its own allocations take the reserves */
noinline int kswapd(void *p)
{
	unsigned int alloc_order, reclaim_order, highest_zoneidx = MAX_NR_ZONES - 1;
	pg_data_t *pgdat = p;

	current->flags |= PF_MEMALLOC | PF_KSWAPD;
	WRITE_ONCE(pgdat->kswapd_order, 0);
	WRITE_ONCE(pgdat->kswapd_highest_zoneidx, MAX_NR_ZONES);
	for (;;) {
		alloc_order = reclaim_order = READ_ONCE(pgdat->kswapd_order);
		highest_zoneidx = kswapd_highest_zoneidx(pgdat, highest_zoneidx);
kswapd_try_sleep:
		kswapd_try_to_sleep(pgdat, alloc_order, reclaim_order, highest_zoneidx);
		alloc_order = READ_ONCE(pgdat->kswapd_order);
		highest_zoneidx = kswapd_highest_zoneidx(pgdat, highest_zoneidx);
		WRITE_ONCE(pgdat->kswapd_order, 0);
		WRITE_ONCE(pgdat->kswapd_highest_zoneidx, MAX_NR_ZONES);
		trace_mm_vmscan_kswapd_wake(pgdat->node_id, highest_zoneidx, alloc_order);
		reclaim_order = balance_pgdat(pgdat, alloc_order, highest_zoneidx);
		if (reclaim_order < alloc_order)
			goto kswapd_try_sleep;
	}
	return 0;
}

/* An allocation found the zone below its low watermark: kswapd woken, if it sleeps and the
 * node needs it */
noinline void wakeup_kswapd(struct zone *zone, gfp_t gfp_flags, int order, enum zone_type highest_zoneidx)
{
	pg_data_t *pgdat = zone->zone_pgdat;
	enum zone_type curr_idx = READ_ONCE(pgdat->kswapd_highest_zoneidx);

	if (curr_idx == MAX_NR_ZONES || curr_idx < highest_zoneidx)
		WRITE_ONCE(pgdat->kswapd_highest_zoneidx, highest_zoneidx);
	if (READ_ONCE(pgdat->kswapd_order) < order)
		WRITE_ONCE(pgdat->kswapd_order, order);
	if (!waitqueue_active(&pgdat->kswapd_wait))
		return;
	/* a hopeless node is left to direct reclaim */
	if (pgdat->kswapd_failures >= MAX_RECLAIM_RETRIES || pgdat_balanced(pgdat, order, highest_zoneidx))
		return;
	trace_mm_vmscan_wakeup_kswapd(pgdat->node_id, highest_zoneidx, order, gfp_flags);
	wake_up_interruptible(&pgdat->kswapd_wait);
}

/* The node's kswapd started (kswapd_init at boot: a thread a node, "kswapd%d") */
noinline void kswapd_run(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	char name[TASK_COMM_LEN];

	scnprintf(name, sizeof(name), "kswapd%d", nid);
	pgdat->kswapd = find_task_by_pid(kernel_thread(kswapd, pgdat, name, -1));
}

/* The node's LRU lists and kswapd's wait queue (pgdat_init_internals, lruvec_init) */
void __init pgdat_init_internals(pg_data_t *pgdat)
{
	enum lru_list lru;

	for (lru = 0; lru < NR_LRU_LISTS; lru++)
		INIT_LIST_HEAD(&pgdat->__lruvec.lists[lru]);
	init_waitqueue_head(&pgdat->kswapd_wait);
}
