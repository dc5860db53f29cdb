// SPDX-License-Identifier: GPL-2.0
/*
 * BTF objects (kernel/bpf/btf.c): the kernel's own type information, vmlinux's BTF, which the
 * build puts in the image's .BTF section (pahole, from the kernel's DWARF), shown to user space
 * as BTF object 1 named "vmlinux": BPF_BTF_GET_NEXT_ID finds it, BPF_BTF_GET_FD_BY_ID opens it,
 * the verifier reads it (a tracing program's target function and its arguments, btf_ctx_access),
 * BPF_OBJ_GET_INFO_BY_FD copies its data out (how bpftrace and libbpf's
 * btf__load_from_kernel_by_id read a kernel's types).  A user's BTF (BPF_BTF_LOAD) is checked as
 * 6.1's btf_parse() checks it (below) and becomes an object of its own, ids from 2, freed with its
 * last reference.
 */
#include "../../include/fs.h"
#include "../../include/bpf.h"
#include "../../include/btf.h"
#include "../../include/bpf_verifier.h"

extern const char __start_BTF[], __stop_BTF[];

struct btf {
	u32 id;
	const char *name;
	const void *data;
	u32 data_size;
	bool kernel_btf;
	u32 nr_types;			/* with void, id 0 */
	const struct btf_type **types;	/* by id; vmlinux's made at first use (btf_parse_type_sec) */
	const char *strings;
	u32 str_len;
	int refcnt;			/* fds, maps and programs holding it; vmlinux's never drops */
	struct list_head id_node;	/* in btf_ids while it has its id */
	/* what BPF_BTF_LOAD's btf_parse() made of the user's data */
	struct btf_header hdr;
	const void *nohdr_data;
	u32 types_size;
	u32 *resolved_ids, *resolved_sizes;
};

static struct btf btf_vmlinux = { .id = 1, .name = "vmlinux", .kernel_btf = true, .refcnt = 1 };

/* ---- ids (btf_idr: idr_alloc_cyclic from 1, vmlinux's being 1), in id order ---- */
static raw_spinlock_t btf_idr_lock;
static u32 btf_next_free_id = 2;
static LIST_HEAD(btf_ids);

noinline int btf_alloc_id(struct btf *btf)
{
	unsigned long flags = _raw_spin_lock_irqsave(&btf_idr_lock);

	if (btf_next_free_id >= 0x7fffffff) {	/* INT_MAX */
		_raw_spin_unlock_irqrestore(&btf_idr_lock, flags);
		return -ENOSPC;
	}
	btf->id = btf_next_free_id++;
	list_add_tail(&btf->id_node, &btf_ids);
	_raw_spin_unlock_irqrestore(&btf_idr_lock, flags);
	return 0;
}

static notrace void btf_free_id(struct btf *btf)
{
	unsigned long flags;

	if (!btf->id)
		return;
	flags = _raw_spin_lock_irqsave(&btf_idr_lock);
	list_del_init(&btf->id_node);
	_raw_spin_unlock_irqrestore(&btf_idr_lock, flags);
}

noinline void btf_free(struct btf *btf)
{
	kvfree(btf->types);
	kvfree(btf->resolved_sizes);
	kvfree(btf->resolved_ids);
	kvfree(btf->data);
	kfree(btf);
}

noinline void btf_get(struct btf *btf)
{
	__atomic_add_fetch(&btf->refcnt, 1, __ATOMIC_RELAXED);
}

noinline void btf_put(struct btf *btf)
{
	if (btf && __atomic_sub_fetch(&btf->refcnt, 1, __ATOMIC_ACQ_REL) == 0) {
		btf_free_id(btf);
		btf_free(btf);
	}
}

noinline int btf_release(struct inode *inode, struct file *filp)
{
	btf_put(filp->private_data);
	return 0;
}

static notrace ssize_t btf_read(struct file *f, char *buf, size_t n, loff_t *pos) { return -EINVAL; }
static notrace ssize_t btf_write(struct file *f, const char *buf, size_t n, loff_t *pos) { return -EINVAL; }
const struct file_operations btf_fops = { .read = btf_read, .write = btf_write, .release = btf_release };

/* btf_get_by_fd(): the BTF object fd is open on, a reference the caller keeps */
noinline struct btf *btf_get_by_fd(int fd)
{
	struct file *f = fd < 0 ? NULL : fget(fd);
	struct btf *btf = ERR_PTR(-EINVAL);

	if (!f)
		return ERR_PTR(-EBADF);
	if (f->f_op == &btf_fops) {
		btf = f->private_data;
		btf_get(btf);
	}
	fput(f);
	return btf;
}

/* The vmlinux BTF when the image has one (btf_parse_vmlinux at boot in Linux). */
noinline struct btf *bpf_get_btf_vmlinux(void)
{
	if (!btf_vmlinux.data_size && (unsigned long)__stop_BTF > (unsigned long)__start_BTF) {
		btf_vmlinux.data = __start_BTF;
		btf_vmlinux.data_size = __stop_BTF - __start_BTF;
	}
	return btf_vmlinux.data_size ? &btf_vmlinux : NULL;
}

noinline bool btf_is_kernel(const struct btf *btf)
{
	return btf->kernel_btf;
}

/* The first BTF id past start_id, 0 if none. */
notrace u32 btf_next_id(u32 start_id)
{
	struct btf *btf = bpf_get_btf_vmlinux(), *pos;
	unsigned long flags;
	u32 id = 0;

	if (btf && btf->id > start_id)
		return btf->id;
	flags = _raw_spin_lock_irqsave(&btf_idr_lock);
	list_for_each_entry(pos, &btf_ids, id_node) {
		if (pos->id > start_id) {
			id = pos->id;
			break;
		}
	}
	_raw_spin_unlock_irqrestore(&btf_idr_lock, flags);
	return id;
}

/* __btf_new_fd(): a read-only fd on the BTF object, which the fd holds a reference of */
static notrace int __btf_new_fd(struct btf *btf)
{
	struct file *f;
	int fd;

	fd = get_unused_fd_flags(O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	f = anon_inode_getfile("btf", &btf_fops, btf, O_RDONLY | O_CLOEXEC);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		return PTR_ERR(f);
	}
	fd_install(fd, f);
	return fd;
}

/* btf_get_fd_by_id: a read-only fd on the BTF object, -ENOENT for no such id (or one being
 * freed). */
int btf_get_fd_by_id(u32 id)
{
	struct btf *btf = bpf_get_btf_vmlinux(), *pos;
	unsigned long flags;
	int fd;

	if (!btf || btf->id != id) {
		btf = NULL;
		flags = _raw_spin_lock_irqsave(&btf_idr_lock);
		list_for_each_entry(pos, &btf_ids, id_node) {
			if (pos->id == id) {
				btf = bpf_inc_not_zero(&pos->refcnt) ? pos : NULL;
				break;
			}
		}
		_raw_spin_unlock_irqrestore(&btf_idr_lock, flags);
		if (!btf)
			return -ENOENT;
	} else {
		btf_get(btf);
	}
	fd = __btf_new_fd(btf);
	if (fd < 0)
		btf_put(btf);
	return fd;
}

/* btf_get_info_by_fd: struct bpf_btf_info, with as much of the data and name as fit (a name
 * that does not: cut, NUL-ended, -ENOSPC). */
int btf_get_info_by_fd(const struct file *f, const union bpf_attr *attr, union bpf_attr *uattr)
{
	const struct btf *btf = f->private_data;
	struct bpf_btf_info info;
	u32 info_copy = min(attr->info.info_len, (u32)sizeof(info)), copy, name_len;
	char *uname;
	u32 uname_len;
	int ret = 0;

	memset(&info, 0, sizeof(info));
	if (copy_from_user(&info, (void *)attr->info.info, info_copy))
		return -EFAULT;
	info.id = btf->id;
	copy = min(btf->data_size, info.btf_size);
	if (copy_to_user((void *)info.btf, btf->data, copy))
		return -EFAULT;
	info.btf_size = btf->data_size;
	info.kernel_btf = btf->kernel_btf;
	uname = (char *)info.name;
	uname_len = info.name_len;
	if (!uname ^ !uname_len)
		return -EINVAL;
	name_len = strlen(btf->name);
	info.name_len = name_len;
	if (uname) {
		if (uname_len >= name_len + 1) {
			if (copy_to_user(uname, btf->name, name_len + 1))
				return -EFAULT;
		} else {
			char zero = '\0';

			if (copy_to_user(uname, btf->name, uname_len - 1) ||
			    copy_to_user(uname + uname_len - 1, &zero, 1))
				return -EFAULT;
			ret = -ENOSPC;	/* the caller's buffer is too short */
		}
	}
	if (copy_to_user((void *)attr->info.info, &info, info_copy) ||
	    copy_to_user(&uattr->info.info_len, &info_copy, sizeof(info_copy)))
		return -EFAULT;
	return ret;
}

/* ---- vmlinux's types by id (btf_parse_type_sec(), btf_type_by_id()) ---- */

static const struct btf_type btf_void;

