/* The bpf() system call (kernel/bpf/syscall.c): map and program objects behind fds of the
 * task's table (anon inodes "bpf-map" / "bpf-prog"), their ids, and the commands on them.
 * Every command's attribute tail past its last field must be zero (CHECK_ATTR: EINVAL), and a
 * bigger union than this kernel's must end in zeros (E2BIG), as 6.1. */
#include "../../include/security.h"
#include "../../include/fs.h"
#include "../../include/bpf.h"
#include "../../include/perf_event.h"
#include "../../include/mm.h"
#include "../../include/poll.h"
#include "../../include/cred.h"
#include "../../include/pid.h"

#define EBADFD		77
#define MAP_TYPE_MASK	0x0f

/* ---- ids (6.1: idr_alloc_cyclic from 1): the objects in id order, each list under its lock ---- */
static raw_spinlock_t map_idr_lock;
static raw_spinlock_t prog_idr_lock;
static raw_spinlock_t link_idr_lock;
static u32 map_next_id = 1, prog_next_id = 1, link_next_id = 1;
static LIST_HEAD(map_ids);
static LIST_HEAD(prog_ids);
static LIST_HEAD(link_ids);

static u32 id_alloc(raw_spinlock_t *lock, u32 *next, struct list_head *node, struct list_head *list)
{
	unsigned long flags = _raw_spin_lock_irqsave(lock);
	u32 id = (*next)++;

	list_add_tail(node, list);
	_raw_spin_unlock_irqrestore(lock, flags);
	return id;
}

static void id_remove(raw_spinlock_t *lock, struct list_head *node, u32 id)
{
	unsigned long flags;

	if (!id)
		return;
	flags = _raw_spin_lock_irqsave(lock);
	list_del_init(node);
	_raw_spin_unlock_irqrestore(lock, flags);
}

notrace noinline u32 bpf_num_possible_cpus(void)
{
	return nr_cpu_ids;
}

/* A map's memory, zeroed: kmalloc'd up to PAGE_ALLOC_COSTLY_ORDER's pages, vmalloc'd past
 * (6.1's __bpf_map_area_alloc: a large map needs no contiguous pages) */
void *bpf_map_area_alloc(u64 size, int numa_node)
{
	if (size >= SIZE_MAX)
		return NULL;
	if (size <= (PAGE_SIZE << 3))
		return kzalloc(size, GFP_KERNEL);
	return vzalloc(size);
}

void bpf_map_area_free(void *area)
{
	kvfree(area);
}

void bpf_map_init_from_attr(struct bpf_map *map, union bpf_attr *attr)
{
	map->map_type = attr->map_type;
	map->key_size = attr->key_size;
	map->value_size = attr->value_size;
	map->max_entries = attr->max_entries;
	map->map_flags = attr->map_flags & ~BPF_F_RDONLY & ~BPF_F_WRONLY;	/* bpf_map_flags_retain_permanent */
	map->map_extra = attr->map_extra;
}

/* ---- fds: an anonymous file whose f_op says what it holds ---- */
static ssize_t bpf_dummy_read(struct file *f, char *buf, size_t n, loff_t *pos) { return -EINVAL; }
static ssize_t bpf_dummy_write(struct file *f, const char *buf, size_t n, loff_t *pos) { return -EINVAL; }
static int bpf_map_release(struct inode *inode, struct file *f);
static int bpf_prog_release(struct inode *inode, struct file *f);

static long bpf_map_mmap_checked(struct file *f, unsigned long len, unsigned long prot, unsigned long flags,
				 unsigned long pgoff);
/* 6.1's bpf_map_mmap(), a session's served mmap (kernel/mmap.c): the map's own checks (a ring
 * buffer's), after do_mmap()'s of the file's mode and bpf_map_mmap()'s; the perf pool region
 * mapped, the mapping holding the map's file (so the map, after its fd is closed) as 6.1's
 * vma->vm_file does, until it is unmapped.  (A map without map_mmap_shared: ENOTSUPP, as a map
 * without map_mmap on 6.1.) */
static notrace long bpf_map_mmap_shared(struct file *f, unsigned long len, unsigned long prot, unsigned long flags,
				unsigned long pgoff)
{
	long region = bpf_map_mmap_checked(f, len, prot, flags, pgoff);

	if (region >= 0 && current->mm) {
		int err = mm_hold_pool_file(current->mm, region, f);

		if (err)
			return err;
	}
	return region;
}

static notrace long bpf_map_mmap_checked(struct file *f, unsigned long len, unsigned long prot, unsigned long flags,
					 unsigned long pgoff)
{
	struct bpf_map *map = f->private_data;

	if (!(f->f_mode & FMODE_READ))
		return -EACCES;
	if ((flags & MAP_TYPE_MASK) == MAP_SHARED && (prot & PROT_WRITE) && !(f->f_mode & FMODE_WRITE))
		return -EACCES;
	if (!map->ops->map_mmap_shared)
		return -ENOTSUPP;
	if ((flags & MAP_TYPE_MASK) != MAP_SHARED)
		return -EINVAL;
	if ((prot & PROT_WRITE) && READ_ONCE(map->frozen))
		return -EPERM;
	if ((prot & PROT_WRITE) && (map->map_flags & BPF_F_RDONLY_PROG))
		return -EACCES;
	return map->ops->map_mmap_shared(map, len, prot, pgoff);
}

/* bpf_map_poll(): the map's, EPOLLERR for a map without one */
static unsigned int bpf_map_poll(struct file *f, struct poll_table_struct *pts)
{
	struct bpf_map *map = f->private_data;

	return map->ops->map_poll ? map->ops->map_poll(map, f, pts) : EPOLLERR;
}

static const struct file_operations bpf_map_fops = {
	.read = bpf_dummy_read, .write = bpf_dummy_write, .release = bpf_map_release,
	.mmap_shared = bpf_map_mmap_shared, .poll = bpf_map_poll,
};
static const struct file_operations bpf_prog_fops = {
	.read = bpf_dummy_read, .write = bpf_dummy_write, .release = bpf_prog_release,
};
static int bpf_link_release(struct inode *inode, struct file *f);
static void bpf_link_put(struct bpf_link *link);
static int bpf_link_get_info_by_fd(struct bpf_link *link, const union bpf_attr *attr, union bpf_attr *uattr);
static const struct file_operations bpf_link_fops = {
	.read = bpf_dummy_read, .write = bpf_dummy_write, .release = bpf_link_release,
};

/* anon_inode_getfd(name, fops, priv, flags): a new fd on a file of its own (no path). */
static int bpf_anon_inode_getfd(const struct file_operations *fops, void *priv, int flags)
{
	int fd = get_unused_fd_flags(flags);
	struct file *f;

	if (fd < 0)
		return fd;
	f = anon_inode_getfile(fops == &bpf_map_fops ? "bpf-map" : fops == &bpf_prog_fops ? "bpf-prog" : "bpf_link",
			       fops, priv, flags);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		return PTR_ERR(f);
	}
	fd_install(fd, f);
	return fd;
}

/* ---- map objects ---- */
noinline void bpf_map_inc(struct bpf_map *map)
{
	__atomic_add_fetch(&map->refcnt, 1, __ATOMIC_RELAXED);
}

void bpf_map_put(struct bpf_map *map)
{
	if (__atomic_sub_fetch(&map->refcnt, 1, __ATOMIC_ACQ_REL) == 0) {
		id_remove(&map_idr_lock, &map->id_node, map->id);
		btf_put(map->btf);
		map->ops->map_free(map);
	}
}

/* bpf_map_put_uref(): a file of the map goes; with the last, what it holds that may hold the
 * map (a program array's programs) */
static void bpf_map_put_uref(struct bpf_map *map)
{
	if (!__atomic_sub_fetch(&map->usercnt, 1, __ATOMIC_ACQ_REL) && map->ops->map_release_uref)
		map->ops->map_release_uref(map);
}

static int bpf_map_release(struct inode *inode, struct file *f)
{
	struct bpf_map *map = f->private_data;

	if (map->ops->map_release)
		map->ops->map_release(map, f);
	bpf_map_put_uref(map);
	bpf_map_put(map);
	return 0;
}

/* The file at fd, a borrowed reference: the fd table keeps it while the call uses it. */
static struct file *fget_borrowed(int fd)
{
	struct file *f = fd < 0 ? NULL : fget(fd);

	if (f)
		fput(f);
	return f;
}

/* __bpf_map_get(fdget(fd)): EBADF for no file, EINVAL for a file that is not a map */
static struct bpf_map *map_from_fd(int fd, struct file **filep)
{
	struct file *f = fget_borrowed(fd);

	if (!f)
		return (void *)(long)-EBADF;
	if (f->f_op != &bpf_map_fops)
		return (void *)(long)-EINVAL;
	if (filep)
		*filep = f;
	return (struct bpf_map *)f->private_data;
}

noinline struct bpf_map *bpf_map_get(u32 ufd)
{
	struct bpf_map *map = map_from_fd((int)ufd, NULL);

	if (!IS_ERR(map))
		bpf_map_inc(map);
	return map;
}

/* bpf_obj_name_cpy: [A-Za-z0-9_.] only, NUL within the field */
static int bpf_obj_name_cpy(char *dst, const char *src, unsigned int size)
{
	const char *end = src + size, *orig = src;

	memset(dst, 0, size);
	while (src < end && *src) {
		char c = *src;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.'))
			return -EINVAL;
		*dst++ = *src++;
	}
	if (src == end)
		return -EINVAL;
	return src - orig;
}

static bool attr_tail_nonzero(const union bpf_attr *attr, size_t end)
{
	const char *p = (const char *)attr;
	size_t i;

	for (i = end; i < sizeof(*attr); i++)
		if (p[i])
			return true;
	return false;
}
#define LAST_END(field) (offsetof(union bpf_attr, field) + sizeof(((union bpf_attr *)0)->field))
#define CHECK_ATTR(attr, field) attr_tail_nonzero(attr, LAST_END(field))

