/* Hash maps (kernel/bpf/hashtab.c): BPF_MAP_TYPE_HASH, PERCPU_HASH, LRU_HASH and
 * LRU_PERCPU_HASH.  Buckets of chained elements (a power of two of them, at least
 * max_entries), each under its own lock taken with interrupts off (a program may run in an
 * interrupt); new elements go at the head of their bucket.  Elements are preallocated on a
 * free list unless BPF_F_NO_PREALLOC; a full map answers an insert with E2BIG.  A per-cpu
 * element holds one value per possible cpu.  An LRU map is always preallocated, its free
 * elements on its LRU lists (bpf_lru_list.c), which evict the least recently used element
 * for a new one when none is free; a program's lookup marks an element used. */
#include "../../include/bpf.h"
#include "../../include/cred.h"
#include "bpf_lru_list.h"

#define HTAB_CREATE_FLAG_MASK (BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU | BPF_F_NUMA_NODE | \
			       BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG | \
			       BPF_F_ZERO_SEED)
#define PCPU_MIN_UNIT_SIZE (32 << 10)
#define KMALLOC_MAX_SIZE (PAGE_SIZE << (MAX_ORDER - 1))

struct htab_elem {
	struct htab_elem *next;		/* in its bucket, or on the free list */
	u32 hash;
	u32 pad;
	char key[] __aligned(8);	/* then the value(s) at round_up(key_size, 8) */
};
/* An LRU map's element has its struct bpf_lru_node just before it (6.1 has it inside, in a
 * union with the rcu head the other maps use): the other maps' elements stay this small. */
#define LRU_NODE_SIZE	sizeof(struct bpf_lru_node)

static __always_inline struct bpf_lru_node *elem_lru_node(struct htab_elem *l)
{
	return (struct bpf_lru_node *)((char *)l - LRU_NODE_SIZE);
}

static __always_inline struct htab_elem *lru_node_elem(struct bpf_lru_node *node)
{
	return (struct htab_elem *)((char *)node + LRU_NODE_SIZE);
}

struct bucket {
	struct htab_elem *head;
	raw_spinlock_t lock;
};

struct bpf_htab {
	struct bpf_map map;
	struct bucket *buckets;
	u32 n_buckets;
	u32 elem_size;
	u32 value_stride;		/* round_up(value_size, 8) */
	u32 hashrnd;
	int count;			/* elements in the map */
	bool prealloc;
	bool percpu;
	bool lru;
	struct bpf_lru lru_lists;
	char *elems;			/* the preallocated elements (an LRU map's: from their nodes) */
	struct htab_elem *freelist;
	raw_spinlock_t freelist_lock;
};

static u32 roundup_pow_of_two(u32 n)
{
	u32 r = 1;

	while (r < n)
		r <<= 1;
	return r;
}

