/*
 * Kprobes as perf event sources (the kprobe PMU of kernel/events/core.c, perf_kprobe_init() of
 * trace_event_perf.c, the local trace_kprobes of trace_kprobe.c): a perf event whose attr.type is
 * the kprobe PMU's makes a probe of its own, which no kprobe_events lists.  The probe engine is
 * the host's, so the kernel asks it to register and arm the probe (and to remove it when the
 * event goes) through a request the host answers later (PORT_KPROBE); the probe's hits run in
 * the guest's kprobe handlers (kernel/trace_probe.c), which call kprobe_perf_func() for a probe
 * that has a perf call: the BPF programs of its perf events, then its perf events' records.
 */
#ifndef _TRACE_KPROBE_PERF_H
#define _TRACE_KPROBE_PERF_H
#include "../kernel.h"
#include "probe_stage.h"

#define PERF_TYPE_KPROBE	6	/* perf_pmu_register(&perf_kprobe, "kprobe", -1): the first
					 * dynamic type (PERF_TYPE_MAX), as on the reference 6.1 */
#define PERF_PROBE_CONFIG_IS_RETPROBE	(1U << 0)
#define KPROBE_FUNC_LEN		512	/* KSYM_NAME_LEN */

enum { KPROBE_REQ_REGISTER = 1, KPROBE_REQ_UNREGISTER = 2 };

/* One request to the host's probe engine; the kernel posts one at a time (kprobe_host_mutex). */
struct kprobe_host_req {
	u32 op;				/* KPROBE_REQ_* */
	u32 is_return;
	u64 addr;			/* REGISTER without a function: the address (kprobe_addr) */
	u64 offset;			/* REGISTER with a function: the offset in it (probe_offset) */
	u32 probe;			/* UNREGISTER: the probe's index in kprobe_guest.probes */
	s32 result;			/* REGISTER: the probe's index, or -errno */
	volatile u32 done;		/* the host answered */
	u32 pad;
	char func[KPROBE_FUNC_LEN];	/* REGISTER: the function's name; "": by address */
};

_Static_assert(offsetof(struct kprobe_host_req, addr) == 8, "kprobe_host_req layout");
_Static_assert(offsetof(struct kprobe_host_req, probe) == 24, "kprobe_host_req layout");
_Static_assert(offsetof(struct kprobe_host_req, func) == 40, "kprobe_host_req layout");

/* The perf half of a local trace_kprobe's trace_event_call. */
struct kprobe_perf_call {
	struct bpf_prog_array *prog_array;	/* its perf events' KPROBE programs */
	struct list_head *perf_events;		/* [NR_CPUS]: its perf events active on each cpu */
	u32 probe;				/* its probe in kprobe_guest.probes */
	u32 is_return;
	int refcount;				/* its perf event and the inherited ones */
};

/* the perf call of each probe of kprobe_guest.probes (NULL: a kprobe_events probe) */
extern struct kprobe_perf_call *kprobe_perf_calls[KG_MAX_PROBES];

struct pt_regs;
struct perf_event;
/* kprobe_perf_func()/kretprobe_perf_func(): func the probed function (a kretprobe: ret_ip
 * where it returns to) */
void kprobe_perf_func(struct kprobe_perf_call *call, u64 func, u64 ret_ip, struct pt_regs *regs);
/* create_local_trace_kprobe()/destroy_local_trace_kprobe() */
struct kprobe_perf_call *create_local_trace_kprobe(const char *func, u64 addr, u64 offs, bool is_return);
void destroy_local_trace_kprobe(struct kprobe_perf_call *call);
/* the call-function interrupt: the host answered a request */
void kprobe_host_interrupt(void);
/* kernel/trace_event_perf.c */
int perf_kprobe_init(struct perf_event *event, bool is_retprobe);
void perf_kprobe_destroy(struct perf_event *event);
#endif