static const struct bpf_map_ops *find_map_ops(u32 type)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH: return &htab_map_ops;
	case BPF_MAP_TYPE_PERCPU_HASH: return &htab_percpu_map_ops;
	case BPF_MAP_TYPE_LRU_HASH: return &htab_lru_map_ops;
	case BPF_MAP_TYPE_LRU_PERCPU_HASH: return &htab_lru_percpu_map_ops;
	case BPF_MAP_TYPE_ARRAY: return &array_map_ops;
	case BPF_MAP_TYPE_PERCPU_ARRAY: return &percpu_array_map_ops;
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY: return &perf_event_array_map_ops;
	case BPF_MAP_TYPE_PROG_ARRAY: return &prog_array_map_ops;
	case BPF_MAP_TYPE_CGROUP_ARRAY: return &cgroup_array_map_ops;
	case BPF_MAP_TYPE_STACK_TRACE: return &stack_trace_map_ops;
	case BPF_MAP_TYPE_RINGBUF: return &ringbuf_map_ops;
	case BPF_MAP_TYPE_QUEUE: return &queue_map_ops;
	case BPF_MAP_TYPE_STACK: return &stack_map_ops;
	}
	return NULL;
}

/* an fd for the map (the LSM asked first), as its open mode says */
noinline int bpf_map_new_fd(struct bpf_map *map, int flags)
{
	int ret = security_bpf_map(map, ((flags + 1) & O_ACCMODE));	/* OPEN_FMODE() */

	if (ret < 0)
		return ret;
	__atomic_add_fetch(&map->usercnt, 1, __ATOMIC_RELAXED);	/* the file's (bpf_map_inc_with_uref()) */
	ret = bpf_anon_inode_getfd(&bpf_map_fops, map, flags | O_CLOEXEC);
	if (ret < 0)
		bpf_map_put_uref(map);
	return ret;
}

/* the map's BTF (btf_fd, a user's: a reference the map keeps) and, with a value type, its check */
static int map_get_btf(struct bpf_map *map, const union bpf_attr *attr)
{
	struct file *f = fget_borrowed(attr->btf_fd);
	struct btf *btf;
	int err;

	if (!f)
		return -EBADF;
	if (f->f_op != &btf_fops)
		return -EINVAL;
	btf = f->private_data;
	if (btf_is_kernel(btf))
		return -EACCES;
	if (attr->btf_value_type_id) {
		err = map_check_btf(map, btf, attr->btf_key_type_id, attr->btf_value_type_id);
		if (err)
			return err;
	}
	btf_get(btf);
	map->btf = btf;
	map->btf_key_type_id = attr->btf_key_type_id;
	map->btf_value_type_id = attr->btf_value_type_id;
	return 0;
}

static noinline int map_create(union bpf_attr *attr)
{
	const struct bpf_map_ops *ops;
	struct bpf_map *map;
	int f_flags, err;

	if (CHECK_ATTR(attr, map_extra))
		return -EINVAL;
	if (attr->btf_vmlinux_value_type_id) {
		if (attr->map_type != BPF_MAP_TYPE_STRUCT_OPS || attr->btf_key_type_id || attr->btf_value_type_id)
			return -EINVAL;
	} else if (attr->btf_key_type_id && !attr->btf_value_type_id) {
		return -EINVAL;
	}
	if (attr->map_type != BPF_MAP_TYPE_BLOOM_FILTER && attr->map_extra != 0)
		return -EINVAL;
	if ((attr->map_flags & BPF_F_RDONLY) && (attr->map_flags & BPF_F_WRONLY))
		return -EINVAL;
	f_flags = attr->map_flags & BPF_F_RDONLY ? O_RDONLY : attr->map_flags & BPF_F_WRONLY ? O_WRONLY : O_RDWR;
	if ((attr->map_flags & BPF_F_NUMA_NODE) && attr->numa_node != 0)	/* one node */
		return -EINVAL;
	ops = find_map_ops(attr->map_type);
	if (!ops)
		return -EINVAL;
	err = ops->map_alloc_check(attr);
	if (err)
		return err;
	map = ops->map_alloc(attr);
	if (IS_ERR(map))
		return PTR_ERR(map);
	map->ops = ops;
	map->refcnt = 1;
	err = bpf_obj_name_cpy(map->name, attr->map_name, sizeof(attr->map_name));
	if (err < 0)
		goto free;
	if (attr->btf_key_type_id || attr->btf_value_type_id || attr->btf_vmlinux_value_type_id) {
		err = map_get_btf(map, attr);
		if (err)
			goto free;
	}
	err = security_bpf_map_alloc(map);
	if (err)
		goto free;
	map->id = id_alloc(&map_idr_lock, &map_next_id, &map->id_node, &map_ids);
	err = bpf_map_new_fd(map, f_flags);
	if (err < 0)
		bpf_map_put(map);
	return err;
free:
	btf_put(map->btf);
	ops->map_free(map);
	return err;
}

static noinline u32 bpf_map_value_size(const struct bpf_map *map)
{
	if (bpf_map_is_percpu(map))
		return ALIGN(map->value_size, 8) * bpf_num_possible_cpus();
	return map->value_size;
}

static notrace void *copy_key_from_user(u64 ukey, u32 size)
{
	void *key = kmalloc(size, GFP_KERNEL);

	if (!key)
		return (void *)(long)-ENOMEM;
	if (copy_from_user(key, (void *)ukey, size)) {
		kfree(key);
		return (void *)(long)-EFAULT;
	}
	return key;
}

/* __bpf_copy_key(): a map without keys (a ring buffer) takes none (EINVAL), NULL */
static void *copy_map_key(u64 ukey, u32 size)
{
	if (size)
		return copy_key_from_user(ukey, size);
	return ukey ? (void *)(long)-EINVAL : NULL;
}

/* map_get_sys_perms(): what the syscall may do through the map's file f: its mode, less what
 * the map's flags and its freezing take away */
static __always_inline bool map_sys_may(const struct bpf_map *map, const struct file *f, bool write)
{
	if (write)
		return (f->f_mode & FMODE_WRITE) && !(map->map_flags & BPF_F_RDONLY) && !READ_ONCE(map->frozen);
	return (f->f_mode & FMODE_READ) && !(map->map_flags & BPF_F_WRONLY);
}

/* The map of an element command, if the fd may (FMODE_READ/WRITE, map flags), and the key. */
static notrace struct bpf_map *elem_map_and_key(union bpf_attr *attr, bool write, void **keyp)
{
	struct file *f = NULL;
	struct bpf_map *map = map_from_fd(attr->map_fd, &f);

	if (IS_ERR(map))
		return map;
	if (!map_sys_may(map, f, write))
		return (void *)(long)-EPERM;
	if (!write && (attr->flags & BPF_F_LOCK))	/* no value here has a bpf_spin_lock */
		return (void *)(long)-EINVAL;
	*keyp = copy_map_key(attr->key, map->key_size);
	if (IS_ERR(*keyp))
		return *keyp;
	return map;
}

/* bpf_map_copy_value(): key's value as the syscall gives it (every possible cpu's for a per-cpu
 * map, a stack map's frames): -ENOENT without one */
static noinline int bpf_map_copy_value(struct bpf_map *map, void *key, void *value, u64 flags)
{
	unsigned long irqflags;
	void *ptr;

	if (map->ops->map_fd_sys_lookup_elem)
		return map->ops->map_fd_sys_lookup_elem(map, key, value);
	if (map->ops->map_peek_elem)	/* a queue's or stack's next value */
		return map->ops->map_peek_elem(map, value);
	if (map->ops->map_fd_update_elem)
		return -ENOTSUPP;	/* an fd array without map_fd_sys_lookup_elem */
	if (map->ops->map_lookup_percpu)
		return map->ops->map_lookup_percpu(map, key, value);
	if (map->map_type == BPF_MAP_TYPE_STACK_TRACE)
		return bpf_stackmap_copy(map, key, value);
	irqflags = arch_local_irq_save();
	ptr = map->ops->map_lookup_elem_sys_only ? map->ops->map_lookup_elem_sys_only(map, key)
						 : map->ops->map_lookup_elem(map, key);
	if (ptr && !IS_ERR(ptr))
		memcpy(value, ptr, map->value_size);
	arch_local_irq_restore(irqflags);
	return IS_ERR(ptr) ? PTR_ERR(ptr) : ptr ? 0 : -ENOENT;
}

static int map_lookup_elem(union bpf_attr *attr)
{
	struct bpf_map *map;
	void *key, *value;
	int err;

	if (CHECK_ATTR(attr, flags))
		return -EINVAL;
	if (attr->flags & ~BPF_F_LOCK)
		return -EINVAL;
	map = elem_map_and_key(attr, false, &key);
	if (IS_ERR(map))
		return PTR_ERR(map);
	value = kmalloc(bpf_map_value_size(map), GFP_KERNEL);
	err = -ENOMEM;
	if (!value)
		goto free_key;
	err = bpf_map_copy_value(map, key, value, attr->flags);
	if (!err && copy_to_user((void *)attr->value, value, bpf_map_value_size(map)))
		err = -EFAULT;
	kfree(value);
free_key:
	kfree(key);
	return err;
}

/* bpf_map_update_value(): the syscall's update (an fd array's value is an fd, through the
 * map's file map_file; a per-cpu map's every possible cpu's) */
static __always_inline int bpf_map_update_value(struct bpf_map *map, struct file *map_file, void *key, void *value,
						u64 flags)
{
	if (map->ops->map_fd_update_elem)
		return map->ops->map_fd_update_elem(map, map_file, key, value, flags);
	if (map->ops->map_push_elem)	/* a queue's or stack's: a value pushed */
		return map->ops->map_push_elem(map, value, flags);
	if (map->ops->map_update_percpu)
		return map->ops->map_update_percpu(map, key, value, flags);
	return map->ops->map_update_elem(map, key, value, flags);
}

static int map_update_elem(union bpf_attr *attr)
{
	struct file *f = fget_borrowed(attr->map_fd);
	struct bpf_map *map;
	void *key, *value;
	int err;

	if (CHECK_ATTR(attr, flags))
		return -EINVAL;
	map = elem_map_and_key(attr, true, &key);
	if (IS_ERR(map))
		return PTR_ERR(map);
	value = copy_key_from_user(attr->value, bpf_map_value_size(map));
	if (IS_ERR(value)) {
		kfree(key);
		return PTR_ERR(value);
	}
	err = bpf_map_update_value(map, f, key, value, attr->flags);
	kfree(value);
	kfree(key);
	return err;
}

