/* Stack trace maps (kernel/bpf/stackmap.c): BPF_MAP_TYPE_STACK_TRACE, a table of call chains
 * by id (the chain's hash, masked), filled by bpf_get_stackid() from a program and read by
 * id from the syscall.  Buckets are preallocated on a free list; an id whose bucket holds
 * another chain answers -EEXIST unless BPF_F_REUSE_STACKID.  (No BPF_F_STACK_BUILD_ID here.) */
#include "../../include/bpf.h"
#include "../../include/perf_event.h"

#define STACK_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_STACK_BUILD_ID)
#define BPF_F_SKIP_FIELD_MASK	0xffULL
#define BPF_F_USER_STACK	(1ULL << 8)
#define BPF_F_FAST_STACK_CMP	(1ULL << 9)
#define BPF_F_REUSE_STACKID	(1ULL << 10)
#define sysctl_perf_event_max_stack PERF_MAX_STACK_DEPTH

struct stack_map_bucket {
	struct stack_map_bucket *next_free;
	u32 hash;
	u32 nr;
	u64 data[];
};

struct bpf_stack_map {
	struct bpf_map map;
	raw_spinlock_t freelist_lock;
	struct stack_map_bucket *freelist;
	u32 n_buckets;
	struct stack_map_bucket *buckets[];
};

/* one chain per cpu, taken with interrupts off */
static u64 bpf_callchain_entries[NR_CPUS][PERF_MAX_STACK_DEPTH + 1];

static struct stack_map_bucket *freelist_pop(struct bpf_stack_map *smap)
{
	unsigned long flags = _raw_spin_lock_irqsave(&smap->freelist_lock);
	struct stack_map_bucket *b = smap->freelist;

	if (b)
		smap->freelist = b->next_free;
	_raw_spin_unlock_irqrestore(&smap->freelist_lock, flags);
	return b;
}

static void freelist_push(struct bpf_stack_map *smap, struct stack_map_bucket *b)
{
	unsigned long flags = _raw_spin_lock_irqsave(&smap->freelist_lock);

	b->next_free = smap->freelist;
	smap->freelist = b;
	_raw_spin_unlock_irqrestore(&smap->freelist_lock, flags);
}

static u32 roundup_pow_of_two_u32(u32 n)
{
	u32 p = 1;

	while (p && p < n)
		p <<= 1;
	return p;
}

static int stack_map_alloc_check(union bpf_attr *attr)
{
	u32 value_size = attr->value_size;

	if (attr->map_flags & ~STACK_CREATE_FLAG_MASK)
		return -EINVAL;
	if (attr->max_entries == 0 || attr->key_size != 4 || value_size < 8 || value_size % 8)
		return -EINVAL;
	if (attr->map_flags & BPF_F_STACK_BUILD_ID)
		return -EINVAL;		/* build ids of user stacks: not in this kernel */
	if (value_size / 8 > sysctl_perf_event_max_stack)
		return -EINVAL;
	if (!roundup_pow_of_two_u32(attr->max_entries))
		return -E2BIG;
	return 0;
}

static void stack_map_free(struct bpf_map *map)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	struct stack_map_bucket *b;
	u32 i;

	for (i = 0; i < smap->n_buckets; i++)
		if (smap->buckets[i])
			kfree(smap->buckets[i]);
	while ((b = smap->freelist)) {
		smap->freelist = b->next_free;
		kfree(b);
	}
	kfree(smap);
}

/* the table of n_buckets, and max_entries buckets on the free list (prealloc_elems_and_freelist) */
static struct bpf_map *stack_map_alloc(union bpf_attr *attr)
{
	u32 n_buckets = roundup_pow_of_two_u32(attr->max_entries), i;
	u64 cost = sizeof(struct bpf_stack_map) + (u64)n_buckets * sizeof(void *);
	struct bpf_stack_map *smap;

	if (cost > (PAGE_SIZE << (MAX_ORDER - 1)))
		return (void *)(long)-ENOMEM;
	smap = kzalloc(cost, GFP_KERNEL);
	if (!smap)
		return (void *)(long)-ENOMEM;
	bpf_map_init_from_attr(&smap->map, attr);
	smap->n_buckets = n_buckets;
	for (i = 0; i < attr->max_entries; i++) {
		struct stack_map_bucket *b = kmalloc(sizeof(*b) + attr->value_size, GFP_KERNEL);

		if (!b) {
			stack_map_free(&smap->map);
			return (void *)(long)-ENOMEM;
		}
		b->next_free = smap->freelist;
		smap->freelist = b;
	}
	return &smap->map;
}