static __always_inline bool htab_type_percpu(u32 type)
{
	return type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static __always_inline bool htab_type_lru(u32 type)
{
	return type == BPF_MAP_TYPE_LRU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static int htab_map_alloc_check(union bpf_attr *attr)
{
	bool percpu = htab_type_percpu(attr->map_type), lru = htab_type_lru(attr->map_type);
	/* each cpu its own LRU lists (nothing to do with per-cpu values) */
	bool percpu_lru = attr->map_flags & BPF_F_NO_COMMON_LRU;

	if (lru && !bpf_capable())
		return -EPERM;
	if (attr->map_flags & ~HTAB_CREATE_FLAG_MASK || !bpf_map_flags_access_ok(attr->map_flags))
		return -EINVAL;
	if (!lru && percpu_lru)
		return -EINVAL;
	if (lru && (attr->map_flags & BPF_F_NO_PREALLOC))
		return -ENOTSUPP;
	if ((attr->map_flags & BPF_F_NUMA_NODE) && (percpu || percpu_lru))
		return -EINVAL;
	if (attr->max_entries == 0 || attr->key_size == 0 || attr->value_size == 0)
		return -EINVAL;
	if ((u64)attr->key_size + attr->value_size >= KMALLOC_MAX_SIZE - sizeof(struct htab_elem))
		return -E2BIG;
	if (percpu && ALIGN(attr->value_size, 8) > PCPU_MIN_UNIT_SIZE)
		return -E2BIG;
	return 0;
}

static inline char *elem_value(const struct bpf_htab *htab, struct htab_elem *l)
{
	return l->key + ALIGN(htab->map.key_size, 8);
}

static bool htab_lru_map_delete_node(void *arg, struct bpf_lru_node *node);

static struct bpf_map *htab_map_alloc(union bpf_attr *attr)
{
	struct bpf_htab *htab = kzalloc(sizeof(*htab), GFP_KERNEL);
	u32 i, ncpus = bpf_num_possible_cpus(), stride;
	u64 buckets_size;

	if (!htab)
		return (void *)(long)-ENOMEM;
	bpf_map_init_from_attr(&htab->map, attr);
	htab->percpu = htab_type_percpu(attr->map_type);
	htab->lru = htab_type_lru(attr->map_type);
	if (attr->map_flags & BPF_F_NO_COMMON_LRU) {
		/* every cpu's LRU the same number of elements, at least one */
		htab->map.max_entries = (attr->max_entries + ncpus - 1) / ncpus * ncpus;
		if (htab->map.max_entries < attr->max_entries)
			htab->map.max_entries = attr->max_entries / ncpus * ncpus;
	}
	htab->prealloc = !(attr->map_flags & BPF_F_NO_PREALLOC);
	htab->value_stride = ALIGN(attr->value_size, 8);
	htab->elem_size = sizeof(struct htab_elem) + ALIGN(attr->key_size, 8) +
			  htab->value_stride * (htab->percpu ? ncpus : 1);
	/* 6.1: bpf_map_area_alloc, so vmalloc'd when large (4M entries: 300 MB on 6.1 too) */
	if (htab->map.max_entries > (1U << 31))
		goto nomem;
	htab->n_buckets = roundup_pow_of_two(htab->map.max_entries);
	htab->hashrnd = attr->map_flags & BPF_F_ZERO_SEED ? 0 : (u32)get_random_u64();
	buckets_size = (u64)htab->n_buckets * sizeof(struct bucket);
	if (htab->n_buckets > U32_MAX / sizeof(struct bucket))
		goto nomem;
	htab->buckets = bpf_map_area_alloc(buckets_size, NUMA_NO_NODE);
	if (!htab->buckets)
		goto nomem;
	if (htab->prealloc) {
		stride = htab->elem_size + (htab->lru ? LRU_NODE_SIZE : 0);
		htab->elems = bpf_map_area_alloc((u64)stride * htab->map.max_entries, NUMA_NO_NODE);
		if (!htab->elems)
			goto nomem;
		if (htab->lru) {
			if (bpf_lru_init(&htab->lru_lists, attr->map_flags & BPF_F_NO_COMMON_LRU,
					 LRU_NODE_SIZE + offsetof(struct htab_elem, hash), htab_lru_map_delete_node,
					 htab))
				goto nomem;
			bpf_lru_populate(&htab->lru_lists, htab->elems, 0, stride, htab->map.max_entries);
		} else {
			for (i = htab->map.max_entries; i-- > 0;) {
				struct htab_elem *l = (void *)(htab->elems + (u64)i * stride);
				l->next = htab->freelist;
				htab->freelist = l;
			}
		}
	}
	return &htab->map;
nomem:
	bpf_map_area_free(htab->elems);
	bpf_map_area_free(htab->buckets);
	kfree(htab);
	return (void *)(long)-ENOMEM;
}

static void htab_map_free(struct bpf_map *map)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	u32 i;

	if (htab->lru)
		bpf_lru_destroy(&htab->lru_lists);

	if (!htab->prealloc)
		for (i = 0; i < htab->n_buckets; i++) {
			struct htab_elem *l = htab->buckets[i].head, *n;
			for (; l; l = n) {
				n = l->next;
				kfree(l);
			}
		}
	bpf_map_area_free(htab->elems);
	bpf_map_area_free(htab->buckets);
	kfree(htab);
}

static inline struct bucket *select_bucket(struct bpf_htab *htab, u32 hash)
{
	return &htab->buckets[hash & (htab->n_buckets - 1)];
}

static noinline struct htab_elem *lookup_elem_raw(struct htab_elem *head, u32 hash, void *key, u32 key_size)
{
	struct htab_elem *l;
	u32 i;

	for (l = head; l; l = l->next) {
		if (l->hash != hash)
			continue;
		for (i = 0; i < key_size && l->key[i] == ((char *)key)[i]; i++)
			;
		if (i == key_size)
			return l;
	}
	return NULL;
}

static struct htab_elem *__htab_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	u32 hash = jhash(key, map->key_size, htab->hashrnd);

	return lookup_elem_raw(READ_ONCE(select_bucket(htab, hash)->head), hash, key, map->key_size);
}

/* htab_map_gen_lookup(): the element's search called directly, its value reached inline */
static int htab_map_gen_lookup(struct bpf_map *map, struct bpf_insn *insn_buf)
{
	struct bpf_insn *insn = insn_buf;

	*insn++ = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
				     .imm = (s32)((char *)__htab_map_lookup_elem - (char *)__bpf_call_base) };
	*insn++ = (struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 1 };
	*insn++ = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_0,
				     .imm = offsetof(struct htab_elem, key) + ALIGN(map->key_size, 8) };
	return insn - insn_buf;
}

