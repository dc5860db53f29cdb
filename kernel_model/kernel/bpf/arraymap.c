/* Array maps (kernel/bpf/arraymap.c): BPF_MAP_TYPE_ARRAY and PERCPU_ARRAY.  Every element
 * exists from creation, zeroed; a per-cpu array keeps one value per possible cpu.  And the fd
 * arrays BPF_MAP_TYPE_PERF_EVENT_ARRAY (perf events put in by fd, where bpf_perf_event_output()
 * writes), BPF_MAP_TYPE_PROG_ARRAY (programs put in by fd, where bpf_tail_call() jumps) and
 * BPF_MAP_TYPE_CGROUP_ARRAY. */
#include "../../include/bpf.h"
#include "../../include/btf.h"
#include "../../include/fs.h"
#include "../../include/perf_event.h"

#define ARRAY_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_MMAPABLE | BPF_F_RDONLY | BPF_F_WRONLY | \
				BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG | BPF_F_PRESERVE_ELEMS | BPF_F_INNER_MAP)
#define PCPU_MIN_UNIT_SIZE (32 << 10)
#define INT_MAX 0x7fffffff

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

/* an array of max_entries elements, stride bytes apart, elem_size of each a cpu's value */
static notrace struct bpf_map *array_alloc(union bpf_attr *attr, u32 elem_size, u64 stride)
{
	u64 size = stride * attr->max_entries;
	struct bpf_array *array;

	if (size >= U32_MAX - PAGE_SIZE)	/* 6.1: no u32 overflow in round_up() */
		return (void *)(long)-ENOMEM;
	array = kzalloc(sizeof(*array), GFP_KERNEL);
	if (!array)
		return (void *)(long)-ENOMEM;
	array->region = -1;
	if (attr->map_flags & BPF_F_MMAPABLE) {
		/* pages a session's process can map: a perf pool region, as a ring buffer's */
		array->region = perf_pool_get_pages(PAGE_ALIGN(size) >> PAGE_SHIFT);
		if (array->region >= 0) {
			array->value = perf_pool_page(array->region, 0);
			memset(array->value, 0, PAGE_ALIGN(size));
		}
	} else {
		array->value = bpf_map_area_alloc(size, NUMA_NO_NODE);	/* vmalloc'd when large, as 6.1's */
	}
	if (!array->value) {
		kfree(array);
		return (void *)(long)-ENOMEM;
	}
	array->elem_size = elem_size;
	array->stride = stride;
	bpf_map_init_from_attr(&array->map, attr);
	return &array->map;
}

static struct bpf_map *array_map_alloc(union bpf_attr *attr)
{
	bool percpu = attr->map_type == BPF_MAP_TYPE_PERCPU_ARRAY;
	u32 elem_size = ALIGN(attr->value_size, 8);

	return array_alloc(attr, elem_size, (u64)elem_size * (percpu ? bpf_num_possible_cpus() : 1));
}

static void array_map_free(struct bpf_map *map)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);

	if (array->region >= 0)
		perf_pool_put(array->region);
	else
		bpf_map_area_free(array->value);
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

static noinline void *percpu_array_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	char *elem = array_elem(map, key);

	return elem ? elem + (u64)array->elem_size * smp_processor_id() : NULL;
}

static noinline void *percpu_array_map_lookup_percpu_elem(struct bpf_map *map, void *key, u32 cpu)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	char *elem;

	if (cpu >= (u32)nr_cpu_ids)
		return NULL;
	elem = array_elem(map, key);
	return elem ? elem + (u64)array->elem_size * cpu : NULL;
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
static notrace int percpu_array_lookup_all(struct bpf_map *map, void *key, void *value)
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

static notrace int percpu_array_update_all(struct bpf_map *map, void *key, void *value, u64 map_flags)
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

/* an array's key is a u32; keyless BTF only for a one-element array of a section (.bss, .data) */
noinline int array_map_check_btf(const struct bpf_map *map, const struct btf *btf, const struct btf_type *key_type,
				 const struct btf_type *value_type)
{
	u32 int_data;

	if (!key_type->info && !key_type->size)	/* void */
		return map->map_type == BPF_MAP_TYPE_ARRAY && map->max_entries == 1 &&
		       btf_kind(value_type) == BTF_KIND_DATASEC ? 0 : -EINVAL;
	if (btf_kind(key_type) != BTF_KIND_INT)
		return -EINVAL;
	int_data = *(const u32 *)(key_type + 1);
	if (BTF_INT_BITS(int_data) != 32 || BTF_INT_OFFSET(int_data))
		return -EINVAL;
	return 0;
}

