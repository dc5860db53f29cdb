/* BPF for tracing (kernel/trace/bpf_trace.c): the kprobe, tracepoint, raw tracepoint and perf_event
 * program types (their helpers and what of their context they may read), and the helpers
 * that read memory that may not be there. */
#include "../include/bpf.h"
#include "../include/trace/trace.h"
#include "../include/jump_label.h"
#include "../include/perf_event.h"
#include "../include/workqueue.h"
#include "../include/kallsyms.h"
#include "../include/trace/kprobe_perf.h"
#include "../include/trace/uprobe_perf.h"
#include "../include/signal.h"

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
/* the same task as a struct task_struct * the program may read through */
static const struct bpf_func_proto bpf_get_current_task_btf_proto = {
	.func = bpf_get_current_task,
	.gpl_only = true,
	.ret_type = RET_PTR_TO_BTF_ID,
	.ret_btf_struct = "task_struct",
};

/* bpf_get_func_ip() of a kprobe program: the probed function's address, for a probe on its
 * entry (KPROBE_FLAG_ON_FUNC_ENTRY: a kretprobe's always is), else 0 */
BPF_CALL_x(bpf_get_func_ip_kprobe)
{
	unsigned long addr = kprobe_running_ip(), size, offset;

	if (!addr || !kallsyms_lookup_size_offset(addr, &size, &offset) || offset)
		return 0;
	return addr;
}
static const struct bpf_func_proto bpf_get_func_ip_proto_kprobe = {
	.func = bpf_get_func_ip_kprobe,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX },
};

/* ---- bpf_trace_printk(): a line of the trace, as the bpf_trace:bpf_trace_printk event ---- */
#define MAX_TRACE_PRINTK_VARARGS	3
#define MAX_BPRINTF_BUF			1024
#define MAX_BPRINTF_BIN_ARGS		512