/* the bytes a type takes after its struct btf_type (btf_type_size()); -1: a kind not known */
static notrace long btf_type_extra(const struct btf_type *t)
{
	u16 vlen = btf_type_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * 8;
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

/* The table of vmlinux's types by id, made once (a cpu that loses the race frees its own). */
static notrace struct btf *vmlinux_btf_types(void)
{
	struct btf *btf = bpf_get_btf_vmlinux();
	const struct btf_header *hdr;
	const char *p, *end;
	const struct btf_type **types;
	u32 n;

	if (!btf)
		return NULL;
	if (__atomic_load_n(&btf->types, __ATOMIC_ACQUIRE))
		return btf;
	hdr = btf->data;
	if (btf->data_size < sizeof(*hdr) || hdr->magic != BTF_MAGIC ||
	    (u64)hdr->hdr_len + hdr->type_off + hdr->type_len > btf->data_size ||
	    (u64)hdr->hdr_len + hdr->str_off + hdr->str_len > btf->data_size)
		return NULL;
	p = (const char *)btf->data + hdr->hdr_len + hdr->type_off;
	end = p + hdr->type_len;
	for (n = 1; p + sizeof(struct btf_type) <= end; n++) {
		long extra = btf_type_extra((const struct btf_type *)p);

		if (extra < 0)
			return NULL;
		p += sizeof(struct btf_type) + extra;
	}
	types = kmalloc(sizeof(*types) * n, GFP_KERNEL);
	if (!types)
		return NULL;
	types[0] = &btf_void;
	p = (const char *)btf->data + hdr->hdr_len + hdr->type_off;
	for (n = 1; p + sizeof(struct btf_type) <= end; n++) {
		types[n] = (const struct btf_type *)p;
		p += sizeof(struct btf_type) + btf_type_extra(types[n]);
	}
	btf->strings = (const char *)btf->data + hdr->hdr_len + hdr->str_off;
	btf->str_len = hdr->str_len;
	btf->nr_types = n;
	{
		const struct btf_type **none = NULL;

		if (!__atomic_compare_exchange_n(&btf->types, &none, types, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			kfree(types);
	}
	return btf;
}

notrace noinline const struct btf_type *btf_vmlinux_type_by_id(u32 type_id)
{
	struct btf *btf = vmlinux_btf_types();

	if (!btf || type_id >= btf->nr_types)
		return NULL;
	return btf->types[type_id];
}

notrace noinline const char *btf_vmlinux_name_by_offset(u32 offset)
{
	struct btf *btf = vmlinux_btf_types();

	if (!btf || offset >= btf->str_len)
		return NULL;
	return btf->strings + offset;
}

notrace noinline const struct btf_type *btf_vmlinux_skip_modifiers(u32 type_id, u32 *res_id)
{
	const struct btf_type *t = btf_vmlinux_type_by_id(type_id);

	while (t && btf_type_is_modifier(t)) {
		type_id = t->type;
		t = btf_vmlinux_type_by_id(type_id);
	}
	if (res_id)
		*res_id = type_id;
	return t;
}

notrace u32 btf_vmlinux_struct_id(const char *name)
{
	struct btf *btf = vmlinux_btf_types();
	u32 id;

	for (id = 1; btf && id < btf->nr_types; id++) {
		const struct btf_type *t = btf->types[id];

		if (btf_kind(t) == BTF_KIND_STRUCT && t->name_off < btf->str_len &&
		    !strcmp(btf->strings + t->name_off, name))
			return id;
	}
	return 0;
}

noinline const char *btf_type_str(const struct btf_type *t)
{
	static const char *const kind_str[NR_BTF_KINDS] = {
		"UNKNOWN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD", "TYPEDEF",
		"VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR", "DATASEC", "FLOAT",
		"DECL_TAG", "TYPE_TAG", "ENUM64",
	};

	return kind_str[btf_kind(t) < NR_BTF_KINDS ? btf_kind(t) : 0];
}

/* ---- a tracing program's context: its function's arguments, u64 each (btf_ctx_access) ---- */

#define bpf_log(log, ...) do { if (log) bpf_verifier_log_write(log, __VA_ARGS__); } while (0)

/* get_ctx_arg_idx(): the argument whose slots hold off */
static u32 get_ctx_arg_idx(const struct btf_type *func_proto, int off)
{
	const struct btf_param *args = (const struct btf_param *)(func_proto + 1);
	u32 offset = 0, nr_args = btf_type_vlen(func_proto), i;
	const struct btf_type *t;

	for (i = 0; i < nr_args; i++) {
		t = btf_vmlinux_skip_modifiers(args[i].type, NULL);
		offset += btf_type_is_ptr(t) ? 8 : ALIGN(t->size, 8);
		if (off < (int)offset)
			return i;
	}
	t = btf_vmlinux_skip_modifiers(func_proto->type, NULL);
	offset += btf_type_is_ptr(t) ? 8 : ALIGN(t->size, 8);
	if (off < (int)offset)
		return nr_args;
	return nr_args + 1;
}

/* the u64 slots of ctx the arguments of func_proto take: the argument registers a trampoline
 * saves */
notrace u32 btf_func_nr_regs(const struct btf_type *func_proto)
{
	const struct btf_param *args = (const struct btf_param *)(func_proto + 1);
	u32 nr_args = btf_type_vlen(func_proto), i, n = 0;
	const struct btf_type *t;

	for (i = 0; i < nr_args; i++) {
		t = btf_vmlinux_skip_modifiers(args[i].type, NULL);
		n += !t || btf_type_is_ptr(t) ? 1 : ALIGN(t->size, 8) / 8;
	}
	return n;
}

/* is_int_ptr(): a pointer to an int (past modifiers) */
static bool is_int_ptr(const struct btf_type *t)
{
	t = btf_vmlinux_skip_modifiers(t->type, NULL);
	return t && btf_type_is_int(t);
}

/*
 * 6.1's btf_ctx_access() for fentry/fexit and iterators: offsets in 8-byte slots, one argument each (a struct
 * by value takes its size), fexit's return value after them; scalars, enums, structs and
 * pointers to void or to ints are scalars; a pointer to a struct is PTR_TO_BTF_ID of that struct
 * (info->reg_type, info->btf_id), which the program may read through (btf_struct_access).
 * vmlinux's BTF here has no type tags (pahole from gcc's DWARF), so no MEM_USER/MEM_PERCPU.
 */
bool btf_ctx_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
		   struct bpf_insn_access_aux *info)
{
	const struct btf_type *t = prog->attach_func_proto;
	const char *tname = prog->attach_func_name;
	struct bpf_verifier_log *log = info->log;
	const struct btf_param *args;
	u32 nr_args, arg, i;

	if (off % 8) {
		bpf_log(log, "func '%s' offset %d is not multiple of 8\n", tname, off);
		return false;
	}
	if (!t)
		return true;	/* no prototype: MAX_BPF_FUNC_REG_ARGS u64s */
	arg = get_ctx_arg_idx(t, off);
	args = (const struct btf_param *)(t + 1);
	nr_args = btf_type_vlen(t);
	if (prog->attach_btf_trace) {
		/* skip the first argument, 'void *__data', of the btf_trace_<name> typedef */
		args++;
		nr_args--;
	}
	if (arg > nr_args) {
		bpf_log(log, "func '%s' doesn't have %d-th argument\n", tname, arg + 1);
		return false;
	}
	if (arg == nr_args) {
		if (prog->expected_attach_type != BPF_TRACE_FEXIT) {
			bpf_log(log, "func '%s' doesn't have %d-th argument\n", tname, arg + 1);
			return false;
		}
		t = btf_vmlinux_type_by_id(t->type);
	} else {
		t = btf_vmlinux_type_by_id(args[arg].type);
	}
	while (t && btf_type_is_modifier(t))
		t = btf_vmlinux_type_by_id(t->type);
	if (!t)
		return false;
	if (btf_type_is_small_int(t) || btf_is_any_enum(t) || __btf_type_is_struct(t))
		return true;	/* a scalar */
	if (!btf_type_is_ptr(t)) {
		bpf_log(log, "func '%s' arg%d '%s' has type %s. Only pointer access is allowed\n", tname, arg,
			btf_vmlinux_name_by_offset(t->name_off) ?: "", btf_type_str(t));
		return false;
	}
	if (t->type == 0 || is_int_ptr(t))
		return true;	/* void * and int *: scalars */
	/* an iterator's object: what its target says (NULL at the end: PTR_TO_BTF_ID_OR_NULL) */
	for (i = 0; i < prog->ctx_arg_info_size; i++) {
		const struct bpf_ctx_arg_aux *ctx_arg_info = &prog->ctx_arg_info[i];

		if (ctx_arg_info->offset == (u32)off) {
			if (!ctx_arg_info->btf_id) {
				bpf_log(log, "invalid btf_id for context argument offset %u\n", off);
				return false;
			}
			info->reg_type = ctx_arg_info->reg_type;
			info->btf_id = ctx_arg_info->btf_id;
			return true;
		}
	}
	info->reg_type = PTR_TO_BTF_ID;
	t = btf_vmlinux_skip_modifiers(t->type, &info->btf_id);
	if (!t || !__btf_type_is_struct(t)) {
		bpf_log(log, "func '%s' arg%d type %s is not a struct\n", tname, arg, t ? btf_type_str(t) : "UNKNOWN");
		return false;
	}
	bpf_log(log, "func '%s' arg%d has btf_id %d type %s '%s'\n", tname, arg, info->btf_id, btf_type_str(t),
		btf_vmlinux_name_by_offset(t->name_off) ?: "");
	return true;
}

/* ---- loads through PTR_TO_BTF_ID: which member of the struct they read (btf_struct_walk) ---- */

#define MAX_RESOLVE_DEPTH 32
#define U32_MAX (~0U)
static u32 btf_member_bit_offset(const struct btf_type *t, const struct btf_member *m)
{
	return t->info >> 31 ? m->offset & 0xffffff : m->offset;
}
static u32 btf_member_bitfield_size(const struct btf_type *t, const struct btf_member *m)
{
	return t->info >> 31 ? m->offset >> 24 : 0;
}
/* __btf_name_by_offset(): an anonymous type is "(anon)" */
static const char *btf_name(u32 name_off)
{
	if (!name_off)
		return "(anon)";
	return btf_vmlinux_name_by_offset(name_off) ?: "(invalid-name-offset)";
}

/* __btf_resolve_size(): the bytes type takes (an array: all its elements, of *elem_type, id
 * *elem_id, *total_nelems of them); the type past the modifiers (the outer array), its id in
 * *type_id if modifiers were skipped; NULL for a type without a size */
static noinline const struct btf_type *btf_resolve_size(const struct btf_type *type, u32 *type_size,
					       const struct btf_type **elem_type, u32 *elem_id,
					       u32 *total_nelems, u32 *type_id)
{
	const struct btf_type *array_type = NULL;
	const struct btf_array *array = NULL;
	u32 i, size, nelems = 1, id = 0;

	for (i = 0; i < MAX_RESOLVE_DEPTH && type; i++) {
		switch (btf_kind(type)) {
		case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
		case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
			size = type->size;
			goto resolved;
		case BTF_KIND_PTR:
			size = sizeof(void *);
			goto resolved;
		case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = type->type;
			type = btf_vmlinux_type_by_id(type->type);
			break;
		case BTF_KIND_ARRAY:
			if (!array_type)
				array_type = type;
			array = (const struct btf_array *)(type + 1);
			if (nelems && array->nelems > U32_MAX / nelems)
				return NULL;
			nelems *= array->nelems;
			type = btf_vmlinux_type_by_id(array->type);
			break;
		default:
			return NULL;
		}
	}
	return NULL;
resolved:
	if (nelems && size > U32_MAX / nelems)
		return NULL;
	*type_size = nelems * size;
	*total_nelems = nelems;
	*elem_type = type;
	*elem_id = array ? array->type : 0;
	if (id)
		*type_id = id;
	return array_type ?: type;
}

enum bpf_struct_walk_result { WALK_SCALAR = 0, WALK_PTR, WALK_STRUCT };

/* 6.1's btf_struct_walk(): the member of t at [off, off + size); a struct member starting at
 * off is walked into by the caller, one inside it here */
static int btf_struct_walk(struct bpf_verifier_log *log, const struct btf_type *t, int off, int size,
			   u32 *next_btf_id)
{
	u32 i, moff, mtrue_end, msize = 0, total_nelems = 0, vlen, elem_id, mid;
	const struct btf_type *mtype, *elem_type = NULL;
	const struct btf_member *member;
	const char *tname, *mname;

again:
	tname = btf_name(t->name_off);
	if (!__btf_type_is_struct(t)) {
		bpf_log(log, "Type '%s' is not a struct\n", tname);
		return -EINVAL;
	}
	vlen = btf_type_vlen(t);
	if (off + size > (int)t->size) {
		/* past the end: into a flexible array of ints or structs at the end */
		const struct btf_array *array_elem;

		if (vlen == 0)
			goto error;
		member = (const struct btf_member *)(t + 1) + vlen - 1;
		mtype = btf_vmlinux_skip_modifiers(member->type, NULL);
		if (!mtype || btf_kind(mtype) != BTF_KIND_ARRAY)
			goto error;
		array_elem = (const struct btf_array *)(mtype + 1);
		if (array_elem->nelems != 0)
			goto error;
		moff = btf_member_bit_offset(t, member) / 8;
		if ((u32)off < moff)
			goto error;
		t = btf_vmlinux_skip_modifiers(array_elem->type, NULL);
		if (t && btf_type_is_int(t))
			return WALK_SCALAR;
		if (!t || !__btf_type_is_struct(t) || !t->size)
			goto error;
		off = (off - moff) % t->size;
		goto again;
error:
		bpf_log(log, "access beyond struct %s at off %u size %u\n", tname, off, size);
		return -EACCES;
	}

	member = (const struct btf_member *)(t + 1);
	for (i = 0; i < vlen; i++, member++) {
		moff = btf_member_bit_offset(t, member) / 8;
		if ((u32)(off + size) <= moff)
			break;	/* the members from here are past it */
		if (btf_member_bitfield_size(t, member)) {
			u32 end_bit = btf_member_bit_offset(t, member) + btf_member_bitfield_size(t, member);

			/* the whole bitfield's bytes: a scalar; part of them: go on (and fail) */
			if ((u32)off <= moff && (end_bit + 7) / 8 <= (u32)(off + size))
				return WALK_SCALAR;
			continue;
		}
		if ((u32)off < moff)
			break;	/* in a hole */
		mid = member->type;
		mtype = btf_vmlinux_type_by_id(member->type);
		mname = btf_name(member->name_off);
		mtype = btf_resolve_size(mtype, &msize, &elem_type, &elem_id, &total_nelems, &mid);
		if (!mtype) {
			bpf_log(log, "field %s doesn't have size\n", mname);
			return -EFAULT;
		}
		mtrue_end = moff + msize;
		if ((u32)off >= mtrue_end)
			continue;
		if (btf_kind(mtype) == BTF_KIND_ARRAY) {
			/* an array (of arrays...) is its elements one after another */
			u32 elem_idx;

			if (moff == mtrue_end)
				continue;
			msize /= total_nelems;
			elem_idx = (off - moff) / msize;
			moff += elem_idx * msize;
			mtype = elem_type;
			mid = elem_id;
		}
		if (__btf_type_is_struct(mtype)) {
			t = mtype;
			if ((u32)off == moff) {
				*next_btf_id = mid;
				return WALK_STRUCT;
			}
			off -= moff;
			goto again;
		}
		if (btf_type_is_ptr(mtype)) {
			const struct btf_type *stype;
			u32 id;

			if (msize != (u32)size || (u32)off != moff) {
				bpf_log(log, "cannot access ptr member %s with moff %u in struct %s with off %u size %u\n",
					mname, moff, tname, off, size);
				return -EACCES;
			}
			stype = btf_vmlinux_skip_modifiers(mtype->type, &id);
			if (stype && __btf_type_is_struct(stype)) {
				*next_btf_id = id;
				return WALK_PTR;
			}
		}
		/* an int (or an array of them, used as scratch space) as long as it stays inside */
		if ((u32)(off + size) > mtrue_end) {
			bpf_log(log, "access beyond the end of member %s (mend:%u) in struct %s with off %u size %u\n",
				mname, mtrue_end, tname, off, size);
			return -EACCES;
		}
		return WALK_SCALAR;
	}
	bpf_log(log, "struct %s doesn't have field at offset %d\n", tname, off);
	return -EINVAL;
}

int btf_struct_access(struct bpf_verifier_log *log, const struct btf_type *t, int off, int size,
		      u32 *next_btf_id)
{
	int err;
	u32 id;

	while (t) {
		err = btf_struct_walk(log, t, off, size, &id);
		switch (err) {
		case WALK_PTR:
			*next_btf_id = id;
			return PTR_TO_BTF_ID;
		case WALK_SCALAR:
			return SCALAR_VALUE;
		case WALK_STRUCT:	/* a struct member at off: on into it, from its start */
			t = btf_vmlinux_type_by_id(id);
			off = 0;
			break;
		default:
			return err;
		}
	}
	return -EINVAL;
}

/* btf_struct_ids_match(): a pointer to struct id at off points to struct need_type_id: the same
 * struct at 0, or one nested in it at off (found by a walk of one byte, whose refusals are logged) */
bool btf_struct_ids_match(struct bpf_verifier_log *log, u32 id, int off, u32 need_type_id)
{
	const struct btf_type *type;

	if (off == 0 && id == need_type_id)
		return true;
	for (;;) {
		type = btf_vmlinux_type_by_id(id);
		if (!type || btf_struct_walk(log, type, off, 1, &id) != WALK_STRUCT)
			return false;
		if (id == need_type_id)
			return true;
		off = 0;
	}
}

/* ---- BPF_BTF_LOAD: a user's BTF checked as 6.1's btf_parse() checks it ----
 *
 * The header, the string section, each type's own fields (check_meta, in id order, logged at
 * log_level 1 as "[id] KIND name details"), then each type that refers to others resolved
 * (btf_resolve(): a depth-first walk on a stack of MAX_RESOLVE_DEPTH, a type seen twice on one
 * path a loop), a FUNC_PROTO's return and arguments, and the type tags before the modifiers.
 * The checks, their order, log lines and errnos are 6.1's.
 */
enum verifier_phase { CHECK_META, CHECK_TYPE };
struct resolve_vertex {
	const struct btf_type *t;
	u32 type_id;
	u16 next_member;
};
enum visit_state { NOT_VISITED, VISITED, RESOLVED };
enum resolve_mode {
	RESOLVE_TBD,			/* to be determined */
	RESOLVE_PTR,			/* resolving for a pointer */
	RESOLVE_STRUCT_OR_ARRAY,	/* resolving for a struct/union or an array */
};
struct btf_sec_info {
	u32 off;
	u32 len;
};
struct btf_verifier_env {
	struct btf *btf;
	u8 *visit_states;
	struct resolve_vertex stack[MAX_RESOLVE_DEPTH];
	struct bpf_verifier_log log;
	u32 log_type_id;
	u32 top_stack;
	enum verifier_phase phase;
	enum resolve_mode resolve_mode;
};
struct btf_kind_operations {
	s32 (*check_meta)(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left);
	int (*resolve)(struct btf_verifier_env *env, const struct resolve_vertex *v);
	int (*check_member)(struct btf_verifier_env *env, const struct btf_type *struct_type,
			    const struct btf_member *member, const struct btf_type *member_type);
	int (*check_kflag_member)(struct btf_verifier_env *env, const struct btf_type *struct_type,
				  const struct btf_member *member, const struct btf_type *member_type);
	void (*log_details)(struct btf_verifier_env *env, const struct btf_type *t);
};
static const struct btf_kind_operations *const kind_ops[NR_BTF_KINDS];

#define BITS_PER_U128			128
#define BITS_PER_BYTE_MASKED(bits)	((bits) & 7)
#define BITS_ROUNDDOWN_BYTES(bits)	((bits) >> 3)
#define BITS_ROUNDUP_BYTES(bits)	(BITS_ROUNDDOWN_BYTES(bits) + !!BITS_PER_BYTE_MASKED(bits))
#define BTF_TYPE_ID_VALID(type_id)	((type_id) <= BTF_MAX_TYPE)
#define BTF_STR_OFFSET_VALID(name_off)	((name_off) <= BTF_MAX_NAME_OFFSET)

static inline bool btf_kind_is(const struct btf_type *t, u32 kind) { return btf_kind(t) == kind; }
static noinline bool btf_type_is_void(const struct btf_type *t) { return t == &btf_void; }
static inline bool btf_type_is_struct(const struct btf_type *t) { return __btf_type_is_struct(t); }
static inline bool btf_type_is_array(const struct btf_type *t) { return btf_kind_is(t, BTF_KIND_ARRAY); }
static inline bool btf_type_is_var(const struct btf_type *t) { return btf_kind_is(t, BTF_KIND_VAR); }
static inline bool btf_type_is_datasec(const struct btf_type *t) { return btf_kind_is(t, BTF_KIND_DATASEC); }
static inline bool btf_type_is_fwd(const struct btf_type *t) { return btf_kind_is(t, BTF_KIND_FWD); }
static inline bool btf_type_is_decl_tag(const struct btf_type *t) { return btf_kind_is(t, BTF_KIND_DECL_TAG); }
static inline bool btf_type_is_type_tag(const struct btf_type *t) { return btf_kind_is(t, BTF_KIND_TYPE_TAG); }
static inline bool btf_type_is_typedef(const struct btf_type *t) { return btf_kind_is(t, BTF_KIND_TYPEDEF); }
static inline u32 btf_type_int(const struct btf_type *t) { return *(const u32 *)(t + 1); }
static inline const struct btf_kind_operations *btf_type_ops(const struct btf_type *t)
{
	return kind_ops[btf_kind(t)];
}

static inline bool btf_type_nosize(const struct btf_type *t)
{
	return btf_type_is_void(t) || btf_type_is_fwd(t) || btf_type_is_func(t) || btf_type_is_func_proto(t) ||
	       btf_type_is_decl_tag(t);
}

static inline bool btf_type_nosize_or_null(const struct btf_type *t)
{
	return !t || btf_type_nosize(t);
}

/* a VAR, DECL_TAG or DATASEC: what nothing but a DATASEC (a VAR) or nothing (the others) names */
static inline bool btf_type_is_resolve_source_only(const struct btf_type *t)
{
	return btf_type_is_var(t) || btf_type_is_decl_tag(t) || btf_type_is_datasec(t);
}

static inline bool btf_type_is_decl_tag_target(const struct btf_type *t)
{
	return btf_type_is_func(t) || btf_type_is_struct(t) || btf_type_is_var(t) || btf_type_is_typedef(t);
}

/* the kinds that name other types, resolved by btf_resolve() */
static noinline bool btf_type_needs_resolve(const struct btf_type *t)
{
	return btf_type_is_modifier(t) || btf_type_is_ptr(t) || btf_type_is_struct(t) || btf_type_is_array(t) ||
	       btf_type_is_var(t) || btf_type_is_func(t) || btf_type_is_decl_tag(t) || btf_type_is_datasec(t);
}

/* t->size is the type's size */
static inline bool btf_type_has_size(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
		return true;
	}
	return false;
}

static inline const char *btf_int_encoding_str(u8 encoding)
{
	if (encoding == 0)
		return "(none)";
	if (encoding == BTF_INT_SIGNED)
		return "SIGNED";
	if (encoding == BTF_INT_CHAR)
		return "CHAR";
	if (encoding == BTF_INT_BOOL)
		return "BOOL";
	return "UNKN";
}

static inline bool btf_name_offset_valid(const struct btf *btf, u32 offset)
{
	return BTF_STR_OFFSET_VALID(offset) && offset < btf->hdr.str_len;
}

static inline const char *btf_str_by_offset(const struct btf *btf, u32 offset)
{
	return offset < btf->hdr.str_len ? &btf->strings[offset] : NULL;
}

static inline bool __btf_name_char_ok(char c, bool first)
{
	bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

	return alpha || (!first && c >= '0' && c <= '9') || c == '_' || c == '.';
}

/* a C identifier (dots too), at most KSYM_NAME_LEN long; offset is a valid one */
noinline bool __btf_name_valid(const struct btf *btf, u32 offset)
{
	const char *src = btf_str_by_offset(btf, offset), *src_limit;

	if (!__btf_name_char_ok(*src, true))
		return false;
	src_limit = src + KSYM_NAME_LEN;
	src++;
	while (*src && src < src_limit) {
		if (!__btf_name_char_ok(*src, false))
			return false;
		src++;
	}
	return !*src;
}

noinline const char *__btf_name_by_offset(const struct btf *btf, u32 offset)
{
	const char *name;

	if (!offset)
		return "(anon)";
	name = btf_str_by_offset(btf, offset);
	return name ?: "(invalid-name-offset)";
}

noinline const char *btf_name_by_offset(const struct btf *btf, u32 offset)
{
	return btf_str_by_offset(btf, offset);
}

noinline const struct btf_type *btf_type_by_id(const struct btf *btf, u32 type_id)
{
	return type_id < btf->nr_types ? btf->types[type_id] : NULL;
}

/* not a bitfield, and 1, 2, 4, 8 or 16 bytes */
noinline bool btf_type_int_is_regular(const struct btf_type *t)
{
	u32 int_data = btf_type_int(t);
	u8 nr_bits = BTF_INT_BITS(int_data), nr_bytes = BITS_ROUNDUP_BYTES(nr_bits);

	return !BITS_PER_BYTE_MASKED(nr_bits) && !BTF_INT_OFFSET(int_data) &&
	       (nr_bytes == 1 || nr_bytes == 2 || nr_bytes == 4 || nr_bytes == 8 || nr_bytes == 16);
}

/* ---- the log ---- */
__attribute__((format(printf, 2, 3))) noinline void __btf_verifier_log(struct bpf_verifier_log *log, const char *fmt, ...)
{
	__builtin_va_list args;

	__builtin_va_start(args, fmt);
	bpf_verifier_vlog(log, fmt, args);
	__builtin_va_end(args);
}

__attribute__((format(printf, 2, 3))) noinline void btf_verifier_log(struct btf_verifier_env *env, const char *fmt, ...)
{
	__builtin_va_list args;

	if (!bpf_verifier_log_needed(&env->log))
		return;
	__builtin_va_start(args, fmt);
	bpf_verifier_vlog(&env->log, fmt, args);
	__builtin_va_end(args);
}

/* the tail of a type's, member's or section variable's line: " message\n" */
static notrace void btf_verifier_log_tail(struct bpf_verifier_log *log, const char *fmt, __builtin_va_list args)
{
	if (fmt && *fmt) {
		__btf_verifier_log(log, " ");
		bpf_verifier_vlog(log, fmt, args);
	}
	__btf_verifier_log(log, "\n");
}

/* "[id] KIND name" then the kind's details (log_details), then fmt's message */
__attribute__((format(printf, 4, 5))) noinline void
__btf_verifier_log_type(struct btf_verifier_env *env, const struct btf_type *t, bool log_details, const char *fmt, ...)
{
	struct bpf_verifier_log *log = &env->log;
	__builtin_va_list args;

	if (!bpf_verifier_log_needed(log))
		return;
	__btf_verifier_log(log, "[%u] %s %s%s", env->log_type_id, btf_type_str(t),
			   __btf_name_by_offset(env->btf, t->name_off), log_details ? " " : "");
	if (log_details)
		btf_type_ops(t)->log_details(env, t);
	__builtin_va_start(args, fmt);
	btf_verifier_log_tail(log, fmt, args);
	__builtin_va_end(args);
}
#define btf_verifier_log_type(env, t, ...)	__btf_verifier_log_type((env), (t), true, __VA_ARGS__)
#define btf_verifier_log_basic(env, t, ...)	__btf_verifier_log_type((env), (t), false, __VA_ARGS__)

/* a struct's member (after the struct's line, past the CHECK_META phase that showed it) */
__attribute__((format(printf, 4, 5))) noinline void
btf_verifier_log_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
			const struct btf_member *member, const char *fmt, ...)
{
	struct bpf_verifier_log *log = &env->log;
	__builtin_va_list args;

	if (!bpf_verifier_log_needed(log))
		return;
	if (env->phase != CHECK_META)
		btf_verifier_log_type(env, struct_type, NULL);
	if (btf_type_kflag(struct_type))
		__btf_verifier_log(log, "\t%s type_id=%u bitfield_size=%u bits_offset=%u",
				   __btf_name_by_offset(env->btf, member->name_off), member->type,
				   BTF_MEMBER_BITFIELD_SIZE(member->offset), BTF_MEMBER_BIT_OFFSET(member->offset));
	else
		__btf_verifier_log(log, "\t%s type_id=%u bits_offset=%u",
				   __btf_name_by_offset(env->btf, member->name_off), member->type, member->offset);
	__builtin_va_start(args, fmt);
	btf_verifier_log_tail(log, fmt, args);
	__builtin_va_end(args);
}

