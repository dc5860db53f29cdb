/*
 * Memory nodes and zones (include/linux/mmzone.h, reduced): one node, and in it one zone with
 * pages, ZONE_DMA32 (the model's RAM is below 4 GiB and its allocator does not keep the first
 * 16 MiB apart as ZONE_DMA); the zone's watermarks; the node's LRU lists of the page cache
 * (a lruvec: no memory cgroups) and its kswapd (mm/vmscan.c).
 */
#ifndef _MMZONE_H
#define _MMZONE_H
#include "kernel.h"
#include "gfp.h"
#include "mm.h"
#include "wait.h"

enum zone_type { ZONE_DMA, ZONE_DMA32, ZONE_NORMAL, ZONE_MOVABLE, MAX_NR_ZONES };
enum zone_watermarks { WMARK_MIN, WMARK_LOW, WMARK_HIGH, NR_WMARK };

struct pglist_data;
struct zone {
	unsigned long _watermark[NR_WMARK];	/* in pages (setup_per_zone_wmarks) */
	struct pglist_data *zone_pgdat;
};
#define min_wmark_pages(z)	((z)->_watermark[WMARK_MIN])
#define low_wmark_pages(z)	((z)->_watermark[WMARK_LOW])
#define high_wmark_pages(z)	((z)->_watermark[WMARK_HIGH])

/* 6.1's order: an LRU's index is its base (anon 0, file 2) plus LRU_ACTIVE */
enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS
};
#define LRU_ACTIVE 1

/* The LRU lists (the anonymous ones stay empty: with no swap, 6.1 never scans them, and the
 * model keeps only the page cache's pages on lists) */
struct lruvec {
	struct list_head lists[NR_LRU_LISTS];
	unsigned long nr_pages[NR_LRU_LISTS];	/* (6.1: the node's NR_LRU_BASE + lru counters) */
	spinlock_t lru_lock;
};

struct pglist_data {
	struct zone node_zones[MAX_NR_ZONES];	/* ZONE_DMA32's the one with pages */
	int node_id;
	wait_queue_head_t kswapd_wait;
	struct task_struct *kswapd;
	int kswapd_order;
	enum zone_type kswapd_highest_zoneidx;
	int kswapd_failures;			/* balance_pgdat()s that reclaimed nothing */
	struct lruvec __lruvec;
};
typedef struct pglist_data pg_data_t;
#define MAX_NUMNODES		1
extern struct pglist_data *node_data[MAX_NUMNODES];	/* arch/x86/mm/numa.c's */
#define NODE_DATA(nid)		(node_data[nid])
#define zone_idx(zone)		((int)((zone) - (zone)->zone_pgdat->node_zones))
/* the zone the allocator takes every page from */
#define page_zone(page)		(&NODE_DATA(0)->node_zones[ZONE_DMA32])
#define MAX_RECLAIM_RETRIES	16

/* include/linux/gfp.h's gfp_zone(): the highest zone an allocation may use */
static __always_inline enum zone_type gfp_zone(gfp_t flags)
{
	if (flags & __GFP_DMA)
		return ZONE_DMA;
	if (flags & __GFP_DMA32)
		return ZONE_DMA32;
	if ((flags & (__GFP_HIGHMEM | __GFP_MOVABLE)) == (__GFP_HIGHMEM | __GFP_MOVABLE))
		return ZONE_MOVABLE;
	return ZONE_NORMAL;
}

/* mm/page_alloc.c */
bool zone_watermark_ok_safe(struct zone *z, unsigned int order, unsigned long mark, int highest_zoneidx);
/* mm/vmscan.c */
void wakeup_kswapd(struct zone *zone, gfp_t gfp_flags, int order, enum zone_type highest_zoneidx);
unsigned long try_to_free_pages(void *zonelist, int order, gfp_t gfp_mask, void *nodemask);
void kswapd_run(int nid);
void pgdat_init_internals(pg_data_t *pgdat);
unsigned long zone_reclaimable_pages(struct zone *zone);
void lruvec_add_folio(struct page *page);
void lruvec_del_folio(struct page *page);
/* the lruvec of the page's node and memory cgroup (one of each here) */
static __always_inline struct lruvec *folio_lruvec(struct page *page)
{
	return &NODE_DATA(0)->__lruvec;
}
#endif