static bool printk_isprint(unsigned char c) { return c >= 0x20 && c < 0x7f; }
static bool printk_isspace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static bool printk_ispunct(unsigned char c)
{
	return printk_isprint(c) && c != ' ' && !(c >= '0' && c <= '9') && !((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* one conversion of bstr_printf(): flags, width, the digits (or the text) */
struct printk_spec {
	bool left, plus, space, zero;
	int width;
};

/* the text goes into buf, size bytes with its NUL (0: nowhere); the length counts on past it */
static u32 printk_put(char *buf, u32 size, u32 pos, char c)
{
	if (pos + 1 < size)
		buf[pos] = c;
	return pos + 1;
}

static u32 printk_field(char *buf, u32 size, u32 pos, const struct printk_spec *sp, const char *sign, const char *body,
			int len)
{
	int signlen = sign ? 1 : 0, pad = sp->width - len - signlen, i;

	if (!sp->left && !sp->zero)
		for (; pad > 0; pad--)
			pos = printk_put(buf, size, pos, ' ');
	if (sign)
		pos = printk_put(buf, size, pos, *sign);
	if (!sp->left && sp->zero)
		for (; pad > 0; pad--)
			pos = printk_put(buf, size, pos, '0');
	for (i = 0; i < len; i++)
		pos = printk_put(buf, size, pos, body[i]);
	for (; pad > 0; pad--)
		pos = printk_put(buf, size, pos, ' ');
	return pos;
}

static u32 printk_number(char *buf, u32 size, u32 pos, const struct printk_spec *sp, u64 v, bool is_signed, int base,
			 bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24], out[24];
	const char *sign = NULL;
	int n = 0, i;

	if (is_signed && (s64)v < 0) {
		sign = "-";
		v = -v;
	} else if (is_signed && sp->plus) {
		sign = "+";
	} else if (is_signed && sp->space) {
		sign = " ";
	}
	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return printk_field(buf, size, pos, sp, sign, out, n);
}

/*
 * bpf_bprintf_prepare() and bstr_printf() in one pass: the conversions 6.1 takes for
 * bpf_trace_printk() and bpf_seq_printf() (%d %i %u %x %X with l/ll, %c, %s, flags and a width,
 * %%; at most num_args of them),
 * a string read without faulting (the user's below TASK_SIZE); -EINVAL for anything else,
 * and for the %p ones, which this kernel does not format yet.  The length, as vsnprintf's.
 * args NULL: the format checked only (the verifier's, of bpf_snprintf()'s constant format).
 */
static int bpf_trace_format(char *buf, u32 size, const char *fmt, u32 fmt_size, const u64 *args, u32 num_args)
{
	u32 pos = 0, i, num_spec = 0, end;
	char str[MAX_BPRINTF_BIN_ARGS];

	for (end = 0; end < fmt_size && fmt[end]; end++)
		;
	if (end == fmt_size)
		return -EINVAL;
	for (i = 0; i < end; i++) {
		unsigned char c = fmt[i];
		struct printk_spec sp = { 0 };
		bool lng = false;
		u64 arg;

		if (c < 0x80 && !printk_isprint(c) && !printk_isspace(c))
			return -EINVAL;
		if (c != '%') {
			pos = printk_put(buf, size, pos, c);
			continue;
		}
		if (fmt[i + 1] == '%') {
			pos = printk_put(buf, size, pos, '%');
			i++;
			continue;
		}
		if (num_spec >= num_args)
			return -EINVAL;
		i++;
		if ((unsigned char)fmt[i] >= 0x80)
			return -EINVAL;
		for (;; i++) {
			if (fmt[i] == '0')
				sp.zero = true;
			else if (fmt[i] == '+')
				sp.plus = true;
			else if (fmt[i] == '-')
				sp.left = true;
			else if (fmt[i] == ' ')
				sp.space = true;
			else
				break;
		}
		while (fmt[i] >= '0' && fmt[i] <= '9')
			sp.width = sp.width * 10 + (fmt[i++] - '0');
		arg = args ? args[num_spec] : 0;
		num_spec++;
		if (fmt[i] == 'p')
			return -EINVAL;
		if (fmt[i] == 's') {
			long n;

			if (fmt[i + 1] != 0 && !printk_isspace(fmt[i + 1]) && !printk_ispunct(fmt[i + 1]))
				return -EINVAL;
			if (!args)
				continue;
			/* bpf_trace_copy_string() */
			if (arg < TASK_SIZE_MAX)
				n = strncpy_from_user_nofault(str, (const void *)arg, sizeof(str));
			else
				n = strncpy_from_kernel_nofault(str, (const void *)arg, sizeof(str));
			if (n < 0)
				n = 1, str[0] = 0;
			pos = printk_field(buf, size, pos, &sp, NULL, str, n - 1);
			continue;
		}
		if (fmt[i] == 'c') {
			char ch = (char)arg;

			pos = printk_field(buf, size, pos, &sp, NULL, &ch, 1);
			continue;
		}
		if (fmt[i] == 'l') {
			lng = true;
			i++;
		}
		if (fmt[i] == 'l')
			i++;
		switch (fmt[i]) {
		case 'd':
		case 'i':
			pos = printk_number(buf, size, pos, &sp, lng ? arg : (u64)(s64)(s32)arg, true, 10, false);
			break;
		case 'u':
			pos = printk_number(buf, size, pos, &sp, lng ? arg : (u32)arg, false, 10, false);
			break;
		case 'x':
		case 'X':
			pos = printk_number(buf, size, pos, &sp, lng ? arg : (u32)arg, false, 16, fmt[i] == 'X');
			break;
		default:
			return -EINVAL;
		}
	}
	if (size)
		buf[pos < size ? pos : size - 1] = 0;
	return pos;
}

static char bpf_printk_buf[NR_CPUS][MAX_BPRINTF_BUF];
static int bpf_printk_busy[NR_CPUS];

/* try_get_buffers(): this cpu's formatting buffers, -EBUSY while a program on it (one an NMI
 * interrupted) has them; bpf_put_buffers() gives them back */
static notrace int try_get_buffers(void)
{
	unsigned long flags = arch_local_irq_save();
	int cpu = smp_processor_id(), err = 0;

	if (bpf_printk_busy[cpu])
		err = -EBUSY;
	else
		bpf_printk_busy[cpu] = 1;
	arch_local_irq_restore(flags);
	return err;
}

static notrace void bpf_put_buffers(void)
{
	bpf_printk_busy[smp_processor_id()] = 0;
}

BPF_CALL_x(bpf_trace_printk)
{
	const u64 args[MAX_TRACE_PRINTK_VARARGS] = { r3, r4, r5 };
	int cpu, ret;

	if (try_get_buffers())
		return -EBUSY;
	cpu = smp_processor_id();
	ret = bpf_trace_format(bpf_printk_buf[cpu], MAX_BPRINTF_BUF, (const char *)r1, r2, args,
			       MAX_TRACE_PRINTK_VARARGS);
	if (ret >= 0)
		trace_bpf_trace_printk(bpf_printk_buf[cpu]);
	bpf_put_buffers();
	return ret;
}
static const struct bpf_func_proto bpf_trace_printk_proto = {
	.func = bpf_trace_printk,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_MEM, ARG_CONST_SIZE },
};

/* A program that may call bpf_trace_printk() enables its event: the user loading it wants its
 * lines (each time: the user may have disabled the event since).  From a work item, as 6.1:
 * the verifier asks for the helper with locks held. */
static void __set_printk_clr_event(struct work_struct *work)
{
	if (trace_set_clr_event("bpf_trace", "bpf_trace_printk", 1))
		pr_warn("could not enable bpf_trace_printk events");
}
static DECLARE_WORK(set_printk_work, __set_printk_clr_event);

static const struct bpf_func_proto *bpf_get_trace_printk_proto(void)
{
	schedule_work(&set_printk_work);
	return &bpf_trace_printk_proto;
}

/* ---- an iterator's output: bpf_seq_printf() and bpf_seq_write() into its seq_file ---- */
#define MAX_BPRINTF_VARARGS	12

/* check_bpf_snprintf_call()'s bpf_bprintf_prepare(): whether fmt is one bpf_snprintf() takes
 * with num_args arguments (-EINVAL) */
notrace int bpf_bprintf_check(const char *fmt, u32 num_args)
{
	return bpf_trace_format(NULL, 0, fmt, U32_MAX, NULL, num_args);
}

/* bpf_snprintf() (kernel/bpf/helpers.c in 6.1, a base helper for CAP_PERFMON; its formatter is
 * here): fmt, a constant string,
 * formatted with the u64s of data into str (str_size bytes, NUL-terminated; 0: none written);
 * the length of the whole output with its NUL */
BPF_CALL_x(bpf_snprintf)
{
	const u64 *args = (const u64 *)r4;
	u32 data_len = r5;
	int ret;

	if (data_len & 7 || data_len > MAX_BPRINTF_VARARGS * 8 || (data_len && !args))
		return -EINVAL;
	if (data_len && try_get_buffers())	/* (for the arguments' copies, as 6.1) */
		return -EBUSY;
	ret = bpf_trace_format((char *)r1, r2, (const char *)r3, U32_MAX, args, data_len / 8);
	if (data_len)
		bpf_put_buffers();
	return ret < 0 ? ret : ret + 1;
}
const struct bpf_func_proto bpf_snprintf_proto = {
	.func = bpf_snprintf,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_UNINIT_MEM | ARG_MAYBE_NULL, ARG_CONST_SIZE_OR_ZERO, ARG_PTR_TO_CONST_STR,
		      ARG_PTR_TO_MEM | ARG_MAYBE_NULL, ARG_CONST_SIZE_OR_ZERO },
};