__attribute__((format(printf, 4, 5))) noinline void
btf_verifier_log_vsi(struct btf_verifier_env *env, const struct btf_type *datasec_type,
		     const struct btf_var_secinfo *vsi, const char *fmt, ...)
{
	struct bpf_verifier_log *log = &env->log;
	__builtin_va_list args;

	if (!bpf_verifier_log_needed(log))
		return;
	if (env->phase != CHECK_META)
		btf_verifier_log_type(env, datasec_type, NULL);
	__btf_verifier_log(log, "\t type_id=%u offset=%u size=%u", vsi->type, vsi->offset, vsi->size);
	__builtin_va_start(args, fmt);
	btf_verifier_log_tail(log, fmt, args);
	__builtin_va_end(args);
}

static notrace void btf_verifier_log_hdr(struct btf_verifier_env *env, u32 btf_data_size)
{
	struct bpf_verifier_log *log = &env->log;
	const struct btf_header *hdr = &env->btf->hdr;

	if (!bpf_verifier_log_needed(log))
		return;
	__btf_verifier_log(log, "magic: 0x%x\n", hdr->magic);
	__btf_verifier_log(log, "version: %u\n", hdr->version);
	__btf_verifier_log(log, "flags: 0x%x\n", hdr->flags);
	__btf_verifier_log(log, "hdr_len: %u\n", hdr->hdr_len);
	__btf_verifier_log(log, "type_off: %u\n", hdr->type_off);
	__btf_verifier_log(log, "type_len: %u\n", hdr->type_len);
	__btf_verifier_log(log, "str_off: %u\n", hdr->str_off);
	__btf_verifier_log(log, "str_len: %u\n", hdr->str_len);
	__btf_verifier_log(log, "btf_total_size: %u\n", btf_data_size);
}

