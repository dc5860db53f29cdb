/*
 * The LRU lists of BPF_MAP_TYPE_LRU_HASH and LRU_PERCPU_HASH (kernel/bpf/bpf_lru_list.c of 6.1):
 * an approximate LRU of active and inactive lists with a "referenced" bit a lookup sets.
 * Rotation gives a referenced node another round in the active list; shrinking takes
 * unreferenced nodes from the inactive list's tail (removing their elements from the map).
 *
 * The common LRU (one for the map) hands free nodes to each cpu in batches of
 * LOCAL_FREE_TARGET through a per-cpu local list; a node a cpu handed out stays on its
 * pending list until that cpu next refills, when they join the common lists.  A cpu that
 * finds no free node anywhere steals one from the cpus' local lists in turn.  With
 * BPF_F_NO_COMMON_LRU each cpu has a whole LRU of its own (nodes spread evenly at populate).
 */
#include "bpf_lru_list.h"
#include "../../include/bpf.h"

#define LOCAL_FREE_TARGET	128
#define LOCAL_NR_SCANS		LOCAL_FREE_TARGET
#define PERCPU_FREE_TARGET	4
#define PERCPU_NR_SCANS		PERCPU_FREE_TARGET

#define LOCAL_LIST_IDX(t)	((t) - BPF_LOCAL_LIST_T_OFFSET)
#define LOCAL_FREE_LIST_IDX	LOCAL_LIST_IDX(BPF_LRU_LOCAL_LIST_T_FREE)
#define LOCAL_PENDING_LIST_IDX	LOCAL_LIST_IDX(BPF_LRU_LOCAL_LIST_T_PENDING)
#define IS_LOCAL_LIST_TYPE(t)	((t) >= BPF_LOCAL_LIST_T_OFFSET)

static __always_inline int get_next_cpu(int cpu)
{
	return (u32)(cpu + 1) < bpf_num_possible_cpus() ? cpu + 1 : 0;
}

static __always_inline struct list_head *local_free_list(struct bpf_lru_locallist *loc_l)
{
	return &loc_l->lists[LOCAL_FREE_LIST_IDX];
}

static __always_inline struct list_head *local_pending_list(struct bpf_lru_locallist *loc_l)
{
	return &loc_l->lists[LOCAL_PENDING_LIST_IDX];
}

static __always_inline bool bpf_lru_node_is_ref(const struct bpf_lru_node *node)
{
	return READ_ONCE(node->ref);
}

static __always_inline void bpf_lru_node_clear_ref(struct bpf_lru_node *node)
{
	WRITE_ONCE(node->ref, 0);
}

static __always_inline void bpf_lru_list_count_inc(struct bpf_lru_list *l, enum bpf_lru_list_type type)
{
	if (type < NR_BPF_LRU_LIST_COUNT)
		l->counts[type]++;
}

static __always_inline void bpf_lru_list_count_dec(struct bpf_lru_list *l, enum bpf_lru_list_type type)
{
	if (type < NR_BPF_LRU_LIST_COUNT)
		l->counts[type]--;
}

/* (6.1 warns and returns where a local node would come here: so does this, silently) */
static noinline void __bpf_lru_node_move_to_free(struct bpf_lru_list *l, struct bpf_lru_node *node,
						 struct list_head *free_list, enum bpf_lru_list_type tgt_free_type)
{
	if (IS_LOCAL_LIST_TYPE(node->type))
		return;
	/* the node the next inactive rotation would start from goes: start from the one before */
	if (&node->list == l->next_inactive_rotation)
		l->next_inactive_rotation = l->next_inactive_rotation->prev;
	bpf_lru_list_count_dec(l, node->type);
	node->type = tgt_free_type;
	list_move(&node->list, free_list);
}

/* a node from a cpu's pending list into the common lists */
static __always_inline void __bpf_lru_node_move_in(struct bpf_lru_list *l, struct bpf_lru_node *node,
						   enum bpf_lru_list_type tgt_type)
{
	if (!IS_LOCAL_LIST_TYPE(node->type) || IS_LOCAL_LIST_TYPE(tgt_type))
		return;
	bpf_lru_list_count_inc(l, tgt_type);
	node->type = tgt_type;
	bpf_lru_node_clear_ref(node);
	list_move(&node->list, &l->lists[tgt_type]);
}