static noinline void *htab_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l = __htab_map_lookup_elem(map, key);

	return l ? elem_value(htab, l) : NULL;
}

static void *htab_percpu_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l = __htab_map_lookup_elem(map, key);

	return l ? elem_value(htab, l) + (u64)htab->value_stride * smp_processor_id() : NULL;
}

static noinline void *htab_percpu_map_lookup_percpu_elem(struct bpf_map *map, void *key, u32 cpu)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l;

	if (cpu >= (u32)nr_cpu_ids)
		return NULL;
	l = __htab_map_lookup_elem(map, key);
	return l ? elem_value(htab, l) + (u64)htab->value_stride * cpu : NULL;
}

/* A free element: NULL when the map is full, ERR_PTR(-ENOMEM) when there is no memory for one. */
static noinline struct htab_elem *alloc_htab_elem(struct bpf_htab *htab)
{
	struct htab_elem *l = NULL;
	unsigned long flags;

	if (htab->prealloc) {
		flags = _raw_spin_lock_irqsave(&htab->freelist_lock);
		l = htab->freelist;
		if (l)
			htab->freelist = l->next;
		_raw_spin_unlock_irqrestore(&htab->freelist_lock, flags);
		return l;
	}
	if (__atomic_add_fetch(&htab->count, 0, __ATOMIC_RELAXED) >= (int)htab->map.max_entries)
		return NULL;
	l = kmalloc(htab->elem_size, GFP_ATOMIC);
	return l ? l : (void *)(long)-ENOMEM;
}

static noinline void free_htab_elem(struct bpf_htab *htab, struct htab_elem *l)
{
	unsigned long flags;

	if (!htab->prealloc) {
		kfree(l);
		return;
	}
	flags = _raw_spin_lock_irqsave(&htab->freelist_lock);
	l->next = htab->freelist;
	htab->freelist = l;
	_raw_spin_unlock_irqrestore(&htab->freelist_lock, flags);
}

static int check_flags(struct htab_elem *l_old, u64 map_flags)
{
	if (l_old && (map_flags & ~BPF_F_LOCK) == BPF_NOEXIST)
		return -EEXIST;
	if (!l_old && (map_flags & ~BPF_F_LOCK) == BPF_EXIST)
		return -ENOENT;
	return 0;
}

static __always_inline void unlink_elem(struct bucket *b, struct htab_elem *l)
{
	struct htab_elem **pp;

	for (pp = &b->head; *pp != l; pp = &(*pp)->next)
		;
	WRITE_ONCE(*pp, l->next);
}

/* Per-cpu values of a new element: every cpu's (the syscall's), or this cpu's and zeros. */
static noinline void pcpu_init_value(struct bpf_htab *htab, char *val, void *value, bool onallcpus)
{
	u32 cpu;

	for (cpu = 0; cpu < bpf_num_possible_cpus(); cpu++) {
		char *v = val + (u64)cpu * htab->value_stride;
		if (onallcpus)
			memcpy(v, (char *)value + (u64)cpu * htab->value_stride, htab->value_stride);
		else if (cpu == (u32)smp_processor_id())
			memcpy(v, value, htab->map.value_size);
		else
			memset(v, 0, htab->value_stride);
	}
}

/* An existing element's per-cpu values: every cpu's (the syscall's), or this cpu's. */
static __always_inline void pcpu_copy_value(struct bpf_htab *htab, char *val, void *value, bool onallcpus)
{
	u32 cpu;

	if (!onallcpus) {
		memcpy(val + (u64)htab->value_stride * smp_processor_id(), value, htab->map.value_size);
		return;
	}
	for (cpu = 0; cpu < bpf_num_possible_cpus(); cpu++)
		memcpy(val + (u64)cpu * htab->value_stride, (char *)value + (u64)cpu * htab->value_stride,
		       htab->value_stride);
}

/* Insert or replace key's element.  value: one value (a program's, for this cpu of a per-cpu
 * map, the others zeroed on insert) or, onallcpus, every cpu's value (the syscall's). */