/* ---- the types by id, the resolve stack ---- */
static notrace int btf_add_type(struct btf_verifier_env *env, const struct btf_type *t)
{
	struct btf *btf = env->btf;

	if (btf->types_size == btf->nr_types) {
		const struct btf_type **new_types;
		u32 expand_by, new_size;

		if (btf->types_size == BTF_MAX_TYPE) {
			btf_verifier_log(env, "Exceeded max num of types");
			return -E2BIG;
		}
		expand_by = max(btf->types_size >> 2, 16U);
		new_size = min((u32)BTF_MAX_TYPE, btf->types_size + expand_by);
		new_types = kvzalloc(sizeof(*new_types) * new_size, GFP_KERNEL);
		if (!new_types)
			return -ENOMEM;
		if (btf->nr_types == 0) {
			new_types[0] = &btf_void;	/* void, id 0 */
			btf->nr_types++;
		} else {
			memcpy(new_types, btf->types, sizeof(*btf->types) * btf->nr_types);
		}
		kvfree(btf->types);
		btf->types = new_types;
		btf->types_size = new_size;
	}
	btf->types[btf->nr_types++] = t;
	return 0;
}

static notrace int env_resolve_init(struct btf_verifier_env *env)
{
	struct btf *btf = env->btf;
	u32 nr_types = btf->nr_types;

	btf->resolved_sizes = kvzalloc(sizeof(u32) * nr_types, GFP_KERNEL);
	btf->resolved_ids = kvzalloc(sizeof(u32) * nr_types, GFP_KERNEL);
	env->visit_states = kvzalloc(nr_types, GFP_KERNEL);
	if (!btf->resolved_sizes || !btf->resolved_ids || !env->visit_states)
		return -ENOMEM;	/* btf_free() frees what was had */
	return 0;
}

/* a type the walk stops at (needs nothing more resolved for what it is resolving) */
static noinline bool env_type_is_resolve_sink(const struct btf_verifier_env *env, const struct btf_type *next_type)
{
	switch (env->resolve_mode) {
	case RESOLVE_TBD:	/* int, enum or void */
		return !btf_type_needs_resolve(next_type);
	case RESOLVE_PTR:	/* and struct, array, func, func_proto for a pointer */
		return !btf_type_is_modifier(next_type) && !btf_type_is_ptr(next_type);
	default:		/* int, enum, void, ptr, func, func_proto for a struct or array */
		return !btf_type_is_modifier(next_type) && !btf_type_is_array(next_type) &&
		       !btf_type_is_struct(next_type);
	}
}

static inline bool env_type_is_resolved(const struct btf_verifier_env *env, u32 type_id)
{
	return env->visit_states[type_id] == RESOLVED;
}

/* -E2BIG: the stack is full (MAX_RESOLVE_DEPTH); -EEXIST: type_id is on the path (a loop) */
noinline int env_stack_push(struct btf_verifier_env *env, const struct btf_type *t, u32 type_id)
{
	struct resolve_vertex *v;

	if (env->top_stack == MAX_RESOLVE_DEPTH)
		return -E2BIG;
	if (env->visit_states[type_id] != NOT_VISITED)
		return -EEXIST;
	env->visit_states[type_id] = VISITED;
	v = &env->stack[env->top_stack++];
	v->t = t;
	v->type_id = type_id;
	v->next_member = 0;
	if (env->resolve_mode == RESOLVE_TBD) {
		if (btf_type_is_ptr(t))
			env->resolve_mode = RESOLVE_PTR;
		else if (btf_type_is_struct(t) || btf_type_is_array(t))
			env->resolve_mode = RESOLVE_STRUCT_OR_ARRAY;
	}
	return 0;
}

static inline void env_stack_set_next_member(struct btf_verifier_env *env, u16 next_member)
{
	env->stack[env->top_stack - 1].next_member = next_member;
}

static inline void env_stack_pop_resolved(struct btf_verifier_env *env, u32 resolved_type_id, u32 resolved_size)
{
	u32 type_id = env->stack[--(env->top_stack)].type_id;

	env->btf->resolved_sizes[type_id] = resolved_size;
	env->btf->resolved_ids[type_id] = resolved_type_id;
	env->visit_states[type_id] = RESOLVED;
}

static inline const struct resolve_vertex *env_stack_peak(struct btf_verifier_env *env)
{
	return env->top_stack ? &env->stack[env->top_stack - 1] : NULL;
}

/* a modifier's, pointer's or var's type once resolved: past the modifiers */
noinline const struct btf_type *btf_type_id_resolve(const struct btf *btf, u32 *type_id)
{
	*type_id = btf->resolved_ids[*type_id];
	return btf_type_by_id(btf, *type_id);
}

/* the type with a size type_id is (past modifiers and a var), its id in *type_id and its size
 * in *ret_size; NULL for one without */
noinline const struct btf_type *btf_type_id_size(const struct btf *btf, u32 *type_id, u32 *ret_size)
{
	const struct btf_type *size_type;
	u32 size_type_id = *type_id, size = 0;

	size_type = btf_type_by_id(btf, size_type_id);
	if (btf_type_nosize_or_null(size_type))
		return NULL;
	if (btf_type_has_size(size_type)) {
		size = size_type->size;
	} else if (btf_type_is_array(size_type)) {
		size = btf->resolved_sizes[size_type_id];
	} else if (btf_type_is_ptr(size_type)) {
		size = sizeof(void *);
	} else {
		if (!btf_type_is_modifier(size_type) && !btf_type_is_var(size_type))
			return NULL;
		size_type_id = btf->resolved_ids[size_type_id];
		size_type = btf_type_by_id(btf, size_type_id);
		if (btf_type_nosize_or_null(size_type))
			return NULL;
		else if (btf_type_has_size(size_type))
			size = size_type->size;
		else if (btf_type_is_array(size_type))
			size = btf->resolved_sizes[size_type_id];
		else if (btf_type_is_ptr(size_type))
			size = sizeof(void *);
		else
			return NULL;
	}
	*type_id = size_type_id;
	if (ret_size)
		*ret_size = size;
	return size_type;
}

/* ---- the kinds: the default operations ---- */
noinline int btf_df_check_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				 const struct btf_member *member, const struct btf_type *member_type)
{
	btf_verifier_log_basic(env, struct_type, "Unsupported check_member");
	return -EINVAL;
}

noinline int btf_df_check_kflag_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				       const struct btf_member *member, const struct btf_type *member_type)
{
	btf_verifier_log_basic(env, struct_type, "Unsupported check_kflag_member");
	return -EINVAL;
}

/* a member of a struct with kind_flag that is no int, enum or modifier: no bitfield */
noinline int btf_generic_check_kflag_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
					    const struct btf_member *member, const struct btf_type *member_type)
{
	if (BTF_MEMBER_BITFIELD_SIZE(member->offset)) {
		btf_verifier_log_member(env, struct_type, member, "Invalid member bitfield_size");
		return -EINVAL;
	}
	return btf_type_ops(member_type)->check_member(env, struct_type, member, member_type);
}

noinline int btf_df_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	btf_verifier_log_basic(env, v->t, "Unsupported resolve");
	return -EINVAL;
}

/* a member that ends past its struct's size */
static notrace int btf_member_exceeds(struct btf_verifier_env *env, const struct btf_type *struct_type,
				      const struct btf_member *member)
{
	btf_verifier_log_member(env, struct_type, member, "Member exceeds struct_size");
	return -EINVAL;
}

static notrace int btf_member_not_byte_aligned(struct btf_verifier_env *env, const struct btf_type *struct_type,
					       const struct btf_member *member)
{
	btf_verifier_log_member(env, struct_type, member, "Member is not byte aligned");
	return -EINVAL;
}

/* nr_copy_bits from struct_bits_off inside the struct's size */
static notrace int btf_member_bits_fit(struct btf_verifier_env *env, const struct btf_type *struct_type,
				       const struct btf_member *member, u32 struct_bits_off, u32 nr_bits)
{
	u32 bytes_offset = BITS_ROUNDDOWN_BYTES(struct_bits_off);
	u32 nr_copy_bits = nr_bits + BITS_PER_BYTE_MASKED(struct_bits_off);

	if (nr_copy_bits > BITS_PER_U128) {
		btf_verifier_log_member(env, struct_type, member, "nr_copy_bits exceeds 128");
		return -EINVAL;
	}
	if (struct_type->size < bytes_offset || struct_type->size - bytes_offset < BITS_ROUNDUP_BYTES(nr_copy_bits))
		return btf_member_exceeds(env, struct_type, member);
	return 0;
}

/* ---- INT ---- */
noinline int btf_int_check_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				  const struct btf_member *member, const struct btf_type *member_type)
{
	u32 int_data = btf_type_int(member_type);
	u32 struct_bits_off = member->offset;

	if (U32_MAX - struct_bits_off < BTF_INT_OFFSET(int_data)) {
		btf_verifier_log_member(env, struct_type, member, "bits_offset exceeds U32_MAX");
		return -EINVAL;
	}
	struct_bits_off += BTF_INT_OFFSET(int_data);
	return btf_member_bits_fit(env, struct_type, member, struct_bits_off, BTF_INT_BITS(int_data));
}

noinline int btf_int_check_kflag_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
					const struct btf_member *member, const struct btf_type *member_type)
{
	u32 nr_bits, struct_bits_off, nr_int_data_bits = BTF_INT_BITS(btf_type_int(member_type));

	if (!btf_type_int_is_regular(member_type)) {
		btf_verifier_log_member(env, struct_type, member, "Invalid member base type");
		return -EINVAL;
	}
	nr_bits = BTF_MEMBER_BITFIELD_SIZE(member->offset);
	struct_bits_off = BTF_MEMBER_BIT_OFFSET(member->offset);
	if (!nr_bits) {
		/* no bitfield: on a byte */
		if (BITS_PER_BYTE_MASKED(struct_bits_off)) {
			btf_verifier_log_member(env, struct_type, member, "Invalid member offset");
			return -EINVAL;
		}
		nr_bits = nr_int_data_bits;
	} else if (nr_bits > nr_int_data_bits) {
		btf_verifier_log_member(env, struct_type, member, "Invalid member bitfield_size");
		return -EINVAL;
	}
	return btf_member_bits_fit(env, struct_type, member, struct_bits_off, nr_bits);
}

/* the checks of a kind whose type takes need more bytes than there are left */
static notrace bool btf_meta_short(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left,
				   u32 meta_needed)
{
	if (meta_left >= meta_needed)
		return false;
	btf_verifier_log_basic(env, t, "meta_left:%u meta_needed:%u", meta_left, meta_needed);
	return true;
}

/* vlen 0 and no kind_flag: INT, FLOAT, the modifiers, VAR */
static notrace int btf_check_no_vlen_kflag(struct btf_verifier_env *env, const struct btf_type *t)
{
	if (btf_type_vlen(t)) {
		btf_verifier_log_type(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (btf_type_kflag(t)) {
		btf_verifier_log_type(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	return 0;
}

noinline s32 btf_int_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	u32 int_data, nr_bits, meta_needed = sizeof(int_data);
	u16 encoding;
	int err;

	if (btf_meta_short(env, t, meta_left, meta_needed))
		return -EINVAL;
	err = btf_check_no_vlen_kflag(env, t);
	if (err)
		return err;
	int_data = btf_type_int(t);
	if (int_data & ~BTF_INT_MASK) {
		btf_verifier_log_basic(env, t, "Invalid int_data:%x", int_data);
		return -EINVAL;
	}
	nr_bits = BTF_INT_BITS(int_data) + BTF_INT_OFFSET(int_data);
	if (nr_bits > BITS_PER_U128) {
		btf_verifier_log_type(env, t, "nr_bits exceeds %zu", (size_t)BITS_PER_U128);
		return -EINVAL;
	}
	if (BITS_ROUNDUP_BYTES(nr_bits) > t->size) {
		btf_verifier_log_type(env, t, "nr_bits exceeds type_size");
		return -EINVAL;
	}
	/* one encoding bit at most */
	encoding = BTF_INT_ENCODING(int_data);
	if (encoding && encoding != BTF_INT_SIGNED && encoding != BTF_INT_CHAR && encoding != BTF_INT_BOOL) {
		btf_verifier_log_type(env, t, "Unsupported encoding");
		return -ENOTSUPP;
	}
	btf_verifier_log_type(env, t, NULL);
	return meta_needed;
}

noinline void btf_int_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	int int_data = btf_type_int(t);

	btf_verifier_log(env, "size=%u bits_offset=%u nr_bits=%u encoding=%s", t->size, BTF_INT_OFFSET(int_data),
			 BTF_INT_BITS(int_data), btf_int_encoding_str(BTF_INT_ENCODING(int_data)));
}

static const struct btf_kind_operations int_ops = {
	.check_meta = btf_int_check_meta, .resolve = btf_df_resolve, .check_member = btf_int_check_member,
	.check_kflag_member = btf_int_check_kflag_member, .log_details = btf_int_log,
};

/* ---- modifiers (TYPEDEF, VOLATILE, CONST, RESTRICT, TYPE_TAG) and PTR ---- */
/* a member whose type is a modifier: the check of the type it resolves to */
static notrace int btf_modifier_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				       const struct btf_member *member, bool kflag)
{
	const struct btf_type *resolved_type;
	u32 resolved_type_id = member->type;
	struct btf_member resolved_member;

	resolved_type = btf_type_id_size(env->btf, &resolved_type_id, NULL);
	if (!resolved_type) {
		btf_verifier_log_member(env, struct_type, member, "Invalid member");
		return -EINVAL;
	}
	resolved_member = *member;
	resolved_member.type = resolved_type_id;
	if (kflag)
		return btf_type_ops(resolved_type)->check_kflag_member(env, struct_type, &resolved_member,
								       resolved_type);
	return btf_type_ops(resolved_type)->check_member(env, struct_type, &resolved_member, resolved_type);
}

noinline int btf_modifier_check_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				       const struct btf_member *member, const struct btf_type *member_type)
{
	return btf_modifier_member(env, struct_type, member, false);
}