/* between or within the active and inactive lists (to the head), its ref bit cleared */
static noinline void __bpf_lru_node_move(struct bpf_lru_list *l, struct bpf_lru_node *node,
					 enum bpf_lru_list_type tgt_type)
{
	if (IS_LOCAL_LIST_TYPE(node->type) || IS_LOCAL_LIST_TYPE(tgt_type))
		return;
	if (node->type != tgt_type) {
		bpf_lru_list_count_dec(l, node->type);
		bpf_lru_list_count_inc(l, tgt_type);
		node->type = tgt_type;
	}
	bpf_lru_node_clear_ref(node);
	if (&node->list == l->next_inactive_rotation)
		l->next_inactive_rotation = l->next_inactive_rotation->prev;
	list_move(&node->list, &l->lists[tgt_type]);
}

static __always_inline bool bpf_lru_list_inactive_low(const struct bpf_lru_list *l)
{
	return l->counts[BPF_LRU_LIST_T_INACTIVE] < l->counts[BPF_LRU_LIST_T_ACTIVE];
}

/* From the active list's tail, at most nr_scans nodes: a referenced one back to the head,
 * the others to the inactive list's head. */
static noinline void __bpf_lru_list_rotate_active(struct bpf_lru *lru, struct bpf_lru_list *l)
{
	struct list_head *active = &l->lists[BPF_LRU_LIST_T_ACTIVE];
	struct bpf_lru_node *node, *tmp_node, *first_node;
	unsigned int i = 0;

	first_node = list_first_entry(active, struct bpf_lru_node, list);
	list_for_each_entry_safe_reverse(node, tmp_node, active, list) {
		if (bpf_lru_node_is_ref(node))
			__bpf_lru_node_move(l, node, BPF_LRU_LIST_T_ACTIVE);
		else
			__bpf_lru_node_move(l, node, BPF_LRU_LIST_T_INACTIVE);
		if (++i == lru->nr_scans || node == first_node)
			break;
	}
}

/* From next_inactive_rotation backwards, at most nr_scans nodes: a referenced one to the
 * active list, the others stay for the next shrink. */
static noinline void __bpf_lru_list_rotate_inactive(struct bpf_lru *lru, struct bpf_lru_list *l)
{
	struct list_head *inactive = &l->lists[BPF_LRU_LIST_T_INACTIVE];
	struct list_head *cur, *last, *next = inactive;
	struct bpf_lru_node *node;
	unsigned int i = 0;

	if (list_empty(inactive))
		return;
	last = l->next_inactive_rotation->next;
	if (last == inactive)
		last = last->next;
	cur = l->next_inactive_rotation;
	while (i < lru->nr_scans) {
		if (cur == inactive) {
			cur = cur->prev;
			continue;
		}
		node = list_entry(cur, struct bpf_lru_node, list);
		next = cur->prev;
		if (bpf_lru_node_is_ref(node))
			__bpf_lru_node_move(l, node, BPF_LRU_LIST_T_ACTIVE);
		if (cur == last)
			break;
		cur = next;
		i++;
	}
	l->next_inactive_rotation = next;
}

/* From the inactive list's tail: unreferenced nodes whose elements leave the map go to
 * free_list, up to tgt_nshrink; referenced ones to the active list. */
static __always_inline unsigned int __bpf_lru_list_shrink_inactive(struct bpf_lru *lru, struct bpf_lru_list *l,
								   unsigned int tgt_nshrink,
								   struct list_head *free_list,
								   enum bpf_lru_list_type tgt_free_type)
{
	struct list_head *inactive = &l->lists[BPF_LRU_LIST_T_INACTIVE];
	struct bpf_lru_node *node, *tmp_node;
	unsigned int nshrinked = 0, i = 0;

	list_for_each_entry_safe_reverse(node, tmp_node, inactive, list) {
		if (bpf_lru_node_is_ref(node)) {
			__bpf_lru_node_move(l, node, BPF_LRU_LIST_T_ACTIVE);
		} else if (lru->del_from_htab(lru->del_arg, node)) {
			__bpf_lru_node_move_to_free(l, node, free_list, tgt_free_type);
			if (++nshrinked == tgt_nshrink)
				break;
		}
		if (++i == lru->nr_scans)
			break;
	}
	return nshrinked;
}

static __always_inline void __bpf_lru_list_rotate(struct bpf_lru *lru, struct bpf_lru_list *l)
{
	if (bpf_lru_list_inactive_low(l))
		__bpf_lru_list_rotate_active(lru, l);
	__bpf_lru_list_rotate_inactive(lru, l);
}

/* Shrink the inactive list; if that frees nothing, take one node whatever its ref bit, from
 * the inactive list's tail if it has one, else the active list's. (GCC's isra clone in 6.1.) */