static int map_delete_elem(union bpf_attr *attr)
{
	struct bpf_map *map;
	void *key;
	int err;

	if (CHECK_ATTR(attr, key))
		return -EINVAL;
	map = elem_map_and_key(attr, true, &key);
	if (IS_ERR(map))
		return PTR_ERR(map);
	err = map->ops->map_delete_elem(map, key);
	kfree(key);
	return err;
}

/* map_lookup_and_delete_elem(): a queue's or stack's next value popped, or a hash map's element
 * at key read and deleted; a map that can do neither: ENOTSUPP.  The fd must read and write. */
static int map_lookup_and_delete_elem(union bpf_attr *attr)
{
	struct file *f = NULL;
	struct bpf_map *map;
	void *key, *value;
	int err;

	if (CHECK_ATTR(attr, flags))
		return -EINVAL;
	if (attr->flags & ~BPF_F_LOCK)
		return -EINVAL;
	map = map_from_fd(attr->map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if (!map_sys_may(map, f, false) || !map_sys_may(map, f, true))
		return -EPERM;
	/* flags: BPF_F_LOCK, for a value with a bpf_spin_lock (none here) */
	if (attr->flags)
		return -EINVAL;
	key = copy_map_key(attr->key, map->key_size);
	if (IS_ERR(key))
		return PTR_ERR(key);
	value = kmalloc(bpf_map_value_size(map), GFP_KERNEL);
	err = -ENOMEM;
	if (!value)
		goto free_key;
	err = -ENOTSUPP;
	if (map->ops->map_pop_elem)
		err = map->ops->map_pop_elem(map, value);
	else if (map->ops->map_lookup_and_delete_elem)
		err = map->ops->map_lookup_and_delete_elem(map, key, value, attr->flags);
	if (!err && copy_to_user((void *)attr->value, value, bpf_map_value_size(map)))
		err = -EFAULT;
	kfree(value);
free_key:
	kfree(key);
	return err;
}

static int map_get_next_key(union bpf_attr *attr)
{
	struct file *f = NULL;
	struct bpf_map *map;
	void *key = NULL, *next_key;
	int err;

	if (CHECK_ATTR(attr, next_key))
		return -EINVAL;
	map = map_from_fd(attr->map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if (!map_sys_may(map, f, false))
		return -EPERM;
	if (attr->key) {
		key = copy_map_key(attr->key, map->key_size);
		if (IS_ERR(key))
			return PTR_ERR(key);
	}
	next_key = kmalloc(map->key_size, GFP_KERNEL);
	err = -ENOMEM;
	if (next_key) {
		err = map->ops->map_get_next_key(map, key, next_key);
		if (!err && copy_to_user((void *)attr->next_key, next_key, map->key_size))
			err = -EFAULT;
		kfree(next_key);
	}
	kfree(key);
	return err;
}

/* ---- batches (BPF_MAP_*_BATCH): many elements a call (bpf_map_batch_start(): bpf.h) ---- */

noinline int generic_map_delete_batch(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr)
{
	char *keys = (char *)attr->batch.keys;
	long max_count = bpf_map_batch_start(attr, uattr);
	int err = 0;
	u32 cp;
	void *key;

	if (max_count <= 0)
		return max_count;
	key = kmalloc(map->key_size, GFP_KERNEL);
	if (!key)
		return -ENOMEM;
	for (cp = 0; cp < max_count; cp++) {
		err = -EFAULT;
		if (copy_from_user(key, keys + (u64)cp * map->key_size, map->key_size))
			break;
		err = map->ops->map_delete_elem(map, key);
		if (err)
			break;
	}
	if (copy_to_user(&uattr->batch.count, &cp, sizeof(cp)))
		err = -EFAULT;
	kfree(key);
	return err;
}

noinline int generic_map_update_batch(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr)
{
	char *values = (char *)attr->batch.values, *keys = (char *)attr->batch.keys;
	struct file *map_file = fget_borrowed(attr->batch.map_fd);	/* (bpf_map_do_batch's) */
	long max_count = bpf_map_batch_start(attr, uattr);
	u32 value_size = bpf_map_value_size(map), cp;
	void *key, *value;
	int err = 0;

	if (max_count <= 0)
		return max_count;
	key = kmalloc(map->key_size, GFP_KERNEL);
	if (!key)
		return -ENOMEM;
	value = kmalloc(value_size, GFP_KERNEL);
	if (!value) {
		kfree(key);
		return -ENOMEM;
	}
	for (cp = 0; cp < max_count; cp++) {
		err = -EFAULT;
		if (copy_from_user(key, keys + (u64)cp * map->key_size, map->key_size) ||
		    copy_from_user(value, values + (u64)cp * value_size, value_size))
			break;
		err = bpf_map_update_value(map, map_file, key, value, attr->batch.elem_flags);
		if (err)
			break;
	}
	if (copy_to_user(&uattr->batch.count, &cp, sizeof(cp)))
		err = -EFAULT;
	kfree(value);
	kfree(key);
	return err;
}

/* The elements after in_batch's key in get_next_key's order (from the first when NULL), as many
 * as count; out_batch the last key copied.  ENOENT at the end, with what was copied. */
noinline int generic_map_lookup_batch(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr)
{
	char *uobatch = (char *)attr->batch.out_batch, *ubatch = (char *)attr->batch.in_batch;
	char *values = (char *)attr->batch.values, *keys = (char *)attr->batch.keys;
	char *buf, *buf_prevkey, *prev_key, *key, *value, *tmp;
	long max_count = bpf_map_batch_start(attr, uattr);
	u32 value_size = bpf_map_value_size(map), cp;
	int err;

	if (max_count <= 0)
		return max_count;
	buf_prevkey = kmalloc(map->key_size, GFP_KERNEL);
	if (!buf_prevkey)
		return -ENOMEM;
	buf = kmalloc(map->key_size + value_size, GFP_KERNEL);
	if (!buf) {
		kfree(buf_prevkey);
		return -ENOMEM;
	}
	err = -EFAULT;
	prev_key = NULL;
	if (ubatch && copy_from_user(buf_prevkey, ubatch, map->key_size))
		goto free_buf;
	key = buf;
	value = key + map->key_size;
	if (ubatch)
		prev_key = buf_prevkey;
	for (cp = 0; cp < max_count;) {
		err = map->ops->map_get_next_key(map, prev_key, key);
		if (err)
			break;
		err = bpf_map_copy_value(map, key, value, attr->batch.elem_flags);
		if (err == -ENOENT)
			goto next_key;	/* (deleted since) */
		if (err)
			goto free_buf;
		if (copy_to_user(keys + (u64)cp * map->key_size, key, map->key_size) ||
		    copy_to_user(values + (u64)cp * value_size, value, value_size)) {
			err = -EFAULT;
			goto free_buf;
		}
		cp++;
next_key:
		if (!prev_key)
			prev_key = buf_prevkey;
		tmp = prev_key;
		prev_key = key;
		key = tmp;
	}
	if (copy_to_user(&uattr->batch.count, &cp, sizeof(cp)) ||
	    (cp && copy_to_user(uobatch, prev_key, map->key_size)))
		err = -EFAULT;
free_buf:
	kfree(buf_prevkey);
	kfree(buf);
	return err;
}

/* bpf_map_do_batch(): the map's batch operation of cmd, if the fd may read (lookups) and write
 * (the others); ENOTSUPP for a map without it */
static noinline int bpf_map_do_batch(const union bpf_attr *attr, union bpf_attr *uattr, int cmd)
{
	bool has_read = cmd == BPF_MAP_LOOKUP_BATCH || cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH;
	bool has_write = cmd != BPF_MAP_LOOKUP_BATCH;
	int (*fn)(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);
	struct file *f = NULL;
	struct bpf_map *map;

	if (CHECK_ATTR(attr, batch))
		return -EINVAL;
	map = map_from_fd(attr->batch.map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if ((has_read && !map_sys_may(map, f, false)) || (has_write && !map_sys_may(map, f, true)))
		return -EPERM;
	fn = cmd == BPF_MAP_LOOKUP_BATCH ? map->ops->map_lookup_batch
	   : cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH ? map->ops->map_lookup_and_delete_batch
	   : cmd == BPF_MAP_UPDATE_BATCH ? map->ops->map_update_batch
	   : map->ops->map_delete_batch;
	if (!fn)
		return -ENOTSUPP;
	return fn(map, attr, uattr);
}

/* ---- program objects ---- */
/* __bpf_prog_put_rcu(): no cpu runs it any more: its memory and JITed image go */
static void __bpf_prog_put_rcu(struct rcu_head *rcu)
{
	bpf_prog_free(container_of(rcu, struct bpf_prog, rcu));
}

/* its own BTF, its func_info and line_info records, and the JIT's line addresses go
 * (__bpf_prog_put_noref()'s bpf_prog_free_linfo(), btf_put()) */
static inline void bpf_prog_free_btf(struct bpf_prog *prog)
{
	kvfree(prog->jited_linfo);
	kvfree(prog->linfo);
	prog->jited_linfo = NULL;
	prog->linfo = NULL;
	prog->nr_linfo = 0;
	kvfree(prog->func_info);
	prog->func_info = NULL;
	prog->func_info_cnt = 0;
	btf_put(prog->btf);
	prog->btf = NULL;
}

void bpf_prog_put(struct bpf_prog *prog)
{
	u32 i;

	if (__atomic_sub_fetch(&prog->refcnt, 1, __ATOMIC_ACQ_REL) == 0) {
		if (prog->id)	/* (one the verifier refused was never told) */
			perf_event_bpf_event(prog, PERF_BPF_EVENT_PROG_UNLOAD, 0);
		id_remove(&prog_idr_lock, &prog->id_node, prog->id);
		bpf_prog_kallsyms_del_all(prog);
		for (i = 0; i < prog->used_map_cnt; i++)
			bpf_map_put(prog->used_maps[i]);
		kfree(prog->used_maps);
		prog->used_maps = NULL;
		bpf_prog_free_btf(prog);
		if (prog->id)	/* loaded: a cpu may still be running it */
			call_rcu(&prog->rcu, __bpf_prog_put_rcu);
		else
			bpf_prog_free(prog);	/* (one the verifier refused: never ran) */
	}
}

static int bpf_prog_release(struct inode *inode, struct file *f)
{
	bpf_prog_put((struct bpf_prog *)f->private_data);
	return 0;
}

static struct bpf_prog *prog_from_fd(int fd)
{
	struct file *f = fget_borrowed(fd);

	if (!f)
		return (void *)(long)-EBADF;
	if (f->f_op != &bpf_prog_fops)
		return (void *)(long)-EINVAL;
	return (struct bpf_prog *)f->private_data;
}

noinline void bpf_prog_inc(struct bpf_prog *prog)
{
	__atomic_add_fetch(&prog->refcnt, 1, __ATOMIC_RELAXED);
}

noinline struct bpf_prog *bpf_prog_get(u32 ufd)
{
	struct bpf_prog *prog = prog_from_fd((int)ufd);

	if (!IS_ERR(prog))
		__atomic_add_fetch(&prog->refcnt, 1, __ATOMIC_RELAXED);
	return prog;
}

/* license_is_gpl_compatible() */
static bool license_is_gpl_compatible(const char *license)
{
	return !strcmp(license, "GPL") || !strcmp(license, "GPL v2") ||
	       !strcmp(license, "GPL and additional rights") || !strcmp(license, "Dual BSD/GPL") ||
	       !strcmp(license, "Dual MIT/GPL") || !strcmp(license, "Dual MPL/GPL");
}

static int find_prog_type(u32 type, struct bpf_prog *prog)
{
	switch (type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:
		prog->ops = &sk_filter_verifier_ops;
		prog->prog_ops = &sk_filter_prog_ops;
		break;
	case BPF_PROG_TYPE_KPROBE:
		prog->ops = &kprobe_verifier_ops;
		prog->prog_ops = &kprobe_prog_ops;
		break;
	case BPF_PROG_TYPE_TRACEPOINT:
		prog->ops = &tracepoint_verifier_ops;
		prog->prog_ops = &tracepoint_prog_ops;
		break;
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		prog->ops = &raw_tracepoint_verifier_ops;
		prog->prog_ops = &raw_tracepoint_prog_ops;
		break;
	case BPF_PROG_TYPE_PERF_EVENT:
		prog->ops = &perf_event_verifier_ops;
		prog->prog_ops = &perf_event_prog_ops;
		break;
	case BPF_PROG_TYPE_TRACING:
		prog->ops = &tracing_verifier_ops;
		prog->prog_ops = &tracing_prog_ops;
		break;
	default:
		return -EINVAL;
	}
	prog->type = type;
	return 0;
}

#define BPF_PROG_LOAD_FLAGS (BPF_F_STRICT_ALIGNMENT | BPF_F_ANY_ALIGNMENT | BPF_F_TEST_STATE_FREQ | \
			     BPF_F_SLEEPABLE | BPF_F_TEST_RND_HI32 | BPF_F_XDP_HAS_FRAGS)

/* an fd for the program (the LSM asked first) */
noinline int bpf_prog_new_fd(struct bpf_prog *prog)
{
	int ret = security_bpf_prog(prog);

	if (ret < 0)
		return ret;
	return bpf_anon_inode_getfd(&bpf_prog_fops, prog, O_RDWR | O_CLOEXEC);
}

static noinline int bpf_prog_load(union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_prog *prog;
	char license[128];
	int err;

	if (CHECK_ATTR(attr, core_relo_rec_size))
		return -EINVAL;
	if (attr->prog_flags & ~BPF_PROG_LOAD_FLAGS)
		return -EINVAL;
	if (strncpy_from_user(license, (const char *)attr->license, sizeof(license) - 1) < 0)
		return -EFAULT;
	license[sizeof(license) - 1] = 0;
	if (attr->insn_cnt == 0 || attr->insn_cnt > (bpf_capable() ? BPF_COMPLEXITY_LIMIT_INSNS : BPF_MAXINSNS))
		return -E2BIG;
	/* every program type here wants CAP_BPF (6.1 lets others load socket filters and cgroup
	 * skb programs when kernel.unprivileged_bpf_disabled is 0, with the verifier's checks for
	 * the unprivileged, which this one has not) */
	if (!bpf_capable())
		return -EPERM;
	/* attach_prog_fd/attach_btf_obj_fd: a BTF object's fd (vmlinux's, the only one: libbpf
	 * names it so), or a program's (fentry on a BPF program: not here); then
	 * bpf_prog_load_check_attach(): a BTF id, for a tracing program only */
	if (attr->attach_prog_fd) {
		struct file *f = fget_borrowed(attr->attach_prog_fd);

		if (!f || f->f_op != &btf_fops)
			return -EINVAL;
		if (!btf_is_kernel(f->private_data))
			return -ENOTSUPP;	/* a program's own BTF: not a target */
		if (!attr->attach_btf_id)
			return -EINVAL;
	}
	if (attr->attach_btf_id && (attr->attach_btf_id > BTF_MAX_TYPE || attr->prog_type != BPF_PROG_TYPE_TRACING))
		return -EINVAL;
	if ((u64)attr->insn_cnt * sizeof(struct bpf_insn) > (PAGE_SIZE << (MAX_ORDER - 1)) - sizeof(*prog))
		return -ENOMEM;
	prog = kzalloc(sizeof(*prog) + (u64)attr->insn_cnt * sizeof(struct bpf_insn), GFP_KERNEL);
	if (!prog)
		return -ENOMEM;
	prog->expected_attach_type = attr->expected_attach_type;
	prog->attach_btf_id = attr->attach_btf_id;
	prog->len = attr->insn_cnt;
	prog->jit_requested = READ_ONCE(bpf_jit_enable);	/* bpf_prog_alloc_no_stats()'s ebpf_jit_enabled() */
	prog->created_by_uid = current_cred()->uid;
	err = -EFAULT;
	if (copy_from_user(prog->insnsi, (void *)attr->insns, (u64)prog->len * sizeof(struct bpf_insn)))
		goto free;
	prog->refcnt = 1;
	prog->gpl_compatible = license_is_gpl_compatible(license);
	err = find_prog_type(attr->prog_type, prog);
	if (err < 0)
		goto free;
	prog->load_time = ktime_get_boottime_ns();	/* (bpftool adds it to REALTIME - BOOTTIME) */
	err = bpf_obj_name_cpy(prog->name, attr->prog_name, sizeof(attr->prog_name));
	if (err < 0)
		goto free;
	err = security_bpf_prog_alloc(prog);	/* (its aux: the program itself here) */
	if (err)
		goto free;
	err = bpf_check(&prog, attr, uattr);
	if (err < 0)
		goto free;
	prog = bpf_prog_select_runtime(prog, &err);
	if (err < 0)
		goto free;
	prog->id = id_alloc(&prog_idr_lock, &prog_next_id, &prog->id_node, &prog_ids);
	perf_event_bpf_event(prog, PERF_BPF_EVENT_PROG_LOAD, 0);
	err = bpf_prog_new_fd(prog);
	if (err < 0)
		bpf_prog_put(prog);
	return err;
free:
	bpf_prog_put(prog);
	return err;
}

/* ---- BPF_OBJ_GET_INFO_BY_FD ---- */
/* bpf_check_uarg_tail_zero(): a user's struct (or record) of actual bytes may be longer than the
 * expected one of this kernel only if its tail is zeros: E2BIG, or EFAULT */
noinline int bpf_check_uarg_tail_zero(u64 uaddr, size_t expected, size_t actual)
{
	size_t i;
	char c;

	if (actual > PAGE_SIZE)
		return -E2BIG;
	for (i = expected; i < actual; i++) {
		if (copy_from_user(&c, (char *)uaddr + i, 1))
			return -EFAULT;
		if (c)
			return -E2BIG;
	}
	return 0;
}

static int bpf_map_get_info_by_fd(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_map_info info;
	u32 info_len = attr->info.info_len;
	int err = bpf_check_uarg_tail_zero(attr->info.info, sizeof(info), info_len);

	if (err)
		return err;
	info_len = min(info_len, (u32)sizeof(info));
	memset(&info, 0, sizeof(info));
	info.type = map->map_type;
	info.id = map->id;
	info.key_size = map->key_size;
	info.value_size = map->value_size;
	info.max_entries = map->max_entries;
	info.map_flags = map->map_flags;
	info.map_extra = map->map_extra;
	memcpy(info.name, map->name, sizeof(map->name));
	if (map->btf) {
		info.btf_id = btf_obj_id(map->btf);
		info.btf_key_type_id = map->btf_key_type_id;
		info.btf_value_type_id = map->btf_value_type_id;
	}
	if (copy_to_user((void *)attr->info.info, &info, info_len) ||
	    copy_to_user(&uattr->info.info_len, &info_len, sizeof(info_len)))
		return -EFAULT;
	return 0;
}

/* set_info_rec_size(): the caller's record sizes must be this kernel's, or 0 with no records
 * asked for; this kernel's go back */
static inline int set_info_rec_size(struct bpf_prog_info *info)
{
	if ((info->nr_func_info || info->func_info_rec_size) &&
	    info->func_info_rec_size != sizeof(struct bpf_func_info))
		return -EINVAL;
	if ((info->nr_line_info || info->line_info_rec_size) &&
	    info->line_info_rec_size != sizeof(struct bpf_line_info))
		return -EINVAL;
	if ((info->nr_jited_line_info || info->jited_line_info_rec_size) &&
	    info->jited_line_info_rec_size != sizeof(u64))
		return -EINVAL;
	info->func_info_rec_size = sizeof(struct bpf_func_info);
	info->line_info_rec_size = sizeof(struct bpf_line_info);
	info->jited_line_info_rec_size = sizeof(u64);
	return 0;
}

/* bpf_prog_get_stats(): its runs and their time, all cpus' */
static noinline void bpf_prog_get_stats(const struct bpf_prog *prog, __u64 *nsecs, __u64 *cnt)
{
	int cpu;

	*nsecs = *cnt = 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		*nsecs += READ_ONCE(prog->stats[cpu].nsecs);
		*cnt += READ_ONCE(prog->stats[cpu].cnt);
	}
}

static noinline int bpf_prog_get_info_by_fd(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_prog_info info;
	u32 info_len = attr->info.info_len, ulen, i;
	int err = bpf_check_uarg_tail_zero(attr->info.info, sizeof(info), info_len);

	if (err)
		return err;
	info_len = min(info_len, (u32)sizeof(info));
	memset(&info, 0, sizeof(info));
	if (copy_from_user(&info, (void *)attr->info.info, info_len))
		return -EFAULT;
	info.type = prog->type;
	info.id = prog->id;
	info.load_time = prog->load_time;
	info.created_by_uid = prog->created_by_uid;
	info.gpl_compatible = prog->gpl_compatible;
	memcpy(info.tag, prog->tag, sizeof(prog->tag));
	memcpy(info.name, prog->name, sizeof(prog->name));
	ulen = info.nr_map_ids;
	info.nr_map_ids = prog->used_map_cnt;
	ulen = min(ulen, info.nr_map_ids);
	for (i = 0; i < ulen; i++)
		if (copy_to_user((u32 *)info.map_ids + i, &prog->used_maps[i]->id, sizeof(u32)))
			return -EFAULT;
	err = set_info_rec_size(&info);
	if (err)
		return err;
	bpf_prog_get_stats(prog, &info.run_time_ns, &info.run_cnt);
	info.recursion_misses = READ_ONCE(prog->misses);
	info.verified_insns = prog->verified_insns;
	if (prog->btf)
		info.btf_id = btf_obj_id(prog->btf);
	/* a tracing program's target: a FUNC of vmlinux's BTF (the only BTF one attaches to here) */
	info.attach_btf_id = prog->attach_btf_id;
	if (prog->attach_btf_id && bpf_get_btf_vmlinux())
		info.attach_btf_obj_id = btf_obj_id(bpf_get_btf_vmlinux());
	ulen = info.xlated_prog_len;
	info.xlated_prog_len = prog->len * sizeof(struct bpf_insn);
	if (info.xlated_prog_len && ulen) {
		ulen = min(ulen, info.xlated_prog_len);
		/* the program as it runs, map pointers shown as their ids (bpf_insn_prepare_dump) */
		for (i = 0; i < ulen / sizeof(struct bpf_insn) || (i * sizeof(struct bpf_insn) < ulen); i++) {
			struct bpf_insn insn[2] = { prog->insnsi[i] };
			u32 n = 1, bytes;
			if (BPF_CLASS(insn[0].code) == BPF_LDX && BPF_MODE(insn[0].code) == BPF_PROBE_MEM)
				insn[0].code = BPF_LDX | BPF_MEM | BPF_SIZE(insn[0].code);	/* shown as it was */
			if (insn[0].code == (BPF_JMP | BPF_CALL_ARGS))	/* an interpreted bpf-to-bpf call */
				insn[0].code = BPF_JMP | BPF_CALL;
			if (insn[0].code == (BPF_JMP | BPF_TAIL_CALL)) {	/* a helper call as it was */
				insn[0].code = BPF_JMP | BPF_CALL;
				insn[0].imm = BPF_FUNC_tail_call;
			}
			if (insn[0].code == (BPF_LD | BPF_IMM | BPF_DW) && i + 1 < prog->len) {
				u64 imm = (u32)prog->insnsi[i].imm | (u64)prog->insnsi[i + 1].imm << 32;
				u32 k;
				insn[1] = prog->insnsi[i + 1];
				n = 2;
				for (k = 0; k < prog->used_map_cnt; k++) {
					struct bpf_map *m = prog->used_maps[k];
					u32 off;
					if (imm == (u64)m) {
						insn[0].src_reg = BPF_PSEUDO_MAP_FD;
						insn[0].imm = m->id;
						insn[1].imm = 0;
					} else if (m->ops->map_direct_value_meta &&
						   !m->ops->map_direct_value_meta(m, imm, &off)) {
						insn[0].src_reg = BPF_PSEUDO_MAP_VALUE;
						insn[0].imm = m->id;
						insn[1].imm = off;
					}
				}
			}
			bytes = min(n * (u32)sizeof(struct bpf_insn), ulen - i * (u32)sizeof(struct bpf_insn));
			if (copy_to_user((struct bpf_insn *)info.xlated_prog_insns + i, insn, bytes))
				return -EFAULT;
			i += n - 1;
		}
	}
	/* the JIT's image (bpf_prog_get_info_by_fd(): its code, copied out where the caller gave
	 * room; each function's, one after the other, with its address and length: for a program
	 * that is not JITed, one function, the interpreter's address and 0, as 6.1 reports them) */
	ulen = info.jited_prog_len;
	info.jited_prog_len = 0;
	for (i = 0; i < (prog->func_cnt ? prog->func_cnt : 1); i++)
		info.jited_prog_len += prog->func_cnt ? prog->func[i]->jited_len : prog->jited ? prog->jited_len : 0;
	if (info.jited_prog_len && ulen) {
		u8 *uinsns = (u8 *)info.jited_prog_insns;
		u32 free = min(ulen, info.jited_prog_len);

		for (i = 0; i < (prog->func_cnt ? prog->func_cnt : 1) && free; i++) {
			const struct bpf_prog *f = prog->func_cnt ? prog->func[i] : prog;
			u32 len = min(f->jited_len, free);

			if (copy_to_user(uinsns, f->bpf_func, len))
				return -EFAULT;
			uinsns += len;
			free -= len;
		}
	}
	ulen = info.nr_jited_ksyms;
	info.nr_jited_ksyms = prog->func_cnt ? prog->func_cnt : 1;
	for (i = 0; i < min(ulen, info.nr_jited_ksyms); i++) {
		u64 ksym = (unsigned long)(prog->func_cnt ? prog->func[i]->bpf_func : prog->bpf_func);

		if (copy_to_user((u64 *)info.jited_ksyms + i, &ksym, sizeof(ksym)))
			return -EFAULT;
	}
	ulen = info.nr_jited_func_lens;
	info.nr_jited_func_lens = prog->func_cnt ? prog->func_cnt : 1;
	for (i = 0; i < min(ulen, info.nr_jited_func_lens); i++) {
		u32 func_len = prog->func_cnt ? prog->func[i]->jited_len : prog->jited ? prog->jited_len : 0;

		if (copy_to_user((u32 *)info.jited_func_lens + i, &func_len, sizeof(func_len)))
			return -EFAULT;
	}
	/* its own BTF's records, as many as the caller gave room for */
	ulen = info.nr_func_info;
	info.nr_func_info = prog->func_info_cnt;
	if (info.nr_func_info && ulen) {
		ulen = min(info.nr_func_info, ulen);
		if (copy_to_user((void *)info.func_info, prog->func_info, info.func_info_rec_size * ulen))
			return -EFAULT;
	}
	ulen = info.nr_line_info;
	info.nr_line_info = prog->nr_linfo;
	if (info.nr_line_info && ulen) {
		ulen = min(info.nr_line_info, ulen);
		if (copy_to_user((void *)info.line_info, prog->linfo, info.line_info_rec_size * ulen))
			return -EFAULT;
	}
	ulen = info.nr_jited_line_info;
	info.nr_jited_line_info = prog->jited_linfo ? prog->nr_linfo : 0;
	if (info.nr_jited_line_info && ulen) {
		ulen = min(info.nr_jited_line_info, ulen);
		for (i = 0; i < ulen; i++) {
			u64 line_addr = (unsigned long)prog->jited_linfo[i];

			if (copy_to_user((u64 *)info.jited_line_info + i, &line_addr, sizeof(line_addr)))
				return -EFAULT;
		}
	}
	ulen = info.nr_prog_tags;
	info.nr_prog_tags = 1;
	if (ulen && copy_to_user((void *)info.prog_tags, prog->tag, BPF_TAG_SIZE))
		return -EFAULT;
	if (copy_to_user((void *)attr->info.info, &info, info_len) ||
	    copy_to_user(&uattr->info.info_len, &info_len, sizeof(info_len)))
		return -EFAULT;
	return 0;
}

static int bpf_obj_get_info_by_fd(const union bpf_attr *attr, union bpf_attr *uattr)
{
	struct file *f;

	if (CHECK_ATTR(attr, info.info))
		return -EINVAL;
	f = fget_borrowed(attr->info.bpf_fd);
	if (!f)
		return -EBADFD;
	if (f->f_op == &bpf_prog_fops)
		return bpf_prog_get_info_by_fd((struct bpf_prog *)f->private_data, attr, uattr);
	if (f->f_op == &bpf_map_fops)
		return bpf_map_get_info_by_fd((struct bpf_map *)f->private_data, attr, uattr);
	if (f->f_op == &bpf_link_fops)
		return bpf_link_get_info_by_fd((struct bpf_link *)f->private_data, attr, uattr);
	if (f->f_op == &btf_fops) {
		int err = bpf_check_uarg_tail_zero(attr->info.info, sizeof(struct bpf_btf_info), attr->info.info_len);

		return err ? err : btf_get_info_by_fd(f, attr, uattr);
	}
	return -EINVAL;
}

/* ---- by id: BPF_{PROG,MAP}_GET_NEXT_ID, BPF_{PROG,MAP}_GET_FD_BY_ID ---- */
#define INT_MAX 0x7fffffff

/* the first id past start in an id-ordered list of maps or programs, 0 if none */
#define NEXT_ID(type, list, start) ({ \
	type *obj; \
	u32 found = 0; \
	list_for_each_entry(obj, list, id_node) \
		if (obj->id > (start)) { \
			found = obj->id; \
			break; \
		} \
	found; })