noinline int btf_modifier_check_kflag_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
					     const struct btf_member *member, const struct btf_type *member_type)
{
	return btf_modifier_member(env, struct_type, member, true);
}

noinline int btf_ptr_check_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				  const struct btf_member *member, const struct btf_type *member_type)
{
	u32 struct_bits_off = member->offset;

	if (BITS_PER_BYTE_MASKED(struct_bits_off))
		return btf_member_not_byte_aligned(env, struct_type, member);
	if (struct_type->size - BITS_ROUNDDOWN_BYTES(struct_bits_off) < sizeof(void *))
		return btf_member_exceeds(env, struct_type, member);
	return 0;
}

noinline int btf_ref_type_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	const char *value;
	int err = btf_check_no_vlen_kflag(env, t);

	if (err)
		return err;
	if (!BTF_TYPE_ID_VALID(t->type)) {
		btf_verifier_log_type(env, t, "Invalid type_id");
		return -EINVAL;
	}
	/* a typedef's name an identifier, a type tag's not empty, the others' none */
	if (btf_kind(t) == BTF_KIND_TYPEDEF) {
		if (!t->name_off || !__btf_name_valid(env->btf, t->name_off)) {
			btf_verifier_log_type(env, t, "Invalid name");
			return -EINVAL;
		}
	} else if (btf_kind(t) == BTF_KIND_TYPE_TAG) {
		value = btf_name_by_offset(env->btf, t->name_off);
		if (!value || !value[0]) {
			btf_verifier_log_type(env, t, "Invalid name");
			return -EINVAL;
		}
	} else if (t->name_off) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	return 0;
}

static notrace int btf_log_invalid_type_id(struct btf_verifier_env *env, const struct btf_type *t)
{
	btf_verifier_log_type(env, t, "Invalid type_id");
	return -EINVAL;
}

/* the first step of resolving what t names: *next_type, or 1 when it was pushed (or a push's
 * error), or -EINVAL */
static notrace int btf_resolve_next(struct btf_verifier_env *env, const struct resolve_vertex *v,
				    const struct btf_type **next_type)
{
	u32 next_type_id = v->t->type;
	int err;

	*next_type = btf_type_by_id(env->btf, next_type_id);
	if (!*next_type || btf_type_is_resolve_source_only(*next_type))
		return btf_log_invalid_type_id(env, v->t);
	if (!env_type_is_resolve_sink(env, *next_type) && !env_type_is_resolved(env, next_type_id)) {
		err = env_stack_push(env, *next_type, next_type_id);
		return err ? err : 1;
	}
	return 0;
}

/* a pointer (or a var) through a modifier that resolved to a pointer not yet resolved from
 * here: that pointer next (it must not lead back) */
static notrace int btf_resolve_through_modifier(struct btf_verifier_env *env, const struct btf_type *next_type,
						u32 next_type_id)
{
	const struct btf_type *resolved_type;
	u32 resolved_type_id = next_type_id;
	int err;

	if (!btf_type_is_modifier(next_type))
		return 0;
	resolved_type = btf_type_id_resolve(env->btf, &resolved_type_id);
	if (btf_type_is_ptr(resolved_type) && !env_type_is_resolve_sink(env, resolved_type) &&
	    !env_type_is_resolved(env, resolved_type_id)) {
		err = env_stack_push(env, resolved_type, resolved_type_id);
		return err ? err : 1;
	}
	return 0;
}

/* the end of a modifier's or pointer's resolving: a type with a size, or void, a fwd, a
 * func_proto ("typedef void new_void", "const void", a function pointer) */
static notrace int btf_resolve_sized_or_void(struct btf_verifier_env *env, const struct resolve_vertex *v,
					     const struct btf_type *next_type)
{
	u32 next_type_id = v->t->type;

	if (!btf_type_id_size(env->btf, &next_type_id, NULL)) {
		if (env_type_is_resolved(env, next_type_id))
			next_type = btf_type_id_resolve(env->btf, &next_type_id);
		if (!btf_type_is_void(next_type) && !btf_type_is_fwd(next_type) && !btf_type_is_func_proto(next_type))
			return btf_log_invalid_type_id(env, v->t);
	}
	env_stack_pop_resolved(env, next_type_id, 0);
	return 0;
}

noinline int btf_modifier_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	const struct btf_type *next_type;
	int err = btf_resolve_next(env, v, &next_type);

	if (err)
		return err > 0 ? 0 : err;
	return btf_resolve_sized_or_void(env, v, next_type);
}

noinline int btf_var_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	const struct btf_type *next_type;
	u32 next_type_id = v->t->type;
	int err = btf_resolve_next(env, v, &next_type);

	if (!err)
		err = btf_resolve_through_modifier(env, next_type, next_type_id);
	if (err)
		return err > 0 ? 0 : err;
	/* something with a size: no fwd, nothing of size 0 */
	if (!btf_type_id_size(env->btf, &next_type_id, NULL))
		return btf_log_invalid_type_id(env, v->t);
	env_stack_pop_resolved(env, next_type_id, 0);
	return 0;
}

noinline int btf_ptr_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	const struct btf_type *next_type;
	int err = btf_resolve_next(env, v, &next_type);

	if (!err)
		err = btf_resolve_through_modifier(env, next_type, v->t->type);
	if (err)
		return err > 0 ? 0 : err;
	return btf_resolve_sized_or_void(env, v, next_type);
}

noinline void btf_ref_type_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	btf_verifier_log(env, "type_id=%u", t->type);
}

static const struct btf_kind_operations modifier_ops = {
	.check_meta = btf_ref_type_check_meta, .resolve = btf_modifier_resolve,
	.check_member = btf_modifier_check_member, .check_kflag_member = btf_modifier_check_kflag_member,
	.log_details = btf_ref_type_log,
};
static const struct btf_kind_operations ptr_ops = {
	.check_meta = btf_ref_type_check_meta, .resolve = btf_ptr_resolve, .check_member = btf_ptr_check_member,
	.check_kflag_member = btf_generic_check_kflag_member, .log_details = btf_ref_type_log,
};

/* ---- FWD ---- */
noinline s32 btf_fwd_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	if (btf_type_vlen(t)) {
		btf_verifier_log_type(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (t->type) {
		btf_verifier_log_type(env, t, "type != 0");
		return -EINVAL;
	}
	if (!t->name_off || !__btf_name_valid(env->btf, t->name_off)) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	return 0;
}

noinline void btf_fwd_type_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	btf_verifier_log(env, "%s", btf_type_kflag(t) ? "union" : "struct");
}

static const struct btf_kind_operations fwd_ops = {
	.check_meta = btf_fwd_check_meta, .resolve = btf_df_resolve, .check_member = btf_df_check_member,
	.check_kflag_member = btf_df_check_kflag_member, .log_details = btf_fwd_type_log,
};

/* ---- ARRAY ---- */
noinline int btf_array_check_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				    const struct btf_member *member, const struct btf_type *member_type)
{
	u32 struct_bits_off = member->offset, array_type_id = member->type, array_size = 0;

	if (BITS_PER_BYTE_MASKED(struct_bits_off))
		return btf_member_not_byte_aligned(env, struct_type, member);
	btf_type_id_size(env->btf, &array_type_id, &array_size);
	if (struct_type->size - BITS_ROUNDDOWN_BYTES(struct_bits_off) < array_size)
		return btf_member_exceeds(env, struct_type, member);
	return 0;
}

noinline s32 btf_array_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	const struct btf_array *array = (const struct btf_array *)(t + 1);
	u32 meta_needed = sizeof(*array);

	if (btf_meta_short(env, t, meta_left, meta_needed))
		return -EINVAL;
	if (t->name_off) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	if (btf_check_no_vlen_kflag(env, t))
		return -EINVAL;
	if (t->size) {
		btf_verifier_log_type(env, t, "size != 0");
		return -EINVAL;
	}
	/* neither the elements nor the index void */
	if (!array->type || !BTF_TYPE_ID_VALID(array->type)) {
		btf_verifier_log_type(env, t, "Invalid elem");
		return -EINVAL;
	}
	if (!array->index_type || !BTF_TYPE_ID_VALID(array->index_type)) {
		btf_verifier_log_type(env, t, "Invalid index");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	return meta_needed;
}

noinline int btf_array_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	const struct btf_array *array = (const struct btf_array *)(v->t + 1);
	const struct btf_type *elem_type, *index_type;
	u32 elem_type_id, index_type_id, elem_size;
	struct btf *btf = env->btf;

	index_type_id = array->index_type;
	index_type = btf_type_by_id(btf, index_type_id);
	if (btf_type_nosize_or_null(index_type) || btf_type_is_resolve_source_only(index_type)) {
		btf_verifier_log_type(env, v->t, "Invalid index");
		return -EINVAL;
	}
	if (!env_type_is_resolve_sink(env, index_type) && !env_type_is_resolved(env, index_type_id))
		return env_stack_push(env, index_type, index_type_id);
	index_type = btf_type_id_size(btf, &index_type_id, NULL);
	if (!index_type || !btf_type_is_int(index_type) || !btf_type_int_is_regular(index_type)) {
		btf_verifier_log_type(env, v->t, "Invalid index");
		return -EINVAL;
	}

	elem_type_id = array->type;
	elem_type = btf_type_by_id(btf, elem_type_id);
	if (btf_type_nosize_or_null(elem_type) || btf_type_is_resolve_source_only(elem_type)) {
		btf_verifier_log_type(env, v->t, "Invalid elem");
		return -EINVAL;
	}
	if (!env_type_is_resolve_sink(env, elem_type) && !env_type_is_resolved(env, elem_type_id))
		return env_stack_push(env, elem_type, elem_type_id);
	elem_type = btf_type_id_size(btf, &elem_type_id, &elem_size);
	if (!elem_type) {
		btf_verifier_log_type(env, v->t, "Invalid elem");
		return -EINVAL;
	}
	if (btf_type_is_int(elem_type) && !btf_type_int_is_regular(elem_type)) {
		btf_verifier_log_type(env, v->t, "Invalid array of int");
		return -EINVAL;
	}
	if (array->nelems && elem_size > U32_MAX / array->nelems) {
		btf_verifier_log_type(env, v->t, "Array size overflows U32_MAX");
		return -EINVAL;
	}
	env_stack_pop_resolved(env, elem_type_id, elem_size * array->nelems);
	return 0;
}

noinline void btf_array_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	const struct btf_array *array = (const struct btf_array *)(t + 1);

	btf_verifier_log(env, "type_id=%u index_type_id=%u nr_elems=%u", array->type, array->index_type,
			 array->nelems);
}

static const struct btf_kind_operations array_ops = {
	.check_meta = btf_array_check_meta, .resolve = btf_array_resolve, .check_member = btf_array_check_member,
	.check_kflag_member = btf_generic_check_kflag_member, .log_details = btf_array_log,
};

/* ---- STRUCT, UNION ---- */
/* a member of a kind with a size (struct, union, enum): on a byte, inside the struct */
noinline int btf_struct_check_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				     const struct btf_member *member, const struct btf_type *member_type)
{
	u32 struct_bits_off = member->offset;

	if (BITS_PER_BYTE_MASKED(struct_bits_off))
		return btf_member_not_byte_aligned(env, struct_type, member);
	if (struct_type->size - BITS_ROUNDDOWN_BYTES(struct_bits_off) < member_type->size)
		return btf_member_exceeds(env, struct_type, member);
	return 0;
}

