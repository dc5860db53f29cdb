// SPDX-License-Identifier: GPL-2.0
/*
 * Queue and stack maps (kernel/bpf/queue_stack_maps.c of 6.1): BPF_MAP_TYPE_QUEUE (first in,
 * first out) and BPF_MAP_TYPE_STACK (last in, first out), keyless, of max_entries values in a
 * ring of max_entries + 1 slots (head == tail: empty).  Programs push, pop and peek
 * (bpf_map_push_elem(), _pop_elem(), _peek_elem()); the syscall's update pushes, its lookup
 * peeks and BPF_MAP_LOOKUP_AND_DELETE_ELEM pops.  A push to a full map fails (E2BIG) unless
 * BPF_EXIST asks it to drop the oldest value.  In an NMI (a perf event's program) the lock is
 * only tried: EBUSY if it is held.
 */
#include "../../include/bpf.h"
#include "../../include/cred.h"

#define QUEUE_STACK_CREATE_FLAG_MASK	(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | \
					 BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)
#define KMALLOC_MAX_SIZE		(1UL << 22)	/* (MAX_ORDER 11: 2^10 pages) */

struct bpf_queue_stack {
	struct bpf_map map;
	raw_spinlock_t lock;
	u32 head, tail;
	u32 size;	/* max_entries + 1 */
	char elements[] __attribute__((aligned(8)));
};

static struct bpf_queue_stack *bpf_queue_stack(struct bpf_map *map)
{
	return container_of(map, struct bpf_queue_stack, map);
}

static bool queue_stack_map_is_empty(struct bpf_queue_stack *qs)
{
	return qs->head == qs->tail;
}

static bool queue_stack_map_is_full(struct bpf_queue_stack *qs)
{
	u32 head = qs->head + 1;

	if (unlikely(head >= qs->size))
		head = 0;
	return head == qs->tail;
}

/* the map's lock, or false in an NMI that finds it held (the NMI may have interrupted its holder) */
static __always_inline bool queue_stack_lock(struct bpf_queue_stack *qs, unsigned long *flags)
{
	if (this_cpu()->preempt_count & NMI_MASK) {	/* (in_nmi()) */
		*flags = arch_local_irq_save();
		if (!raw_spin_trylock(&qs->lock)) {
			arch_local_irq_restore(*flags);
			return false;
		}
		return true;
	}
	raw_spin_lock_irqsave(&qs->lock, *flags);
	return true;
}

static int queue_stack_map_alloc_check(union bpf_attr *attr)
{
	if (!bpf_capable())
		return -EPERM;
	if (attr->max_entries == 0 || attr->key_size != 0 || attr->value_size == 0 ||
	    attr->map_flags & ~QUEUE_STACK_CREATE_FLAG_MASK || !bpf_map_flags_access_ok(attr->map_flags))
		return -EINVAL;
	if (attr->value_size > KMALLOC_MAX_SIZE)	/* the syscall could not copy a value */
		return -E2BIG;
	return 0;
}

static struct bpf_map *queue_stack_map_alloc(union bpf_attr *attr)
{
	u64 size = (u64)attr->max_entries + 1;
	struct bpf_queue_stack *qs = bpf_map_area_alloc(sizeof(*qs) + size * attr->value_size, NUMA_NO_NODE);

	if (!qs)
		return (void *)(long)-ENOMEM;
	bpf_map_init_from_attr(&qs->map, attr);
	qs->size = size;
	return &qs->map;
}

static void queue_stack_map_free(struct bpf_map *map)
{
	bpf_map_area_free(bpf_queue_stack(map));
}

/* __queue_map_get() and __stack_map_get(): the oldest value (at tail) of a queue, the newest
 * (before head) of a stack, taken out with delete; empty: zeros and ENOENT */