enum bpf_id_kind { BPF_ID_PROG, BPF_ID_MAP, BPF_ID_LINK };

static int bpf_obj_get_next_id(const union bpf_attr *attr, union bpf_attr *uattr, enum bpf_id_kind kind)
{
	raw_spinlock_t *lock = kind == BPF_ID_MAP ? &map_idr_lock : kind == BPF_ID_LINK ? &link_idr_lock : &prog_idr_lock;
	u32 next_id = attr->start_id, found;
	unsigned long flags;

	if (CHECK_ATTR(attr, next_id) || next_id >= INT_MAX)
		return -EINVAL;
	if (current_cred()->euid != 0)		/* capable(CAP_SYS_ADMIN) */
		return -EPERM;
	flags = _raw_spin_lock_irqsave(lock);
	found = kind == BPF_ID_MAP ? NEXT_ID(struct bpf_map, &map_ids, next_id) :
		kind == BPF_ID_LINK ? NEXT_ID(struct bpf_link, &link_ids, next_id) :
		NEXT_ID(struct bpf_prog, &prog_ids, next_id);
	_raw_spin_unlock_irqrestore(lock, flags);
	if (!found)
		return -ENOENT;
	return copy_to_user(&uattr->next_id, &found, sizeof(found)) ? -EFAULT : 0;
}