/* bpf_seq_printf(m, fmt, fmt_size, data, data_len): fmt formatted with the u64s of data, as
 * bpf_trace_printk() formats, into the seq_file's buffer (seq_bprintf()); -EOVERFLOW once it is
 * full (the read ends before this object and shows it again).  The per-cpu buffers are taken
 * as bpf_bprintf_prepare() takes them (EBUSY when a program on this cpu has them). */
BPF_CALL_x(bpf_seq_printf)
{
	struct seq_file *m = (struct seq_file *)r1;
	const u64 *args = (const u64 *)r4;
	u32 data_len = r5;
	int ret;

	if (data_len & 7 || data_len > MAX_BPRINTF_VARARGS * 8 || (data_len && !args))
		return -EINVAL;
	if (try_get_buffers())
		return -EBUSY;
	ret = bpf_trace_format(m->buf + m->count, m->size - m->count, (const char *)r2, r3, args, data_len / 8);
	if (ret >= 0) {
		if (m->count + ret < m->size)
			m->count += ret;
		else
			m->count = m->size;	/* (seq_set_overflow()) */
	}
	bpf_put_buffers();
	if (ret < 0)
		return ret;
	return seq_has_overflowed(m) ? -EOVERFLOW : 0;
}
static const struct bpf_func_proto bpf_seq_printf_proto = {
	.func = bpf_seq_printf,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_BTF_ID, ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_PTR_TO_MEM | ARG_MAYBE_NULL,
		      ARG_CONST_SIZE_OR_ZERO },
	.arg_btf_struct = "seq_file",
};

BPF_CALL_x(bpf_seq_write)
{
	struct seq_file *m = (struct seq_file *)r1;

	seq_write(m, (const void *)r2, (u32)r3);
	return seq_has_overflowed(m) ? -EOVERFLOW : 0;
}
static const struct bpf_func_proto bpf_seq_write_proto = {
	.func = bpf_seq_write,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_BTF_ID, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO },
	.arg_btf_struct = "seq_file",
};

/* ---- bpf_perf_event_output(): a record of the program's data in a BPF_OUTPUT perf event ---- */
static long bpf_perf_event_output_regs(struct pt_regs *regs, struct bpf_map *map, u64 flags, void *data, u64 size)
{
	struct perf_raw_record raw = { .size = size, .data = data };
	u64 index = flags & BPF_F_INDEX_MASK;
	struct bpf_event_entry **slot;

	if (unlikely(flags & ~BPF_F_INDEX_MASK))
		return -EINVAL;
	if (index == BPF_F_CURRENT_CPU)
		index = smp_processor_id();
	slot = bpf_perf_event_array_slot(map, index);
	if (unlikely(!slot))
		return -E2BIG;
	return perf_event_array_output(slot, &raw, regs);
}

/* a kprobe program's context is the probed registers */
BPF_CALL_x(bpf_perf_event_output)
{
	return bpf_perf_event_output_regs((struct pt_regs *)r1, (struct bpf_map *)r2, r3, (void *)r4, r5);
}
static const struct bpf_func_proto bpf_perf_event_output_proto = {
	.func = bpf_perf_event_output,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO },
};

/* a tracepoint program's context starts with the pointer to the event's registers */
BPF_CALL_x(bpf_perf_event_output_tp)
{
	return bpf_perf_event_output_regs(*(struct pt_regs **)r1, (struct bpf_map *)r2, r3, (void *)r4, r5);
}
static const struct bpf_func_proto bpf_perf_event_output_proto_tp = {
	.func = bpf_perf_event_output_tp,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO },
};