noinline s32 btf_struct_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	bool is_union = btf_kind(t) == BTF_KIND_UNION;
	const struct btf_member *member = (const struct btf_member *)(t + 1);
	u32 meta_needed = btf_type_vlen(t) * sizeof(*member), last_offset = 0, offset;
	struct btf *btf = env->btf;
	u16 i;

	if (btf_meta_short(env, t, meta_left, meta_needed))
		return -EINVAL;
	if (t->name_off && !__btf_name_valid(btf, t->name_off)) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	for (i = 0; i < btf_type_vlen(t); i++, member++) {
		if (!btf_name_offset_valid(btf, member->name_off)) {
			btf_verifier_log_member(env, t, member, "Invalid member name_offset:%u", member->name_off);
			return -EINVAL;
		}
		if (member->name_off && !__btf_name_valid(btf, member->name_off)) {
			btf_verifier_log_member(env, t, member, "Invalid name");
			return -EINVAL;
		}
		if (!member->type || !BTF_TYPE_ID_VALID(member->type)) {
			btf_verifier_log_member(env, t, member, "Invalid type_id");
			return -EINVAL;
		}
		offset = btf_type_kflag(t) ? BTF_MEMBER_BIT_OFFSET(member->offset) : member->offset;
		/* a union's at 0; a struct's in order (equal: a last "char a[0]") */
		if ((is_union && offset) || last_offset > offset) {
			btf_verifier_log_member(env, t, member, "Invalid member bits_offset");
			return -EINVAL;
		}
		if (BITS_ROUNDUP_BYTES(offset) > t->size) {
			btf_verifier_log_member(env, t, member, "Member bits_offset exceeds its struct size");
			return -EINVAL;
		}
		btf_verifier_log_member(env, t, member, NULL);
		last_offset = offset;
	}
	return meta_needed;
}

static notrace int btf_check_member_of(struct btf_verifier_env *env, const struct btf_type *struct_type,
				       const struct btf_member *member, const struct btf_type *member_type)
{
	if (btf_type_kflag(struct_type))
		return btf_type_ops(member_type)->check_kflag_member(env, struct_type, member, member_type);
	return btf_type_ops(member_type)->check_member(env, struct_type, member, member_type);
}

noinline int btf_struct_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	const struct btf_member *member;
	int err;
	u16 i;

	/* the member pushed last is resolved now: its check */
	if (v->next_member) {
		const struct btf_member *last_member = (const struct btf_member *)(v->t + 1) + v->next_member - 1;

		if (!env_type_is_resolved(env, last_member->type))
			return -EINVAL;
		err = btf_check_member_of(env, v->t, last_member, btf_type_by_id(env->btf, last_member->type));
		if (err)
			return err;
	}
	member = (const struct btf_member *)(v->t + 1) + v->next_member;
	for (i = v->next_member; i < btf_type_vlen(v->t); i++, member++) {
		u32 member_type_id = member->type;
		const struct btf_type *member_type = btf_type_by_id(env->btf, member_type_id);

		if (btf_type_nosize_or_null(member_type) || btf_type_is_resolve_source_only(member_type)) {
			btf_verifier_log_member(env, v->t, member, "Invalid member");
			return -EINVAL;
		}
		if (!env_type_is_resolve_sink(env, member_type) && !env_type_is_resolved(env, member_type_id)) {
			env_stack_set_next_member(env, i + 1);
			return env_stack_push(env, member_type, member_type_id);
		}
		err = btf_check_member_of(env, v->t, member, member_type);
		if (err)
			return err;
	}
	env_stack_pop_resolved(env, 0, 0);
	return 0;
}

/* "size=%u vlen=%u": struct, union, enum, enum64, datasec */
noinline void btf_struct_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	btf_verifier_log(env, "size=%u vlen=%u", t->size, btf_type_vlen(t));
}

static const struct btf_kind_operations struct_ops = {
	.check_meta = btf_struct_check_meta, .resolve = btf_struct_resolve, .check_member = btf_struct_check_member,
	.check_kflag_member = btf_generic_check_kflag_member, .log_details = btf_struct_log,
};

/* ---- ENUM, ENUM64 ---- */
noinline int btf_enum_check_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				   const struct btf_member *member, const struct btf_type *member_type)
{
	return btf_struct_check_member(env, struct_type, member, member_type);
}

noinline int btf_enum_check_kflag_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
					 const struct btf_member *member, const struct btf_type *member_type)
{
	u32 struct_bits_off = BTF_MEMBER_BIT_OFFSET(member->offset);
	u32 nr_bits = BTF_MEMBER_BITFIELD_SIZE(member->offset), int_bitsize = sizeof(int) * 8;

	if (!nr_bits) {
		if (BITS_PER_BYTE_MASKED(struct_bits_off))
			return btf_member_not_byte_aligned(env, struct_type, member);
		nr_bits = int_bitsize;
	} else if (nr_bits > int_bitsize) {
		btf_verifier_log_member(env, struct_type, member, "Invalid member bitfield_size");
		return -EINVAL;
	}
	if (struct_type->size < BITS_ROUNDUP_BYTES(struct_bits_off + nr_bits))
		return btf_member_exceeds(env, struct_type, member);
	return 0;
}

/* an enum's and an enum64's checks: size, name, then each value's name (log: each value, by
 * fmt_value) */
static notrace s32 btf_enum_check_values(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left,
					 u32 value_size)
{
	const char *value = (const char *)(t + 1);
	struct btf *btf = env->btf;
	u16 i, nr_enums = btf_type_vlen(t);
	u32 meta_needed = nr_enums * value_size;

	if (btf_meta_short(env, t, meta_left, meta_needed))
		return -EINVAL;
	if (t->size > 8 || !t->size || (t->size & (t->size - 1))) {
		btf_verifier_log_type(env, t, "Unexpected size");
		return -EINVAL;
	}
	if (t->name_off && !__btf_name_valid(btf, t->name_off)) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	for (i = 0; i < nr_enums; i++, value += value_size) {
		u32 name_off = *(const u32 *)value;
		const char *name = __btf_name_by_offset(btf, name_off);
		const u32 *v = (const u32 *)value + 1;

		if (!btf_name_offset_valid(btf, name_off)) {
			btf_verifier_log(env, "\tInvalid name_offset:%u", name_off);
			return -EINVAL;
		}
		if (!name_off || !__btf_name_valid(btf, name_off)) {
			btf_verifier_log_type(env, t, "Invalid name");
			return -EINVAL;
		}
		if (value_size == sizeof(struct btf_enum))
			btf_verifier_log(env, btf_type_kflag(t) ? "\t%s val=%d\n" : "\t%s val=%u\n", name, v[0]);
		else
			btf_verifier_log(env, btf_type_kflag(t) ? "\t%s val=%lld\n" : "\t%s val=%llu\n", name,
					 (unsigned long long)v[1] << 32 | v[0]);
	}
	return meta_needed;
}

noinline s32 btf_enum_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	return btf_enum_check_values(env, t, meta_left, sizeof(struct btf_enum));
}

noinline s32 btf_enum64_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	return btf_enum_check_values(env, t, meta_left, sizeof(struct btf_enum64));
}

static const struct btf_kind_operations enum_ops = {
	.check_meta = btf_enum_check_meta, .resolve = btf_df_resolve, .check_member = btf_enum_check_member,
	.check_kflag_member = btf_enum_check_kflag_member, .log_details = btf_struct_log,
};
static const struct btf_kind_operations enum64_ops = {
	.check_meta = btf_enum64_check_meta, .resolve = btf_df_resolve, .check_member = btf_enum_check_member,
	.check_kflag_member = btf_enum_check_kflag_member, .log_details = btf_struct_log,
};

/* ---- FUNC_PROTO, FUNC ---- */
noinline s32 btf_func_proto_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	u32 meta_needed = btf_type_vlen(t) * sizeof(struct btf_param);

	if (btf_meta_short(env, t, meta_left, meta_needed))
		return -EINVAL;
	if (t->name_off) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	if (btf_type_kflag(t)) {
		btf_verifier_log_type(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	return meta_needed;
}

noinline void btf_func_proto_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	const struct btf_param *args = (const struct btf_param *)(t + 1);
	u16 nr_args = btf_type_vlen(t), i;

	btf_verifier_log(env, "return=%u args=(", t->type);
	if (!nr_args) {
		btf_verifier_log(env, "void");
	} else if (nr_args == 1 && !args[0].type) {
		btf_verifier_log(env, "vararg");	/* one vararg only */
	} else {
		btf_verifier_log(env, "%u %s", args[0].type, __btf_name_by_offset(env->btf, args[0].name_off));
		for (i = 1; i < nr_args - 1; i++)
			btf_verifier_log(env, ", %u %s", args[i].type, __btf_name_by_offset(env->btf, args[i].name_off));
		if (nr_args > 1) {
			const struct btf_param *last_arg = &args[nr_args - 1];

			if (last_arg->type)
				btf_verifier_log(env, ", %u %s", last_arg->type,
						 __btf_name_by_offset(env->btf, last_arg->name_off));
			else
				btf_verifier_log(env, ", vararg");
		}
	}
	btf_verifier_log(env, ")");
}

static const struct btf_kind_operations func_proto_ops = {
	/* no member is a FUNC_PROTO: a pointer to one */
	.check_meta = btf_func_proto_check_meta, .resolve = btf_df_resolve, .check_member = btf_df_check_member,
	.check_kflag_member = btf_df_check_kflag_member, .log_details = btf_func_proto_log,
};

noinline s32 btf_func_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	if (!t->name_off || !__btf_name_valid(env->btf, t->name_off)) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	if (btf_type_vlen(t) > BTF_FUNC_GLOBAL) {
		btf_verifier_log_type(env, t, "Invalid func linkage");
		return -EINVAL;
	}
	if (btf_type_kflag(t)) {
		btf_verifier_log_type(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	return 0;
}

/* a FUNC's type is a FUNC_PROTO whose arguments have names */
static notrace int btf_func_check(struct btf_verifier_env *env, const struct btf_type *t)
{
	const struct btf_type *proto_type = btf_type_by_id(env->btf, t->type);
	const struct btf_param *args;
	u16 nr_args, i;

	if (!proto_type || !btf_type_is_func_proto(proto_type))
		return btf_log_invalid_type_id(env, t);
	args = (const struct btf_param *)(proto_type + 1);
	nr_args = btf_type_vlen(proto_type);
	for (i = 0; i < nr_args; i++) {
		if (!args[i].name_off && args[i].type) {
			btf_verifier_log_type(env, t, "Invalid arg#%u", i + 1);
			return -EINVAL;
		}
	}
	return 0;
}

noinline int btf_func_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	int err = btf_func_check(env, v->t);

	if (err)
		return err;
	env_stack_pop_resolved(env, v->t->type, 0);
	return 0;
}

static const struct btf_kind_operations func_ops = {
	.check_meta = btf_func_check_meta, .resolve = btf_func_resolve, .check_member = btf_df_check_member,
	.check_kflag_member = btf_df_check_kflag_member, .log_details = btf_ref_type_log,
};

/* ---- VAR, DATASEC ---- */
noinline s32 btf_var_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	const struct btf_var *var = (const struct btf_var *)(t + 1);
	u32 meta_needed = sizeof(*var);

	if (btf_meta_short(env, t, meta_left, meta_needed))
		return -EINVAL;
	if (btf_check_no_vlen_kflag(env, t))
		return -EINVAL;
	if (!t->name_off || !__btf_name_valid(env->btf, t->name_off)) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	if (!t->type || !BTF_TYPE_ID_VALID(t->type))	/* no var of type void */
		return btf_log_invalid_type_id(env, t);
	if (var->linkage != BTF_VAR_STATIC && var->linkage != BTF_VAR_GLOBAL_ALLOCATED) {
		btf_verifier_log_type(env, t, "Linkage not supported");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	return meta_needed;
}

noinline void btf_var_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	btf_verifier_log(env, "type_id=%u linkage=%u", t->type, ((const struct btf_var *)(t + 1))->linkage);
}

static const struct btf_kind_operations var_ops = {
	.check_meta = btf_var_check_meta, .resolve = btf_var_resolve, .check_member = btf_df_check_member,
	.check_kflag_member = btf_df_check_kflag_member, .log_details = btf_var_log,
};