static notrace long __htab_map_update_elem(struct bpf_map *map, void *key, void *value, u64 map_flags,
				   bool onallcpus)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	u32 hash;
	struct htab_elem *l_old, *l_new;
	struct bucket *b;
	unsigned long flags;
	char *val;
	int ret;

	if (unlikely((map_flags & ~BPF_F_LOCK) > BPF_EXIST))
		return -EINVAL;
	if (unlikely(map_flags & BPF_F_LOCK))	/* no value here has a bpf_spin_lock */
		return -EINVAL;
	hash = jhash(key, map->key_size, htab->hashrnd);
	b = select_bucket(htab, hash);
	flags = _raw_spin_lock_irqsave(&b->lock);
	l_old = lookup_elem_raw(b->head, hash, key, map->key_size);
	ret = check_flags(l_old, map_flags);
	if (ret)
		goto unlock;
	if (l_old && htab->percpu) {
		/* per-cpu values are updated in place */
		pcpu_copy_value(htab, elem_value(htab, l_old), value, onallcpus);
		goto unlock;
	}
	l_new = alloc_htab_elem(htab);
	if (IS_ERR(l_new)) {
		ret = PTR_ERR(l_new);
		goto unlock;
	}
	if (!l_new) {
		/* a replacement needs no room of its own: take the old element's place */
		if (!l_old) {
			ret = -E2BIG;
			goto unlock;
		}
		l_new = l_old;
		val = elem_value(htab, l_new);
		memcpy(val, value, map->value_size);
		goto unlock;
	}
	l_new->hash = hash;
	memcpy(l_new->key, key, map->key_size);
	val = elem_value(htab, l_new);
	if (!htab->percpu)
		memcpy(val, value, map->value_size);
	else
		pcpu_init_value(htab, val, value, onallcpus);
	l_new->next = b->head;
	if (l_old) {
		/* unlink the old element, put the new one at the head */
		unlink_elem(b, l_old);
		l_new->next = b->head;
		WRITE_ONCE(b->head, l_new);
		free_htab_elem(htab, l_old);
	} else {
		WRITE_ONCE(b->head, l_new);
		__atomic_add_fetch(&htab->count, 1, __ATOMIC_RELAXED);
	}
unlock:
	_raw_spin_unlock_irqrestore(&b->lock, flags);
	return ret;
}

static long htab_map_update_elem(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	return __htab_map_update_elem(map, key, value, map_flags, false);
}

static notrace int htab_percpu_update_all(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	return __htab_map_update_elem(map, key, value, map_flags, true);
}

/* Unlink key's element from its bucket: the element (the caller frees it), or NULL. */
static __always_inline struct htab_elem *htab_unlink_key(struct bpf_map *map, void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	u32 hash = jhash(key, map->key_size, htab->hashrnd);
	struct bucket *b = select_bucket(htab, hash);
	struct htab_elem *l;
	unsigned long flags;

	flags = _raw_spin_lock_irqsave(&b->lock);
	l = lookup_elem_raw(b->head, hash, key, map->key_size);
	if (l)
		unlink_elem(b, l);
	_raw_spin_unlock_irqrestore(&b->lock, flags);
	return l;
}

/* an element unlinked from its bucket back on the free list (or freed) */
static __always_inline void htab_put_unlinked(struct bpf_htab *htab, struct htab_elem *l)
{
	__atomic_sub_fetch(&htab->count, 1, __ATOMIC_RELAXED);
	free_htab_elem(htab, l);
}

static long htab_map_delete_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l = htab_unlink_key(map, key);

	if (!l)
		return -ENOENT;
	htab_put_unlinked(htab, l);
	return 0;
}

/* htab_map_lookup_and_delete_elem() (and its per-cpu and LRU kin): key's value (each possible
 * cpu's, 8-byte aligned, of a per-cpu map) copied out of the element unlinked, then the element
 * freed (an LRU map's back on its free lists) */
static int htab_map_lookup_and_delete_elem(struct bpf_map *map, void *key, void *value, u64 flags)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l = htab_unlink_key(map, key);

	if (!l)
		return -ENOENT;
	if (htab->percpu)
		memcpy(value, elem_value(htab, l), (u64)htab->value_stride * bpf_num_possible_cpus());
	else
		memcpy(value, elem_value(htab, l), map->value_size);
	if (htab_type_lru(map->map_type))
		bpf_lru_push_free(&htab->lru_lists, elem_lru_node(l));
	else
		htab_put_unlinked(htab, l);
	return 0;
}

/* The key after key in bucket order (the first one when key is NULL or absent). */
static int htab_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l = NULL;
	unsigned long flags;
	u32 i = 0, hash;

	if (key) {
		hash = jhash(key, map->key_size, htab->hashrnd);
		i = hash & (htab->n_buckets - 1);
		flags = _raw_spin_lock_irqsave(&htab->buckets[i].lock);
		l = lookup_elem_raw(htab->buckets[i].head, hash, key, map->key_size);
		if (l && l->next) {
			memcpy(next_key, l->next->key, map->key_size);
			_raw_spin_unlock_irqrestore(&htab->buckets[i].lock, flags);
			return 0;
		}
		_raw_spin_unlock_irqrestore(&htab->buckets[i].lock, flags);
		i = l ? i + 1 : 0;
	}
	for (; i < htab->n_buckets; i++) {
		flags = _raw_spin_lock_irqsave(&htab->buckets[i].lock);
		l = htab->buckets[i].head;
		if (l)
			memcpy(next_key, l->key, map->key_size);
		_raw_spin_unlock_irqrestore(&htab->buckets[i].lock, flags);
		if (l)
			return 0;
	}
	return -ENOENT;
}

