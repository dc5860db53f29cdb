/*
 * Kprobes as perf event sources (the kprobe PMU of kernel/events/core.c, perf_kprobe_init() of
 * trace_event_perf.c, the local trace_kprobes of trace_kprobe.c): a perf event whose attr.type is
 * the kprobe PMU's makes a probe of its own, which no kprobe_events lists.  The probe engine is
 * the host's, so the kernel asks it to register and arm the probe (and to remove it when the
 * event goes) through a request the host answers later (kernel_request.h); the probe's hits run in
 * the guest's kprobe handlers (kernel/trace_probe.c), which call kprobe_perf_func() for a probe
 * that has a perf call: the BPF programs of its perf events, then its perf events' records.
 */
#ifndef _TRACE_KPROBE_PERF_H
#define _TRACE_KPROBE_PERF_H
#include "../kernel.h"
#include "probe_stage.h"
#include "trace.h"
#include "../kernel_request.h"

#define PERF_TYPE_KPROBE	6	/* perf_pmu_register(&perf_kprobe, "kprobe", -1): the first
					 * dynamic type (PERF_TYPE_MAX), as on the reference 6.1 */
#define PERF_PROBE_CONFIG_IS_RETPROBE	(1U << 0)

#define KPROBE_EVENT_MAX_PROBES	(KERNEL_REQ_NAME_LEN / 4)	/* PERF_OPEN's answer, as u32s over name */

/* The perf half of a trace_kprobe's trace_event_call: a local one's (the kprobe PMU's), or a
 * kprobe event's of kprobe_events (type its id: the probes of the event share it). */
struct kprobe_perf_call {
	struct bpf_prog_array *prog_array;	/* its perf events' KPROBE programs */
	struct list_head *perf_events;		/* [NR_CPUS]: its perf events active on each cpu */
	u32 probe;				/* a local one: its probe in kprobe_guest.probes */
	u32 is_return;
	int refcount;				/* its perf events (and the inherited ones) */
	u16 type;				/* a kprobe event: its id (0: a local probe) */
	u16 nr_probes;				/* a kprobe event: its probes, */
	u32 *probes;				/* their indexes in kprobe_guest.probes */
	struct list_head node;			/* a kprobe event: on kprobe_event_calls */
	struct trace_event_meta meta;		/* a kprobe event: its fields (for filters) */
	char *fields_text;			/* the strings its fields point into */
	/* where it probes, as BPF_TASK_FD_QUERY tells (bpf_get_kprobe_info, bpf_get_uprobe_info):
	 * a kprobe's function (NULL: at addr) and offset in it, a kprobe event's first probe's;
	 * a uprobe's path as its perf event named it and offset in the file */
	char *symbol;
	u64 offset;
	u64 addr;
};

/* the perf call of each probe of kprobe_guest.probes (NULL: none) */
extern struct kprobe_perf_call *kprobe_perf_calls[KG_MAX_PROBES];

struct pt_regs;
struct perf_event;
struct kg_probe;
/* kprobe_perf_func()/kretprobe_perf_func(): kp's record (func the probed function, a
 * kretprobe's ret_ip where it returns to; ip what %ip reads) to the call's perf events */
void kprobe_perf_func(struct kprobe_perf_call *call, struct kg_probe *kp, u64 func, u64 ret_ip, u64 ip,
		      struct pt_regs *regs);
/* kernel/trace_probe.c: kp's record after the common fields, into body; its length or -1 */
int kg_record_body(struct kg_probe *kp, u64 addr, u64 ret_ip, u64 ip, struct pt_regs *regs, u8 *body);
extern u8 kg_body[NR_CPUS][PROBE_STAGE_MAX + 8];
/* a kprobe event as a tracepoint perf source: its shared call, armed for perf by the first
 * (ERR_PTR: -EINVAL when type is no kprobe event's, or one whose probes the guest does not run) */
struct kprobe_perf_call *kprobe_event_perf_get(u16 type);
void kprobe_event_perf_put(struct kprobe_perf_call *call);
/* a call with its per-cpu lists, refcount 1 (NULL: no memory); freed once no cpu runs it */
struct kprobe_perf_call *kprobe_perf_call_alloc(bool event);
void kprobe_perf_call_free(struct kprobe_perf_call *call);
/* the probed address of the kprobe whose BPF programs run on this cpu, 0 outside them */
u64 kprobe_running_ip(void);
/* create_local_trace_kprobe()/destroy_local_trace_kprobe() */
struct kprobe_perf_call *create_local_trace_kprobe(const char *func, u64 addr, u64 offs, bool is_return);
void destroy_local_trace_kprobe(struct kprobe_perf_call *call);
/* bpf_get_kprobe_info()/bpf_get_uprobe_info(): where the kprobe or uprobe of a perf event
 * (one of its PMU's, or of a kprobe event: perf_type_tracepoint) probes */
int bpf_get_kprobe_info(const struct perf_event *event, u32 *fd_type, const char **symbol, u64 *probe_offset,
			u64 *probe_addr, bool perf_type_tracepoint);
int bpf_get_uprobe_info(const struct perf_event *event, u32 *fd_type, const char **filename, u64 *probe_offset,
			bool perf_type_tracepoint);
/* kernel/trace_event_perf.c */
int perf_kprobe_init(struct perf_event *event, bool is_retprobe);
void perf_kprobe_destroy(struct perf_event *event);
#endif
