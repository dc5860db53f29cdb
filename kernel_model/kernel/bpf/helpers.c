/* Helpers every program type may call (kernel/bpf/helpers.c): map access, time, the cpu,
 * the current task's ids and name. */
#include "../../include/bpf.h"
#include "../../include/trace/ftrace.h"
#include "../../include/cred.h"

BPF_CALL_x(bpf_map_lookup_elem)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	return (u64)map->ops->map_lookup_elem(map, (void *)r2);
}
const struct bpf_func_proto bpf_map_lookup_elem_proto = {
	.func = bpf_map_lookup_elem,
	.ret_type = RET_PTR_TO_MAP_VALUE_OR_NULL,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY },
};

BPF_CALL_x(bpf_map_update_elem)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	return map->ops->map_update_elem(map, (void *)r2, (void *)r3, r4);
}
const struct bpf_func_proto bpf_map_update_elem_proto = {
	.func = bpf_map_update_elem,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING },
};

BPF_CALL_x(bpf_map_delete_elem)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	return map->ops->map_delete_elem(map, (void *)r2);
}
const struct bpf_func_proto bpf_map_delete_elem_proto = {
	.func = bpf_map_delete_elem,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY },
};

/* a queue's or stack's: a value pushed, or the next popped or only peeked at */
BPF_CALL_x(bpf_map_push_elem)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	return map->ops->map_push_elem(map, (void *)r2, r3);
}
const struct bpf_func_proto bpf_map_push_elem_proto = {
	.func = bpf_map_push_elem,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING },
};

BPF_CALL_x(bpf_map_pop_elem)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	return map->ops->map_pop_elem(map, (void *)r2);
}
const struct bpf_func_proto bpf_map_pop_elem_proto = {
	.func = bpf_map_pop_elem,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_UNINIT_MAP_VALUE },
};

BPF_CALL_x(bpf_map_peek_elem)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	return map->ops->map_peek_elem(map, (void *)r2);
}
const struct bpf_func_proto bpf_map_peek_elem_proto = {
	.func = bpf_map_peek_elem,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_UNINIT_MAP_VALUE },
};

/* cpu's value of a per-cpu map (hash, LRU hash, array): NULL for a cpu past the last */
BPF_CALL_x(bpf_map_lookup_percpu_elem)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	return (u64)map->ops->map_lookup_percpu_elem(map, (void *)r2, (u32)r3);
}
const struct bpf_func_proto bpf_map_lookup_percpu_elem_proto = {
	.func = bpf_map_lookup_percpu_elem,
	.ret_type = RET_PTR_TO_MAP_VALUE_OR_NULL,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING },
};

BPF_CALL_x(bpf_get_smp_processor_id)
{
	return smp_processor_id();
}
const struct bpf_func_proto bpf_get_smp_processor_id_proto = {
	.func = bpf_get_smp_processor_id,
	.ret_type = RET_INTEGER,
};

/* ktime_get_mono_fast_ns(): the clock that moves within an instruction slice (the trace
 * clock, as perf's), not now_ns, which the host sets between slices: two reads a few hundred
 * instructions apart (a kprobe and its kretprobe) must not tie */
BPF_CALL_x(bpf_ktime_get_ns)
{
	return trace_clock_local(this_cpu());
}
const struct bpf_func_proto bpf_ktime_get_ns_proto = {
	.func = bpf_ktime_get_ns,
	.ret_type = RET_INTEGER,
};

/* ktime_get_boot_fast_ns(): the same clock plus offs_boot (kernel.h's tk_offs()) */
BPF_CALL_x(bpf_ktime_get_boot_ns)
{
	return trace_clock_local(this_cpu()) + tk_offs(TK_OFFS_BOOT);
}
const struct bpf_func_proto bpf_ktime_get_boot_ns_proto = {
	.func = bpf_ktime_get_boot_ns,
	.ret_type = RET_INTEGER,
};

/* ktime_get_tai_fast_ns(): the same clock plus CLOCK_TAI's offset */
BPF_CALL_x(bpf_ktime_get_tai_ns)
{
	return trace_clock_local(this_cpu()) + tk_offs(TK_OFFS_TAI);
}
const struct bpf_func_proto bpf_ktime_get_tai_ns_proto = {
	.func = bpf_ktime_get_tai_ns,
	.ret_type = RET_INTEGER,
};