static noinline unsigned int __bpf_lru_list_shrink(struct bpf_lru *lru, struct bpf_lru_list *l,
						   unsigned int tgt_nshrink, struct list_head *free_list,
						   enum bpf_lru_list_type tgt_free_type)
	__asm__("__bpf_lru_list_shrink.isra.0");
static noinline unsigned int __bpf_lru_list_shrink(struct bpf_lru *lru, struct bpf_lru_list *l,
						   unsigned int tgt_nshrink, struct list_head *free_list,
						   enum bpf_lru_list_type tgt_free_type)
{
	struct bpf_lru_node *node, *tmp_node;
	struct list_head *force_shrink_list;
	unsigned int nshrinked;

	nshrinked = __bpf_lru_list_shrink_inactive(lru, l, tgt_nshrink, free_list, tgt_free_type);
	if (nshrinked)
		return nshrinked;
	if (!list_empty(&l->lists[BPF_LRU_LIST_T_INACTIVE]))
		force_shrink_list = &l->lists[BPF_LRU_LIST_T_INACTIVE];
	else
		force_shrink_list = &l->lists[BPF_LRU_LIST_T_ACTIVE];
	list_for_each_entry_safe_reverse(node, tmp_node, force_shrink_list, list) {
		if (lru->del_from_htab(lru->del_arg, node)) {
			__bpf_lru_node_move_to_free(l, node, free_list, tgt_free_type);
			return 1;
		}
	}
	return 0;
}

/* a cpu's pending nodes join the common lists: referenced ones the active list */
static __always_inline void __local_list_flush(struct bpf_lru_list *l, struct bpf_lru_locallist *loc_l)
{
	struct bpf_lru_node *node, *tmp_node;

	list_for_each_entry_safe_reverse(node, tmp_node, local_pending_list(loc_l), list) {
		if (bpf_lru_node_is_ref(node))
			__bpf_lru_node_move_in(l, node, BPF_LRU_LIST_T_ACTIVE);
		else
			__bpf_lru_node_move_in(l, node, BPF_LRU_LIST_T_INACTIVE);
	}
}

static __always_inline void bpf_lru_list_push_free(struct bpf_lru_list *l, struct bpf_lru_node *node)
{
	unsigned long flags;

	if (IS_LOCAL_LIST_TYPE(node->type))
		return;
	raw_spin_lock_irqsave(&l->lock, flags);
	__bpf_lru_node_move(l, node, BPF_LRU_LIST_T_FREE);
	raw_spin_unlock_irqrestore(&l->lock, flags);
}

/* Refill a cpu's local free list: up to LOCAL_FREE_TARGET free nodes, the rest by shrinking. */
static __always_inline void bpf_lru_list_pop_free_to_local(struct bpf_lru *lru, struct bpf_lru_locallist *loc_l)
{
	struct bpf_lru_list *l = &lru->common_lru.lru_list;
	struct bpf_lru_node *node, *tmp_node;
	unsigned int nfree = 0;

	raw_spin_lock(&l->lock);
	__local_list_flush(l, loc_l);
	__bpf_lru_list_rotate(lru, l);
	list_for_each_entry_safe(node, tmp_node, &l->lists[BPF_LRU_LIST_T_FREE], list) {
		__bpf_lru_node_move_to_free(l, node, local_free_list(loc_l), BPF_LRU_LOCAL_LIST_T_FREE);
		if (++nfree == LOCAL_FREE_TARGET)
			break;
	}
	if (nfree < LOCAL_FREE_TARGET)
		__bpf_lru_list_shrink(lru, l, LOCAL_FREE_TARGET - nfree, local_free_list(loc_l),
				      BPF_LRU_LOCAL_LIST_T_FREE);
	raw_spin_unlock(&l->lock);
}

static __always_inline void __local_list_add_pending(struct bpf_lru *lru, struct bpf_lru_locallist *loc_l,
						     int cpu, struct bpf_lru_node *node, u32 hash)
{
	*(u32 *)((char *)node + lru->hash_offset) = hash;
	node->cpu = cpu;
	node->type = BPF_LRU_LOCAL_LIST_T_PENDING;
	bpf_lru_node_clear_ref(node);
	list_add(&node->list, local_pending_list(loc_l));
}

static __always_inline struct bpf_lru_node *__local_list_pop_free(struct bpf_lru_locallist *loc_l)
{
	struct bpf_lru_node *node = list_first_entry_or_null(local_free_list(loc_l), struct bpf_lru_node, list);

	if (node)
		list_del(&node->list);
	return node;
}