noinline s32 btf_datasec_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	const struct btf_var_secinfo *vsi = (const struct btf_var_secinfo *)(t + 1);
	u32 i, meta_needed = btf_type_vlen(t) * sizeof(*vsi);
	u64 last_vsi_end_off = 0, sum = 0;

	if (btf_meta_short(env, t, meta_left, meta_needed))
		return -EINVAL;
	if (!t->size) {
		btf_verifier_log_type(env, t, "size == 0");
		return -EINVAL;
	}
	if (btf_type_kflag(t)) {
		btf_verifier_log_type(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	if (!t->name_off || !__btf_name_valid(env->btf, t->name_off)) {
		btf_verifier_log_type(env, t, "Invalid name");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	for (i = 0; i < btf_type_vlen(t); i++, vsi++) {
		const char *err = NULL;

		if (!vsi->type || !BTF_TYPE_ID_VALID(vsi->type))
			err = "Invalid type_id";
		else if (vsi->offset < last_vsi_end_off || vsi->offset >= t->size)
			err = "Invalid offset";
		else if (!vsi->size || vsi->size > t->size)
			err = "Invalid size";
		else if ((last_vsi_end_off = vsi->offset + vsi->size) > t->size)
			err = "Invalid offset+size";
		if (err) {
			btf_verifier_log_vsi(env, t, vsi, "%s", err);
			return -EINVAL;
		}
		btf_verifier_log_vsi(env, t, vsi, NULL);
		sum += vsi->size;
	}
	if (t->size < sum) {
		btf_verifier_log_type(env, t, "Invalid btf_info size");
		return -EINVAL;
	}
	return meta_needed;
}

noinline int btf_datasec_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	const struct btf_var_secinfo *vsi = (const struct btf_var_secinfo *)(v->t + 1) + v->next_member;
	u16 i;

	env->resolve_mode = RESOLVE_TBD;
	for (i = v->next_member; i < btf_type_vlen(v->t); i++, vsi++) {
		u32 var_type_id = vsi->type, type_id, type_size = 0;
		const struct btf_type *var_type = btf_type_by_id(env->btf, var_type_id);

		if (!var_type || !btf_type_is_var(var_type)) {
			btf_verifier_log_vsi(env, v->t, vsi, "Not a VAR kind member");
			return -EINVAL;
		}
		if (!env_type_is_resolve_sink(env, var_type) && !env_type_is_resolved(env, var_type_id)) {
			env_stack_set_next_member(env, i + 1);
			return env_stack_push(env, var_type, var_type_id);
		}
		type_id = var_type->type;
		if (!btf_type_id_size(env->btf, &type_id, &type_size)) {
			btf_verifier_log_vsi(env, v->t, vsi, "Invalid type");
			return -EINVAL;
		}
		if (vsi->size < type_size) {
			btf_verifier_log_vsi(env, v->t, vsi, "Invalid size");
			return -EINVAL;
		}
	}
	env_stack_pop_resolved(env, 0, 0);
	return 0;
}

static const struct btf_kind_operations datasec_ops = {
	.check_meta = btf_datasec_check_meta, .resolve = btf_datasec_resolve, .check_member = btf_df_check_member,
	.check_kflag_member = btf_df_check_kflag_member, .log_details = btf_struct_log,
};

/* ---- FLOAT ---- */
noinline s32 btf_float_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	if (btf_check_no_vlen_kflag(env, t))
		return -EINVAL;
	if (t->size != 2 && t->size != 4 && t->size != 8 && t->size != 12 && t->size != 16) {
		btf_verifier_log_type(env, t, "Invalid type_size");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	return 0;
}

/* aligned to its size (8 at most, whatever the architecture), inside the struct */
noinline int btf_float_check_member(struct btf_verifier_env *env, const struct btf_type *struct_type,
				    const struct btf_member *member, const struct btf_type *member_type)
{
	u64 align_bits = min((u64)sizeof(void *), (u64)member_type->size) * 8;

	if ((u64)member->offset % align_bits) {
		btf_verifier_log_member(env, struct_type, member, "Member is not properly aligned");
		return -EINVAL;
	}
	if ((u64)member->offset / 8 + member_type->size > struct_type->size)
		return btf_member_exceeds(env, struct_type, member);
	return 0;
}

noinline void btf_float_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	btf_verifier_log(env, "size=%u", t->size);
}

static const struct btf_kind_operations float_ops = {
	.check_meta = btf_float_check_meta, .resolve = btf_df_resolve, .check_member = btf_float_check_member,
	.check_kflag_member = btf_generic_check_kflag_member, .log_details = btf_float_log,
};

/* ---- DECL_TAG ---- */
noinline s32 btf_decl_tag_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	u32 meta_needed = sizeof(struct btf_decl_tag);
	const char *value;

	if (btf_meta_short(env, t, meta_left, meta_needed))
		return -EINVAL;
	value = btf_name_by_offset(env->btf, t->name_off);
	if (!value || !value[0]) {
		btf_verifier_log_type(env, t, "Invalid value");
		return -EINVAL;
	}
	if (btf_check_no_vlen_kflag(env, t))
		return -EINVAL;
	if (((const struct btf_decl_tag *)(t + 1))->component_idx < -1) {
		btf_verifier_log_type(env, t, "Invalid component_idx");
		return -EINVAL;
	}
	btf_verifier_log_type(env, t, NULL);
	return meta_needed;
}

noinline int btf_decl_tag_resolve(struct btf_verifier_env *env, const struct resolve_vertex *v)
{
	u32 next_type_id = v->t->type, vlen;
	const struct btf_type *next_type = btf_type_by_id(env->btf, next_type_id);
	s32 component_idx;

	if (!next_type || !btf_type_is_decl_tag_target(next_type))
		return btf_log_invalid_type_id(env, v->t);
	if (!env_type_is_resolve_sink(env, next_type) && !env_type_is_resolved(env, next_type_id))
		return env_stack_push(env, next_type, next_type_id);
	component_idx = ((const struct btf_decl_tag *)(v->t + 1))->component_idx;
	if (component_idx != -1) {
		/* a member of a struct or an argument of a function */
		if (btf_type_is_var(next_type) || btf_type_is_typedef(next_type)) {
			btf_verifier_log_type(env, v->t, "Invalid component_idx");
			return -EINVAL;
		}
		if (!btf_type_is_struct(next_type))
			next_type = btf_type_by_id(env->btf, next_type->type);
		vlen = btf_type_vlen(next_type);
		if ((u32)component_idx >= vlen) {
			btf_verifier_log_type(env, v->t, "Invalid component_idx");
			return -EINVAL;
		}
	}
	env_stack_pop_resolved(env, next_type_id, 0);
	return 0;
}

noinline void btf_decl_tag_log(struct btf_verifier_env *env, const struct btf_type *t)
{
	btf_verifier_log(env, "type=%u component_idx=%d", t->type, ((const struct btf_decl_tag *)(t + 1))->component_idx);
}

static const struct btf_kind_operations decl_tag_ops = {
	.check_meta = btf_decl_tag_check_meta, .resolve = btf_decl_tag_resolve, .check_member = btf_df_check_member,
	.check_kflag_member = btf_df_check_kflag_member, .log_details = btf_decl_tag_log,
};

static const struct btf_kind_operations *const kind_ops[NR_BTF_KINDS] = {
	[BTF_KIND_INT] = &int_ops, [BTF_KIND_PTR] = &ptr_ops, [BTF_KIND_ARRAY] = &array_ops,
	[BTF_KIND_STRUCT] = &struct_ops, [BTF_KIND_UNION] = &struct_ops, [BTF_KIND_ENUM] = &enum_ops,
	[BTF_KIND_FWD] = &fwd_ops, [BTF_KIND_TYPEDEF] = &modifier_ops, [BTF_KIND_VOLATILE] = &modifier_ops,
	[BTF_KIND_CONST] = &modifier_ops, [BTF_KIND_RESTRICT] = &modifier_ops, [BTF_KIND_FUNC] = &func_ops,
	[BTF_KIND_FUNC_PROTO] = &func_proto_ops, [BTF_KIND_VAR] = &var_ops, [BTF_KIND_DATASEC] = &datasec_ops,
	[BTF_KIND_FLOAT] = &float_ops, [BTF_KIND_DECL_TAG] = &decl_tag_ops, [BTF_KIND_TYPE_TAG] = &modifier_ops,
	[BTF_KIND_ENUM64] = &enum64_ops,
};

/* ---- the passes ---- */
/* one type's fixed fields and its kind's check_meta: the bytes it takes, or an error */
static notrace s32 btf_check_meta(struct btf_verifier_env *env, const struct btf_type *t, u32 meta_left)
{
	u32 saved_meta_left = meta_left;
	s32 var_meta_size;

	if (meta_left < sizeof(*t)) {
		btf_verifier_log(env, "[%u] meta_left:%u meta_needed:%zu", env->log_type_id, meta_left, sizeof(*t));
		return -EINVAL;
	}
	meta_left -= sizeof(*t);
	if (t->info & ~BTF_INFO_MASK) {
		btf_verifier_log(env, "[%u] Invalid btf_info:%x", env->log_type_id, t->info);
		return -EINVAL;
	}
	if (btf_kind(t) > BTF_KIND_MAX || btf_kind(t) == BTF_KIND_UNKN) {
		btf_verifier_log(env, "[%u] Invalid kind:%u", env->log_type_id, btf_kind(t));
		return -EINVAL;
	}
	if (!btf_name_offset_valid(env->btf, t->name_off)) {
		btf_verifier_log(env, "[%u] Invalid name_offset:%u", env->log_type_id, t->name_off);
		return -EINVAL;
	}
	var_meta_size = btf_type_ops(t)->check_meta(env, t, meta_left);
	if (var_meta_size < 0)
		return var_meta_size;
	meta_left -= var_meta_size;
	return saved_meta_left - meta_left;
}

noinline int btf_check_all_metas(struct btf_verifier_env *env)
{
	struct btf *btf = env->btf;
	const char *cur = (const char *)btf->nohdr_data + btf->hdr.type_off, *end = cur + btf->hdr.type_len;

	env->log_type_id = 1;
	while (cur < end) {
		const struct btf_type *t = (const struct btf_type *)cur;
		s32 meta_size = btf_check_meta(env, t, end - cur);

		if (meta_size < 0)
			return meta_size;
		btf_add_type(env, t);	/* 6.1 goes on past a failure here too */
		cur += meta_size;
		env->log_type_id++;
	}
	return 0;
}

/* after resolving: what each kind must have been resolved to */
static notrace bool btf_resolve_valid(struct btf_verifier_env *env, const struct btf_type *t, u32 type_id)
{
	struct btf *btf = env->btf;

	if (!env_type_is_resolved(env, type_id))
		return false;
	if (btf_type_is_struct(t) || btf_type_is_datasec(t))
		return !btf->resolved_ids[type_id] && !btf->resolved_sizes[type_id];
	if (btf_type_is_decl_tag(t) || btf_type_is_func(t))
		return btf->resolved_ids[type_id] && !btf->resolved_sizes[type_id];
	if (btf_type_is_modifier(t) || btf_type_is_ptr(t) || btf_type_is_var(t)) {
		t = btf_type_id_resolve(btf, &type_id);
		return t && !btf_type_is_modifier(t) && !btf_type_is_var(t) && !btf_type_is_datasec(t);
	}
	if (btf_type_is_array(t)) {
		const struct btf_array *array = (const struct btf_array *)(t + 1);
		const struct btf_type *elem_type;
		u32 elem_type_id = array->type, elem_size;

		elem_type = btf_type_id_size(btf, &elem_type_id, &elem_size);
		return elem_type && !btf_type_is_modifier(elem_type) &&
		       array->nelems * elem_size == btf->resolved_sizes[type_id];
	}
	return false;
}

noinline int btf_resolve(struct btf_verifier_env *env, const struct btf_type *t, u32 type_id)
{
	u32 save_log_type_id = env->log_type_id;
	const struct resolve_vertex *v;
	int err = 0;

	env->resolve_mode = RESOLVE_TBD;
	env_stack_push(env, t, type_id);
	while (!err && (v = env_stack_peak(env))) {
		env->log_type_id = v->type_id;
		err = btf_type_ops(v->t)->resolve(env, v);
	}
	env->log_type_id = type_id;
	if (err == -E2BIG)
		btf_verifier_log_type(env, t, "Exceeded max resolving depth:%u", MAX_RESOLVE_DEPTH);
	else if (err == -EEXIST)
		btf_verifier_log_type(env, t, "Loop detected");
	if (!err && !btf_resolve_valid(env, t, type_id)) {
		btf_verifier_log_type(env, t, "Invalid resolve state");
		err = -EINVAL;
	}
	env->log_type_id = save_log_type_id;
	return err;
}

/* a type that must resolve to one with a size: resolved first if it was not */
static notrace int btf_resolve_sized(struct btf_verifier_env *env, u32 type_id, const struct btf_type *type)
{
	if (btf_type_needs_resolve(type) && !env_type_is_resolved(env, type_id)) {
		int err = btf_resolve(env, type, type_id);

		if (err)
			return err;
	}
	return btf_type_id_size(env->btf, &type_id, NULL) ? 0 : 1;
}

/* a FUNC_PROTO's return type (void or sized) and arguments (named by identifiers, sized; the
 * last one may be a vararg: type 0, no name) */
static notrace int btf_func_proto_check(struct btf_verifier_env *env, const struct btf_type *t)
{
	const struct btf_param *args = (const struct btf_param *)(t + 1);
	struct btf *btf = env->btf;
	u16 nr_args = btf_type_vlen(t), i;
	int err;

	if (t->type) {
		const struct btf_type *ret_type = btf_type_by_id(btf, t->type);

		if (!ret_type || btf_type_is_resolve_source_only(ret_type)) {
			btf_verifier_log_type(env, t, "Invalid return type");
			return -EINVAL;
		}
		err = btf_resolve_sized(env, t->type, ret_type);
		if (err < 0)
			return err;
		if (err) {
			btf_verifier_log_type(env, t, "Invalid return type");
			return -EINVAL;
		}
	}
	if (!nr_args)
		return 0;
	if (!args[nr_args - 1].type) {
		if (args[nr_args - 1].name_off) {
			btf_verifier_log_type(env, t, "Invalid arg#%u", nr_args);
			return -EINVAL;
		}
		nr_args--;
	}
	for (i = 0; i < nr_args; i++) {
		const struct btf_type *arg_type = btf_type_by_id(btf, args[i].type);

		if (!arg_type || btf_type_is_resolve_source_only(arg_type) ||
		    (args[i].name_off &&
		     (!btf_name_offset_valid(btf, args[i].name_off) || !__btf_name_valid(btf, args[i].name_off)))) {
			btf_verifier_log_type(env, t, "Invalid arg#%u", i + 1);
			return -EINVAL;
		}
		err = btf_resolve_sized(env, args[i].type, arg_type);
		if (err < 0)
			return err;
		if (err) {
			btf_verifier_log_type(env, t, "Invalid arg#%u", i + 1);
			return -EINVAL;
		}
	}
	return 0;
}