/* __bpf_get_stackid(): the id of the chain ips[skip..nr) */
static noinline long __bpf_get_stackid(struct bpf_map *map, u64 *ips, u32 nr, u64 flags)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	struct stack_map_bucket *bucket, *new_bucket, *old_bucket;
	u32 skip = flags & BPF_F_SKIP_FIELD_MASK, hash, id, trace_nr, trace_len;
	bool hash_matches;

	if (nr <= skip)
		return -EFAULT;	/* skipping more than usable stack trace */
	trace_nr = nr - skip;
	trace_len = trace_nr * sizeof(u64);
	ips += skip;
	hash = jhash(ips, trace_len, 0);
	id = hash & (smap->n_buckets - 1);
	bucket = READ_ONCE(smap->buckets[id]);
	hash_matches = bucket && bucket->hash == hash;
	if (hash_matches && (flags & BPF_F_FAST_STACK_CMP))
		return id;
	if (hash_matches && bucket->nr == trace_nr && memcmp(bucket->data, ips, trace_len) == 0)
		return id;
	if (bucket && !(flags & BPF_F_REUSE_STACKID))
		return -EEXIST;
	new_bucket = freelist_pop(smap);
	if (unlikely(!new_bucket))
		return -ENOMEM;
	memcpy(new_bucket->data, ips, trace_len);
	new_bucket->hash = hash;
	new_bucket->nr = trace_nr;
	old_bucket = __atomic_exchange_n(&smap->buckets[id], new_bucket, __ATOMIC_ACQ_REL);
	if (old_bucket)
		freelist_push(smap, old_bucket);
	return id;
}

/* bpf_get_stackid() on the registers: the kernel's chain, or the user's (BPF_F_USER_STACK) */
long bpf_get_stackid_regs(struct pt_regs *regs, struct bpf_map *map, u64 flags)
{
	u32 max_depth = map->value_size / sizeof(u64), skip = flags & BPF_F_SKIP_FIELD_MASK;
	bool user = flags & BPF_F_USER_STACK;
	unsigned long irqflags;
	long ret;
	int nr;

	if (unlikely(flags & ~(BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP |
			       BPF_F_REUSE_STACKID)))
		return -EINVAL;
	max_depth += skip;
	if (max_depth > sysctl_perf_event_max_stack)
		max_depth = sysctl_perf_event_max_stack;
	irqflags = arch_local_irq_save();
	nr = get_perf_callchain(bpf_callchain_entries[smp_processor_id()], regs, !user, user, max_depth, false);
	ret = __bpf_get_stackid(map, bpf_callchain_entries[smp_processor_id()], nr, flags);
	arch_local_irq_restore(irqflags);
	return ret;
}

/* the helper (BPF_FUNC_get_stackid) of a kprobe program, whose context is the registers */
BPF_CALL_x(bpf_get_stackid)
{
	return bpf_get_stackid_regs((struct pt_regs *)r1, (struct bpf_map *)r2, r3);
}
const struct bpf_func_proto bpf_get_stackid_proto = {
	.func = bpf_get_stackid,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
};

/* bpf_stackmap_copy(): the syscall's lookup, the chain and zeros after it */
int bpf_stackmap_copy(struct bpf_map *map, void *key, void *value)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	struct stack_map_bucket *bucket, *old_bucket;
	u32 id = *(u32 *)key, trace_len;

	if (unlikely(id >= smap->n_buckets))
		return -ENOENT;
	bucket = __atomic_exchange_n(&smap->buckets[id], NULL, __ATOMIC_ACQ_REL);
	if (!bucket)
		return -ENOENT;
	trace_len = bucket->nr * sizeof(u64);
	memcpy(value, bucket->data, trace_len);
	memset((char *)value + trace_len, 0, map->value_size - trace_len);
	old_bucket = __atomic_exchange_n(&smap->buckets[id], bucket, __ATOMIC_ACQ_REL);
	if (old_bucket)
		freelist_push(smap, old_bucket);
	return 0;
}

/* a program cannot look up a stack map (the verifier allows it only get_stackid) */
static void *stack_map_lookup_elem(struct bpf_map *map, void *key)
{
	return NULL;
}

static int stack_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	u32 id;

	if (!key) {
		id = 0;
	} else {
		id = *(u32 *)key;
		if (id >= smap->n_buckets || !smap->buckets[id])
			id = 0;
		else
			id++;
	}
	while (id < smap->n_buckets && !smap->buckets[id])
		id++;
	if (id >= smap->n_buckets)
		return -ENOENT;
	*(u32 *)next_key = id;
	return 0;
}

static long stack_map_update_elem(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	return -EINVAL;
}

static long stack_map_delete_elem(struct bpf_map *map, void *key)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	struct stack_map_bucket *old_bucket;
	u32 id = *(u32 *)key;

	if (unlikely(id >= smap->n_buckets))
		return -E2BIG;
	old_bucket = __atomic_exchange_n(&smap->buckets[id], NULL, __ATOMIC_ACQ_REL);
	if (!old_bucket)
		return -ENOENT;
	freelist_push(smap, old_bucket);
	return 0;
}

const struct bpf_map_ops stack_trace_map_ops = {
	.map_alloc_check = stack_map_alloc_check,
	.map_alloc = stack_map_alloc,
	.map_free = stack_map_free,
	.map_get_next_key = stack_map_get_next_key,
	.map_lookup_elem = stack_map_lookup_elem,
	.map_update_elem = stack_map_update_elem,
	.map_delete_elem = stack_map_delete_elem,
	.map_check_btf = map_check_no_btf,
};