/* The oldest pending node whose element leaves the map: unreferenced ones first. */
static __always_inline struct bpf_lru_node *__local_list_pop_pending(struct bpf_lru *lru,
								     struct bpf_lru_locallist *loc_l)
{
	struct bpf_lru_node *node;
	bool force;

	for (force = false;; force = true) {
		list_for_each_entry_reverse(node, local_pending_list(loc_l), list) {
			if ((!bpf_lru_node_is_ref(node) || force) && lru->del_from_htab(lru->del_arg, node)) {
				list_del(&node->list);
				return node;
			}
		}
		if (force)
			return NULL;
	}
}

static __always_inline struct bpf_lru_node *bpf_percpu_lru_pop_free(struct bpf_lru *lru, u32 hash)
{
	int cpu = smp_processor_id();
	struct bpf_lru_list *l = &lru->percpu_lru[cpu];
	struct bpf_lru_node *node = NULL;
	struct list_head *free_list;
	unsigned long flags;

	raw_spin_lock_irqsave(&l->lock, flags);
	__bpf_lru_list_rotate(lru, l);
	free_list = &l->lists[BPF_LRU_LIST_T_FREE];
	if (list_empty(free_list))
		__bpf_lru_list_shrink(lru, l, PERCPU_FREE_TARGET, free_list, BPF_LRU_LIST_T_FREE);
	if (!list_empty(free_list)) {
		node = list_first_entry(free_list, struct bpf_lru_node, list);
		*(u32 *)((char *)node + lru->hash_offset) = hash;
		bpf_lru_node_clear_ref(node);
		__bpf_lru_node_move(l, node, BPF_LRU_LIST_T_INACTIVE);
	}
	raw_spin_unlock_irqrestore(&l->lock, flags);
	return node;
}

static __always_inline struct bpf_lru_node *bpf_common_lru_pop_free(struct bpf_lru *lru, u32 hash)
{
	struct bpf_common_lru *clru = &lru->common_lru;
	struct bpf_lru_locallist *loc_l, *steal_loc_l;
	int cpu = smp_processor_id(), steal, first_steal;
	struct bpf_lru_node *node;
	unsigned long flags;

	loc_l = &clru->local_list[cpu];
	raw_spin_lock_irqsave(&loc_l->lock, flags);
	node = __local_list_pop_free(loc_l);
	if (!node) {
		bpf_lru_list_pop_free_to_local(lru, loc_l);
		node = __local_list_pop_free(loc_l);
	}
	if (node)
		__local_list_add_pending(lru, loc_l, cpu, node, hash);
	raw_spin_unlock_irqrestore(&loc_l->lock, flags);
	if (node)
		return node;

	/* nothing free here nor in the common lists: steal from the cpus' local lists in turn */
	first_steal = loc_l->next_steal;
	steal = first_steal;
	do {
		steal_loc_l = &clru->local_list[steal];
		raw_spin_lock_irqsave(&steal_loc_l->lock, flags);
		node = __local_list_pop_free(steal_loc_l);
		if (!node)
			node = __local_list_pop_pending(lru, steal_loc_l);
		raw_spin_unlock_irqrestore(&steal_loc_l->lock, flags);
		steal = get_next_cpu(steal);
	} while (!node && steal != first_steal);
	loc_l->next_steal = steal;
	if (node) {
		raw_spin_lock_irqsave(&loc_l->lock, flags);
		__local_list_add_pending(lru, loc_l, cpu, node, hash);
		raw_spin_unlock_irqrestore(&loc_l->lock, flags);
	}
	return node;
}

/* A free node for a new element of hash `hash` (its element's hash set), evicting if need be;
 * NULL if none can be had. */
struct bpf_lru_node *bpf_lru_pop_free(struct bpf_lru *lru, u32 hash)
{
	if (lru->percpu)
		return bpf_percpu_lru_pop_free(lru, hash);
	return bpf_common_lru_pop_free(lru, hash);
}

static __always_inline void bpf_common_lru_push_free(struct bpf_lru *lru, struct bpf_lru_node *node)
{
	u8 node_type = READ_ONCE(node->type);
	unsigned long flags;

	if (node_type == BPF_LRU_LIST_T_FREE || node_type == BPF_LRU_LOCAL_LIST_T_FREE)
		return;
	if (node_type == BPF_LRU_LOCAL_LIST_T_PENDING) {
		struct bpf_lru_locallist *loc_l = &lru->common_lru.local_list[node->cpu];

		raw_spin_lock_irqsave(&loc_l->lock, flags);
		if (node->type == BPF_LRU_LOCAL_LIST_T_PENDING) {
			node->type = BPF_LRU_LOCAL_LIST_T_FREE;
			bpf_lru_node_clear_ref(node);
			list_move(&node->list, local_free_list(loc_l));
			raw_spin_unlock_irqrestore(&loc_l->lock, flags);
			return;
		}
		/* flushed to the common lists meanwhile */
		raw_spin_unlock_irqrestore(&loc_l->lock, flags);
	}
	bpf_lru_list_push_free(&lru->common_lru.lru_list, node);
}