static notrace int htab_percpu_lookup_all(struct bpf_map *map, void *key, void *value)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	u32 hash = jhash(key, map->key_size, htab->hashrnd);
	struct bucket *b = select_bucket(htab, hash);
	struct htab_elem *l;
	unsigned long flags;
	u32 cpu;

	flags = _raw_spin_lock_irqsave(&b->lock);
	l = lookup_elem_raw(b->head, hash, key, map->key_size);
	if (l)
		for (cpu = 0; cpu < bpf_num_possible_cpus(); cpu++)
			memcpy((char *)value + (u64)cpu * htab->value_stride,
			       elem_value(htab, l) + (u64)cpu * htab->value_stride, htab->value_stride);
	_raw_spin_unlock_irqrestore(&b->lock, flags);
	return l ? 0 : -ENOENT;
}

/* ---- LRU maps ---- */

/* A program's lookup marks the element used; the syscall's does not (map_lookup_elem_sys_only). */
static void *htab_lru_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l = __htab_map_lookup_elem(map, key);

	if (!l)
		return NULL;
	bpf_lru_node_set_ref(elem_lru_node(l));
	return elem_value(htab, l);
}

static void *htab_lru_map_lookup_elem_sys(struct bpf_map *map, void *key)
{
	return htab_map_lookup_elem(map, key);
}

static void *htab_lru_percpu_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l = __htab_map_lookup_elem(map, key);

	if (!l)
		return NULL;
	bpf_lru_node_set_ref(elem_lru_node(l));
	return elem_value(htab, l) + (u64)htab->value_stride * smp_processor_id();
}

static noinline void *htab_lru_percpu_map_lookup_percpu_elem(struct bpf_map *map, void *key, u32 cpu)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l;

	if (cpu >= (u32)nr_cpu_ids)
		return NULL;
	l = __htab_map_lookup_elem(map, key);
	if (!l)
		return NULL;
	bpf_lru_node_set_ref(elem_lru_node(l));
	return elem_value(htab, l) + (u64)htab->value_stride * cpu;
}

/* htab_lru_map_gen_lookup(): the search called directly, the ref bit set inline */
static int htab_lru_map_gen_lookup(struct bpf_map *map, struct bpf_insn *insn_buf)
{
	const s16 ref = (s16)(offsetof(struct bpf_lru_node, ref) - LRU_NODE_SIZE);
	struct bpf_insn *insn = insn_buf;

	*insn++ = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
				     .imm = (s32)((char *)__htab_map_lookup_elem - (char *)__bpf_call_base) };
	*insn++ = (struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 4 };
	*insn++ = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_B, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_0,
				     .off = ref };
	*insn++ = (struct bpf_insn){ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = BPF_REG_1, .off = 1 };
	*insn++ = (struct bpf_insn){ .code = BPF_ST | BPF_MEM | BPF_B, .dst_reg = BPF_REG_0, .off = ref, .imm = 1 };
	*insn++ = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_0,
				     .imm = offsetof(struct htab_elem, key) + ALIGN(map->key_size, 8) };
	return insn - insn_buf;
}

/* The LRU lists' eviction: unlink node's element from its bucket, if it is still there. */
static bool htab_lru_map_delete_node(void *arg, struct bpf_lru_node *node)
{
	struct bpf_htab *htab = arg;
	struct htab_elem *tgt_l = lru_node_elem(node), **pp;
	struct bucket *b = select_bucket(htab, tgt_l->hash);
	unsigned long flags;
	bool found = false;

	flags = _raw_spin_lock_irqsave(&b->lock);
	for (pp = &b->head; *pp; pp = &(*pp)->next)
		if (*pp == tgt_l) {
			WRITE_ONCE(*pp, tgt_l->next);
			found = true;
			break;
		}
	_raw_spin_unlock_irqrestore(&b->lock, flags);
	return found;
}

/* A free element for key (evicting the least recently used one if none is free). Taken
 * before the bucket's lock: an eviction takes the evicted element's bucket lock. */
