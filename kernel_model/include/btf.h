/* BTF (include/uapi/linux/btf.h, include/linux/btf.h of 6.1): the format of the kernel's type
 * information, and what the verifier and the trampolines ask of vmlinux's (kernel/bpf/btf.c). */
#ifndef _BTF_H
#define _BTF_H
#include "kernel.h"

#define BTF_MAGIC	0xeB9F
struct btf_header {
	u16 magic;
	u8 version;
	u8 flags;
	u32 hdr_len;
	u32 type_off;	/* offset of the type section, after the header */
	u32 type_len;
	u32 str_off;	/* offset of the string section, after the header */
	u32 str_len;
};

struct btf_type {
	u32 name_off;
	/* bits 0-15: vlen; 24-28: kind; 31: kind_flag */
	u32 info;
	union {
		u32 size;
		u32 type;
	};
};
struct btf_param {
	u32 name_off;
	u32 type;
};
struct btf_array {
	u32 type;
	u32 index_type;
	u32 nelems;
};
struct btf_member {
	u32 name_off;
	u32 type;
	u32 offset;
};
struct btf_enum {
	u32 name_off;
	s32 val;
};
struct btf_var {
	u32 linkage;
};
struct btf_decl_tag {
	s32 component_idx;
};
struct btf_enum64 {
	u32 name_off;
	u32 val_lo32;
	u32 val_hi32;
};
struct btf_var_secinfo {
	u32 type;
	u32 offset;
	u32 size;
};

#define BTF_VERSION		1
#define BTF_MAX_SIZE		(16 * 1024 * 1024)
#define BTF_MAX_NAME_OFFSET	0x00ffffff
#define BTF_INFO_MASK		0x9f00ffff
#define BTF_INT_MASK		0x0fffffff
/* an INT's u32 after its btf_type: encoding (bits 24-27), offset (16-23), bits (0-7) */
#define BTF_INT_ENCODING(v)	(((v) & 0x0f000000) >> 24)
#define BTF_INT_OFFSET(v)	(((v) & 0x00ff0000) >> 16)
#define BTF_INT_BITS(v)		((v) & 0x000000ff)
#define BTF_INT_SIGNED		(1 << 0)
#define BTF_INT_CHAR		(1 << 1)
#define BTF_INT_BOOL		(1 << 2)
/* a member's offset in a struct whose kind_flag is set: bitfield size in bits 24-31 */
#define BTF_MEMBER_BITFIELD_SIZE(v)	((v) >> 24)
#define BTF_MEMBER_BIT_OFFSET(v)	((v) & 0xffffff)
enum { BTF_VAR_STATIC, BTF_VAR_GLOBAL_ALLOCATED, BTF_VAR_GLOBAL_EXTERN };
enum { BTF_FUNC_STATIC, BTF_FUNC_GLOBAL, BTF_FUNC_EXTERN };

enum {
	BTF_KIND_UNKN, BTF_KIND_INT, BTF_KIND_PTR, BTF_KIND_ARRAY, BTF_KIND_STRUCT, BTF_KIND_UNION,
	BTF_KIND_ENUM, BTF_KIND_FWD, BTF_KIND_TYPEDEF, BTF_KIND_VOLATILE, BTF_KIND_CONST,
	BTF_KIND_RESTRICT, BTF_KIND_FUNC, BTF_KIND_FUNC_PROTO, BTF_KIND_VAR, BTF_KIND_DATASEC,
	BTF_KIND_FLOAT, BTF_KIND_DECL_TAG, BTF_KIND_TYPE_TAG, BTF_KIND_ENUM64, NR_BTF_KINDS,
};

static inline u32 btf_kind(const struct btf_type *t) { return (t->info >> 24) & 0x1f; }
static inline u16 btf_type_vlen(const struct btf_type *t) { return t->info & 0xffff; }
#define BTF_KIND_MAX	BTF_KIND_ENUM64
static inline bool btf_type_kflag(const struct btf_type *t) { return t->info >> 31; }
static inline bool btf_type_is_ptr(const struct btf_type *t) { return btf_kind(t) == BTF_KIND_PTR; }
static inline bool btf_type_is_func(const struct btf_type *t) { return btf_kind(t) == BTF_KIND_FUNC; }
static inline bool btf_type_is_func_proto(const struct btf_type *t) { return btf_kind(t) == BTF_KIND_FUNC_PROTO; }
static inline bool btf_type_is_int(const struct btf_type *t) { return btf_kind(t) == BTF_KIND_INT; }
static inline bool btf_is_any_enum(const struct btf_type *t)
{
	return btf_kind(t) == BTF_KIND_ENUM || btf_kind(t) == BTF_KIND_ENUM64;
}
static inline bool __btf_type_is_struct(const struct btf_type *t)
{
	return btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION;
}
/* btf_type_is_modifier(): what a type's meaning looks through */
static inline bool btf_type_is_modifier(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return true;
	}
	return false;
}
/* an int of at most 8 bytes whose bits fill it (btf_type_is_small_int) */
static inline bool btf_type_is_small_int(const struct btf_type *t)
{
	return btf_type_is_int(t) && t->size <= sizeof(u64);
}

/* vmlinux's BTF (kernel/bpf/btf.c): NULL for an id it does not have (0 is void, a type of its
 * own); a name by its offset, NULL outside the strings */
const struct btf_type *btf_vmlinux_type_by_id(u32 type_id);
const char *btf_vmlinux_name_by_offset(u32 offset);
/* the type past the modifiers of type_id (btf_type_skip_modifiers), its id in *res_id */
const struct btf_type *btf_vmlinux_skip_modifiers(u32 type_id, u32 *res_id);
/* the id of vmlinux's struct name, 0 if it has none (what 6.1's BTF_ID lists resolve at build) */
u32 btf_vmlinux_struct_id(const char *name);
/* btf_type_str(): "INT", "PTR", ... "UNKNOWN" */
const char *btf_type_str(const struct btf_type *t);
/* btf_struct_ids_match(): whether a pointer to struct id at off is one to struct need_type_id
 * (the struct itself, or one nested in it at off) */
bool btf_struct_ids_match(struct bpf_verifier_log *log, u32 id, int off, u32 need_type_id);
/* btf_struct_access(): what a load of size bytes at off of struct t gives: SCALAR_VALUE, or
 * PTR_TO_BTF_ID of the struct *next_btf_id (a pointer member); -EACCES/-EINVAL/-EFAULT with
 * 6.1's log line for an access outside the struct's members */
struct bpf_verifier_log;
int btf_struct_access(struct bpf_verifier_log *log, const struct btf_type *t, int off, int size,
		      u32 *next_btf_id);
#endif