/* a raw tracepoint program has no registers: the helper's caller's (bpf_get_raw_tp_regs()) */
static struct pt_regs bpf_raw_tp_regs[NR_CPUS];
BPF_CALL_x(bpf_perf_event_output_raw_tp)
{
	struct pt_regs *regs = &bpf_raw_tp_regs[smp_processor_id()];

	perf_fetch_caller_regs(regs);
	return bpf_perf_event_output_regs(regs, (struct bpf_map *)r2, r3, (void *)r4, r5);
}
static const struct bpf_func_proto bpf_perf_event_output_proto_raw_tp = {
	.func = bpf_perf_event_output_raw_tp,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO },
};

/* ---- bpf_get_stackid(): kernel/bpf/stackmap.c's on the registers; a tracepoint's ---- */
/* a tracepoint's and a perf event's context start with the registers' pointer */
BPF_CALL_x(bpf_get_stackid_tp)
{
	return bpf_get_stackid_regs(*(struct pt_regs **)r1, (struct bpf_map *)r2, r3);
}
static const struct bpf_func_proto bpf_get_stackid_proto_tp = {
	.func = bpf_get_stackid_tp,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
};

BPF_CALL_x(bpf_get_stackid_raw_tp)	/* the helper's caller's registers */
{
	struct pt_regs *regs = &bpf_raw_tp_regs[smp_processor_id()];

	perf_fetch_caller_regs(regs);
	return bpf_get_stackid_regs(regs, (struct bpf_map *)r2, r3);
}
static const struct bpf_func_proto bpf_get_stackid_proto_raw_tp = {
	.func = bpf_get_stackid_raw_tp,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
};

/* ---- bpf_get_stack(): kernel/bpf/stackmap.c's, on a tracepoint's registers, a raw one's caller's ---- */
BPF_CALL_x(bpf_get_stack_tp)
{
	return bpf_get_stack_regs(*(struct pt_regs **)r1, (void *)r2, r3, r4);
}
static const struct bpf_func_proto bpf_get_stack_proto_tp = {
	.func = bpf_get_stack_tp,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

BPF_CALL_x(bpf_get_stack_raw_tp)
{
	struct pt_regs *regs = &bpf_raw_tp_regs[smp_processor_id()];

	perf_fetch_caller_regs(regs);
	return bpf_get_stack_regs(regs, (void *)r2, r3, r4);
}
static const struct bpf_func_proto bpf_get_stack_proto_raw_tp = {
	.func = bpf_get_stack_raw_tp,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

/* bpf_current_task_under_cgroup(cgroup array, index): whether the task is in the slot's cgroup;
 * -EAGAIN for an empty slot, which every slot is here (a cgroup array holds none: arraymap.c) */
BPF_CALL_x(bpf_current_task_under_cgroup)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	if (unlikely((u32)r2 >= map->max_entries))
		return -E2BIG;
	return -EAGAIN;
}
static const struct bpf_func_proto bpf_current_task_under_cgroup_proto = {
	.func = bpf_current_task_under_cgroup,
	.gpl_only = false,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_ANYTHING },
};

/*
 * bpf_send_signal(sig), bpf_send_signal_thread(sig): the signal for the current task's process
 * (or the thread alone), as the kernel's (SEND_SIG_PRIV): 6.1's bpf_send_signal_common().  Not
 * for a kernel thread, an exiting task, or init (-EPERM).  A program run with preemption or
 * interrupts off (a probe's or a tracepoint's, as in 6.1) leaves it to an irq_work: the signal
 * is checked now, sent at this cpu's next tick (the irq_work of 6.1 runs when interrupts are
 * back on), one at a time a cpu (-EBUSY).  A session task's signal reaches its host process.
 */
struct send_signal_irq_work {
	pid_t pid;	/* the task (no usage count here: looked up again when it runs) */
	u32 sig;
	bool group;
	bool busy;
};
static struct send_signal_irq_work send_signal_work[NR_CPUS];

static int bpf_send_signal_now(u32 sig, struct task_struct *task, bool group)
{
	struct sigqueue_info info = { .code = SI_KERNEL, .to_host = true };

	return group_send_sig_info(sig, &info, task, group);
}

notrace bool bpf_send_signal_pending(void)
{
	return READ_ONCE(send_signal_work[smp_processor_id()].busy);
}

/* do_bpf_send_signal(): from the tick */
noinline void bpf_send_signal_work_func(void)
{
	struct send_signal_irq_work *work = &send_signal_work[smp_processor_id()];
	struct task_struct *task;
	unsigned long flags;

	if (!READ_ONCE(work->busy))
		return;
	spin_lock_irqsave(&sched_lock, flags);
	task = find_task_by_pid(work->pid);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (task)
		bpf_send_signal_now(work->sig, task, work->group);
	WRITE_ONCE(work->busy, false);
}

