/*
 * The perf half of trace_kprobes (kernel/trace/trace_kprobe.c of Linux 6.1: create_local_trace_kprobe(),
 * kprobe_perf_func(), kretprobe_perf_func(), kprobe_register()'s perf half): the probes the
 * kprobe PMU's perf events make, which no kprobe_events lists, and the kprobe events of
 * kprobe_events opened as tracepoint perf events.  The probe engine is the host's: registering,
 * unregistering and arming for perf are requests it answers (trace/kprobe_perf.h); a hit is the
 * guest's kprobe handlers' (kernel/trace_probe.c), which call kprobe_perf_func() for a probe
 * with a perf call.
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

/* The ftrace site at site calls tramp (0: what the function tracers want of it again), as
 * register_ftrace_direct()/unregister_ftrace_direct() of 6.1; the host patches it (and drops every
 * cpu's translations of the size bytes of code at tramp, which the kernel has just written, and
 * which it names as kallsyms would: bpf_trampoline_<key>) */
int ftrace_set_direct(unsigned long site, unsigned long tramp, u32 size, const char *name)
{
	struct kprobe_host_req *req = &kprobe_host_req;
	int ret;

	mutex_lock(&kprobe_host_mutex);
	memset(req, 0, sizeof(*req));
	req->op = KPROBE_REQ_DIRECT;
	req->addr = site;
	req->offset = tramp;
	req->is_return = size;
	if (name)
		strscpy_pad(req->func, name, sizeof(req->func));
	ret = kprobe_host_call();
	mutex_unlock(&kprobe_host_mutex);
	return ret;
}

int kprobe_host_request(void (*fill)(struct kprobe_host_req *req, const void *arg), const void *arg)
{
	int ret;

	mutex_lock(&kprobe_host_mutex);
	memset(&kprobe_host_req, 0, sizeof(kprobe_host_req));
	fill(&kprobe_host_req, arg);
	ret = kprobe_host_call();
	mutex_unlock(&kprobe_host_mutex);
	return ret;
}

static void kprobe_perf_call_kfree(struct kprobe_perf_call *call)
{
	kfree(call->perf_events);
	kfree(call->probes);
	kfree(call->meta.fields);
	kfree(call->fields_text);
	kfree(call);
}

/* A kprobe event's fields (what filters name) from the host's lines
 * "type\tname\toffset\tsize\tsigned\n"; -ENOMEM, -EINVAL: a line not so */
static int kprobe_event_fields(struct kprobe_perf_call *call, const char *text)
{
	size_t len = strlen(text), i;
	struct trace_field_meta *fields;
	u32 n = 0, f;
	char *t, *word[5];

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	t = kmalloc(len + 1, GFP_KERNEL);
	fields = kzalloc(sizeof(*fields) * (n ? n : 1), GFP_KERNEL);
	if (!t || !fields) {
		kfree(t);
		kfree(fields);
		return -ENOMEM;
	}
	memcpy(t, text, len + 1);
	call->fields_text = t;
	call->meta.fields = fields;
	for (f = 0; f < n; f++) {
		u32 num[3] = { 0, 0, 0 }, w;

		for (w = 0; w < 5; w++) {
			word[w] = t;
			while (*t && *t != '\t' && *t != '\n')
				t++;
			if (!*t || (*t == '\n') != (w == 4))
				return -EINVAL;
			*t++ = 0;
		}
		for (w = 0; w < 3; w++)
			for (i = 0; word[w + 2][i]; i++)
				num[w] = num[w] * 10 + (word[w + 2][i] - '0');
		fields[f] = (struct trace_field_meta){ word[0], word[1], num[0], num[1], num[2], 0 };
	}
	call->meta.nr_fields = n;
	call->meta.syscall_nr = -1;
	return 0;
}

/* A call with its per-cpu lists (a kprobe event's: room for its probes' indexes); NULL: no
 * memory */
struct kprobe_perf_call *kprobe_perf_call_alloc(bool event)
{
	struct kprobe_perf_call *call = kzalloc(sizeof(*call), GFP_KERNEL);
	int cpu;

	if (!call)
		return NULL;
	call->perf_events = kmalloc(sizeof(*call->perf_events) * NR_CPUS, GFP_KERNEL);
	if (event)
		call->probes = kmalloc(sizeof(u32) * KPROBE_EVENT_MAX_PROBES, GFP_KERNEL);
	if (!call->perf_events || (event && !call->probes)) {
		kprobe_perf_call_kfree(call);
		return NULL;
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		INIT_LIST_HEAD(&call->perf_events[cpu]);
	call->refcount = 1;
	return call;
}

/* A request of op on probe (a probe's index, or an event's id), kprobe_host_mutex held */
static int kprobe_host_op(u32 op, u32 probe)
{
	memset(&kprobe_host_req, 0, sizeof(kprobe_host_req));
	kprobe_host_req.op = op;
	kprobe_host_req.probe = probe;
	return kprobe_host_call();
}

/* create_local_trace_kprobe(): func (NULL: at addr) + offs; the host checks the name (ENOENT:
 * none, EADDRNOTAVAIL: more than one), the notrace function (EINVAL) and what
 * register_kprobe()/register_kretprobe() check, and arms the probe (enabled: its perf event
 * is its only user) */
struct kprobe_perf_call *create_local_trace_kprobe(const char *func, u64 addr, u64 offs, bool is_return)
{
	struct kprobe_perf_call *call = kprobe_perf_call_alloc(false);
	struct kprobe_host_req *req = &kprobe_host_req;
	int ret;

