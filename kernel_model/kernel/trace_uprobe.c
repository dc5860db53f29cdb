/*
 * The perf half of trace_uprobes (kernel/trace/trace_uprobe.c of Linux 6.1: create_local_trace_uprobe(),
 * uprobe_perf_func(), uretprobe_perf_func()): the consumers the uprobe PMU's perf events make,
 * which no uprobe_events lists.  The path is looked up here (kern_path(): ENOENT, and EINVAL for
 * what is not a regular file); the uprobe engine is the host's, which registers the consumer on
 * the file's inode+offset (uprobe_register()'s errnos: EINVAL for an offset past the end or an
 * odd reference counter offset, ENOTSUPP for an instruction it cannot step); its hits come to
 * uprobe_perf_func() from the guest's handler chain (kernel/events/uprobes.c).
 */
#include "../include/perf_event.h"
#include "../include/bpf.h"
#include "../include/fs.h"
#include "../include/mutex.h"
#include "../include/trace/uprobe_perf.h"
#include "../include/kernel_request.h"

struct kprobe_perf_call *uprobe_perf_calls[UPROBE_PERF_MAX];
static DEFINE_MUTEX(uprobe_perf_mutex);	/* the slots */

bool hostfs_inode(const struct inode *inode);
int prepend_path(const struct path *path, const struct path *root, char **buffer, int *buflen);

struct uprobe_req_args {
	u32 op, slot;
	u64 ino, offset, ref_ctr_offset;
	bool is_return;
	const char *host_path;
};

static void uprobe_req_fill(struct kernel_req *req, const void *arg)
{
	const struct uprobe_req_args *a = arg;

	req->op = a->op;
	req->probe = a->slot;
	req->is_return = a->is_return;
	req->offset = a->offset;
	req->addr = a->ref_ctr_offset;
	memcpy(req->name, &a->ino, sizeof(a->ino));
	if (a->host_path)
		strscpy_pad(req->text, a->host_path, sizeof(req->text));
}

/* The host's path of a hostfs file: its path from the root of its hostfs mount (the host's "/") */
static char *host_path_of(const struct path *path, char *buf)
{
	struct path root = { path->mnt, path->mnt->mnt_root };
	char *res = buf + PATH_MAX;
	int len = PATH_MAX - 1, err;

	*--res = '\0';
	err = prepend_path(path, &root, &res, &len);
	return err ? ERR_PTR(err < 0 ? err : -ENOENT) : res;
}

/* create_local_trace_uprobe(): name (a path, followed) + offs; a consumer of the host's engine
 * registered and armed at once (its perf event is its only user) */
struct kprobe_perf_call *create_local_trace_uprobe(const char *name, u64 offs, u64 ref_ctr_offset, bool is_return)
{
	struct uprobe_req_args a = { KERNEL_REQ_UPROBE_REGISTER, 0, 0, offs, ref_ctr_offset, is_return, NULL };
	struct kprobe_perf_call *call;
	struct path path;
	struct inode *inode;
	char *buf;
	int ret, slot;

	ret = kern_path(name, LOOKUP_FOLLOW, &path);
	if (ret)
		return ERR_PTR(ret);
	inode = path.dentry->d_inode;
	if (!inode || !S_ISREG(inode->i_mode)) {
		path_put(&path);
		return ERR_PTR(-EINVAL);
	}
	/* the engine names files by the host's inode: a file of another filesystem (this kernel's
	 * own /tmp, say) it cannot probe */
	if (!hostfs_inode(inode)) {
		path_put(&path);
		return ERR_PTR(-EOPNOTSUPP);
	}
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	call = kprobe_perf_call_alloc(false);
	if (!buf || !call) {
		path_put(&path);
		ret = -ENOMEM;
		goto fail;
	}
	a.host_path = host_path_of(&path, buf);
	a.ino = inode->i_ino;
	path_put(&path);
	if (IS_ERR(a.host_path)) {
		ret = PTR_ERR(a.host_path);
		goto fail;
	}
	call->is_return = is_return;
	call->symbol = kstrdup(name, GFP_KERNEL);	/* tu->filename */
	call->offset = offs;
	if (!call->symbol) {
		ret = -ENOMEM;
		goto fail;
	}
	mutex_lock(&uprobe_perf_mutex);
	for (slot = 0; slot < UPROBE_PERF_MAX && uprobe_perf_calls[slot]; slot++)
		;
	if (slot == UPROBE_PERF_MAX) {
		mutex_unlock(&uprobe_perf_mutex);
		ret = -ENOSPC;
		goto fail;
	}
	call->probe = a.slot = slot;
	/* its hits run the call as soon as the host arms it */
	__atomic_store_n(&uprobe_perf_calls[slot], call, __ATOMIC_RELEASE);
	ret = kernel_request(uprobe_req_fill, &a);
	if (ret)
		__atomic_store_n(&uprobe_perf_calls[slot], NULL, __ATOMIC_RELEASE);
	mutex_unlock(&uprobe_perf_mutex);
	if (ret)
		goto fail;
	kfree(buf);
	return call;
fail:
	kfree(buf);
	if (call)
		kprobe_perf_call_free(call);	/* (after a grace period: a hit may have seen it) */
	return ERR_PTR(ret);
}

