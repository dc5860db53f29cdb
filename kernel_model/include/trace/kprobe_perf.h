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
#include "trace.h"

#define PERF_TYPE_KPROBE	6	/* perf_pmu_register(&perf_kprobe, "kprobe", -1): the first
					 * dynamic type (PERF_TYPE_MAX), as on the reference 6.1 */
#define PERF_PROBE_CONFIG_IS_RETPROBE	(1U << 0)
#define KPROBE_FUNC_LEN		512	/* KSYM_NAME_LEN */

/* REGISTER/UNREGISTER: a local probe of the kprobe PMU; PERF_OPEN/PERF_CLOSE: a kprobe event of
 * kprobe_events as a tracepoint perf source (its id in probe), TRACE_REG_PERF_REGISTER/UNREGISTER:
 * the host arms its probes for perf (TP_FLAG_PROFILE) and answers how many, their indexes in
 * kprobe_guest.probes written as u32s over func; the event may not go while perf holds it */
/* DIRECT: the ftrace site at addr
 * calls the trampoline at offset (0: no longer; register_ftrace_direct()), whose is_return bytes
 * of code, named func, the kernel has just written; result 0 or -errno */
/* UPROBE_REGISTER/UPROBE_UNREGISTER: a consumer of the uprobe PMU's (trace/uprobe_perf.h) at
 * offset in the hostfs file whose host path is in fields and inode number the first u64 of func,
 * addr its reference counter's offset, probe its slot in uprobe_perf_calls[]; result 0 or -errno */
enum { KPROBE_REQ_REGISTER = 1, KPROBE_REQ_UNREGISTER = 2, KPROBE_REQ_PERF_OPEN = 3, KPROBE_REQ_PERF_CLOSE = 4,
       KPROBE_REQ_DIRECT = 6, KPROBE_REQ_UPROBE_REGISTER = 7, KPROBE_REQ_UPROBE_UNREGISTER = 8 };
#define KPROBE_EVENT_MAX_PROBES	(KPROBE_FUNC_LEN / 4)
#define KPROBE_FIELDS_LEN	4096

/* One request to the host's probe engine; the kernel posts one at a time (kprobe_host_mutex). */
struct kprobe_host_req {
	u32 op;				/* KPROBE_REQ_* */
	u32 is_return;
	u64 addr;			/* REGISTER without a function: the address (kprobe_addr) */
	u64 offset;			/* REGISTER with a function: the offset in it (probe_offset) */
	u32 probe;			/* UNREGISTER: the probe's index in kprobe_guest.probes;
					 * PERF_OPEN/CLOSE: the event's id */
	s32 result;			/* REGISTER: the probe's index, PERF_OPEN: the number of
					 * probes; or -errno */
	volatile u32 done;		/* the host answered */
	u32 pad;
	char func[KPROBE_FUNC_LEN];	/* REGISTER: the function's name; "": by address */
	char fields[KPROBE_FIELDS_LEN];	/* PERF_OPEN's answer: the event's fields after the common
					 * ones (its format file's), a line each:
					 * "type\tname\toffset\tsize\tsigned\n", NUL-terminated */
};

_Static_assert(offsetof(struct kprobe_host_req, addr) == 8, "kprobe_host_req layout");
_Static_assert(offsetof(struct kprobe_host_req, probe) == 24, "kprobe_host_req layout");
_Static_assert(offsetof(struct kprobe_host_req, func) == 40, "kprobe_host_req layout");

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
/* a request to the host's probe engines, filled by fill(req, arg) (one at a time): its result */
int kprobe_host_request(void (*fill)(struct kprobe_host_req *req, const void *arg), const void *arg);
/* create_local_trace_kprobe()/destroy_local_trace_kprobe() */
struct kprobe_perf_call *create_local_trace_kprobe(const char *func, u64 addr, u64 offs, bool is_return);
void destroy_local_trace_kprobe(struct kprobe_perf_call *call);
/* the call-function interrupt: the host answered a request */
void kprobe_host_interrupt(void);
/* kernel/trace_event_perf.c */
int perf_kprobe_init(struct perf_event *event, bool is_retprobe);
void perf_kprobe_destroy(struct perf_event *event);
#endif