static noinline int bpf_send_signal_common(u32 sig, bool group)
{
	struct send_signal_irq_work *work;

	if (unlikely(current->flags & (PF_KTHREAD | PF_EXITING)))
		return -EPERM;
	if (unlikely(is_global_init(current)))
		return -EPERM;
	if (this_cpu()->preempt_count || !(arch_local_save_flags() & X86_EFLAGS_IF)) {
		if (unlikely(!valid_signal(sig)))	/* the irq_work could not tell */
			return -EINVAL;
		work = &send_signal_work[smp_processor_id()];
		if (READ_ONCE(work->busy))
			return -EBUSY;
		work->pid = current->pid;
		work->sig = sig;
		work->group = group;
		WRITE_ONCE(work->busy, true);
		return 0;
	}
	return bpf_send_signal_now(sig, current, group);
}

BPF_CALL_x(bpf_send_signal)
{
	return bpf_send_signal_common(r1, true);
}
static const struct bpf_func_proto bpf_send_signal_proto = {
	.func = bpf_send_signal,
	.gpl_only = false,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_ANYTHING },
};

BPF_CALL_x(bpf_send_signal_thread)
{
	return bpf_send_signal_common(r1, false);
}
static const struct bpf_func_proto bpf_send_signal_thread_proto = {
	.func = bpf_send_signal_thread,
	.gpl_only = false,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_ANYTHING },
};

/* bpf_tracing_func_proto(): what every tracing program may call */
static const struct bpf_func_proto *bpf_tracing_func_proto(int func_id, const struct bpf_prog *prog)
{
	switch (func_id) {
	case BPF_FUNC_trace_printk:
		return bpf_get_trace_printk_proto();
	case BPF_FUNC_ktime_get_coarse_ns:
		return &bpf_ktime_get_coarse_ns_proto;
	case BPF_FUNC_get_current_pid_tgid:
		return &bpf_get_current_pid_tgid_proto;
	case BPF_FUNC_get_current_task:
		return &bpf_get_current_task_proto;
	case BPF_FUNC_get_current_task_btf:
		return &bpf_get_current_task_btf_proto;
	case BPF_FUNC_current_task_under_cgroup:
		return &bpf_current_task_under_cgroup_proto;
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
	case BPF_FUNC_send_signal:
		return &bpf_send_signal_proto;
	case BPF_FUNC_send_signal_thread:
		return &bpf_send_signal_thread_proto;
	case BPF_FUNC_jiffies64:	/* (the base's only with CAP_BPF) */
		return &bpf_jiffies64_proto;
	}
	/* the maps, time, the cpu, random numbers */
	return bpf_base_func_proto(func_id);
}

/* ---- BPF_PROG_TYPE_KPROBE: the context is the probed pt_regs, read only ---- */
static bool kprobe_prog_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
				                           struct bpf_insn_access_aux *info)
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

static const struct bpf_func_proto *kprobe_prog_func_proto(int func_id, const struct bpf_prog *prog)
{
	if (func_id == BPF_FUNC_get_func_ip)
		return &bpf_get_func_ip_proto_kprobe;
	if (func_id == BPF_FUNC_perf_event_output)
		return &bpf_perf_event_output_proto;
	if (func_id == BPF_FUNC_get_stackid)
		return &bpf_get_stackid_proto;
	if (func_id == BPF_FUNC_get_stack)
		return &bpf_get_stack_proto;
	return bpf_tracing_func_proto(func_id, prog);
}

const struct bpf_verifier_ops kprobe_verifier_ops = {
	.get_func_proto = kprobe_prog_func_proto,
	.is_valid_access = kprobe_prog_is_valid_access,
};
const struct bpf_prog_ops kprobe_prog_ops = { };

/* ---- BPF_PROG_TYPE_TRACEPOINT: the event's record after the pt_regs pointer ---- */
static bool tp_prog_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
				                       struct bpf_insn_access_aux *info)
{
	if (off < (int)sizeof(void *) || off >= PERF_MAX_TRACE_SIZE)
		return false;
	if (type != BPF_READ)
		return false;
	if (off % size != 0)
		return false;
	return true;
}

static const struct bpf_func_proto *tp_prog_func_proto(int func_id, const struct bpf_prog *prog)
{
	if (func_id == BPF_FUNC_perf_event_output)
		return &bpf_perf_event_output_proto_tp;
	if (func_id == BPF_FUNC_get_stackid)
		return &bpf_get_stackid_proto_tp;
	if (func_id == BPF_FUNC_get_stack)
		return &bpf_get_stack_proto_tp;
	return bpf_tracing_func_proto(func_id, prog);
}

const struct bpf_verifier_ops tracepoint_verifier_ops = {
	.get_func_proto = tp_prog_func_proto,
	.is_valid_access = tp_prog_is_valid_access,
};
const struct bpf_prog_ops tracepoint_prog_ops = { };