/* bpf_for_each_array_elem(): each index in order, a per-cpu array's value this cpu's, until the
 * callback returns 1; the elements visited */
static noinline long bpf_for_each_array_elem(struct bpf_map *map, bpf_callback_t callback_fn, void *callback_ctx,
					     u64 flags)
{
	bool is_percpu = map->map_type == BPF_MAP_TYPE_PERCPU_ARRAY;
	u32 i, key, num_elems = 0;
	void *val;

	if (flags != 0)
		return -EINVAL;
	for (i = 0; i < map->max_entries; i++) {
		key = i;
		val = is_percpu ? percpu_array_map_lookup_elem(map, &key) : array_elem(map, &key);
		num_elems++;
		/* return value: 0 - continue, 1 - stop and return */
		if (callback_fn((u64)(long)map, (u64)(long)&key, (u64)(long)val, (u64)(long)callback_ctx, 0))
			break;
	}
	return num_elems;
}

/* array_map_mmap(): the values of a BPF_F_MMAPABLE array, from their start (pgoff pages in)
 * and within their pages; the pool region they are, which the served mmap maps at the same
 * offset */
static long array_map_mmap(struct bpf_map *map, unsigned long len, unsigned long prot, unsigned long pgoff)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);

	if (!(map->map_flags & BPF_F_MMAPABLE))
		return -EINVAL;
	if ((u64)pgoff * PAGE_SIZE + len > PAGE_ALIGN((u64)map->max_entries * array->elem_size))
		return -EINVAL;
	return array->region;
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
	.map_mmap_shared = array_map_mmap,
	.map_check_btf = array_map_check_btf,
	.map_for_each_callback = bpf_for_each_array_elem,
	.map_lookup_batch = generic_map_lookup_batch,
	.map_update_batch = generic_map_update_batch,
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
	.map_check_btf = array_map_check_btf,
	.map_for_each_callback = bpf_for_each_array_elem,
	.map_lookup_percpu_elem = percpu_array_map_lookup_percpu_elem,
	.map_lookup_batch = generic_map_lookup_batch,
	.map_update_batch = generic_map_update_batch,
};

