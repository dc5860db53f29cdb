/* Kernel threads and the small real work they do: kthreadd (starts programs
 * the host asked for), migration/N (moves waiting tasks to idle cpus);
 * ksoftirqd/N (softirq.c), rcu_sched (rcu.c) and the kworkers (workqueue.c)
 * start here too. */
#include "../include/kernel.h"
#include "../include/mmzone.h"
#include "../include/fs.h"
#include "../include/trace/trace.h"
#include "../include/trace/ring.h"
#include "../include/trace/trigger.h"
#include "../include/session.h"
#include "../include/bpf.h"
#include "../include/blkdev.h"

struct task_struct *kthreadd_task;
int migrate_one_task(void);

static int cpu_stopper_thread(void *arg)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		schedule();
		migrate_one_task();
	}
	return 0;
}

/* ---- kthreadd: starts the programs the host asked for, and reaps them ---- */
struct spawn_req {
	u64 id;
	int argc;
	u32 flags;		/* HOST_SPAWN_* */
	char argv[HOST_REQ_ARGV];
};

/* exec of what the host asked for failed: say why on its stderr (`out`) and exit as a shell
 * does, 127 when there is no such program, 126 when it cannot run here */
static void exec_failed(struct file *out, const char *name, int err, const char *interp)
{
	char msg[320];
	loff_t pos = 0;
	int n;

	if (err == -ENOEXEC && interp[0])
		n = scnprintf(msg, sizeof(msg), "%s: cannot execute: dynamically linked (needs the "
			      "interpreter %s); this kernel runs statically linked programs only\n",
			      name, interp);
	else if (err == -ENOEXEC)
		n = scnprintf(msg, sizeof(msg), "%s: cannot execute: Exec format error\n", name);
	else if (err == -ENOENT)
		n = scnprintf(msg, sizeof(msg), "%s: No such file or directory\n", name);
	else
		n = scnprintf(msg, sizeof(msg), "%s: cannot execute: error %d\n", name, -err);
	kernel_write(out, msg, n, &pos);
	fput(out);
	do_exit((err == -ENOENT ? 127 : 126) << 8);
}

static notrace int spawn_program(void *arg)
{
	struct spawn_req *req = arg;
	struct pt_regs *regs = (struct pt_regs *)((char *)current->stack + THREAD_SIZE) - 1;
	/* every argument the request holds (its HOST_REQ_ARGV bytes: at most half as many) */
	const char **vec = kmalloc(sizeof(*vec) * (req->argc + 1), GFP_KERNEL);
	const char *p = req->argv;
	struct file *in, *out, *err;
	char interp[128];
	int i, ret;

	if (!vec)
		do_exit(127 << 8);
	for (i = 0; i < req->argc; i++) {
		vec[i] = p;
		p += strlen(p) + 1;
	}
	current->host_id = req->id;
	host_spawned(req->id, current->pid);
	/* its own fd table and root, as a usermode helper's (kernel threads share init's) */
	if (unshare_files() || unshare_fs_struct())
		do_exit(127 << 8);
	host_view_enter();	/* its "/" is the host's (fs/init.c) */
	in = req->flags & HOST_SPAWN_STDIN ? hostpipe_open_input(req->id) : filp_open("/dev/null", 0, 0);
	out = hostpipe_open(req->id, 1);
	err = hostpipe_open(req->id, 2);
	if (IS_ERR(in) || IS_ERR(out) || IS_ERR(err))
		do_exit(127 << 8);
	replace_fd(0, in, 0);	/* (init_dup() is the boot's) */
	replace_fd(1, out, 0);
	replace_fd(2, err, 0);
	fput(in);
	fput(out);
	interp[0] = 0;
	vec[i] = NULL;
	ret = kernel_execve(vec[0], vec, regs, interp);
	if (ret)	/* as a shell says it: 127 not found, 126 found but not runnable */
		exec_failed(err, vec[0], ret, interp);
	fput(err);
	kfree(vec);
	kfree(req);
	return 0;
}

/* the answer to a request that has one, at PORT_REPLY */
/* HOST_REQ_SYSCTL: the store of the sysctl's proc handler, the value parsed and range-checked
 * by the writer (the host) */