/* ---- BPF_PROG_TYPE_RAW_TRACEPOINT: the tracepoint's arguments, u64 each ---- */
static noinline bool raw_tp_prog_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
				                           struct bpf_insn_access_aux *info)
{
	if (off < 0 || off >= (int)(sizeof(u64) * MAX_BPF_FUNC_ARGS))
		return false;
	if (type != BPF_READ)
		return false;
	if (off % size != 0)
		return false;
	return true;
}

static const struct bpf_func_proto *raw_tp_prog_func_proto(int func_id, const struct bpf_prog *prog)
{
	if (func_id == BPF_FUNC_perf_event_output)
		return &bpf_perf_event_output_proto_raw_tp;
	if (func_id == BPF_FUNC_get_stackid)
		return &bpf_get_stackid_proto_raw_tp;
	if (func_id == BPF_FUNC_get_stack)
		return &bpf_get_stack_proto_raw_tp;
	return bpf_tracing_func_proto(func_id, prog);
}

const struct bpf_verifier_ops raw_tracepoint_verifier_ops = {
	.get_func_proto = raw_tp_prog_func_proto,
	.is_valid_access = raw_tp_prog_is_valid_access,
};
const struct bpf_prog_ops raw_tracepoint_prog_ops = {
	.test_run = bpf_prog_test_run_raw_tp,
};

/* ---- BPF_PROG_TYPE_TRACING (fentry/fexit, iterators): the function's arguments, u64 each, read
 * only, fexit's return value after them (btf_ctx_access); the raw tracepoints' helpers
 * (tracing_prog_func_proto() falls back on raw_tp_prog_func_proto()) ---- */
static bool tracing_prog_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
					 struct bpf_insn_access_aux *info)
{
	/* the raw tracepoints' u64 slots, read only, aligned; then the function's own */
	return raw_tp_prog_is_valid_access(off, size, type, prog, info) && btf_ctx_access(off, size, type, prog, info);
}

/* bpf_d_path(path, buf, sz): the path's name, as d_path() makes it, at the start of buf; its
 * length with the NUL, or d_path()'s error (ENAMETOOLONG: buf too short) */
BPF_CALL_x(bpf_d_path)
{
	char *buf = (char *)r2, *p;
	struct path copy;
	u32 sz = r3;
	long len;

	if (!sz)
		return 0;
	/* the verifier said the pointer is a struct path: checked anyway, as 6.1 does */
	len = copy_from_kernel_nofault(&copy, (const void *)r1, sizeof(copy));
	if (len < 0)
		return len;
	p = d_path(&copy, buf, sz);
	if (IS_ERR(p)) {
		len = PTR_ERR(p);
	} else {
		long i;

		len = buf + sz - p;
		for (i = 0; i < len; i++)	/* (memmove(): the name ends buf, it moves down) */
			buf[i] = p[i];
	}
	return len;
}

/* bpf_d_path_allowed(): iterators, and fentry/fexit on the functions 6.1 lists
 * (btf_allowlist_d_path), whose path is one d_path() may walk */
static bool bpf_d_path_allowed(const struct bpf_prog *prog)
{
	static const char *const allowlist[] = {
		"vfs_truncate", "vfs_fallocate", "dentry_open", "vfs_getattr", "filp_close",
	};
	u32 i;

	if (prog->expected_attach_type == BPF_TRACE_ITER)
		return true;
	for (i = 0; i < ARRAY_SIZE(allowlist); i++)
		if (prog->attach_func_name && !strcmp(prog->attach_func_name, allowlist[i]))
			return true;
	return false;
}

static const struct bpf_func_proto bpf_d_path_proto = {
	.func = bpf_d_path,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_BTF_ID, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO },
	.arg_btf_struct = "path",
	.allowed = bpf_d_path_allowed,
};

/* tracing_prog_func_proto(): an iterator's seq_file helpers, bpf_d_path, then the raw
 * tracepoints' */
static const struct bpf_func_proto *tracing_prog_func_proto(int func_id, const struct bpf_prog *prog)
{
	switch (func_id) {
	case BPF_FUNC_d_path:
		return &bpf_d_path_proto;
	case BPF_FUNC_seq_printf:
		return prog->expected_attach_type == BPF_TRACE_ITER ? &bpf_seq_printf_proto : NULL;
	case BPF_FUNC_seq_write:
		return prog->expected_attach_type == BPF_TRACE_ITER ? &bpf_seq_write_proto : NULL;
	}
	return raw_tp_prog_func_proto(func_id, prog);
}

const struct bpf_verifier_ops tracing_verifier_ops = {
	.get_func_proto = tracing_prog_func_proto,
	.is_valid_access = tracing_prog_is_valid_access,
};
const struct bpf_prog_ops tracing_prog_ops = { };

/* ---- BPF_PROG_TYPE_PERF_EVENT: a sampling event's overflow (bpf_perf_event_data) ---- */
struct bpf_perf_event_value {
	u64 counter, enabled, running;
};