static noinline struct htab_elem *prealloc_lru_pop(struct bpf_htab *htab, void *key, u32 hash)
{
	struct bpf_lru_node *node = bpf_lru_pop_free(&htab->lru_lists, hash);
	struct htab_elem *l;

	if (!node)
		return NULL;
	l = lru_node_elem(node);
	memcpy(l->key, key, htab->map.key_size);
	return l;
}

/* The new element goes in (marked used if it replaces one); the old one is freed. */
static long htab_lru_map_update_elem(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l_new, *l_old;
	unsigned long flags;
	struct bucket *b;
	u32 hash;
	int ret;

	if (unlikely(map_flags > BPF_EXIST))
		return -EINVAL;
	hash = jhash(key, map->key_size, htab->hashrnd);
	b = select_bucket(htab, hash);
	l_new = prealloc_lru_pop(htab, key, hash);
	if (!l_new)
		return -ENOMEM;
	memcpy(elem_value(htab, l_new), value, map->value_size);
	flags = _raw_spin_lock_irqsave(&b->lock);
	l_old = lookup_elem_raw(b->head, hash, key, map->key_size);
	ret = check_flags(l_old, map_flags);
	if (!ret) {
		l_new->next = b->head;
		WRITE_ONCE(b->head, l_new);
		if (l_old) {
			bpf_lru_node_set_ref(elem_lru_node(l_new));
			unlink_elem(b, l_old);
		}
	}
	_raw_spin_unlock_irqrestore(&b->lock, flags);
	if (ret)
		bpf_lru_push_free(&htab->lru_lists, elem_lru_node(l_new));
	else if (l_old)
		bpf_lru_push_free(&htab->lru_lists, elem_lru_node(l_old));
	return ret;
}

/* An existing element's values are updated in place (and it is marked used); a new one needs
 * a free element, unless BPF_EXIST says there is none to make. */
static noinline long __htab_lru_percpu_map_update_elem(struct bpf_map *map, void *key, void *value,
						       u64 map_flags, bool onallcpus)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l_new = NULL, *l_old;
	unsigned long flags;
	struct bucket *b;
	u32 hash;
	int ret;

	if (unlikely(map_flags > BPF_EXIST))
		return -EINVAL;
	hash = jhash(key, map->key_size, htab->hashrnd);
	b = select_bucket(htab, hash);
	if (map_flags != BPF_EXIST) {
		l_new = prealloc_lru_pop(htab, key, hash);
		if (!l_new)
			return -ENOMEM;
	}
	flags = _raw_spin_lock_irqsave(&b->lock);
	l_old = lookup_elem_raw(b->head, hash, key, map->key_size);
	ret = check_flags(l_old, map_flags);
	if (!ret && l_old) {
		bpf_lru_node_set_ref(elem_lru_node(l_old));
		pcpu_copy_value(htab, elem_value(htab, l_old), value, onallcpus);
	} else if (!ret) {
		pcpu_init_value(htab, elem_value(htab, l_new), value, onallcpus);
		l_new->next = b->head;
		WRITE_ONCE(b->head, l_new);
		l_new = NULL;
	}
	_raw_spin_unlock_irqrestore(&b->lock, flags);
	if (l_new)
		bpf_lru_push_free(&htab->lru_lists, elem_lru_node(l_new));
	return ret;
}

static long htab_lru_percpu_map_update_elem(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	return __htab_lru_percpu_map_update_elem(map, key, value, map_flags, false);
}

static notrace int htab_lru_percpu_update_all(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	return __htab_lru_percpu_map_update_elem(map, key, value, map_flags, true);
}


static long htab_lru_map_delete_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l = htab_unlink_key(map, key);

	if (!l)
		return -ENOENT;
	bpf_lru_push_free(&htab->lru_lists, elem_lru_node(l));
	return 0;
}

static bool bucket_holds(struct htab_elem *head, struct htab_elem *l)
{
	for (; head; head = READ_ONCE(head->next))
		if (head == l)
			return true;
	return false;
}

/* bpf_for_each_hash_elem(): each element, bucket by bucket, a per-cpu map's value this cpu's,
 * until the callback returns 1; the elements visited.  As 6.1, no bucket lock held: the
 * callback may update or delete in the map.  6.1's RCU keeps a deleted element readable;
 * here one is freed (or its link the free list's) at once, so the walk goes on only from
 * what the bucket still holds: the element's successor, or the one after it it had */