/* the object with that id in an id-ordered list of maps, programs or links, a reference taken
 * (NULL: none, or one on its way out) */
#define GET_BY_ID(type, lock, list, want) ({ \
	type *obj, *found = NULL; \
	unsigned long flags = _raw_spin_lock_irqsave(lock); \
	list_for_each_entry(obj, list, id_node) \
		if (obj->id == (want) && bpf_inc_not_zero(&obj->refcnt)) \
			found = obj; \
	_raw_spin_unlock_irqrestore(lock, flags); \
	found; })

static int bpf_prog_get_fd_by_id(const union bpf_attr *attr)
{
	struct bpf_prog *found;
	int fd;

	if (CHECK_ATTR(attr, prog_id))
		return -EINVAL;
	if (current_cred()->euid != 0)
		return -EPERM;
	found = GET_BY_ID(struct bpf_prog, &prog_idr_lock, &prog_ids, attr->prog_id);
	if (!found)
		return -ENOENT;
	fd = bpf_prog_new_fd(found);
	if (fd < 0)
		bpf_prog_put(found);
	return fd;
}

#define BPF_OBJ_FLAG_MASK (BPF_F_RDONLY | BPF_F_WRONLY)

static int bpf_map_get_fd_by_id(const union bpf_attr *attr)
{
	struct bpf_map *found;
	int fd, f_flags;

	if (CHECK_ATTR(attr, open_flags) || attr->open_flags & ~BPF_OBJ_FLAG_MASK)
		return -EINVAL;
	if (current_cred()->euid != 0)
		return -EPERM;
	if ((attr->open_flags & BPF_F_RDONLY) && (attr->open_flags & BPF_F_WRONLY))
		return -EINVAL;
	f_flags = attr->open_flags & BPF_F_RDONLY ? O_RDONLY : attr->open_flags & BPF_F_WRONLY ? O_WRONLY : O_RDWR;
	found = GET_BY_ID(struct bpf_map, &map_idr_lock, &map_ids, attr->map_id);
	if (!found)
		return -ENOENT;
	fd = bpf_map_new_fd(found, f_flags);
	if (fd < 0)
		bpf_map_put(found);
	return fd;
}