BPF_CALL_x(bpf_perf_prog_read_value)
{
	struct bpf_perf_event_data_kern *ctx = (struct bpf_perf_event_data_kern *)r1;
	struct bpf_perf_event_value *buf = (struct bpf_perf_event_value *)r2;
	int err = -EINVAL;

	if (likely(r3 == sizeof(*buf))) {
		err = perf_event_read_local(ctx->event, &buf->counter, &buf->enabled, &buf->running);
		if (likely(!err))
			return 0;
	}
	memset(buf, 0, r3);
	return err;
}
static const struct bpf_func_proto bpf_perf_prog_read_value_proto = {
	.func = bpf_perf_prog_read_value,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE },
};

static const struct bpf_func_proto *pe_prog_func_proto(int func_id, const struct bpf_prog *prog)
{
	switch (func_id) {
	case BPF_FUNC_perf_event_output:	/* the context starts with the registers' pointer */
		return &bpf_perf_event_output_proto_tp;
	case BPF_FUNC_perf_prog_read_value:
		return &bpf_perf_prog_read_value_proto;
	case BPF_FUNC_get_stackid:	/* the sample's chain, or its registers */
		return &bpf_get_stackid_proto_pe;
	case BPF_FUNC_get_stack:
		return &bpf_get_stack_proto_pe;
	}
	return bpf_tracing_func_proto(func_id, prog);
}

static bool pe_prog_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
				    struct bpf_insn_access_aux *info)
{
	if (off < 0 || off >= (int)sizeof(struct bpf_perf_event_data))
		return false;
	if (type != BPF_READ)
		return false;
	if (off % size != 0)
		return false;
	switch (off) {
	case offsetof(struct bpf_perf_event_data, sample_period) ...
	     offsetof(struct bpf_perf_event_data, sample_period) + sizeof(u64) - 1:
	case offsetof(struct bpf_perf_event_data, addr) ...
	     offsetof(struct bpf_perf_event_data, addr) + sizeof(u64) - 1:
		info->ctx_field_size = sizeof(u64);
		if (!bpf_ctx_narrow_access_ok(off, size, sizeof(u64)))
			return false;
		break;
	default:	/* the registers: whole ones */
		if (size != sizeof(long))
			return false;
	}
	return true;
}

/* the program's bpf_perf_event_data, read through the kernel's bpf_perf_event_data_kern */
static u32 pe_prog_convert_ctx_access(enum bpf_access_type type, const struct bpf_insn *si,
				      struct bpf_insn *insn_buf, struct bpf_prog *prog, u32 *target_size)
{
	struct bpf_insn *insn = insn_buf;
	s16 data_off = offsetof(struct bpf_perf_event_data_kern, data), off = si->off;

	switch (si->off) {
	case offsetof(struct bpf_perf_event_data, sample_period):
	case offsetof(struct bpf_perf_event_data, addr):
		*insn++ = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = si->dst_reg,
					     .src_reg = si->src_reg, .off = data_off };
		off = si->off == offsetof(struct bpf_perf_event_data, addr) ? offsetof(struct perf_sample_data, addr)
									       : offsetof(struct perf_sample_data, period);
		*insn++ = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = si->dst_reg,
					     .src_reg = si->dst_reg, .off = off };
		*target_size = sizeof(u64);
		break;
	default:
		*insn++ = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = si->dst_reg,
					     .src_reg = si->src_reg,
					     .off = offsetof(struct bpf_perf_event_data_kern, regs) };
		*insn++ = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = si->dst_reg,
					     .src_reg = si->dst_reg, .off = off };
		break;
	}
	return insn - insn_buf;
}

const struct bpf_verifier_ops perf_event_verifier_ops = {
	.get_func_proto = pe_prog_func_proto,
	.is_valid_access = pe_prog_is_valid_access,
	.convert_ctx_access = pe_prog_convert_ctx_access,
};
const struct bpf_prog_ops perf_event_prog_ops = { };

/*
 * bpf_overflow_handler(): the event's program on the sample (perf_lock held, as the event's
 * overflow is); what it returns decides whether the sample is written (0: dropped).
 */