static noinline long bpf_for_each_hash_elem(struct bpf_map *map, bpf_callback_t callback_fn, void *callback_ctx,
					    u64 flags)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct htab_elem *l, *next;
	u32 i, num_elems = 0;
	char *val;

	if (flags != 0)
		return -EINVAL;
	for (i = 0; i < htab->n_buckets; i++) {
		struct bucket *b = &htab->buckets[i];

		for (l = READ_ONCE(b->head); l;) {
			next = READ_ONCE(l->next);
			val = elem_value(htab, l);
			if (htab->percpu)
				val += (u64)htab->value_stride * smp_processor_id();
			num_elems++;
			/* return value: 0 - continue, 1 - stop and return */
			if (callback_fn((u64)(long)map, (u64)(long)l->key, (u64)(long)val, (u64)(long)callback_ctx, 0))
				return num_elems;
			if (bucket_holds(READ_ONCE(b->head), l))
				l = READ_ONCE(l->next);
			else
				l = bucket_holds(READ_ONCE(b->head), next) ? next : NULL;
		}
	}
	return num_elems;
}

/*
 * BPF_MAP_LOOKUP_BATCH and BPF_MAP_LOOKUP_AND_DELETE_BATCH: whole buckets from the bucket
 * in_batch names (the first when NULL), as many as fit in count elements (ENOSPC when not even
 * the first does), copied out of the bucket under its lock and then to the user (no user copy
 * under a lock); out_batch the next bucket, count the elements copied; ENOENT once the last
 * bucket is done.  Deleted elements go back after their bucket's lock is dropped.
 */
static noinline int __htab_map_lookup_and_delete_batch(struct bpf_map *map, const union bpf_attr *attr,
						       union bpf_attr *uattr, bool do_delete, bool is_lru_map,
						       bool is_percpu)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	u32 bucket_cnt, total, key_size, value_size, batch, bucket_size;
	char *keys = NULL, *values = NULL, *dst_key, *dst_val;
	void *ubatch = (void *)attr->batch.in_batch;
	struct htab_elem *node_to_free = NULL, *l, *next;
	unsigned long flags;
	struct bucket *b;
	long max_count;
	int ret = 0;

	if (attr->batch.flags)
		return -EINVAL;
	max_count = bpf_map_batch_start(attr, uattr);
	if (max_count <= 0)
		return max_count;
	batch = 0;
	if (ubatch && copy_from_user(&batch, ubatch, sizeof(batch)))
		return -EFAULT;
	if (batch >= htab->n_buckets)
		return -ENOENT;
	key_size = map->key_size;
	value_size = is_percpu ? htab->value_stride * bpf_num_possible_cpus() : map->value_size;
	total = 0;
	bucket_size = 5;	/* (6.1's guess: buckets rarely hold more) */
alloc:
	keys = kmalloc((u64)key_size * bucket_size, GFP_KERNEL);
	values = kmalloc((u64)value_size * bucket_size, GFP_KERNEL);
	if (!keys || !values) {
		ret = -ENOMEM;
		goto after_loop;
	}
again:
	dst_key = keys;
	dst_val = values;
	b = &htab->buckets[batch];
	flags = _raw_spin_lock_irqsave(&b->lock);
	bucket_cnt = 0;
	for (l = b->head; l; l = l->next)
		bucket_cnt++;
	if (bucket_cnt > (u32)max_count - total) {
		if (total == 0)
			ret = -ENOSPC;
		_raw_spin_unlock_irqrestore(&b->lock, flags);
		goto after_loop;
	}
	if (bucket_cnt > bucket_size) {
		bucket_size = bucket_cnt;
		_raw_spin_unlock_irqrestore(&b->lock, flags);
		kfree(keys);
		kfree(values);
		goto alloc;
	}
	for (l = b->head; l; l = next) {
		next = l->next;
		memcpy(dst_key, l->key, key_size);
		/* a per-cpu element's values are round_up(value_size, 8) apart, as the user's */
		memcpy(dst_val, elem_value(htab, l), value_size);
		if (do_delete) {
			unlink_elem(b, l);
			l->next = node_to_free;
			node_to_free = l;
		}
		dst_key += key_size;
		dst_val += value_size;
	}
	_raw_spin_unlock_irqrestore(&b->lock, flags);
	while (node_to_free) {
		l = node_to_free;
		node_to_free = l->next;
		if (is_lru_map)
			bpf_lru_push_free(&htab->lru_lists, elem_lru_node(l));
		else
			htab_put_unlinked(htab, l);
	}
	if (bucket_cnt && (copy_to_user((char *)attr->batch.keys + (u64)total * key_size, keys,
					(u64)key_size * bucket_cnt) ||
			   copy_to_user((char *)attr->batch.values + (u64)total * value_size, values,
					(u64)value_size * bucket_cnt))) {
		ret = -EFAULT;
		goto after_loop;
	}
	total += bucket_cnt;
	batch++;
	if (batch >= htab->n_buckets) {
		ret = -ENOENT;
		goto after_loop;
	}
	goto again;