/* BPF_LINK_GET_FD_BY_ID: another fd (reference) of a link that has one */
static int bpf_link_get_fd_by_id(const union bpf_attr *attr)
{
	struct bpf_link *found;
	int fd;

	if (CHECK_ATTR(attr, link_id))
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	found = GET_BY_ID(struct bpf_link, &link_idr_lock, &link_ids, attr->link_id);
	if (!found)
		return -ENOENT;
	fd = bpf_link_new_fd(found);
	if (fd < 0)
		bpf_link_put(found);
	return fd;
}

/* ---- BPF_BTF_GET_NEXT_ID, BPF_BTF_GET_FD_BY_ID (btf.c has the objects) ---- */
static int bpf_btf_get_next_id(const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 found;

	if (CHECK_ATTR(attr, next_id) || attr->start_id >= INT_MAX)
		return -EINVAL;
	if (current_cred()->uid != 0)
		return -EPERM;
	found = btf_next_id(attr->start_id);
	if (!found)
		return -ENOENT;
	return copy_to_user(&uattr->next_id, &found, sizeof(found)) ? -EFAULT : 0;
}

static int bpf_btf_get_fd_by_id(const union bpf_attr *attr)
{
	if (CHECK_ATTR(attr, btf_id))
		return -EINVAL;
	if (current_cred()->uid != 0)
		return -EPERM;
	return btf_get_fd_by_id(attr->btf_id);
}

/* BPF_BTF_LOAD: a user's BTF (btf_new_fd) */
static int bpf_btf_load(const union bpf_attr *attr)
{
	if (CHECK_ATTR(attr, btf_log_level))
		return -EINVAL;
	if (!bpf_capable())
		return -EPERM;
	return btf_new_fd(attr);
}

/* ---- BPF_PROG_TEST_RUN ---- */
static int bpf_prog_test_run(const union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_prog *prog;

	if (CHECK_ATTR(attr, test.batch_size))
		return -EINVAL;
	if ((attr->test.ctx_size_in && !attr->test.ctx_in) || (!attr->test.ctx_size_in && attr->test.ctx_in))
		return -EINVAL;
	if ((attr->test.ctx_size_out && !attr->test.ctx_out) || (!attr->test.ctx_size_out && attr->test.ctx_out))
		return -EINVAL;
	prog = prog_from_fd(attr->test.prog_fd);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	if (!prog->prog_ops->test_run)
		return -ENOTSUPP;
	return prog->prog_ops->test_run(prog, attr, uattr);
}

/* ---- links: a program attached for as long as a file holds the link ---- */
/* bpf_link_init(): one reference, the creator's, which its first fd takes over */
noinline void bpf_link_init(struct bpf_link *link, enum bpf_link_type type, const struct bpf_link_ops *ops,
			    struct bpf_prog *prog)
{
	link->refcnt = 1;
	link->id = 0;
	link->type = type;
	link->ops = ops;
	link->prog = prog;
	INIT_LIST_HEAD(&link->id_node);
}

/* bpf_link_put(): the last reference gone, the link is detached and freed, its program put */
static void bpf_link_put(struct bpf_link *link)
{
	struct bpf_prog *prog = link->prog;

	if (__atomic_sub_fetch(&link->refcnt, 1, __ATOMIC_ACQ_REL))
		return;
	id_remove(&link_idr_lock, &link->id_node, link->id);
	link->ops->release(link);	/* (which frees it: bpf_link_free()'s dealloc) */
	bpf_prog_put(prog);
}

static int bpf_link_release(struct inode *inode, struct file *f)
{
	bpf_link_put((struct bpf_link *)f->private_data);
	return 0;
}

/* bpf_link_new_fd(): the link's fd (its reference); the first one gives the link its id, as
 * bpf_link_settle() */
noinline int bpf_link_new_fd(struct bpf_link *link)
{
	int fd = bpf_anon_inode_getfd(&bpf_link_fops, link, O_RDWR | O_CLOEXEC);

	if (fd >= 0 && !link->id)
		link->id = id_alloc(&link_idr_lock, &link_next_id, &link->id_node, &link_ids);
	return fd;
}

/* bpf_link_get_from_fd() (no reference: the fd's file holds the link while the call runs) */
noinline struct bpf_link *bpf_link_get_from_fd(int fd)
{
	struct file *f = fget_borrowed(fd);

	if (!f)
		return (void *)(long)-EBADF;
	if (f->f_op != &bpf_link_fops)
		return (void *)(long)-EINVAL;
	return (struct bpf_link *)f->private_data;
}

/* A link's name member of BPF_OBJ_GET_INFO_BY_FD (a tracepoint's, an iterator target's): its
 * length with the NUL in *ulen; copied to ubuf when there is one, cut and NUL-ended where it
 * is too short (-ENOSPC); a buffer without a length or a length without a buffer: -EINVAL */
notrace int bpf_link_info_name(u64 ubuf, u32 *ulen, const char *name)
{
	u32 len = strlen(name), room = *ulen;
	char zero = 0;

	if (!room ^ !ubuf)
		return -EINVAL;
	*ulen = len + 1;
	if (!ubuf)
		return 0;
	if (room >= len + 1)
		return copy_to_user((void *)ubuf, name, len + 1) ? -EFAULT : 0;
	if (copy_to_user((void *)ubuf, name, room - 1) || copy_to_user((void *)(ubuf + room - 1), &zero, 1))
		return -EFAULT;
	return -ENOSPC;
}

/* bpf_link_get_info_by_fd(): type, id, program id, then the type's own members */
static int bpf_link_get_info_by_fd(struct bpf_link *link, const union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_link_info info;
	u32 info_len = attr->info.info_len;
	int err = bpf_check_uarg_tail_zero(attr->info.info, sizeof(info), info_len);

	if (err)
		return err;
	info_len = min(info_len, (u32)sizeof(info));
	memset(&info, 0, sizeof(info));
	if (copy_from_user(&info, (const void *)attr->info.info, info_len))
		return -EFAULT;
	info.type = link->type;
	info.id = link->id;
	info.prog_id = link->prog->id;
	if (link->ops->fill_link_info) {
		err = link->ops->fill_link_info(link, &info);
		if (err)
			return err;
	}
	if (copy_to_user((void *)attr->info.info, &info, info_len) ||
	    copy_to_user(&uattr->info.info_len, &info_len, sizeof(info_len)))
		return -EFAULT;
	return 0;
}

struct bpf_raw_tp_link {
	struct bpf_link link;
	struct tracepoint *tp;		/* NULL: a tracing program on its trampoline */
};

static void bpf_raw_tp_link_release(struct bpf_link *l)
{
	struct bpf_raw_tp_link *link = container_of(l, struct bpf_raw_tp_link, link);

	if (link->tp)
		bpf_probe_unregister(link->tp, l->prog);
	else
		bpf_trampoline_unlink_prog(l->prog);	/* bpf_tracing_link_release() */
	kfree(link);
}

/* bpf_raw_tp_link_fill_link_info(): the tracepoint's name */
static int bpf_raw_tp_link_fill_link_info(const struct bpf_link *l, struct bpf_link_info *info)
{
	const struct bpf_raw_tp_link *link = container_of(l, struct bpf_raw_tp_link, link);

	return bpf_link_info_name(info->raw_tracepoint.tp_name, &info->raw_tracepoint.tp_name_len, link->tp->name);
}

/* bpf_tracing_link_fill_link_info(): the attach type, and the target as its trampoline's key
 * packs it: the BTF object (vmlinux's) and the function's type id there */
static int bpf_tracing_link_fill_link_info(const struct bpf_link *l, struct bpf_link_info *info)
{
	info->tracing.attach_type = l->prog->expected_attach_type;
	info->tracing.target_obj_id = bpf_get_btf_vmlinux() ? btf_obj_id(bpf_get_btf_vmlinux()) : 0;
	info->tracing.target_btf_id = l->prog->attach_btf_id;
	return 0;
}

