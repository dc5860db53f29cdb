/* Array maps (kernel/bpf/arraymap.c): BPF_MAP_TYPE_ARRAY and PERCPU_ARRAY.  Every element
 * exists from creation, zeroed; a per-cpu array keeps one value per possible cpu. */
#include "../../include/bpf.h"

#define ARRAY_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_MMAPABLE | BPF_F_RDONLY | BPF_F_WRONLY | \
				BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG | BPF_F_PRESERVE_ELEMS | BPF_F_INNER_MAP)
#define PCPU_MIN_UNIT_SIZE (32 << 10)
#define INT_MAX 0x7fffffff

struct bpf_array {
	struct bpf_map map;
	u32 elem_size;		/* round_up(value_size, 8) */
	u32 stride;		/* bytes per index: elem_size, times the cpus for a per-cpu array */
	char *value;
};

static int array_map_alloc_check(union bpf_attr *attr)
{
	bool percpu = attr->map_type == BPF_MAP_TYPE_PERCPU_ARRAY;

	if (attr->max_entries == 0 || attr->key_size != 4 || attr->value_size == 0 ||
	    attr->map_flags & ~ARRAY_CREATE_FLAG_MASK || !bpf_map_flags_access_ok(attr->map_flags) ||
	    (percpu && (attr->map_flags & BPF_F_NUMA_NODE)))
		return -EINVAL;
	if (attr->map_type != BPF_MAP_TYPE_ARRAY && attr->map_flags & (BPF_F_MMAPABLE | BPF_F_INNER_MAP))
		return -EINVAL;
	if (attr->map_flags & BPF_F_PRESERVE_ELEMS)
		return -EINVAL;
	if (attr->value_size > INT_MAX)
		return -E2BIG;
	if (percpu && ALIGN(attr->value_size, 8) > PCPU_MIN_UNIT_SIZE)
		return -E2BIG;
	return 0;
}

static struct bpf_map *array_map_alloc(union bpf_attr *attr)
{
	bool percpu = attr->map_type == BPF_MAP_TYPE_PERCPU_ARRAY;
	u32 elem_size = ALIGN(attr->value_size, 8);
	u64 stride = (u64)elem_size * (percpu ? bpf_num_possible_cpus() : 1);
	u64 size = stride * attr->max_entries;
	struct bpf_array *array;

	if (size > (PAGE_SIZE << (MAX_ORDER - 1)))
		return (void *)(long)-ENOMEM;
	array = kzalloc(sizeof(*array), GFP_KERNEL);
	if (!array)
		return (void *)(long)-ENOMEM;
	array->value = kzalloc(size, GFP_KERNEL);
	if (!array->value) {
		kfree(array);
		return (void *)(long)-ENOMEM;
	}
	array->elem_size = elem_size;
	array->stride = stride;
	bpf_map_init_from_attr(&array->map, attr);
	return &array->map;
}

static void array_map_free(struct bpf_map *map)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);

	kfree(array->value);
	kfree(array);
}

static void *array_elem(struct bpf_map *map, void *key)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	u32 index = *(u32 *)key;

	if (unlikely(index >= map->max_entries))
		return NULL;
	return array->value + (u64)array->stride * index;
}

static void *array_map_lookup_elem(struct bpf_map *map, void *key)
{
	return array_elem(map, key);
}

static void *percpu_array_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	char *elem = array_elem(map, key);

	return elem ? elem + (u64)array->elem_size * smp_processor_id() : NULL;
}

static int array_update_check(struct bpf_map *map, void *key, u64 map_flags)
{
	if (unlikely((map_flags & ~BPF_F_LOCK) > BPF_EXIST))
		return -EINVAL;
	if (unlikely(*(u32 *)key >= map->max_entries))
		return -E2BIG;
	if (unlikely(map_flags & BPF_NOEXIST))
		return -EEXIST;
	if (unlikely(map_flags & BPF_F_LOCK))	/* no value here has a bpf_spin_lock */
		return -EINVAL;
	return 0;
}

static long array_map_update_elem(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	int err = array_update_check(map, key, map_flags);
	char *val;

	if (err)
		return err;
	val = map->map_type == BPF_MAP_TYPE_PERCPU_ARRAY ? percpu_array_map_lookup_elem(map, key)
							 : array_elem(map, key);
	memcpy(val, value, map->value_size);
	return 0;
}