after_loop:
	if (ret != -EFAULT &&
	    (copy_to_user((void *)attr->batch.out_batch, &batch, sizeof(batch)) ||
	     copy_to_user(&uattr->batch.count, &total, sizeof(total))))
		ret = -EFAULT;
	kfree(keys);
	kfree(values);
	return ret;
}

#define HTAB_BATCH_OPS(_name, lru, percpu)								\
static noinline int _name##_map_lookup_batch(struct bpf_map *map, const union bpf_attr *attr,		\
					      union bpf_attr *uattr)					\
{													\
	return __htab_map_lookup_and_delete_batch(map, attr, uattr, false, lru, percpu);		\
}													\
static noinline int _name##_map_lookup_and_delete_batch(struct bpf_map *map, const union bpf_attr *attr, \
							 union bpf_attr *uattr)				\
{													\
	return __htab_map_lookup_and_delete_batch(map, attr, uattr, true, lru, percpu);			\
}
HTAB_BATCH_OPS(htab, false, false)
HTAB_BATCH_OPS(htab_percpu, false, true)
HTAB_BATCH_OPS(htab_lru, true, false)
HTAB_BATCH_OPS(htab_lru_percpu, true, true)

/* (6.1's BATCH_OPS) */
#define BATCH_OPS(_name)						\
	.map_lookup_batch = _name##_map_lookup_batch,			\
	.map_lookup_and_delete_batch = _name##_map_lookup_and_delete_batch, \
	.map_update_batch = generic_map_update_batch,			\
	.map_delete_batch = generic_map_delete_batch

const struct bpf_map_ops htab_map_ops = {
	.map_gen_lookup = htab_map_gen_lookup,
	.map_alloc_check = htab_map_alloc_check,
	.map_alloc = htab_map_alloc,
	.map_free = htab_map_free,
	.map_get_next_key = htab_map_get_next_key,
	.map_lookup_elem = htab_map_lookup_elem,
	.map_update_elem = htab_map_update_elem,
	.map_delete_elem = htab_map_delete_elem,
	.map_lookup_and_delete_elem = htab_map_lookup_and_delete_elem,
	.map_for_each_callback = bpf_for_each_hash_elem,
	BATCH_OPS(htab),
};

const struct bpf_map_ops htab_percpu_map_ops = {
	.map_alloc_check = htab_map_alloc_check,
	.map_alloc = htab_map_alloc,
	.map_free = htab_map_free,
	.map_get_next_key = htab_map_get_next_key,
	.map_lookup_elem = htab_percpu_map_lookup_elem,
	.map_update_elem = htab_map_update_elem,
	.map_delete_elem = htab_map_delete_elem,
	.map_lookup_and_delete_elem = htab_map_lookup_and_delete_elem,
	.map_lookup_percpu = htab_percpu_lookup_all,
	.map_update_percpu = htab_percpu_update_all,
	.map_for_each_callback = bpf_for_each_hash_elem,
	BATCH_OPS(htab_percpu),
	.map_lookup_percpu_elem = htab_percpu_map_lookup_percpu_elem,
};

const struct bpf_map_ops htab_lru_map_ops = {
	.map_gen_lookup = htab_lru_map_gen_lookup,
	.map_alloc_check = htab_map_alloc_check,
	.map_alloc = htab_map_alloc,
	.map_free = htab_map_free,
	.map_get_next_key = htab_map_get_next_key,
	.map_lookup_elem = htab_lru_map_lookup_elem,
	.map_lookup_elem_sys_only = htab_lru_map_lookup_elem_sys,
	.map_update_elem = htab_lru_map_update_elem,
	.map_delete_elem = htab_lru_map_delete_elem,
	.map_lookup_and_delete_elem = htab_map_lookup_and_delete_elem,
	.map_for_each_callback = bpf_for_each_hash_elem,
	BATCH_OPS(htab_lru),
};

const struct bpf_map_ops htab_lru_percpu_map_ops = {
	.map_alloc_check = htab_map_alloc_check,
	.map_alloc = htab_map_alloc,
	.map_free = htab_map_free,
	.map_get_next_key = htab_map_get_next_key,
	.map_lookup_elem = htab_lru_percpu_map_lookup_elem,
	.map_update_elem = htab_lru_percpu_map_update_elem,
	.map_delete_elem = htab_lru_map_delete_elem,
	.map_lookup_and_delete_elem = htab_map_lookup_and_delete_elem,
	.map_lookup_percpu = htab_percpu_lookup_all,
	.map_update_percpu = htab_lru_percpu_update_all,
	.map_for_each_callback = bpf_for_each_hash_elem,
	BATCH_OPS(htab_lru_percpu),
	.map_lookup_percpu_elem = htab_lru_percpu_map_lookup_percpu_elem,
};