static notrace long queue_stack_map_get(struct bpf_map *map, void *value, bool delete, bool stack)
{
	struct bpf_queue_stack *qs = bpf_queue_stack(map);
	unsigned long flags;
	long err = 0;
	u32 index;

	if (!queue_stack_lock(qs, &flags)) {
		memset(value, 0, map->value_size);
		return -EBUSY;
	}
	if (queue_stack_map_is_empty(qs)) {
		memset(value, 0, map->value_size);
		err = -ENOENT;
		goto out;
	}
	if (stack) {
		index = qs->head - 1;
		if (unlikely(index >= qs->size))
			index = qs->size - 1;
	} else {
		index = qs->tail;
	}
	memcpy(value, &qs->elements[(u64)index * map->value_size], map->value_size);
	if (delete && stack)
		qs->head = index;
	else if (delete && unlikely(++qs->tail >= qs->size))
		qs->tail = 0;
out:
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return err;
}

static long queue_map_peek_elem(struct bpf_map *map, void *value)
{
	return queue_stack_map_get(map, value, false, false);
}

static long stack_map_peek_elem(struct bpf_map *map, void *value)
{
	return queue_stack_map_get(map, value, false, true);
}

static long queue_map_pop_elem(struct bpf_map *map, void *value)
{
	return queue_stack_map_get(map, value, true, false);
}

static long stack_map_pop_elem(struct bpf_map *map, void *value)
{
	return queue_stack_map_get(map, value, true, true);
}

/* a value in at head; full: E2BIG, or with BPF_EXIST the oldest dropped to make room */
static long queue_stack_map_push_elem(struct bpf_map *map, void *value, u64 flags)
{
	struct bpf_queue_stack *qs = bpf_queue_stack(map);
	bool replace = flags & BPF_EXIST;
	unsigned long irq_flags;
	long err = 0;

	if (flags & BPF_NOEXIST || flags > BPF_EXIST)
		return -EINVAL;
	if (!queue_stack_lock(qs, &irq_flags))
		return -EBUSY;
	if (queue_stack_map_is_full(qs)) {
		if (!replace) {
			err = -E2BIG;
			goto out;
		}
		if (unlikely(++qs->tail >= qs->size))
			qs->tail = 0;
	}
	memcpy(&qs->elements[(u64)qs->head * map->value_size], value, map->value_size);
	if (unlikely(++qs->head >= qs->size))
		qs->head = 0;
out:
	raw_spin_unlock_irqrestore(&qs->lock, irq_flags);
	return err;
}

/* no keys: nothing to look up, update or delete by one, no next key */
static void *queue_stack_map_lookup_elem(struct bpf_map *map, void *key)
{
	return NULL;
}

static long queue_stack_map_update_elem(struct bpf_map *map, void *key, void *value, u64 flags)
{
	return -EINVAL;
}

static long queue_stack_map_delete_elem(struct bpf_map *map, void *key)
{
	return -EINVAL;
}

static int queue_stack_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	return -EINVAL;
}

const struct bpf_map_ops queue_map_ops = {
	.map_alloc_check = queue_stack_map_alloc_check,
	.map_alloc = queue_stack_map_alloc,
	.map_free = queue_stack_map_free,
	.map_lookup_elem = queue_stack_map_lookup_elem,
	.map_update_elem = queue_stack_map_update_elem,
	.map_delete_elem = queue_stack_map_delete_elem,
	.map_push_elem = queue_stack_map_push_elem,
	.map_pop_elem = queue_map_pop_elem,
	.map_peek_elem = queue_map_peek_elem,
	.map_get_next_key = queue_stack_map_get_next_key,
};

const struct bpf_map_ops stack_map_ops = {
	.map_alloc_check = queue_stack_map_alloc_check,
	.map_alloc = queue_stack_map_alloc,
	.map_free = queue_stack_map_free,
	.map_lookup_elem = queue_stack_map_lookup_elem,
	.map_update_elem = queue_stack_map_update_elem,
	.map_delete_elem = queue_stack_map_delete_elem,
	.map_push_elem = queue_stack_map_push_elem,
	.map_pop_elem = stack_map_pop_elem,
	.map_peek_elem = stack_map_peek_elem,
	.map_get_next_key = queue_stack_map_get_next_key,
};