static const struct bpf_link_ops bpf_raw_tp_link_lops = {
	.release = bpf_raw_tp_link_release,
	.fill_link_info = bpf_raw_tp_link_fill_link_info,
};
static const struct bpf_link_ops bpf_tracing_link_lops = {
	.release = bpf_raw_tp_link_release,
	.fill_link_info = bpf_tracing_link_fill_link_info,
};

/* bpf_tracing_prog_attach(): a fentry/fexit program on its function's trampoline, for as long as
 * the link's fd is open */
static int bpf_tracing_prog_attach(struct bpf_prog *prog)
{
	struct bpf_raw_tp_link *link;
	int err, fd;

	if (prog->expected_attach_type != BPF_TRACE_FENTRY && prog->expected_attach_type != BPF_TRACE_FEXIT)
		return -EINVAL;
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return -ENOMEM;
	bpf_link_init(&link->link, BPF_LINK_TYPE_TRACING, &bpf_tracing_link_lops, prog);
	err = bpf_trampoline_link_prog(prog);
	if (err) {
		kfree(link);
		return err;
	}
	fd = bpf_link_new_fd(&link->link);
	if (fd < 0) {
		bpf_trampoline_unlink_prog(prog);
		kfree(link);
	}
	return fd;
}

/* bpf_raw_tp_link_attach(): a raw tracepoint program on the tracepoint of that name */
static noinline int bpf_raw_tp_link_attach(struct bpf_prog *prog, const char *user_tp_name)
{
	struct bpf_raw_tp_link *link;
	struct tracepoint *tp;
	char buf[128];
	int err, fd;

	switch (prog->type) {
	case BPF_PROG_TYPE_TRACING:
		/* the program names its function or its tracepoint (attach_btf_id), the call none */
		if (user_tp_name)
			return -EINVAL;
		if (prog->expected_attach_type != BPF_TRACE_RAW_TP)
			return bpf_tracing_prog_attach(prog);
		strscpy_pad(buf, prog->attach_func_name, sizeof(buf));
		break;
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		if (strncpy_from_user(buf, user_tp_name, sizeof(buf) - 1) < 0)
			return -EFAULT;
		buf[sizeof(buf) - 1] = 0;
		break;
	default:
		return -EINVAL;
	}
	tp = bpf_get_raw_tracepoint(buf);
	if (!tp)
		return -ENOENT;
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return -ENOMEM;
	bpf_link_init(&link->link, BPF_LINK_TYPE_RAW_TRACEPOINT, &bpf_raw_tp_link_lops, prog);
	link->tp = tp;
	err = bpf_probe_register(tp, prog);
	if (err) {
		kfree(link);
		return err;
	}
	fd = bpf_link_new_fd(&link->link);
	if (fd < 0) {
		bpf_probe_unregister(tp, prog);
		kfree(link);
	}
	return fd;
}

static int bpf_raw_tracepoint_open(const union bpf_attr *attr)
{
	struct bpf_prog *prog;
	int fd;

	if (CHECK_ATTR(attr, raw_tracepoint.prog_fd))
		return -EINVAL;
	prog = bpf_prog_get(attr->raw_tracepoint.prog_fd);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	fd = bpf_raw_tp_link_attach(prog, (const char *)attr->raw_tracepoint.name);
	if (fd < 0)
		bpf_prog_put(prog);
	return fd;
}

/* a perf link: a kprobe, tracepoint or perf_event program on a perf event, as
 * PERF_EVENT_IOC_SET_BPF puts it there, for as long as the link's fd is open (libbpf's way when
 * the kernel has it); the link holds the event's file */
struct bpf_perf_link {
	struct bpf_link link;
	struct file *perf_file;
};

static void bpf_perf_link_release(struct bpf_link *l)
{
	struct bpf_perf_link *link = container_of(l, struct bpf_perf_link, link);

	perf_event_free_bpf_prog(link->perf_file->private_data);
	fput(link->perf_file);
	kfree(link);
}

static const struct bpf_link_ops bpf_perf_link_lops = {
	.release = bpf_perf_link_release,
};

/* bpf_perf_link_attach(): the event's checks are PERF_EVENT_IOC_SET_BPF's; the event keeps a
 * reference to the program, the link the caller's.  (A bpf_cookie is kept nowhere: no
 * bpf_get_attach_cookie here to read it.) */
static noinline int bpf_perf_link_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct bpf_perf_link *link;
	struct file *perf_file;
	int err, fd;

	if (attr->link_create.flags)
		return -EINVAL;
	perf_file = perf_event_get(attr->link_create.target_fd);
	if (IS_ERR(perf_file))
		return PTR_ERR(perf_file);
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	err = -ENOMEM;
	if (!link)
		goto out_put_file;
	bpf_link_init(&link->link, BPF_LINK_TYPE_PERF_EVENT, &bpf_perf_link_lops, prog);
	link->perf_file = perf_file;
	err = perf_event_set_bpf_prog(perf_file->private_data, prog);
	if (err)
		goto out_free;
	bpf_prog_inc(prog);
	fd = bpf_link_new_fd(&link->link);
	if (fd >= 0)
		return fd;
	err = fd;
	perf_event_free_bpf_prog(perf_file->private_data);
out_free:
	kfree(link);
out_put_file:
	fput(perf_file);
	return err;
}

/* link_create(): a fentry/fexit program on its function (attach_type its expected one; no
 * target program: fentry on BPF programs is not here), an iterator program on its target, a
 * kprobe, tracepoint or perf_event program on a perf event (BPF_PERF_EVENT); EINVAL for the
 * other program types and attach types (6.1 has kprobe_multi, cgroup... links) */
static int link_create(const union bpf_attr *attr)
{
	struct bpf_prog *prog;
	int ret = -EINVAL;

	if (CHECK_ATTR(attr, link_create.kprobe_multi.cookies))
		return -EINVAL;
	prog = bpf_prog_get(attr->link_create.prog_fd);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	if ((prog->type == BPF_PROG_TYPE_KPROBE || prog->type == BPF_PROG_TYPE_TRACEPOINT ||
	     prog->type == BPF_PROG_TYPE_PERF_EVENT) && attr->link_create.attach_type == BPF_PERF_EVENT)
		ret = bpf_perf_link_attach(attr, prog);
	if (prog->type == BPF_PROG_TYPE_TRACING && attr->link_create.attach_type == prog->expected_attach_type) {
		if (prog->expected_attach_type == BPF_TRACE_ITER)
			ret = bpf_iter_link_attach(attr, prog);
		else if (prog->expected_attach_type == BPF_TRACE_RAW_TP)
			ret = bpf_raw_tp_link_attach(prog, NULL);
		else if (!attr->link_create.target_fd && !attr->link_create.tracing.target_btf_id)
			ret = bpf_tracing_prog_attach(prog);
	}
	if (ret < 0)
		bpf_prog_put(prog);
	return ret;
}

/* bpf_task_fd_query_copy(): the answer, the name cut to buf_len with ENOSPC */
static int bpf_task_fd_query_copy(const union bpf_attr *attr, union bpf_attr *uattr, u32 prog_id, u32 fd_type,
				  const char *buf, u64 probe_offset, u64 probe_addr)
{
	char *ubuf = (char *)attr->task_fd_query.buf;
	u32 len = buf ? strlen(buf) : 0, input_len;
	char zero = '\0';
	int err = 0;

	if (copy_to_user(&uattr->task_fd_query.buf_len, &len, sizeof(len)))
		return -EFAULT;
	input_len = attr->task_fd_query.buf_len;
	if (input_len && ubuf) {
		if (!len) {		/* nothing to copy: the buffer an empty string */
			if (copy_to_user(ubuf, &zero, 1))
				return -EFAULT;
		} else if (input_len >= len + 1) {
			if (copy_to_user(ubuf, buf, len + 1))
				return -EFAULT;
		} else {		/* what fits, NUL-terminated */
			err = -ENOSPC;
			if (copy_to_user(ubuf, buf, input_len - 1) || copy_to_user(ubuf + input_len - 1, &zero, 1))
				return -EFAULT;
		}
	}
	if (copy_to_user(&uattr->task_fd_query.prog_id, &prog_id, sizeof(prog_id)) ||
	    copy_to_user(&uattr->task_fd_query.fd_type, &fd_type, sizeof(fd_type)) ||
	    copy_to_user(&uattr->task_fd_query.probe_offset, &probe_offset, sizeof(probe_offset)) ||
	    copy_to_user(&uattr->task_fd_query.probe_addr, &probe_addr, sizeof(probe_addr)))
		return -EFAULT;
	return err;
}

/* bpf_task_fd_query(): what the program behind a task's fd is attached to (bpftool perf): a
 * raw tracepoint link's tracepoint, or a tracing perf event's (bpf_get_perf_event_info());
 * ENOTSUPP for any other file */
static int bpf_task_fd_query(const union bpf_attr *attr, union bpf_attr *uattr)
{
	const struct perf_event *event;
	struct task_struct *task;
	unsigned long flags;
	struct file *file;
	int err;

	if (CHECK_ATTR(attr, task_fd_query.probe_addr))
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (attr->task_fd_query.flags != 0)
		return -EINVAL;
	spin_lock_irqsave(&sched_lock, flags);	/* the task and its file table stay meanwhile */
	task = find_task_by_vpid(attr->task_fd_query.pid);
	file = task ? fget_task(task, attr->task_fd_query.fd) : NULL;
	spin_unlock_irqrestore(&sched_lock, flags);
	if (!task)
		return -ENOENT;
	if (!file)
		return -EBADF;
	if (file->f_op == &bpf_link_fops) {
		struct bpf_link *link = file->private_data;

		err = -ENOTSUPP;
		if (link->ops == &bpf_raw_tp_link_lops) {
			struct bpf_raw_tp_link *raw_tp = container_of(link, struct bpf_raw_tp_link, link);

			err = bpf_task_fd_query_copy(attr, uattr, link->prog->id, BPF_FD_TYPE_RAW_TRACEPOINT,
						     raw_tp->tp->name, 0, 0);
		}
		goto put_file;
	}
	event = perf_get_event(file);
	if (!IS_ERR(event)) {
		u64 probe_offset = 0, probe_addr = 0;
		u32 prog_id = 0, fd_type = 0;
		const char *buf = NULL;

		err = bpf_get_perf_event_info(event, &prog_id, &fd_type, &buf, &probe_offset, &probe_addr);
		if (!err)
			err = bpf_task_fd_query_copy(attr, uattr, prog_id, fd_type, buf, probe_offset, probe_addr);
		goto put_file;
	}
	err = -ENOTSUPP;
put_file:
	fput(file);
	return err;
}