static long array_map_delete_elem(struct bpf_map *map, void *key)
{
	return -EINVAL;
}

static int array_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	u32 index = key ? *(u32 *)key : 0xffffffffU;
	u32 *next = next_key;

	if (index >= map->max_entries) {
		*next = 0;
		return 0;
	}
	if (index == map->max_entries - 1)
		return -ENOENT;
	*next = index + 1;
	return 0;
}

/* the syscall's view of a per-cpu array: each cpu's value, 8-byte aligned */
static int percpu_array_lookup_all(struct bpf_map *map, void *key, void *value)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	char *elem = array_elem(map, key);
	u32 cpu;

	if (!elem)
		return -ENOENT;
	for (cpu = 0; cpu < bpf_num_possible_cpus(); cpu++)
		memcpy((char *)value + (u64)cpu * array->elem_size, elem + (u64)cpu * array->elem_size,
		       array->elem_size);
	return 0;
}

static int percpu_array_update_all(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	int err = array_update_check(map, key, map_flags);
	char *elem;
	u32 cpu;

	if (err)
		return err;
	elem = array_elem(map, key);
	for (cpu = 0; cpu < bpf_num_possible_cpus(); cpu++)
		memcpy(elem + (u64)cpu * array->elem_size, (char *)value + (u64)cpu * array->elem_size,
		       array->elem_size);
	return 0;
}

static int array_map_direct_value_addr(const struct bpf_map *map, u64 *imm, u32 off)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);

	if (map->max_entries != 1)
		return -ENOTSUPP;
	if (off >= map->value_size)
		return -EINVAL;
	*imm = (u64)array->value;
	return 0;
}

static int array_map_direct_value_meta(const struct bpf_map *map, u64 imm, u32 *off)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	u64 base = (u64)array->value, range = array->elem_size;

	if (map->max_entries != 1)
		return -ENOTSUPP;
	if (imm < base || imm >= base + range)
		return -ENOENT;
	*off = imm - base;
	return 0;
}

/* array_map_gen_lookup(): r0 = index < max_entries ? &value[index] : NULL, inline (privileged:
 * no index masking) */
static int array_map_gen_lookup(struct bpf_map *map, struct bpf_insn *insn_buf)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	struct bpf_insn *insn = insn_buf;
	u32 elem_size = array->elem_size;

	if (map->map_flags & BPF_F_INNER_MAP)
		return -EOPNOTSUPP;
	*insn++ = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_1,
				     .off = offsetof(struct bpf_array, value) };
	*insn++ = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_2 };
	*insn++ = (struct bpf_insn){ .code = BPF_JMP | BPF_JGE | BPF_K, .dst_reg = BPF_REG_0, .off = 3,
				     .imm = map->max_entries };
	if (!(elem_size & (elem_size - 1)))
		*insn++ = (struct bpf_insn){ .code = BPF_ALU64 | BPF_LSH | BPF_K, .dst_reg = BPF_REG_0,
					     .imm = __builtin_ctz(elem_size) };
	else
		*insn++ = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MUL | BPF_K, .dst_reg = BPF_REG_0, .imm = elem_size };
	*insn++ = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_X, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_1 };
	*insn++ = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = 1 };
	*insn++ = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 };
	return insn - insn_buf;
}

const struct bpf_map_ops array_map_ops = {
	.map_gen_lookup = array_map_gen_lookup,
	.map_alloc_check = array_map_alloc_check,
	.map_alloc = array_map_alloc,
	.map_free = array_map_free,
	.map_get_next_key = array_map_get_next_key,
	.map_lookup_elem = array_map_lookup_elem,
	.map_update_elem = array_map_update_elem,
	.map_delete_elem = array_map_delete_elem,
	.map_direct_value_addr = array_map_direct_value_addr,
	.map_direct_value_meta = array_map_direct_value_meta,
};

const struct bpf_map_ops percpu_array_map_ops = {
	.map_alloc_check = array_map_alloc_check,
	.map_alloc = array_map_alloc,
	.map_free = array_map_free,
	.map_get_next_key = array_map_get_next_key,
	.map_lookup_elem = percpu_array_map_lookup_elem,
	.map_update_elem = array_map_update_elem,
	.map_delete_elem = array_map_delete_elem,
	.map_lookup_percpu = percpu_array_lookup_all,
	.map_update_percpu = percpu_array_update_all,
};
