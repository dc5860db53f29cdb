// SPDX-License-Identifier: GPL-2.0
/*
 * BTF objects (kernel/bpf/btf.c): the kernel's own type information, vmlinux's BTF, which the
 * build puts in the image's .BTF section (pahole, from the kernel's DWARF), shown to user space
 * as BTF object 1 named "vmlinux": BPF_BTF_GET_NEXT_ID finds it, BPF_BTF_GET_FD_BY_ID opens it,
 * the verifier reads it (a tracing program's target function and its arguments, btf_ctx_access),
 * BPF_OBJ_GET_INFO_BY_FD copies its data out (how bpftrace and libbpf's
 * btf__load_from_kernel_by_id read a kernel's types).  Loading user BTF (BPF_BTF_LOAD) is not
 * here: EINVAL, as an unknown command.
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
	const struct btf_type **types;	/* by id, made at first use (btf_parse_type_sec) */
	const char *strings;
	u32 str_len;
};

static struct btf btf_vmlinux = { .id = 1, .name = "vmlinux", .kernel_btf = true };

static ssize_t btf_read(struct file *f, char *buf, size_t n, loff_t *pos) { return -EINVAL; }
static ssize_t btf_write(struct file *f, const char *buf, size_t n, loff_t *pos) { return -EINVAL; }
const struct file_operations btf_fops = { .read = btf_read, .write = btf_write };

/* The vmlinux BTF when the image has one (btf_parse_vmlinux at boot in Linux). */
static struct btf *vmlinux_btf(void)
{
	if (!btf_vmlinux.data_size && (unsigned long)__stop_BTF > (unsigned long)__start_BTF) {
		btf_vmlinux.data = __start_BTF;
		btf_vmlinux.data_size = __stop_BTF - __start_BTF;
	}
	return btf_vmlinux.data_size ? &btf_vmlinux : NULL;
}

/* The first BTF id past start_id, 0 if none. */
u32 btf_next_id(u32 start_id)
{
	struct btf *btf = vmlinux_btf();

	return btf && btf->id > start_id ? btf->id : 0;
}

/* btf_get_fd_by_id: a read-only fd on the BTF object, -ENOENT for no such id. */
int btf_get_fd_by_id(u32 id)
{
	struct btf *btf = vmlinux_btf();
	struct file *f;
	int fd;

	if (!btf || btf->id != id)
		return -ENOENT;
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
static long btf_type_extra(const struct btf_type *t)
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
static struct btf *vmlinux_btf_types(void)
{
	struct btf *btf = vmlinux_btf();
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

noinline const struct btf_type *btf_vmlinux_type_by_id(u32 type_id)
{
	struct btf *btf = vmlinux_btf_types();

	if (!btf || type_id >= btf->nr_types)
		return NULL;
	return btf->types[type_id];
}

noinline const char *btf_vmlinux_name_by_offset(u32 offset)
{
	struct btf *btf = vmlinux_btf_types();

	if (!btf || offset >= btf->str_len)
		return NULL;
	return btf->strings + offset;
}

noinline const struct btf_type *btf_vmlinux_skip_modifiers(u32 type_id, u32 *res_id)
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

u32 btf_vmlinux_struct_id(const char *name)
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
u32 btf_func_nr_regs(const struct btf_type *func_proto)
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
 * 6.1's btf_ctx_access() for fentry/fexit: offsets in 8-byte slots, one argument each (a struct
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
	u32 nr_args, arg;

	if (off % 8) {
		bpf_log(log, "func '%s' offset %d is not multiple of 8\n", tname, off);
		return false;
	}
	if (!t)
		return true;	/* no prototype: MAX_BPF_FUNC_REG_ARGS u64s */
	arg = get_ctx_arg_idx(t, off);
	args = (const struct btf_param *)(t + 1);
	nr_args = btf_type_vlen(t);
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
static const char *btf_name(u32 name_off)
{
	return btf_vmlinux_name_by_offset(name_off) ?: "";
}

/* __btf_resolve_size(): the bytes type takes (an array: all its elements, of *elem_type, id
 * *elem_id, *total_nelems of them); the type past the modifiers (the outer array), its id in
 * *type_id if modifiers were skipped; NULL for a type without a size */
static const struct btf_type *btf_resolve_size(const struct btf_type *type, u32 *type_size,
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
