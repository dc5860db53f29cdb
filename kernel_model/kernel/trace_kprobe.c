/*
 * Local trace_kprobes (kernel/trace/trace_kprobe.c of Linux 6.1: create_local_trace_kprobe(),
 * kprobe_perf_func(), kretprobe_perf_func()): the probes the kprobe PMU's perf events make, which
 * no kprobe_events lists.  The probe engine is the host's: registering and unregistering are
 * requests it answers (trace/kprobe_perf.h); a hit is the guest's kprobe handlers'
 * (kernel/trace_probe.c), which call kprobe_perf_func() for a probe with a perf call.
 */
#include "../include/perf_event.h"
#include "../include/bpf.h"
#include "../include/wait.h"
#include "../include/mutex.h"
#include "../include/trace/kprobe_perf.h"

struct kprobe_perf_call *kprobe_perf_calls[KG_MAX_PROBES];

static DEFINE_MUTEX(kprobe_host_mutex);	/* one request at a time */
static struct kprobe_host_req kprobe_host_req;
static struct wait_queue_head kprobe_host_wq;
static bool kprobe_host_wq_ready;

/* The host answered: the requester wakes (sysvec_call_function). */
void kprobe_host_interrupt(void)
{
	if (READ_ONCE(kprobe_host_wq_ready) && READ_ONCE(kprobe_host_req.done))
		wake_up(&kprobe_host_wq);
}

/* Post the request (filled by the caller, kprobe_host_mutex held) and sleep until the host
 * answered it: registering arms text, which the host does with every cpu stopped. */
static int kprobe_host_call(void)
{
	struct kprobe_host_req *req = &kprobe_host_req;

	if (!kprobe_host_wq_ready) {
		init_waitqueue_head(&kprobe_host_wq);
		WRITE_ONCE(kprobe_host_wq_ready, true);
	}
	req->result = -ENOSYS;
	WRITE_ONCE(req->done, 0);
	host_kprobe_request(req);
	wait_event(kprobe_host_wq, READ_ONCE(req->done));
	return req->result;
}

/* create_local_trace_kprobe(): func (NULL: at addr) + offs; the host checks the name (ENOENT:
 * none, EADDRNOTAVAIL: more than one), the notrace function (EINVAL) and what
 * register_kprobe()/register_kretprobe() check, and arms the probe (enabled: its perf event
 * is its only user) */
struct kprobe_perf_call *create_local_trace_kprobe(const char *func, u64 addr, u64 offs, bool is_return)
{
	struct kprobe_perf_call *call = kzalloc(sizeof(*call), GFP_KERNEL);
	struct list_head *lists = kmalloc(sizeof(*lists) * NR_CPUS, GFP_KERNEL);
	struct kprobe_host_req *req = &kprobe_host_req;
	int ret, cpu;

	if (!call || !lists) {
		kfree(call);
		kfree(lists);
		return ERR_PTR(-ENOMEM);
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		INIT_LIST_HEAD(&lists[cpu]);
	call->perf_events = lists;
	call->is_return = is_return;
	call->refcount = 1;
	mutex_lock(&kprobe_host_mutex);
	memset(req, 0, sizeof(*req));
	req->op = KPROBE_REQ_REGISTER;
	req->is_return = is_return;
	if (func) {
		memcpy(req->func, func, strlen(func) + 1);	/* shorter than KSYM_NAME_LEN */
		req->offset = offs;
	} else {
		req->addr = addr;
	}
	ret = kprobe_host_call();
	if (ret >= 0 && ret < KG_MAX_PROBES) {
		call->probe = ret;
		/* its hits run the call from now on */
		__atomic_store_n(&kprobe_perf_calls[ret], call, __ATOMIC_RELEASE);
	}
	mutex_unlock(&kprobe_host_mutex);
	if (ret < 0 || ret >= KG_MAX_PROBES) {
		kfree(lists);
		kfree(call);
		return ERR_PTR(ret < 0 ? ret : -EINVAL);
	}
	return call;
}

static void kprobe_perf_call_free_rcu(struct rcu_head *rcu);

struct kprobe_perf_call_rcu {
	struct rcu_head rcu;
	struct kprobe_perf_call *call;
};

/* destroy_local_trace_kprobe(): the probe leaves its point (the host disarms it) and its call
 * goes once no cpu may be running it */
void destroy_local_trace_kprobe(struct kprobe_perf_call *call)
{
	struct kprobe_host_req *req = &kprobe_host_req;
	struct kprobe_perf_call_rcu *r;

	if (--call->refcount)
		return;
	mutex_lock(&kprobe_host_mutex);
	__atomic_store_n(&kprobe_perf_calls[call->probe], NULL, __ATOMIC_RELEASE);
	memset(req, 0, sizeof(*req));
	req->op = KPROBE_REQ_UNREGISTER;
	req->probe = call->probe;
	kprobe_host_call();
	mutex_unlock(&kprobe_host_mutex);
	r = kmalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return;		/* no memory for the callback: leak it, never free a running call */
	r->call = call;
	call_rcu(&r->rcu, kprobe_perf_call_free_rcu);
}

static void kprobe_perf_call_free_rcu(struct rcu_head *rcu)
{
	struct kprobe_perf_call_rcu *r = container_of(rcu, struct kprobe_perf_call_rcu, rcu);

	kfree(r->call->perf_events);
	kfree(r->call);
	kfree(r);
}

/* struct kprobe_trace_entry_head / kretprobe_trace_entry_head (no arguments: a local probe
 * has none) */
struct kprobe_perf_entry {
	struct trace_entry ent;
	u64 ip;			/* kretprobe: the function */
	u64 ret_ip;		/* kretprobe only */
};

/*
 * kprobe_perf_func()/kretprobe_perf_func(): the BPF programs on the probed registers (none
 * while another runs on this cpu: trace_call_bpf()), then, unless one said 0, a record for
 * each perf event active on this cpu.  The event type of a local probe is 0 (its call is
 * never registered as a trace event).
 */
notrace void kprobe_perf_func(struct kprobe_perf_call *call, u64 func, u64 ret_ip, struct pt_regs *regs)
{
	struct bpf_prog_array *progs = __atomic_load_n(&call->prog_array, __ATOMIC_ACQUIRE);
	struct list_head *head;
	struct kprobe_perf_entry *entry;
	int size, rctx;

	if (progs && !trace_call_bpf(progs, regs))
		return;
	head = &call->perf_events[smp_processor_id()];
	if (list_empty(head))
		return;
	size = perf_trace_entry_size(call->is_return ? sizeof(*entry) : offsetof(struct kprobe_perf_entry, ret_ip));
	entry = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!entry)
		return;
	entry->ip = func;
	if (call->is_return)
		entry->ret_ip = ret_ip;
	perf_trace_buf_submit(entry, size, rctx, 0, 1, regs, head, NULL);
}