static notrace int sysctl_store(u32 sysctl, int value)
{
	switch (sysctl) {
	case HOST_SYSCTL_BPF_JIT_ENABLE:
		return bpf_jit_enable_store(value);
	case HOST_SYSCTL_BPF_STATS_ENABLED:
		return bpf_stats_enabled_store(value);
	case HOST_SYSCTL_UNPRIVILEGED_BPF_DISABLED:
		return bpf_unpriv_disabled_store(value);
	default:
		return -EINVAL;
	}
}

static notrace void host_reply(u64 id, long ret)
{
	unsigned long flags = arch_local_irq_save();	/* db_arg is per-CPU */

	this_cpu()->h.db_arg[0] = id;
	this_cpu()->h.db_arg[1] = ret;
	host_doorbell(PORT_REPLY, 0);
	arch_local_irq_restore(flags);
}

int kthreadd(void *unused)
{
	struct host_requests *hr = &host_requests;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (READ_ONCE(hr->tail) == READ_ONCE(hr->head) && !has_reapable_child() &&
		    !session_roots_pending()) {
			schedule();
			continue;
		}
		set_current_state(TASK_RUNNING);
		/* the programs it started that exited */
		while (do_wait(-1, NULL, NULL, WNOHANG | __WALL) > 0)
			;
		session_create_roots();
		while (hr->tail != READ_ONCE(hr->head)) {
			struct host_request *slot = &hr->slot[hr->tail % HOST_REQ_SLOTS];
			struct spawn_req *req;

			if (slot->kind == HOST_REQ_STDIN) {
				hostpipe_input(slot->id, slot->argv, min(slot->len, (u32)HOST_REQ_ARGV));
				WRITE_ONCE(hr->tail, hr->tail + 1);
				continue;
			}
			if (slot->kind == HOST_REQ_TRACE_SLOT) {	/* instance_mkdir() / instance_rmdir() */
				long ret = 0;

				if (slot->flags)
					ret = trace_slot_alloc(slot->argc);
				else
					trace_slot_free(slot->argc);
				host_reply(slot->id, ret);
				WRITE_ONCE(hr->tail, hr->tail + 1);
				continue;
			}
			if (slot->kind == HOST_REQ_TRACE_MARKER) {	/* a write to trace_marker */
				host_reply(slot->id, tracing_mark_write(slot->argc, slot->flags, slot->len));
				WRITE_ONCE(hr->tail, hr->tail + 1);
				continue;
			}
			if (slot->kind == HOST_REQ_SYSCTL) {	/* a sysctl whose store the kernel makes */
				host_reply(slot->id, sysctl_store(slot->argc, (int)slot->flags));
				WRITE_ONCE(hr->tail, hr->tail + 1);
				continue;
			}
			if (slot->kind == HOST_REQ_BLK_TRACE_ATTR) {	/* a /sys/block/DEV/trace/ file */
				host_reply(slot->id, blk_trace_attr_request(slot->argc, slot->flags & 0xff,
									    slot->flags & HOST_BLK_TRACE_STORE, slot->len));
				WRITE_ONCE(hr->tail, hr->tail + 1);
				continue;
			}
			req = kmalloc(sizeof(*req), GFP_KERNEL);
			if (req) {
				req->id = slot->id;
				req->argc = slot->argc;
				req->flags = slot->flags;
				memcpy(req->argv, slot->argv, HOST_REQ_ARGV);
				req->argv[HOST_REQ_ARGV - 1] = 0;
				if (kernel_thread(spawn_program, req, "kthreadd", -1) < 0) {
					host_exit(req->id, 127 << 8);
					kfree(req);
				}
			}
			WRITE_ONCE(hr->tail, hr->tail + 1);
		}
	}
	return 0;
}

void __init kthreads_init(void)
{
	char name[TASK_COMM_LEN];
	int cpu;

	softirq_init();
	rcu_spawn_gp_kthread();
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct task_struct *t;

		scnprintf(name, sizeof(name), "migration/%d", cpu);
		t = find_task_by_pid(kernel_thread(cpu_stopper_thread, NULL, name, cpu));
		cpu_data[cpu].migration = t;
		cpu_data[cpu].migration->flags |= PF_NO_SETAFFINITY;
	}
	workqueue_init();
	init_mm_internals();
	kswapd_run(0);		/* kswapd_init */
}
