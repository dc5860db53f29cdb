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

/* one registration or event arming at a time: an index the host answers is in kprobe_perf_calls
 * before the next request may free or reuse it; and kprobe_event_calls */
static DEFINE_MUTEX(kprobe_perf_mutex);

static void kprobe_perf_call_kfree(struct kprobe_perf_call *call)
{
	kfree(call->perf_events);
	kfree(call->probes);
	kfree(call->meta.fields);
	kfree(call->fields_text);
	kfree(call->symbol);
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

/* A request of op on probe (a probe's index, or an event's id) */
static int kprobe_host_op(u32 op, u32 probe)
{
	struct kernel_req *req = kernel_request_begin();
	int ret;

	req->op = op;
	req->probe = probe;
	ret = kernel_request_post(req);
	kernel_request_end();
	return ret;
}

/* create_local_trace_kprobe(): func (NULL: at addr) + offs; the host checks the name (ENOENT:
 * none, EADDRNOTAVAIL: more than one), the notrace function (EINVAL) and what
 * register_kprobe()/register_kretprobe() check, and arms the probe (enabled: its perf event
 * is its only user) */
struct kprobe_perf_call *create_local_trace_kprobe(const char *func, u64 addr, u64 offs, bool is_return)
{
	struct kprobe_perf_call *call = kprobe_perf_call_alloc(false);
	struct kernel_req *req;
	int ret;

	if (!call)
		return ERR_PTR(-ENOMEM);
	call->is_return = is_return;
	if (func) {
		call->symbol = kstrdup(func, GFP_KERNEL);
		call->offset = offs;
		if (!call->symbol) {
			kprobe_perf_call_kfree(call);
			return ERR_PTR(-ENOMEM);
		}
	} else {
		call->addr = addr;
	}
	mutex_lock(&kprobe_perf_mutex);
	req = kernel_request_begin();
	req->op = KERNEL_REQ_KPROBE_REGISTER;
	req->is_return = is_return;
	if (func) {
		memcpy(req->name, func, strlen(func) + 1);	/* shorter than KSYM_NAME_LEN */
		req->offset = offs;
	} else {
		req->addr = addr;
	}
	ret = kernel_request_post(req);
	kernel_request_end();
	if (ret >= 0 && ret < KG_MAX_PROBES) {
		call->probe = ret;
		/* its hits run the call from now on */
		__atomic_store_n(&kprobe_perf_calls[ret], call, __ATOMIC_RELEASE);
	}
	mutex_unlock(&kprobe_perf_mutex);
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
	mutex_lock(&kprobe_perf_mutex);
	__atomic_store_n(&kprobe_perf_calls[call->probe], NULL, __ATOMIC_RELEASE);
	kprobe_host_op(KERNEL_REQ_KPROBE_UNREGISTER, call->probe);
	mutex_unlock(&kprobe_perf_mutex);
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
/* kprobe_running()'s address while a probe's BPF programs run on this cpu (bpf_get_func_ip) */
static u64 kprobe_running_addr[NR_CPUS];

notrace u64 kprobe_running_ip(void)
{
	return kprobe_running_addr[smp_processor_id()];
}

notrace void kprobe_perf_func(struct kprobe_perf_call *call, struct kg_probe *kp, u64 func, u64 ret_ip, u64 ip,
			      struct pt_regs *regs)
{
	struct bpf_prog_array *progs = __atomic_load_n(&call->prog_array, __ATOMIC_ACQUIRE);
	int cpu = smp_processor_id();
	u8 *body = kg_body[cpu];
	struct list_head *head;
	struct trace_entry *entry;
	int len, size, rctx;
	bool keep;

	if (progs) {
		kprobe_running_addr[cpu] = func;	/* a kretprobe's: its function's */
		keep = trace_call_bpf(progs, regs);
		kprobe_running_addr[cpu] = 0;
		if (!keep)
			return;
	}
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

static LIST_HEAD(kprobe_event_calls);	/* under kprobe_perf_mutex */

struct kprobe_perf_call *kprobe_event_perf_get(u16 type)
{
	struct kprobe_perf_call *call;
	struct kernel_req *req;
	bool armed;
	int ret, i;

	mutex_lock(&kprobe_perf_mutex);
	list_for_each_entry(call, &kprobe_event_calls, node) {
		if (call->type == type) {
			call->refcount++;
			mutex_unlock(&kprobe_perf_mutex);
			return call;
		}
	}
	call = kprobe_perf_call_alloc(true);
	if (!call) {
		mutex_unlock(&kprobe_perf_mutex);
		return ERR_PTR(-ENOMEM);
	}
	call->type = type;
	req = kernel_request_begin();
	req->op = KERNEL_REQ_KPROBE_PERF_OPEN;
	req->probe = type;
	ret = kernel_request_post(req);
	armed = ret > 0;
	if (ret > 0 && ret <= KPROBE_EVENT_MAX_PROBES) {
		size_t fields_len;

		req->text[KERNEL_REQ_TEXT_LEN - 1] = 0;
		fields_len = strlen(req->text);
		i = kprobe_event_fields(call, req->text);
		/* its first probe's function (after the fields' NUL; none: at addr) and offset */
		call->is_return = req->is_return;
		call->offset = req->offset;
		call->addr = req->addr;
		if (!i && fields_len + 1 < KERNEL_REQ_TEXT_LEN && req->text[fields_len + 1]) {
			call->symbol = kstrdup(req->text + fields_len + 1, GFP_KERNEL);
			if (!call->symbol)
				i = -ENOMEM;
		}
		if (i < 0)
			ret = i;
	}
	for (i = 0; ret > 0 && ret <= KPROBE_EVENT_MAX_PROBES && i < ret; i++) {
		u32 p = ((u32 *)req->name)[i];

		if (p >= KG_MAX_PROBES)
			continue;
		call->probes[call->nr_probes++] = p;
		/* its hits run the call from now on */
		__atomic_store_n(&kprobe_perf_calls[p], call, __ATOMIC_RELEASE);
	}
	kernel_request_end();
	if (ret <= 0 || ret > KPROBE_EVENT_MAX_PROBES) {
		/* armed, but its fields unreadable or more probes than an answer holds: give
		 * them back */
		if (armed)
			kprobe_host_op(KERNEL_REQ_KPROBE_PERF_CLOSE, type);
		mutex_unlock(&kprobe_perf_mutex);
		kprobe_perf_call_kfree(call);
		return ERR_PTR(ret < 0 ? ret : -EINVAL);
	}
	list_add(&call->node, &kprobe_event_calls);
	mutex_unlock(&kprobe_perf_mutex);
	return call;
}

void kprobe_event_perf_put(struct kprobe_perf_call *call)
{
	int i;

	mutex_lock(&kprobe_perf_mutex);
	if (--call->refcount) {
		mutex_unlock(&kprobe_perf_mutex);
		return;
	}
	list_del_init(&call->node);
	for (i = 0; i < call->nr_probes; i++) {
		struct kprobe_perf_call *mine = call;

		/* unless the host gave the index to another probe meanwhile (a sibling removed) */
		__atomic_compare_exchange_n(&kprobe_perf_calls[call->probes[i]], &mine, NULL, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	kprobe_host_op(KERNEL_REQ_KPROBE_PERF_CLOSE, call->type);
	mutex_unlock(&kprobe_perf_mutex);
	kprobe_perf_call_free(call);
}

/* bpf_get_kprobe_info(): a kprobe PMU event's probe, or a kprobe event's first one
 * (perf_type_tracepoint): its function and offset, or its address */
int bpf_get_kprobe_info(const struct perf_event *event, u32 *fd_type, const char **symbol, u64 *probe_offset,
			u64 *probe_addr, bool perf_type_tracepoint)
{
	const struct kprobe_perf_call *call = event->kprobe_call;

	if (!call || !perf_type_tracepoint != !call->type)
		return -EINVAL;
	*fd_type = call->is_return ? BPF_FD_TYPE_KRETPROBE : BPF_FD_TYPE_KPROBE;
	if (call->symbol) {
		*symbol = call->symbol;
		*probe_offset = call->offset;
		*probe_addr = 0;
	} else {
		*symbol = NULL;
		*probe_offset = 0;
		*probe_addr = call->addr;
	}
	return 0;
}