/* destroy_local_trace_uprobe(): the consumer leaves its point (the host disarms it when it was
 * the last) and its call goes once no cpu may be running it */
void destroy_local_trace_uprobe(struct kprobe_perf_call *call)
{
	struct uprobe_req_args a = { KERNEL_REQ_UPROBE_UNREGISTER, call->probe, 0, 0, 0, false, NULL };

	if (--call->refcount)
		return;
	mutex_lock(&uprobe_perf_mutex);
	kernel_request(uprobe_req_fill, &a);
	__atomic_store_n(&uprobe_perf_calls[call->probe], NULL, __ATOMIC_RELEASE);
	mutex_unlock(&uprobe_perf_mutex);
	kprobe_perf_call_free(call);
}

/*
 * uprobe_perf_func()/uretprobe_perf_func() (__uprobe_perf_func()): the BPF programs on the
 * user registers, then, unless one said 0, the record (struct uprobe_trace_entry_head: the
 * probed address; a uretprobe's, the function and where it returned to) for each perf event
 * active on this cpu (a local uprobe has no arguments, and its type is 0: its call is never
 * registered as an event).  Interrupts off: the perf buffers are the cpu's.
 */
notrace void uprobe_perf_func(u32 slot, struct pt_regs *regs, u64 func, bool is_ret)
{
	struct kprobe_perf_call *call;
	struct bpf_prog_array *progs;
	struct list_head *head;
	struct trace_entry *entry;
	unsigned long flags;
	int size, rctx;
	u64 *vaddr;

	if (slot >= UPROBE_PERF_MAX)
		return;
	flags = arch_local_irq_save();
	call = __atomic_load_n(&uprobe_perf_calls[slot], __ATOMIC_ACQUIRE);
	if (!call)
		goto out;
	progs = __atomic_load_n(&call->prog_array, __ATOMIC_ACQUIRE);
	if (progs && !trace_call_bpf(progs, regs))
		goto out;
	head = &call->perf_events[smp_processor_id()];
	if (list_empty(head))
		goto out;
	size = perf_trace_entry_size(sizeof(*entry) + (is_ret ? 16 : 8));
	entry = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!entry)
		goto out;
	vaddr = (u64 *)(entry + 1);
	if (is_ret) {
		vaddr[0] = func;
		vaddr[1] = regs->ip;
	} else {
		vaddr[0] = regs->ip;
	}
	perf_trace_buf_submit(entry, size, rctx, 0, 1, regs, head, NULL);
out:
	arch_local_irq_restore(flags);
}

/* bpf_get_uprobe_info(): a uprobe PMU event's file, as its perf event named it, and offset
 * (uprobe events of uprobe_events are not perf tracepoint sources here: no perf_type_tracepoint) */
int bpf_get_uprobe_info(const struct perf_event *event, u32 *fd_type, const char **filename, u64 *probe_offset,
			bool perf_type_tracepoint)
{
	const struct kprobe_perf_call *call = event->kprobe_call;

	if (perf_type_tracepoint || !call)
		return -EINVAL;
	*fd_type = call->is_return ? BPF_FD_TYPE_URETPROBE : BPF_FD_TYPE_UPROBE;
	*filename = call->symbol;
	*probe_offset = call->offset;
	return 0;
}