notrace int bpf_overflow_handler(struct perf_event *event, struct perf_sample_data *data, struct pt_regs *regs)
{
	struct bpf_perf_event_data_kern ctx = { .regs = regs, .data = data, .event = event };
	int cpu = smp_processor_id(), ret = 0;

	if (likely(++bpf_prog_active[cpu] == 1)) {
		/* its stack helpers read the sample's chain: taken now (perf_prepare_sample() keeps it) */
		if (event->prog->call_get_stack && (event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    !data->callchain)
			data->callchain = perf_callchain(event, regs);
		ret = bpf_prog_run(event->prog, &ctx);
	}
	bpf_prog_active[cpu]--;
	return ret;
}

/* ---- the programs of an attach point (kernel/bpf/core.c's bpf_prog_array) ---- */

static void bpf_prog_array_free_rcu(struct rcu_head *rcu)
{
	struct bpf_prog_array *array = container_of(rcu, struct bpf_prog_array, rcu);

	if (array->put)
		bpf_prog_put(array->put);
	kfree(array);
}

/* An array no longer published, and the reference of the program it no longer holds: once
 * every cpu that may be running them has passed a quiescent state. */
noinline void bpf_prog_array_free_put(struct bpf_prog_array *array, struct bpf_prog *put)
{
	if (!array) {
		array = kzalloc(sizeof(*array), GFP_KERNEL);
		if (!array) {
			/* no memory for the callback: leak the reference, never free a running program */
			return;
		}
	}
	array->put = put;
	call_rcu(&array->rcu, bpf_prog_array_free_rcu);
}

/* ---- raw tracepoints (include/trace/bpf_probe.h, bpf_trace_run*) ---- */

/* __bpf_trace_run(): a program that is already running on this cpu is not entered again */
static notrace void __bpf_trace_run(struct bpf_prog *prog, u64 *args)
{
	int cpu = smp_processor_id();

	if (unlikely(++prog->active[cpu] != 1))
		__atomic_add_fetch(&prog->misses, 1, __ATOMIC_RELAXED);	/* bpf_prog_inc_misses_counter() */
	else
		(void)bpf_prog_run(prog, args);
	prog->active[cpu]--;
}

/* what __bpf_trace_<event>() calls (kernel/events.c), preemption off */
notrace void bpf_trace_run(struct bpf_prog_array *progs, u64 *args)
{
	u32 i;

	for (i = 0; i < progs->cnt; i++)
		__bpf_trace_run(progs->progs[i], args);
}

extern const struct trace_event_meta __start_ftrace_events[], __stop_ftrace_events[];
static DEFINE_MUTEX(bpf_event_mutex);

/* bpf_get_raw_tracepoint(): the tracepoint of that name (the syscalls:* events have none of
 * their own: they ride on raw_syscalls' sys_enter/sys_exit) */
struct tracepoint *bpf_get_raw_tracepoint(const char *name)
{
	const struct trace_event_meta *meta;

	for (meta = __start_ftrace_events; meta < __stop_ftrace_events; meta++) {
		struct tracepoint *tp = container_of(meta->key, struct tracepoint, key);

		if (meta->syscall_nr < 0 && !strcmp(tp->name, name))
			return tp;
	}
	return NULL;
}

/* bpf_probe_register(): the program on the tracepoint, holding a reference of its own;
 * EINVAL if it reads arguments the tracepoint does not have, EEXIST if it is there already */
int bpf_probe_register(struct tracepoint *tp, struct bpf_prog *prog)
{
	struct bpf_prog_array *old, *new;
	int err;

	if (prog->max_ctx_offset > tp->num_args * sizeof(u64))
		return -EINVAL;
	mutex_lock(&bpf_event_mutex);
	old = tp->bpf_raw;
	err = bpf_prog_array_copy(old, NULL, prog, &new);
	if (!err) {
		bpf_prog_inc(prog);
		__atomic_store_n(&tp->bpf_raw, new, __ATOMIC_RELEASE);
		if (old)
			bpf_prog_array_free_put(old, NULL);
		static_key_slow_inc(&tp->kernel_key);
	}
	mutex_unlock(&bpf_event_mutex);
	return err;
}

void bpf_probe_unregister(struct tracepoint *tp, struct bpf_prog *prog)
{
	struct bpf_prog_array *old, *new;

	mutex_lock(&bpf_event_mutex);
	old = tp->bpf_raw;
	if (!bpf_prog_array_copy(old, prog, NULL, &new)) {
		__atomic_store_n(&tp->bpf_raw, new, __ATOMIC_RELEASE);
		static_key_slow_dec(&tp->kernel_key);
		bpf_prog_array_free_put(old, prog);
	}
	mutex_unlock(&bpf_event_mutex);
}

/* bpf_get_perf_event_info(): the program of a tracing perf event and what the event is: a
 * tracepoint (a syscalls: event by its event's name), or a kprobe or uprobe, its own PMU's or a
 * kprobe event's (perf_type_tracepoint) */
int bpf_get_perf_event_info(const struct perf_event *event, u32 *prog_id, u32 *fd_type, const char **buf,
			    u64 *probe_offset, u64 *probe_addr)
{
	const struct trace_event_meta *meta = event->tp_event;
	const struct bpf_prog *prog = event->prog;
	bool perf_type_tracepoint = event->attr.type == PERF_TYPE_TRACEPOINT;

	if (!prog)
		return -ENOENT;
	if (prog->type == BPF_PROG_TYPE_PERF_EVENT)	/* not supported yet (6.1) */
		return -EOPNOTSUPP;
	*prog_id = prog->id;
	if (event->kprobe_call && event->attr.type == PERF_TYPE_UPROBE) {
		*probe_addr = 0;
		return bpf_get_uprobe_info(event, fd_type, buf, probe_offset, false);
	}
	if (event->kprobe_call)
		return bpf_get_kprobe_info(event, fd_type, buf, probe_offset, probe_addr, perf_type_tracepoint);
	if (!meta)
		return -EOPNOTSUPP;
	*buf = meta->name;
	*fd_type = BPF_FD_TYPE_TRACEPOINT;
	*probe_offset = 0;
	*probe_addr = 0;
	return 0;
}