/* bpf_prog_bind_map(): the program holds the map as one it uses (listed in its map_ids, kept
 * while it lives) though no instruction names it: libbpf binds a .rodata so */
static int bpf_prog_bind_map(const union bpf_attr *attr)
{
	struct bpf_map **used_maps, *map;
	struct bpf_prog *prog;
	int ret = 0;
	u32 i;

	if (CHECK_ATTR(attr, prog_bind_map.flags))
		return -EINVAL;
	if (attr->prog_bind_map.flags)
		return -EINVAL;
	prog = bpf_prog_get(attr->prog_bind_map.prog_fd);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	map = bpf_map_get(attr->prog_bind_map.map_fd);
	if (IS_ERR(map)) {
		ret = PTR_ERR(map);
		goto out_prog_put;
	}
	for (i = 0; i < prog->used_map_cnt; i++)
		if (prog->used_maps[i] == map) {	/* bound already */
			bpf_map_put(map);
			goto out_prog_put;
		}
	used_maps = kmalloc((prog->used_map_cnt + 1) * sizeof(*used_maps), GFP_KERNEL);
	if (!used_maps) {
		bpf_map_put(map);
		ret = -ENOMEM;
		goto out_prog_put;
	}
	if (prog->used_map_cnt)
		memcpy(used_maps, prog->used_maps, prog->used_map_cnt * sizeof(*used_maps));
	used_maps[prog->used_map_cnt] = map;
	kfree(prog->used_maps);
	prog->used_maps = used_maps;
	prog->used_map_cnt++;
out_prog_put:
	bpf_prog_put(prog);
	return ret;
}

/* map_freeze(): the map read only from the syscall side from now on (its programs still write
 * it), as libbpf makes a .rodata once filled.  (6.1 refuses it while a writable mmap of the map
 * exists, EBUSY: this kernel does not count those mappings.) */
static int map_freeze(const union bpf_attr *attr)
{
	struct bpf_map *map;

	if (CHECK_ATTR(attr, map_fd))
		return -EINVAL;
	map = map_from_fd(attr->map_fd, NULL);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if (READ_ONCE(map->frozen))
		return -EBUSY;
	if (!bpf_capable())
		return -EPERM;
	WRITE_ONCE(map->frozen, true);
	return 0;
}

/* BPF_ITER_CREATE: an fd whose reads run the iterator link's program over its target's objects */
static int bpf_iter_create(const union bpf_attr *attr)
{
	struct bpf_link *link;

	if (CHECK_ATTR(attr, iter_create.flags) || attr->iter_create.flags)
		return -EINVAL;
	link = bpf_link_get_from_fd(attr->iter_create.link_fd);
	if (IS_ERR(link))
		return PTR_ERR(link);
	return bpf_iter_new_fd(link);
}

/* ---- the kernel's BPF sysctls and BPF_ENABLE_STATS ---- */

/* kernel.unprivileged_bpf_disabled: 2 as Debian's 6.1 boots (CONFIG_BPF_UNPRIV_DEFAULT_OFF):
 * without CAP_BPF/CAP_SYS_ADMIN no map or program may be made; 1 is that for good */
int sysctl_unprivileged_bpf_disabled = 2;
/* kernel.bpf_stats_enabled as last written (bpf_stats_handler()'s saved_val): the sysctl's
 * own share of bpf_stats_enabled_key, apart from the BPF_ENABLE_STATS fds' */
int bpf_stats_enabled_sysctl;
static DEFINE_MUTEX(bpf_stats_enabled_mutex);

/* The store of bpf_unpriv_handler(): once 1, no other value may be written (EPERM) */
notrace int bpf_unpriv_disabled_store(int val)
{
	if (READ_ONCE(sysctl_unprivileged_bpf_disabled) == 1 && val != 1)
		return -EPERM;
	WRITE_ONCE(sysctl_unprivileged_bpf_disabled, val);
	return 0;
}

/* The store of bpf_stats_handler(): the key is taken or given back when the value changes */
notrace int bpf_stats_enabled_store(int val)
{
	mutex_lock(&bpf_stats_enabled_mutex);
	if (val != bpf_stats_enabled_sysctl) {
		if (val)
			static_key_slow_inc(&bpf_stats_enabled_key);
		else
			static_key_slow_dec(&bpf_stats_enabled_key);
		WRITE_ONCE(bpf_stats_enabled_sysctl, val);
	}
	mutex_unlock(&bpf_stats_enabled_mutex);
	return 0;
}

static int bpf_stats_release(struct inode *inode, struct file *file)
{
	mutex_lock(&bpf_stats_enabled_mutex);
	static_key_slow_dec(&bpf_stats_enabled_key);
	mutex_unlock(&bpf_stats_enabled_mutex);
	return 0;
}

static const struct file_operations bpf_stats_fops = {
	.release = bpf_stats_release,
};

/* BPF_ENABLE_STATS: the statistics stay on while the fd it gives is open */
static int bpf_enable_stats(const union bpf_attr *attr)
{
	struct file *f;
	int fd;

	if (CHECK_ATTR(attr, enable_stats.type))
		return -EINVAL;
	if (current_cred()->euid != 0)		/* capable(CAP_SYS_ADMIN) */
		return -EPERM;
	if (attr->enable_stats.type != BPF_STATS_RUN_TIME)
		return -EINVAL;
	mutex_lock(&bpf_stats_enabled_mutex);
	if (READ_ONCE(bpf_stats_enabled_key.enabled) > INT_MAX / 2) {	/* (overflow) */
		mutex_unlock(&bpf_stats_enabled_mutex);
		return -EBUSY;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd >= 0) {
		f = anon_inode_getfile("bpf-stats", &bpf_stats_fops, NULL, O_CLOEXEC);
		if (IS_ERR(f)) {
			put_unused_fd(fd);
			fd = PTR_ERR(f);
		} else {
			fd_install(fd, f);
			static_key_slow_inc(&bpf_stats_enabled_key);
		}
	}
	mutex_unlock(&bpf_stats_enabled_mutex);
	return fd;
}

static noinline long __sys_bpf(int cmd, union bpf_attr *uattr, unsigned int size)
{
	union bpf_attr attr;
	int err;

	/* unprivileged_bpf_disabled keeps those without CAP_BPF from making maps and programs */
	if (!bpf_capable() && READ_ONCE(sysctl_unprivileged_bpf_disabled) &&
	    (cmd == BPF_MAP_CREATE || cmd == BPF_PROG_LOAD))
		return -EPERM;
	err = bpf_check_uarg_tail_zero((u64)uattr, sizeof(attr), size);
	if (err)
		return err;
	size = min(size, (unsigned int)sizeof(attr));
	memset(&attr, 0, sizeof(attr));
	if (copy_from_user(&attr, uattr, size))
		return -EFAULT;
	err = security_bpf(cmd, &attr, size);
	if (err < 0)
		return err;
	switch (cmd) {
	case BPF_MAP_CREATE:
		return map_create(&attr);
	case BPF_MAP_LOOKUP_ELEM:
		return map_lookup_elem(&attr);
	case BPF_MAP_UPDATE_ELEM:
		return map_update_elem(&attr);
	case BPF_MAP_DELETE_ELEM:
		return map_delete_elem(&attr);
	case BPF_MAP_GET_NEXT_KEY:
		return map_get_next_key(&attr);
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
		return map_lookup_and_delete_elem(&attr);
	case BPF_MAP_LOOKUP_BATCH:
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
		return bpf_map_do_batch(&attr, uattr, cmd);
	case BPF_PROG_LOAD:
		return bpf_prog_load(&attr, uattr);
	case BPF_OBJ_GET_INFO_BY_FD:
		return bpf_obj_get_info_by_fd(&attr, uattr);
	case BPF_PROG_TEST_RUN:
		return bpf_prog_test_run(&attr, uattr);
	case BPF_PROG_GET_NEXT_ID:
		return bpf_obj_get_next_id(&attr, uattr, BPF_ID_PROG);
	case BPF_MAP_GET_NEXT_ID:
		return bpf_obj_get_next_id(&attr, uattr, BPF_ID_MAP);
	case BPF_LINK_GET_NEXT_ID:
		return bpf_obj_get_next_id(&attr, uattr, BPF_ID_LINK);
	case BPF_LINK_GET_FD_BY_ID:
		return bpf_link_get_fd_by_id(&attr);
	case BPF_PROG_GET_FD_BY_ID:
		return bpf_prog_get_fd_by_id(&attr);
	case BPF_MAP_GET_FD_BY_ID:
		return bpf_map_get_fd_by_id(&attr);
	case BPF_RAW_TRACEPOINT_OPEN:
		return bpf_raw_tracepoint_open(&attr);
	case BPF_LINK_CREATE:
		return link_create(&attr);
	case BPF_BTF_LOAD:
		return bpf_btf_load(&attr);
	case BPF_BTF_GET_FD_BY_ID:
		return bpf_btf_get_fd_by_id(&attr);
	case BPF_BTF_GET_NEXT_ID:
		return bpf_btf_get_next_id(&attr, uattr);
	case BPF_ENABLE_STATS:
		return bpf_enable_stats(&attr);
	case BPF_ITER_CREATE:
		return bpf_iter_create(&attr);
	case BPF_MAP_FREEZE:
		return map_freeze(&attr);
	case BPF_PROG_BIND_MAP:
		return bpf_prog_bind_map(&attr);
	case BPF_TASK_FD_QUERY:
		return bpf_task_fd_query(&attr, uattr);
	}
	return -EINVAL;
}

SYSCALL_DEFINE3(bpf, int, cmd, union bpf_attr *, uattr, unsigned int, size)
{
	return __sys_bpf(cmd, uattr, size);
}