BPF_CALL_x(bpf_jiffies64)
{
	return get_jiffies_64();
}
const struct bpf_func_proto bpf_jiffies64_proto = {
	.func = bpf_jiffies64,
	.ret_type = RET_INTEGER,
};

/* one memory node (no NUMA) */
BPF_CALL_x(bpf_get_numa_node_id)
{
	return numa_node_id();
}
const struct bpf_func_proto bpf_get_numa_node_id_proto = {
	.func = bpf_get_numa_node_id,
	.ret_type = RET_INTEGER,
};

BPF_CALL_x(bpf_ktime_get_coarse_ns)
{
	return ktime_get_coarse_ns();
}
const struct bpf_func_proto bpf_ktime_get_coarse_ns_proto = {
	.func = bpf_ktime_get_coarse_ns,
	.ret_type = RET_INTEGER,
};

BPF_CALL_x(bpf_get_current_pid_tgid)
{
	struct task_struct *task = current;

	if (unlikely(!task))
		return -EINVAL;
	return (u64)task->tgid << 32 | (u32)task->pid;
}
const struct bpf_func_proto bpf_get_current_pid_tgid_proto = {
	.func = bpf_get_current_pid_tgid,
	.ret_type = RET_INTEGER,
};

BPF_CALL_x(bpf_get_current_uid_gid)
{
	struct task_struct *task = current;

	if (unlikely(!task))
		return -EINVAL;
	return (u64)__task_cred(task)->gid << 32 | __task_cred(task)->uid;
}
const struct bpf_func_proto bpf_get_current_uid_gid_proto = {
	.func = bpf_get_current_uid_gid,
	.ret_type = RET_INTEGER,
};

BPF_CALL_x(bpf_get_current_comm)
{
	struct task_struct *task = current;
	char *buf = (char *)r1;
	u32 size = r2;

	if (unlikely(!task)) {
		memset(buf, 0, size);
		return -EINVAL;
	}
	strscpy_pad(buf, task->comm, size);
	return 0;
}
const struct bpf_func_proto bpf_get_current_comm_proto = {
	.func = bpf_get_current_comm,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE },
};

BPF_CALL_x(bpf_user_rnd_u32)
{
	return (u32)get_random_u64();
}
const struct bpf_func_proto bpf_get_prandom_u32_proto = {
	.func = bpf_user_rnd_u32,
	.ret_type = RET_INTEGER,
};

/* ---- strings: bpf_strtol(), bpf_strtoul(), bpf_strncmp() ---- */
#define BPF_STRTOX_BASE_MASK 0x1F

static bool bpf_isspace(unsigned char c)	/* (lib/ctype.c's: 0xa0 too) */
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/* __bpf_strtoull(): a number at the start of buf (buf_len bytes, not NUL-terminated), after
 * spaces and a '-' (*is_negative), in base flags (0: by its prefix, 8, 10, 16); the bytes it
 * took, or -EINVAL (no digits, bad flags), -ERANGE (past 64 bits) */
static noinline int __bpf_strtoull(const char *buf, size_t buf_len, u64 flags, unsigned long long *res,
				  bool *is_negative)
{
	unsigned int base = flags & BPF_STRTOX_BASE_MASK;
	const char *cur_buf = buf;
	size_t cur_len = buf_len;
	unsigned int consumed, val_len;
	char str[64];

	if (!buf || !buf_len || !res || !is_negative)
		return -EINVAL;
	if (base != 0 && base != 8 && base != 10 && base != 16)
		return -EINVAL;
	if (flags & ~BPF_STRTOX_BASE_MASK)
		return -EINVAL;
	while (cur_buf < buf + buf_len && bpf_isspace(*cur_buf))
		++cur_buf;
	*is_negative = (cur_buf < buf + buf_len && *cur_buf == '-');
	if (*is_negative)
		++cur_buf;
	consumed = cur_buf - buf;
	cur_len -= consumed;
	if (!cur_len)
		return -EINVAL;
	cur_len = min(cur_len, sizeof(str) - 1);
	memcpy(str, cur_buf, cur_len);
	str[cur_len] = '\0';
	cur_buf = _parse_integer_fixup_radix(str, &base);
	val_len = _parse_integer(cur_buf, base, res);
	if (val_len & KSTRTOX_OVERFLOW)
		return -ERANGE;
	if (val_len == 0)
		return -EINVAL;
	cur_buf += val_len;
	return consumed + (cur_buf - str);
}