/* ---- BPF_MAP_TYPE_PERF_EVENT_ARRAY: a struct bpf_event_entry pointer per index ---- */
static int fd_array_map_alloc_check(union bpf_attr *attr)
{
	/* only file descriptors can be stored in this type of map */
	if (attr->value_size != sizeof(u32))
		return -EINVAL;
	/* Program read-only/write-only not supported for special maps yet. */
	if (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	return array_map_alloc_check(attr);
}

static notrace struct bpf_map *perf_event_array_map_alloc(union bpf_attr *attr)
{
	return array_alloc(attr, sizeof(struct bpf_event_entry *), sizeof(struct bpf_event_entry *));
}

notrace noinline struct bpf_event_entry **bpf_perf_event_array_slot(struct bpf_map *map, u32 index)
{
	return array_elem(map, &index);
}

static void *fd_array_map_lookup_elem(struct bpf_map *map, void *key)
{
	return NULL;	/* the verifier lets no program look one up */
}

static void bpf_event_entry_free(struct bpf_event_entry *ee)
{
	fput(ee->perf_file);
	kfree(ee);
}

/* bpf_fd_array_map_update_elem() with perf_event_fd_array_get_ptr() */
static notrace int perf_event_fd_array_update_elem(struct bpf_map *map, struct file *map_file, void *key, void *value,
					   u64 map_flags)
{
	u32 index = *(u32 *)key, fd = *(u32 *)value;
	struct bpf_event_entry *ee, *old;
	struct perf_event *event;
	struct file *perf_file;

	if (map_flags != BPF_ANY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	perf_file = perf_event_get(fd);
	if (IS_ERR(perf_file))
		return PTR_ERR(perf_file);
	event = perf_file->private_data;
	if (event->attr.inherit) {	/* perf_event_read_local() refuses it */
		fput(perf_file);
		return -EOPNOTSUPP;
	}
	ee = kzalloc(sizeof(*ee), GFP_KERNEL);
	if (!ee) {
		fput(perf_file);
		return -ENOMEM;
	}
	ee->perf_file = perf_file;
	ee->map_file = map_file;
	old = perf_event_array_xchg(bpf_perf_event_array_slot(map, index), ee);
	if (old)
		bpf_event_entry_free(old);
	return 0;
}

static long fd_array_map_delete_elem(struct bpf_map *map, void *key)
{
	u32 index = *(u32 *)key;
	struct bpf_event_entry *old;

	if (index >= map->max_entries)
		return -E2BIG;
	old = perf_event_array_xchg(bpf_perf_event_array_slot(map, index), NULL);
	if (!old)
		return -ENOENT;
	bpf_event_entry_free(old);
	return 0;
}

/* perf_event_fd_array_release(): the events put in through this file of the map go */
static void perf_event_fd_array_release(struct bpf_map *map, struct file *map_file)
{
	struct bpf_event_entry **slot, *ee;
	u32 i;

	for (i = 0; i < map->max_entries; i++) {
		slot = bpf_perf_event_array_slot(map, i);
		ee = READ_ONCE(*slot);
		if (ee && ee->map_file == map_file && perf_event_array_xchg(slot, NULL) == ee)
			bpf_event_entry_free(ee);
	}
}

/* every entry went with the file it was put through, before the map's last reference */
const struct bpf_map_ops perf_event_array_map_ops = {
	.map_alloc_check = fd_array_map_alloc_check,
	.map_alloc = perf_event_array_map_alloc,
	.map_free = array_map_free,
	.map_get_next_key = array_map_get_next_key,
	.map_lookup_elem = fd_array_map_lookup_elem,
	.map_delete_elem = fd_array_map_delete_elem,
	.map_fd_update_elem = perf_event_fd_array_update_elem,
	.map_release = perf_event_fd_array_release,
	.map_check_btf = map_check_no_btf,
};

/*
 * ---- BPF_MAP_TYPE_CGROUP_ARRAY: a cgroup per index, for bpf_current_task_under_cgroup() ----
 * This kernel has no cgroups: cgroup_get_from_fd() finds no cgroup directory behind any fd
 * (EBADF, as 6.1 answers for a file that is not one), so no slot ever holds one.  The map is
 * still made, as libbpf-tools make theirs (for -c) when they do not filter.
 */
static notrace struct bpf_map *cgroup_array_map_alloc(union bpf_attr *attr)
{
	return array_alloc(attr, sizeof(void *), sizeof(void *));
}

/* bpf_fd_array_map_update_elem() with cgroup_fd_array_get_ptr() */
static notrace int cgroup_fd_array_update_elem(struct bpf_map *map, struct file *map_file, void *key, void *value,
					       u64 map_flags)
{
	if (map_flags != BPF_ANY)
		return -EINVAL;
	if (*(u32 *)key >= map->max_entries)
		return -E2BIG;
	return -EBADF;	/* no such fd, or a file that is no cgroup directory */
}

/* fd_array_map_delete_elem(): an empty slot */
static notrace long cgroup_fd_array_delete_elem(struct bpf_map *map, void *key)
{
	return *(u32 *)key >= map->max_entries ? -E2BIG : -ENOENT;
}

const struct bpf_map_ops cgroup_array_map_ops = {
	.map_alloc_check = fd_array_map_alloc_check,
	.map_alloc = cgroup_array_map_alloc,
	.map_free = array_map_free,
	.map_get_next_key = array_map_get_next_key,
	.map_lookup_elem = fd_array_map_lookup_elem,
	.map_delete_elem = cgroup_fd_array_delete_elem,
	.map_fd_update_elem = cgroup_fd_array_update_elem,
	.map_check_btf = map_check_no_btf,
};

/*
 * ---- BPF_MAP_TYPE_PROG_ARRAY: a program per index, for bpf_tail_call() ----
 * The programs, put in by fd, are referenced by the map; a program that tail-calls through it
 * references the map: the cycle is broken when the map's last file goes (map_release_uref
 * empties it, as 6.1's prog_array_map_clear() does from a work item).  Every program in it and
 * every program using it have the same type and are all JITed or all interpreted.
 */
static noinline struct bpf_map *prog_array_map_alloc(union bpf_attr *attr)
{
	struct bpf_array *array;
	u64 size = sizeof(*array) + (u64)attr->max_entries * sizeof(void *);

	if (size >= U32_MAX - PAGE_SIZE)
		return (void *)(long)-ENOMEM;
	array = bpf_map_area_alloc(size, NUMA_NO_NODE);	/* (zeroed: no programs yet) */
	if (!array)
		return (void *)(long)-ENOMEM;
	array->region = -1;
	array->value = (char *)array->ptrs;	/* for array_elem() */
	array->elem_size = array->stride = sizeof(void *);
	bpf_map_init_from_attr(&array->map, attr);
	return &array->map;
}

/* prog_fd_array_get_ptr(): a reference on the program of fd, if the map can take it */
static noinline struct bpf_prog *prog_fd_array_get_ptr(struct bpf_map *map, int fd)
{
	struct bpf_prog *prog = bpf_prog_get(fd);

	if (IS_ERR(prog))
		return prog;
	if (!bpf_prog_map_compatible(map, prog)) {
		bpf_prog_put(prog);
		return (void *)(long)-EINVAL;
	}
	return prog;
}

/* bpf_fd_array_map_update_elem() with prog_fd_array_get_ptr() */
static notrace int prog_fd_array_update_elem(struct bpf_map *map, struct file *map_file, void *key, void *value,
					     u64 map_flags)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	u32 index = *(u32 *)key;
	struct bpf_prog *prog, *old;

	if (map_flags != BPF_ANY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	prog = prog_fd_array_get_ptr(map, *(u32 *)value);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	old = __atomic_exchange_n(&array->ptrs[index], prog, __ATOMIC_ACQ_REL);
	if (old)
		bpf_prog_put(old);	/* (freed after a grace period: a tail call may be in it) */
	return 0;
}

static notrace long prog_fd_array_delete_elem(struct bpf_map *map, void *key)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	u32 index = *(u32 *)key;
	struct bpf_prog *old;

	if (index >= map->max_entries)
		return -E2BIG;
	old = __atomic_exchange_n(&array->ptrs[index], NULL, __ATOMIC_ACQ_REL);
	if (!old)
		return -ENOENT;
	bpf_prog_put(old);
	return 0;
}

/* bpf_fd_array_map_lookup_elem() with prog_fd_array_sys_lookup_elem(): the program's id */
static noinline int prog_fd_array_sys_lookup_elem(struct bpf_map *map, void *key, u32 *value)
{
	struct bpf_array *array = container_of(map, struct bpf_array, map);
	u32 index = *(u32 *)key;
	struct bpf_prog *prog;

	if (index >= map->max_entries)
		return -ENOENT;
	prog = READ_ONCE(array->ptrs[index]);
	if (!prog)
		return -ENOENT;
	*value = prog->id;
	return 0;
}

/* prog_array_map_clear(): bpf_fd_array_map_clear() once no file of the map is left */
static noinline void prog_array_map_clear(struct bpf_map *map)
{
	u32 i;

	for (i = 0; i < map->max_entries; i++)
		prog_fd_array_delete_elem(map, &i);
}

static noinline void prog_array_map_free(struct bpf_map *map)
{
	prog_array_map_clear(map);	/* (none left: the last file emptied it) */
	bpf_map_area_free(container_of(map, struct bpf_array, map));
}

const struct bpf_map_ops prog_array_map_ops = {
	.map_alloc_check = fd_array_map_alloc_check,
	.map_alloc = prog_array_map_alloc,
	.map_free = prog_array_map_free,
	.map_get_next_key = array_map_get_next_key,
	.map_lookup_elem = fd_array_map_lookup_elem,
	.map_delete_elem = prog_fd_array_delete_elem,
	.map_fd_update_elem = prog_fd_array_update_elem,
	.map_fd_sys_lookup_elem = prog_fd_array_sys_lookup_elem,
	.map_release_uref = prog_array_map_clear,
	.map_check_btf = map_check_no_btf,
};
