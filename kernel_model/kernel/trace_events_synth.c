/*
 * Synthetic events (kernel/trace/trace_events_synth.c): trace_synth() and
 * trace_event_raw_event_synth(), writing a synthetic event's record with
 * the values a histogram's action passes (include/trace/synth.h).
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/trace_pid.h"
#include "../include/trace/trigger.h"
#include "../include/trace/synth.h"
#include "../include/trace/probe_stage.h"
#include "../include/maccess.h"

struct synth_event synth_events[SYNTH_EVENTS_MAX];

#define SYNTH_STACK_DEPTH 16	/* HIST_STACKTRACE_DEPTH */
#define FAULT_STRING "(fault)"

/* trace_string()'s read: a user address from user memory, else the kernel's; the length with
 * the NUL, or -errno */
static notrace long synth_fetch_string(char *dst, u64 addr, long count)
{
	if (addr < TASK_SIZE_MAX)
		return strncpy_from_user_nofault(dst, (const void *)addr, count);
	return strncpy_from_kernel_nofault(dst, (const void *)addr, count);
}

/* kern_fetch_store_strlen(): the string's length with its NUL (1 for a fault: "" is stored) */
static notrace u32 synth_strlen(u64 addr)
{
	static char scratch[NR_CPUS][STR_VAR_LEN_MAX];
	long n = synth_fetch_string(scratch[this_cpu()->h.cpu], addr, STR_VAR_LEN_MAX);

	return n < 0 ? 1 : n;
}

static notrace void trace_event_raw_event_synth(struct synth_event *event, const u64 *var_ref_vals,
						const unsigned int *var_ref_idx, unsigned long irqflags)
{
	struct percpu *pc = this_cpu();
	const struct trace_event_file *file = &event->file;
	u64 slots = dyn_file_slots(READ_ONCE(file->slots), file->type), triggers = READ_ONCE(file->triggers);
	u32 i, n_u64, n_fields = READ_ONCE(event->n_fields), len, data_size = 0;
	u32 fields_size = event->n_u64 * 8;
	struct trace_entry *entry;
	u64 *fields;

	if (n_fields > SYNTH_FIELDS_MAX)
		return;
	for (i = 0; i < n_fields; i++)
		if (event->kind[i] == SYNTH_FIELD_DYN_STRING)
			fields_size += synth_strlen(var_ref_vals[var_ref_idx[i]]);
		else if (event->kind[i] == SYNTH_FIELD_STACK)
			fields_size += SYNTH_STACK_DEPTH * 8;
	/* the record in the scratch: the triggers need it whole, and its size is known once the
	 * strings are read */
	entry = event_trigger_scratch(sizeof(*entry) + fields_size);
	if (!entry)
		return;
	tracing_generic_entry_update(entry, file, irqflags);
	fields = (u64 *)(entry + 1);
	for (i = 0, n_u64 = 0; i < n_fields; i++) {
		u64 val = var_ref_vals[var_ref_idx[i]];
		u32 offset = sizeof(*entry) + event->n_u64 * 8 + data_size;

		switch (event->kind[i]) {
		case SYNTH_FIELD_STRING:
			if (synth_fetch_string((char *)&fields[n_u64], val, STR_VAR_LEN_MAX) < 0)
				memcpy(&fields[n_u64], FAULT_STRING, sizeof(FAULT_STRING));
			n_u64 += STR_VAR_LEN_MAX / 8;
			break;
		case SYNTH_FIELD_DYN_STRING:	/* trace_string(): the data after the fixed part */
			len = synth_strlen(val);
			if (synth_fetch_string((char *)entry + offset, val, len) < 0)
				*((char *)entry + offset) = 0;
			*(u32 *)&fields[n_u64++] = offset | len << 16;
			data_size += len;
			break;
		case SYNTH_FIELD_STACK: {	/* trace_stack(): up to the first 0, which is kept */
			const unsigned long *stack = (const unsigned long *)val;

			for (len = 0; len < SYNTH_STACK_DEPTH && stack && stack[len]; len++)
				((u64 *)((char *)entry + offset))[len] = stack[len];
			if (len < SYNTH_STACK_DEPTH)
				((u64 *)((char *)entry + offset))[len++] = 0;
			len *= 8;
			*(u32 *)&fields[n_u64++] = offset | len << 16;
			data_size += len;
			break;
		}
		default:
			switch (event->size[i]) {
			case 1: *(u8 *)&fields[n_u64] = val; break;
			case 2: *(u16 *)&fields[n_u64] = val; break;
			case 4: *(u32 *)&fields[n_u64] = val; break;
			default: fields[n_u64] = val; break;
			}
			n_u64++;
		}
	}
	len = sizeof(*entry) + event->n_u64 * 8 + data_size;
	if (unlikely(triggers)) {
		event_triggers_record(file, entry, len, trace_pid_filter_word0(pc, ~0ULL), NULL, irqflags,
				      (unsigned long)trace_synth, (unsigned long)__builtin_frame_address(0), (unsigned long)__builtin_frame_address(0));
	} else {
		const u64 *ext = trace_event_file_ext(file);	/* its slots past word 0 */
		u64 pid_ext[TRACE_EXT_WORDS];
		void *dst;

		slots = trace_pid_filter_event(pc, slots, &ext, pid_ext) & trace_control.recording &
			trace_control.cpu_slots[pc->h.cpu];
		if (!slots)
			return;
		dst = trace_event_buffer_reserve_ext(slots, ext, len, trace_clock_read(pc));
		if (dst) {
			memcpy(dst, entry, len);
			trace_event_commit(dst, len);
			if (unlikely(slots & trace_stack_opt_slots()))
				trace_event_opt_stacks(slots, ext, entry, (unsigned long)trace_event_raw_event_synth,
						       (unsigned long)__builtin_frame_address(0));
		}
	}
}

notrace void trace_synth(struct synth_event *event, const u64 *var_ref_vals, const unsigned int *var_ref_idx)
{
	unsigned long irqflags;

	if (!READ_ONCE(event->file.slots))	/* neither enabled nor triggered anywhere */
		return;
	preempt_disable();
	preempt_disable();	/* ring_buffer_nest_start(): 6.1's record shows one level more */
	irqflags = arch_local_irq_save();
	trace_event_raw_event_synth(event, var_ref_vals, var_ref_idx, irqflags);
	trace_irq_restore(irqflags);
	preempt_enable_no_resched();
	preempt_enable_no_resched();
}
