/* BPF for tracing (kernel/trace/bpf_trace.c): the kprobe, tracepoint and raw tracepoint
 * program types (their helpers and what of their context they may read), and the helpers
 * that read memory that may not be there. */
#include "../include/bpf.h"

#define PERF_MAX_TRACE_SIZE 2048

static long bpf_probe_read_kernel_common(void *dst, u32 size, const void *unsafe_ptr)
{
	long ret = copy_from_kernel_nofault(dst, unsafe_ptr, size);

	if (unlikely(ret < 0))
		memset(dst, 0, size);
	return ret;
}

BPF_CALL_x(bpf_probe_read_kernel)
{
	return bpf_probe_read_kernel_common((void *)r1, r2, (const void *)r3);
}
static const struct bpf_func_proto bpf_probe_read_kernel_proto = {
	.func = bpf_probe_read_kernel,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

static long bpf_probe_read_kernel_str_common(void *dst, u32 size, const void *unsafe_ptr)
{
	long ret = strncpy_from_kernel_nofault(dst, unsafe_ptr, size);

	if (unlikely(ret < 0))
		memset(dst, 0, size);
	return ret;
}

BPF_CALL_x(bpf_probe_read_kernel_str)
{
	return bpf_probe_read_kernel_str_common((void *)r1, r2, (const void *)r3);
}
static const struct bpf_func_proto bpf_probe_read_kernel_str_proto = {
	.func = bpf_probe_read_kernel_str,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

BPF_CALL_x(bpf_probe_read_user)
{
	long ret = copy_from_user_nofault((void *)r1, (const void *)r3, r2);

	if (unlikely(ret < 0))
		memset((void *)r1, 0, r2);
	return ret;
}
static const struct bpf_func_proto bpf_probe_read_user_proto = {
	.func = bpf_probe_read_user,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

BPF_CALL_x(bpf_probe_read_user_str)
{
	long ret = strncpy_from_user_nofault((void *)r1, (const void *)r3, r2);

	if (unlikely(ret < 0))
		memset((void *)r1, 0, r2);
	return ret;
}
static const struct bpf_func_proto bpf_probe_read_user_str_proto = {
	.func = bpf_probe_read_user_str,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

/* bpf_probe_read(): the old helper, user or kernel by the address (x86's non-overlapping
 * address spaces) */
BPF_CALL_x(bpf_probe_read_compat)
{
	if ((u64)r3 < TASK_SIZE_MAX)
		return bpf_probe_read_user(r1, r2, r3, 0, 0);
	return bpf_probe_read_kernel_common((void *)r1, r2, (const void *)r3);
}
static const struct bpf_func_proto bpf_probe_read_compat_proto = {
	.func = bpf_probe_read_compat,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

BPF_CALL_x(bpf_probe_read_compat_str)
{
	if ((u64)r3 < TASK_SIZE_MAX)
		return bpf_probe_read_user_str(r1, r2, r3, 0, 0);
	return bpf_probe_read_kernel_str_common((void *)r1, r2, (const void *)r3);
}
static const struct bpf_func_proto bpf_probe_read_compat_str_proto = {
	.func = bpf_probe_read_compat_str,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

BPF_CALL_x(bpf_get_current_task)
{
	return (u64)current;
}
static const struct bpf_func_proto bpf_get_current_task_proto = {
	.func = bpf_get_current_task,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
};

/* bpf_tracing_func_proto(): what every tracing program may call */
static const struct bpf_func_proto *bpf_tracing_func_proto(int func_id, const struct bpf_prog *prog)
{
	switch (func_id) {
	case BPF_FUNC_ktime_get_coarse_ns:
		return &bpf_ktime_get_coarse_ns_proto;
	case BPF_FUNC_get_current_pid_tgid:
		return &bpf_get_current_pid_tgid_proto;
	case BPF_FUNC_get_current_task:
		return &bpf_get_current_task_proto;
	case BPF_FUNC_get_current_uid_gid:
		return &bpf_get_current_uid_gid_proto;
	case BPF_FUNC_get_current_comm:
		return &bpf_get_current_comm_proto;
	case BPF_FUNC_probe_read_user:
		return &bpf_probe_read_user_proto;
	case BPF_FUNC_probe_read_kernel:
		return &bpf_probe_read_kernel_proto;
	case BPF_FUNC_probe_read_user_str:
		return &bpf_probe_read_user_str_proto;
	case BPF_FUNC_probe_read_kernel_str:
		return &bpf_probe_read_kernel_str_proto;
	case BPF_FUNC_probe_read:
		return &bpf_probe_read_compat_proto;
	case BPF_FUNC_probe_read_str:
		return &bpf_probe_read_compat_str_proto;
	}
	/* the maps, time, the cpu, random numbers */
	return bpf_base_func_proto(func_id);
}

/* ---- BPF_PROG_TYPE_KPROBE: the context is the probed pt_regs, read only ---- */
static bool kprobe_prog_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog)
{
	if (off < 0 || off >= (int)sizeof(struct pt_regs))
		return false;
	if (type != BPF_READ)
		return false;
	if (off % size != 0)
		return false;
	if (off + size > (int)sizeof(struct pt_regs))
		return false;
	return true;
}

const struct bpf_verifier_ops kprobe_verifier_ops = {
	.get_func_proto = bpf_tracing_func_proto,
	.is_valid_access = kprobe_prog_is_valid_access,
};
const struct bpf_prog_ops kprobe_prog_ops = { };

/* ---- BPF_PROG_TYPE_TRACEPOINT: the event's record after the pt_regs pointer ---- */
static bool tp_prog_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog)
{
	if (off < (int)sizeof(void *) || off >= PERF_MAX_TRACE_SIZE)
		return false;
	if (type != BPF_READ)
		return false;
	if (off % size != 0)
		return false;
	return true;
}

const struct bpf_verifier_ops tracepoint_verifier_ops = {
	.get_func_proto = bpf_tracing_func_proto,
	.is_valid_access = tp_prog_is_valid_access,
};
const struct bpf_prog_ops tracepoint_prog_ops = { };

/* ---- BPF_PROG_TYPE_RAW_TRACEPOINT: the tracepoint's arguments, u64 each ---- */
static bool raw_tp_prog_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog)
{
	if (off < 0 || off >= (int)(sizeof(u64) * MAX_BPF_FUNC_ARGS))
		return false;
	if (type != BPF_READ)
		return false;
	if (off % size != 0)
		return false;
	return true;
}

const struct bpf_verifier_ops raw_tracepoint_verifier_ops = {
	.get_func_proto = bpf_tracing_func_proto,
	.is_valid_access = raw_tp_prog_is_valid_access,
};
const struct bpf_prog_ops raw_tracepoint_prog_ops = {
	.test_run = bpf_prog_test_run_raw_tp,
};