static notrace int btf_check_all_types(struct btf_verifier_env *env)
{
	struct btf *btf = env->btf;
	u32 type_id;
	int err = env_resolve_init(env);

	if (err)
		return err;
	env->phase++;
	for (type_id = 1; type_id < btf->nr_types; type_id++) {
		const struct btf_type *t = btf_type_by_id(btf, type_id);

		env->log_type_id = type_id;
		if (btf_type_needs_resolve(t) && !env_type_is_resolved(env, type_id)) {
			err = btf_resolve(env, t, type_id);
			if (err)
				return err;
		}
		if (btf_type_is_func_proto(t)) {
			err = btf_func_proto_check(env, t);
			if (err)
				return err;
		}
	}
	return 0;
}

static notrace int btf_parse_type_sec(struct btf_verifier_env *env)
{
	const struct btf_header *hdr = &env->btf->hdr;
	int err;

	if (hdr->type_off & (sizeof(u32) - 1)) {
		btf_verifier_log(env, "Unaligned type_off");
		return -EINVAL;
	}
	if (!hdr->type_len) {
		btf_verifier_log(env, "No type found");
		return -EINVAL;
	}
	err = btf_check_all_metas(env);
	if (err)
		return err;
	return btf_check_all_types(env);
}

/* the strings last, NUL-ended, the first one empty */
noinline int btf_parse_str_sec(struct btf_verifier_env *env)
{
	struct btf *btf = env->btf;
	const struct btf_header *hdr = &btf->hdr;
	const char *start = (const char *)btf->nohdr_data + hdr->str_off, *end = start + hdr->str_len;

	if (end != (const char *)btf->data + btf->data_size) {
		btf_verifier_log(env, "String section is not at the end");
		return -EINVAL;
	}
	btf->strings = start;
	btf->str_len = hdr->str_len;
	if (!hdr->str_len || hdr->str_len - 1 > BTF_MAX_NAME_OFFSET || end[-1] || start[0]) {
		btf_verifier_log(env, "Invalid string section");
		return -EINVAL;
	}
	return 0;
}

noinline int btf_sec_info_cmp(const void *a, const void *b)
{
	const struct btf_sec_info *x = a, *y = b;

	return (int)(x->off - y->off) ?: (int)(x->len - y->len);
}

/* the type and string sections, in either order, fill what follows the header: no gap, no
 * overlap, nothing after */
static notrace int btf_check_sec_info(struct btf_verifier_env *env, u32 btf_data_size)
{
	const struct btf_header *hdr = &env->btf->hdr;
	struct btf_sec_info secs[2] = { { hdr->type_off, hdr->type_len }, { hdr->str_off, hdr->str_len } };
	u32 total = 0, expected_total = btf_data_size - hdr->hdr_len, i;

	if (btf_sec_info_cmp(&secs[0], &secs[1]) > 0) {
		struct btf_sec_info tmp = secs[0];

		secs[0] = secs[1];
		secs[1] = tmp;
	}
	for (i = 0; i < 2; i++) {
		const char *err = NULL;

		if (expected_total < secs[i].off)
			err = "Invalid section offset";
		else if (total < secs[i].off)
			err = "Unsupported section found";	/* a gap */
		else if (total > secs[i].off)
			err = "Section overlap found";
		else if (expected_total - total < secs[i].len)
			err = "Total section length too long";
		if (err) {
			btf_verifier_log(env, "%s", err);
			return -EINVAL;
		}
		total += secs[i].len;
	}
	if (expected_total != total) {
		btf_verifier_log(env, "Unsupported section found");
		return -EINVAL;
	}
	return 0;
}

noinline int btf_parse_hdr(struct btf_verifier_env *env)
{
	struct btf *btf = env->btf;
	u32 hdr_len, btf_data_size = btf->data_size;
	const struct btf_header *hdr = btf->data;

	if (btf_data_size < offsetof(struct btf_header, hdr_len) + sizeof(hdr->hdr_len)) {
		btf_verifier_log(env, "hdr_len not found");
		return -EINVAL;
	}
	hdr_len = hdr->hdr_len;
	if (btf_data_size < hdr_len) {
		btf_verifier_log(env, "btf_header not found");
		return -EINVAL;
	}
	/* a longer header than this kernel's: the rest zero */
	if (hdr_len > sizeof(btf->hdr)) {
		const u8 *expected_zero = (const u8 *)btf->data + sizeof(btf->hdr), *end = (const u8 *)btf->data + hdr_len;

		for (; expected_zero < end; expected_zero++) {
			if (*expected_zero) {
				btf_verifier_log(env, "Unsupported btf_header");
				return -E2BIG;
			}
		}
	}
	memcpy(&btf->hdr, btf->data, min(hdr_len, (u32)sizeof(btf->hdr)));
	hdr = &btf->hdr;
	btf_verifier_log_hdr(env, btf_data_size);
	if (hdr->magic != BTF_MAGIC) {
		btf_verifier_log(env, "Invalid magic");
		return -EINVAL;
	}
	if (hdr->version != BTF_VERSION) {
		btf_verifier_log(env, "Unsupported version");
		return -ENOTSUPP;
	}
	if (hdr->flags) {
		btf_verifier_log(env, "Unsupported flags");
		return -ENOTSUPP;
	}
	if (btf_data_size == hdr->hdr_len) {
		btf_verifier_log(env, "No data");
		return -EINVAL;
	}
	return btf_check_sec_info(env, btf_data_size);
}

/* every chain of modifiers: its type tags first, at most 32 long */
noinline int btf_check_type_tags(struct btf_verifier_env *env, struct btf *btf, int start_id)
{
	int i, n = btf->nr_types, good_id = start_id - 1;
	bool in_tags;

	for (i = start_id; i < n; i++) {
		const struct btf_type *t = btf_type_by_id(btf, i);
		int chain_limit = 32;
		u32 cur_id = i;

		if (!t)
			return -EINVAL;
		if (!btf_type_is_modifier(t))
			continue;
		in_tags = btf_type_is_type_tag(t);
		while (btf_type_is_modifier(t)) {
			if (!chain_limit--) {
				btf_verifier_log(env, "Max chain length or cycle detected");
				return -ELOOP;
			}
			if (btf_type_is_type_tag(t)) {
				if (!in_tags) {
					btf_verifier_log(env, "Type tags don't precede modifiers");
					return -EINVAL;
				}
			} else {
				in_tags = false;
			}
			if ((int)cur_id <= good_id)
				break;
			cur_id = t->type;
			t = btf_type_by_id(btf, cur_id);
			if (!t)
				return -EINVAL;
		}
		good_id = i;
	}
	return 0;
}

/* btf_parse(): the user's BTF copied in and checked, with its log; refcnt 1 */
static notrace struct btf *btf_parse(const void *btf_data, u32 btf_data_size, u32 log_level, char *log_ubuf,
				     u32 log_size)
{
	struct btf_verifier_env *env;
	struct bpf_verifier_log *log;
	struct btf *btf = NULL;
	void *data;
	int err;

	if (btf_data_size > BTF_MAX_SIZE)
		return ERR_PTR(-E2BIG);
	env = kzalloc(sizeof(*env), GFP_KERNEL);
	if (!env)
		return ERR_PTR(-ENOMEM);
	log = &env->log;
	if (log_level || log_ubuf || log_size) {
		log->level = log_level;
		log->ubuf = log_ubuf;
		log->len_total = log_size;
		if (!bpf_verifier_log_attr_valid(log)) {
			err = -EINVAL;
			goto errout;
		}
	}
	err = -ENOMEM;
	btf = kzalloc(sizeof(*btf), GFP_KERNEL);
	if (!btf)
		goto errout;
	btf->name = "";
	INIT_LIST_HEAD(&btf->id_node);
	env->btf = btf;
	data = kvmalloc(btf_data_size ?: 1, GFP_KERNEL);
	if (!data)
		goto errout;
	btf->data = data;
	btf->data_size = btf_data_size;
	err = -EFAULT;
	if (copy_from_user(data, btf_data, btf_data_size))
		goto errout;
	err = btf_parse_hdr(env);
	if (err)
		goto errout;
	btf->nohdr_data = (const char *)btf->data + btf->hdr.hdr_len;
	err = btf_parse_str_sec(env);
	if (err)
		goto errout;
	err = btf_parse_type_sec(env);
	if (err)
		goto errout;
	err = btf_check_type_tags(env, btf, 1);
	if (err)
		goto errout;
	if (log->level && bpf_verifier_log_full(log)) {
		err = -ENOSPC;
		goto errout;
	}
	kvfree(env->visit_states);
	kfree(env);
	btf->refcnt = 1;
	return btf;
errout:
	kvfree(env->visit_states);
	kfree(env);
	if (btf)
		btf_free(btf);
	return ERR_PTR(err);
}

/* BPF_BTF_LOAD: the BTF object, its id, an fd on it */
noinline int btf_new_fd(const union bpf_attr *attr)
{
	struct btf *btf;
	int ret;

	btf = btf_parse((const void *)attr->btf, attr->btf_size, attr->btf_log_level, (char *)attr->btf_log_buf,
			attr->btf_log_size);
	if (IS_ERR(btf))
		return PTR_ERR(btf);
	ret = btf_alloc_id(btf);
	if (ret) {
		btf_free(btf);
		return ret;
	}
	ret = __btf_new_fd(btf);
	if (ret < 0)
		btf_put(btf);
	return ret;
}

/* ---- a map's BTF (kernel/bpf/syscall.c's map_check_btf) ---- */
noinline u32 btf_obj_id(const struct btf *btf)
{
	return btf->id;
}

/* a struct bpf_spin_lock or bpf_timer, or a pointer tagged kptr/kptr_ref: the fields 6.1's
 * btf_find_spin_lock/btf_find_timer/btf_parse_kptrs look for in a map's value */
static notrace bool btf_type_is_special_field(const struct btf *btf, const struct btf_type *t)
{
	const char *name;

	if (!t)
		return false;
	if (btf_kind(t) == BTF_KIND_STRUCT) {
		name = __btf_name_by_offset(btf, t->name_off);
		return !strcmp(name, "bpf_spin_lock") || !strcmp(name, "bpf_timer");
	}
	if (!btf_type_is_ptr(t))
		return false;
	t = btf_type_by_id(btf, t->type);
	if (!t || !btf_type_is_type_tag(t))
		return false;
	name = __btf_name_by_offset(btf, t->name_off);
	return !strcmp(name, "kptr") || !strcmp(name, "kptr_ref");
}

/* one of those as a member of a struct value or a variable of a section's (6.1 errs, -EINVAL, on
 * some malformed ones, and then takes the map; this finds them all) */
static notrace bool btf_value_has_special_field(const struct btf *btf, const struct btf_type *t)
{
	u16 i;

	if (btf_type_is_struct(t)) {
		const struct btf_member *member = (const struct btf_member *)(t + 1);

		for (i = 0; i < btf_type_vlen(t); i++, member++)
			if (btf_type_is_special_field(btf, btf_type_by_id(btf, member->type)))
				return true;
	} else if (btf_type_is_datasec(t)) {
		const struct btf_var_secinfo *vsi = (const struct btf_var_secinfo *)(t + 1);

		for (i = 0; i < btf_type_vlen(t); i++, vsi++) {
			const struct btf_type *var = btf_type_by_id(btf, vsi->type);

			if (var && btf_type_is_special_field(btf, btf_type_by_id(btf, var->type)))
				return true;
		}
	}
	return false;
}

noinline int map_check_no_btf(const struct bpf_map *map, const struct btf *btf, const struct btf_type *key_type,
			      const struct btf_type *value_type)
{
	return -ENOTSUPP;
}

/* the key's (if given: some maps take none) and the value's types have the map's sizes; then the
 * map type's own check.  A value holding a bpf_spin_lock, a bpf_timer or a kptr: ENOTSUPP (not
 * held by this kernel's maps; 6.1 takes them in some map types) */
notrace int map_check_btf(struct bpf_map *map, const struct btf *btf, u32 btf_key_id, u32 btf_value_id)
{
	const struct btf_type *key_type, *value_type;
	u32 key_size, value_size;

	if (btf_key_id) {
		key_type = btf_type_id_size(btf, &btf_key_id, &key_size);
		if (!key_type || key_size != map->key_size)
			return -EINVAL;
	} else {
		key_type = btf_type_by_id(btf, 0);
		if (!map->ops->map_check_btf)
			return -EINVAL;
	}
	value_type = btf_type_id_size(btf, &btf_value_id, &value_size);
	if (!value_type || value_size != map->value_size)
		return -EINVAL;
	if (btf_value_has_special_field(btf, value_type))
		return -ENOTSUPP;
	return map->ops->map_check_btf ? map->ops->map_check_btf(map, btf, key_type, value_type) : 0;
}
