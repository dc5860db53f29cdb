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
	return (u64)task->gid << 32 | task->uid;
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

const struct bpf_func_proto *bpf_base_func_proto(int func_id)
{
	switch (func_id) {
	case BPF_FUNC_map_lookup_elem:
		return &bpf_map_lookup_elem_proto;
	case BPF_FUNC_map_update_elem:
		return &bpf_map_update_elem_proto;
	case BPF_FUNC_map_delete_elem:
		return &bpf_map_delete_elem_proto;
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
	}
	return NULL;
}