	if (!call)
		return ERR_PTR(-ENOMEM);
	call->is_return = is_return;
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
		kprobe_perf_call_kfree(call);
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
	if (--call->refcount)
		return;
	mutex_lock(&kprobe_host_mutex);
	__atomic_store_n(&kprobe_perf_calls[call->probe], NULL, __ATOMIC_RELEASE);
	kprobe_host_op(KPROBE_REQ_UNREGISTER, call->probe);
	mutex_unlock(&kprobe_host_mutex);
	kprobe_perf_call_free(call);
}

/* a call no hit reaches any more goes once no cpu may be running it */
void kprobe_perf_call_free(struct kprobe_perf_call *call)
{
	struct kprobe_perf_call_rcu *r = kmalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return;		/* no memory for the callback: leak it, never free a running call */
	r->call = call;
	call_rcu(&r->rcu, kprobe_perf_call_free_rcu);
}

static void kprobe_perf_call_free_rcu(struct rcu_head *rcu)
{
	struct kprobe_perf_call_rcu *r = container_of(rcu, struct kprobe_perf_call_rcu, rcu);

	kprobe_perf_call_kfree(r->call);
	kfree(r);
}

/*
 * kprobe_perf_func()/kretprobe_perf_func(): the BPF programs on the probed registers (none
 * while another runs on this cpu: trace_call_bpf()), then, unless one said 0, the probe's
 * record for each perf event active on this cpu: the head (struct kprobe_trace_entry_head,
 * kretprobe_trace_entry_head) and the fetched arguments, as its event's format describes (a
 * local probe has no arguments, and its type is 0: its call is never registered as an event).
 */
notrace void kprobe_perf_func(struct kprobe_perf_call *call, struct kg_probe *kp, u64 func, u64 ret_ip, u64 ip,
			      struct pt_regs *regs)
{
	struct bpf_prog_array *progs = __atomic_load_n(&call->prog_array, __ATOMIC_ACQUIRE);
	u8 *body = kg_body[smp_processor_id()];
	struct list_head *head;
	struct trace_entry *entry;
	int len, size, rctx;

	if (progs && !trace_call_bpf(progs, regs))
		return;
	head = &call->perf_events[smp_processor_id()];
	if (list_empty(head))
		return;
	len = kg_record_body(kp, func, ret_ip, ip, regs, body);
	if (len < 0)
		return;
	size = perf_trace_entry_size(sizeof(*entry) + len);
	entry = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!entry)
		return;
	memcpy(entry + 1, body, len);
	perf_trace_buf_submit(entry, size, rctx, kp->type, 1, regs, head, NULL);
}

/* ---- kprobe events of kprobe_events as tracepoint perf sources (kprobe_register()'s
 * TRACE_REG_PERF_REGISTER/UNREGISTER): one call per event, shared by its perf events ---- */

static LIST_HEAD(kprobe_event_calls);	/* under kprobe_host_mutex */

struct kprobe_perf_call *kprobe_event_perf_get(u16 type)
{
	struct kprobe_host_req *req = &kprobe_host_req;
	struct kprobe_perf_call *call;
	int ret, i;

	mutex_lock(&kprobe_host_mutex);
	list_for_each_entry(call, &kprobe_event_calls, node) {
		if (call->type == type) {
			call->refcount++;
			mutex_unlock(&kprobe_host_mutex);
			return call;
		}
	}
	call = kprobe_perf_call_alloc(true);
	if (!call) {
		mutex_unlock(&kprobe_host_mutex);
		return ERR_PTR(-ENOMEM);
	}
	call->type = type;
	ret = kprobe_host_op(KPROBE_REQ_PERF_OPEN, type);
	if (ret > 0 && ret <= KPROBE_EVENT_MAX_PROBES) {
		kprobe_host_req.fields[KPROBE_FIELDS_LEN - 1] = 0;
		i = kprobe_event_fields(call, kprobe_host_req.fields);
		if (i < 0) {
			kprobe_host_op(KPROBE_REQ_PERF_CLOSE, type);
			ret = i;
		}
	}
	if (ret <= 0 || ret > KPROBE_EVENT_MAX_PROBES) {
		if (ret > 0)	/* armed, but more probes than an answer holds: give them back */
			kprobe_host_op(KPROBE_REQ_PERF_CLOSE, type);
		mutex_unlock(&kprobe_host_mutex);
		kprobe_perf_call_kfree(call);
		return ERR_PTR(ret < 0 ? ret : -EINVAL);
	}
	for (i = 0; i < ret; i++) {
		u32 p = ((u32 *)req->func)[i];

		if (p >= KG_MAX_PROBES)
			continue;
		call->probes[call->nr_probes++] = p;
		/* its hits run the call from now on */
		__atomic_store_n(&kprobe_perf_calls[p], call, __ATOMIC_RELEASE);
	}
	list_add(&call->node, &kprobe_event_calls);
	mutex_unlock(&kprobe_host_mutex);
	return call;
}

void kprobe_event_perf_put(struct kprobe_perf_call *call)
{
	int i;

	mutex_lock(&kprobe_host_mutex);
	if (--call->refcount) {
		mutex_unlock(&kprobe_host_mutex);
		return;
	}
	list_del_init(&call->node);
	for (i = 0; i < call->nr_probes; i++) {
		struct kprobe_perf_call *mine = call;

		/* unless the host gave the index to another probe meanwhile (a sibling removed) */
		__atomic_compare_exchange_n(&kprobe_perf_calls[call->probes[i]], &mine, NULL, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	kprobe_host_op(KPROBE_REQ_PERF_CLOSE, call->type);
	mutex_unlock(&kprobe_host_mutex);
	kprobe_perf_call_free(call);
}
