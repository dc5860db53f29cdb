/*
 * Uprobes as perf event sources (the uprobe PMU of kernel/events/core.c, perf_uprobe_init() of
 * trace_event_perf.c, the local trace_uprobes of trace_uprobe.c): a perf event whose attr.type
 * is the uprobe PMU's is a consumer of its own on the file's inode+offset, which no
 * uprobe_events lists.  The uprobe engine is the host's, so the kernel asks it to register the
 * consumer (and to unregister it when the event goes) with a request of the kprobe PMU's kind
 * (trace/kprobe_perf.h); the consumer's hits run in the guest's handler chain
 * (kernel/events/uprobes.c), which calls uprobe_perf_func(): the BPF programs of its perf
 * events, then its perf events' records.
 */
#ifndef _TRACE_UPROBE_PERF_H
#define _TRACE_UPROBE_PERF_H
#include "kprobe_perf.h"

#define PERF_TYPE_UPROBE	7	/* perf_pmu_register(&perf_uprobe, "uprobe", -1): the next
					 * dynamic type after the kprobe PMU's, as on the reference 6.1 */
#define UPROBE_PERF_MAX		64	/* local trace_uprobes at a time */
/* uprobe_point.entry_probe[]/ret_probe[]: a perf consumer, its slot in uprobe_perf_calls[] below */
#define UPROBE_PERF_CONSUMER	0x80000000u

/* the perf call of each local trace_uprobe (its `probe` the slot; NULL: a free slot) */
extern struct kprobe_perf_call *uprobe_perf_calls[UPROBE_PERF_MAX];

struct pt_regs;
/* uprobe_perf_func()/uretprobe_perf_func(): the hit of consumer `slot` (func the probed address) */
void uprobe_perf_func(u32 slot, struct pt_regs *regs, u64 func, bool is_ret);
/* create_local_trace_uprobe()/destroy_local_trace_uprobe() */
struct kprobe_perf_call *create_local_trace_uprobe(const char *name, u64 offs, u64 ref_ctr_offset, bool is_return);
void destroy_local_trace_uprobe(struct kprobe_perf_call *call);
/* kernel/trace_event_perf.c */
int perf_uprobe_init(struct perf_event *event, u64 ref_ctr_offset, bool is_retprobe);
void perf_uprobe_destroy(struct perf_event *event);
#endif