BPF_CALL_x(bpf_strtol)
{
	s64 *res = (s64 *)r4;
	unsigned long long v;
	bool is_negative;
	int err;

	*res = 0;
	err = __bpf_strtoull((const char *)r1, r2, r3, &v, &is_negative);
	if (err < 0)
		return err;
	if (is_negative ? (long long)-v > 0 : (long long)v < 0)	/* (__bpf_strtoll()) */
		return -ERANGE;
	*res = is_negative ? -v : v;
	return err;
}
const struct bpf_func_proto bpf_strtol_proto = {
	.func = bpf_strtol,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING, ARG_PTR_TO_LONG },
};

BPF_CALL_x(bpf_strtoul)
{
	u64 *res = (u64 *)r4;
	unsigned long long v;
	bool is_negative;
	int err;

	*res = 0;
	err = __bpf_strtoull((const char *)r1, r2, r3, &v, &is_negative);
	if (err < 0)
		return err;
	if (is_negative)
		return -EINVAL;
	*res = v;
	return err;
}
const struct bpf_func_proto bpf_strtoul_proto = {
	.func = bpf_strtoul,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING, ARG_PTR_TO_LONG },
};

/* s1 (s1_sz bytes at most) against s2, a constant string the verifier saw terminated */
BPF_CALL_x(bpf_strncmp)
{
	return strncmp((const char *)r1, (const char *)r3, (u32)r2);
}
const struct bpf_func_proto bpf_strncmp_proto = {
	.func = bpf_strncmp,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_PTR_TO_CONST_STR },
};

const struct bpf_func_proto *bpf_base_func_proto(int func_id)
{
	switch (func_id) {
	case BPF_FUNC_map_lookup_elem:
		return &bpf_map_lookup_elem_proto;
	case BPF_FUNC_map_update_elem:
		return &bpf_map_update_elem_proto;
	case BPF_FUNC_map_delete_elem:
		return &bpf_map_delete_elem_proto;
	case BPF_FUNC_map_push_elem:
		return &bpf_map_push_elem_proto;
	case BPF_FUNC_map_pop_elem:
		return &bpf_map_pop_elem_proto;
	case BPF_FUNC_map_peek_elem:
		return &bpf_map_peek_elem_proto;
	case BPF_FUNC_strncmp:
		return &bpf_strncmp_proto;
	case BPF_FUNC_strtol:
		return &bpf_strtol_proto;
	case BPF_FUNC_strtoul:
		return &bpf_strtoul_proto;
	case BPF_FUNC_get_prandom_u32:
		return &bpf_get_prandom_u32_proto;
	case BPF_FUNC_map_lookup_percpu_elem:
		return &bpf_map_lookup_percpu_elem_proto;
	case BPF_FUNC_get_smp_processor_id:
		return &bpf_get_smp_processor_id_proto;
	case BPF_FUNC_get_numa_node_id:
		return &bpf_get_numa_node_id_proto;
	case BPF_FUNC_ktime_get_ns:
		return &bpf_ktime_get_ns_proto;
	case BPF_FUNC_ktime_get_boot_ns:
		return &bpf_ktime_get_boot_ns_proto;
	case BPF_FUNC_ktime_get_tai_ns:
		return &bpf_ktime_get_tai_ns_proto;
	case BPF_FUNC_ringbuf_output:
		return &bpf_ringbuf_output_proto;
	case BPF_FUNC_ringbuf_reserve:
		return &bpf_ringbuf_reserve_proto;
	case BPF_FUNC_ringbuf_submit:
		return &bpf_ringbuf_submit_proto;
	case BPF_FUNC_ringbuf_discard:
		return &bpf_ringbuf_discard_proto;
	case BPF_FUNC_ringbuf_query:
		return &bpf_ringbuf_query_proto;
	}
	if (!capable(CAP_BPF) && !capable(CAP_SYS_ADMIN))	/* (bpf_capable()) */
		return NULL;
	switch (func_id) {
	case BPF_FUNC_jiffies64:
		return &bpf_jiffies64_proto;
	case BPF_FUNC_loop:
		return &bpf_loop_proto;
	case BPF_FUNC_for_each_map_elem:
		return &bpf_for_each_map_elem_proto;
	case BPF_FUNC_tail_call:
		return &bpf_tail_call_proto;
	}
	if (!perfmon_capable())
		return NULL;
	switch (func_id) {
	case BPF_FUNC_snprintf:
		return &bpf_snprintf_proto;
	}
	return NULL;
}