static __always_inline void bpf_percpu_lru_push_free(struct bpf_lru *lru, struct bpf_lru_node *node)
{
	struct bpf_lru_list *l = &lru->percpu_lru[node->cpu];
	unsigned long flags;

	raw_spin_lock_irqsave(&l->lock, flags);
	__bpf_lru_node_move(l, node, BPF_LRU_LIST_T_FREE);
	raw_spin_unlock_irqrestore(&l->lock, flags);
}

/* A node whose element left the map (deleted, replaced) is free again. */
void bpf_lru_push_free(struct bpf_lru *lru, struct bpf_lru_node *node)
{
	if (lru->percpu)
		bpf_percpu_lru_push_free(lru, node);
	else
		bpf_common_lru_push_free(lru, node);
}

/* Every preallocated element's node on the free list(s): nr_elems of elem_size from buf. */
void bpf_lru_populate(struct bpf_lru *lru, void *buf, u32 node_offset, u32 elem_size, u32 nr_elems)
{
	u32 i, pcpu_entries = nr_elems / bpf_num_possible_cpus();
	char *elem = buf;
	u32 cpu = 0;

	for (i = 0; i < nr_elems; i++, elem += elem_size) {
		struct bpf_lru_node *node = (struct bpf_lru_node *)(elem + node_offset);
		struct bpf_lru_list *l = &lru->common_lru.lru_list;

		if (lru->percpu) {	/* pcpu_entries to each cpu in turn */
			if (i && i % pcpu_entries == 0 && cpu + 1 < bpf_num_possible_cpus())
				cpu++;
			l = &lru->percpu_lru[cpu];
			node->cpu = cpu;
		}
		node->type = BPF_LRU_LIST_T_FREE;
		bpf_lru_node_clear_ref(node);
		list_add(&node->list, &l->lists[BPF_LRU_LIST_T_FREE]);
	}
}

static __always_inline void bpf_lru_list_init(struct bpf_lru_list *l)
{
	int i;

	for (i = 0; i < NR_BPF_LRU_LIST_T; i++)
		INIT_LIST_HEAD(&l->lists[i]);
	for (i = 0; i < NR_BPF_LRU_LIST_COUNT; i++)
		l->counts[i] = 0;
	l->next_inactive_rotation = &l->lists[BPF_LRU_LIST_T_INACTIVE];
}

int bpf_lru_init(struct bpf_lru *lru, bool percpu, u32 hash_offset, del_from_htab_func del_from_htab,
		 void *del_arg)
{
	u32 cpu, ncpus = bpf_num_possible_cpus();

	if (percpu) {
		lru->percpu_lru = kzalloc(sizeof(*lru->percpu_lru) * ncpus, GFP_KERNEL);
		if (!lru->percpu_lru)
			return -ENOMEM;
		for (cpu = 0; cpu < ncpus; cpu++)
			bpf_lru_list_init(&lru->percpu_lru[cpu]);
		lru->nr_scans = PERCPU_NR_SCANS;
	} else {
		struct bpf_common_lru *clru = &lru->common_lru;

		clru->local_list = kzalloc(sizeof(*clru->local_list) * ncpus, GFP_KERNEL);
		if (!clru->local_list)
			return -ENOMEM;
		for (cpu = 0; cpu < ncpus; cpu++) {
			INIT_LIST_HEAD(&clru->local_list[cpu].lists[0]);
			INIT_LIST_HEAD(&clru->local_list[cpu].lists[1]);
			clru->local_list[cpu].next_steal = cpu;
		}
		bpf_lru_list_init(&clru->lru_list);
		lru->nr_scans = LOCAL_NR_SCANS;
	}
	lru->percpu = percpu;
	lru->del_from_htab = del_from_htab;
	lru->del_arg = del_arg;
	lru->hash_offset = hash_offset;
	return 0;
}

void bpf_lru_destroy(struct bpf_lru *lru)
{
	kfree(lru->percpu ? (void *)lru->percpu_lru : (void *)lru->common_lru.local_list);
}
