/* Kernel threads and the small real work they do: kthreadd (starts programs
 * the host asked for), rcu_sched (grace periods), migration/N (moves waiting
 * tasks to idle cpus); ksoftirqd/N (softirq.c) and the kworkers
 * (workqueue.c) start here too. */
#include "../include/kernel.h"

struct task_struct *kthreadd_task;
static struct task_struct *rcu_gp_task;

/* ---- RCU: freed tasks wait until every busy cpu has switched once ---- */
static spinlock_t rcu_lock;
static LIST_HEAD(rcu_cblist);
static u64 rcu_gp_seq, rcu_gp_completed;
static volatile unsigned long rcu_qs_pending;

void call_rcu_task(struct task_struct *t)
{
	unsigned long flags;

	spin_lock_irqsave(&rcu_lock, flags);
	t->rcu_gp = rcu_gp_seq + 1;
	list_add_tail(&t->rcu_node, &rcu_cblist);
	spin_unlock_irqrestore(&rcu_lock, flags);
	if (rcu_gp_task)
		wake_up_process(rcu_gp_task);
}

notrace void rcu_note_context_switch(int cpu)
{
	if (rcu_qs_pending & (1UL << cpu))
		__atomic_and_fetch(&rcu_qs_pending, ~(1UL << cpu), __ATOMIC_RELAXED);
}

static void rcu_do_batch(void)
{
	struct task_struct *t, *n;
	unsigned long flags;
	LIST_HEAD(done);

	spin_lock_irqsave(&rcu_lock, flags);
	list_for_each_entry_safe(t, n, &rcu_cblist, rcu_node)
		if (t->rcu_gp <= rcu_gp_completed) {
			list_del_init(&t->rcu_node);
			list_add_tail(&t->rcu_node, &done);
		}
	spin_unlock_irqrestore(&rcu_lock, flags);
	list_for_each_entry_safe(t, n, &done, rcu_node) {
		if (t->stack)
			free_thread_stack(t->stack);
		put_task_struct(t);
	}
}

/* Some callback waits for a grace period that has not completed yet. */
static bool rcu_gp_needed(void)
{
	struct task_struct *t;
	unsigned long flags;
	bool needed = false;

	spin_lock_irqsave(&rcu_lock, flags);
	list_for_each_entry(t, &rcu_cblist, rcu_node)
		if (t->rcu_gp > rcu_gp_completed) {
			needed = true;
			break;
		}
	spin_unlock_irqrestore(&rcu_lock, flags);
	return needed;
}

static int rcu_gp_kthread(void *unused)
{
	for (;;) {
		unsigned long flags;
		unsigned long mask = 0;
		int cpu;

		set_current_state(TASK_INTERRUPTIBLE);
		if (!rcu_gp_needed()) {
			schedule();
			continue;
		}
		set_current_state(TASK_RUNNING);
		spin_lock_irqsave(&rcu_lock, flags);
		rcu_gp_seq++;
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (cpu != smp_processor_id() && cpu_data[cpu].rq.curr != cpu_data[cpu].rq.idle)
				mask |= 1UL << cpu;
		rcu_qs_pending = mask;
		spin_unlock_irqrestore(&rcu_lock, flags);
		while (READ_ONCE(rcu_qs_pending)) {
			schedule_timeout_idle(1);
			for (cpu = 0; cpu < nr_cpu_ids; cpu++)
				if (cpu_data[cpu].rq.curr == cpu_data[cpu].rq.idle)
					rcu_note_context_switch(cpu);
		}
		rcu_gp_completed = rcu_gp_seq;
		raise_softirq(RCU_SOFTIRQ);
	}
	return 0;
}

/* RCU_SOFTIRQ: the callbacks whose grace period completed */
static void rcu_core_si(struct softirq_action *h)
{
	rcu_do_batch();
}

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
	char argv[HOST_REQ_ARGV];
};

static int spawn_program(void *arg)
{
	struct spawn_req *req = arg;
	struct pt_regs *regs = (struct pt_regs *)((char *)current->stack + THREAD_SIZE) - 1;
	const char *vec[32];
	const char *p = req->argv;
	struct file *out;
	int i, ret;

	for (i = 0; i < req->argc && i < 32; i++) {
		vec[i] = p;
		p += strlen(p) + 1;
	}
	current->host_id = req->id;
	host_spawned(req->id, current->pid);
	fd_install(0, filp_open_path("/dev/null", 0));
	out = hostpipe_open(req->id);
	if (out) {
		fd_install(1, out);
		fd_install(2, get_file(out));
	}
	ret = kernel_execve(vec[0], vec, i, regs);
	kfree(req);
	if (ret)
		do_exit(127 << 8);
	return 0;
}

int kthreadd(void *unused)
{
	struct host_requests *hr = &host_requests;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (READ_ONCE(hr->tail) == READ_ONCE(hr->head) && !has_reapable_child()) {
			schedule();
			continue;
		}
		set_current_state(TASK_RUNNING);
		/* the programs it started that exited (a child still switching out
		 * is reaped at the next wake-up) */
		while (do_wait(-1, NULL, WNOHANG) > 0)
			;
		while (hr->tail != READ_ONCE(hr->head)) {
			struct host_request *slot = &hr->slot[hr->tail % HOST_REQ_SLOTS];
			struct spawn_req *req = kmalloc(sizeof(*req), GFP_KERNEL);

			if (req) {
				req->id = slot->id;
				req->argc = slot->argc;
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

void kthreads_init(void)
{
	char name[TASK_COMM_LEN];
	int cpu;

	open_softirq(RCU_SOFTIRQ, rcu_core_si);
	softirq_init();
	rcu_gp_task = find_task_by_pid(kernel_thread(rcu_gp_kthread, NULL, "rcu_sched", -1));
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct task_struct *t;

		scnprintf(name, sizeof(name), "migration/%d", cpu);
		t = find_task_by_pid(kernel_thread(cpu_stopper_thread, NULL, name, cpu));
		cpu_data[cpu].migration = t;
		cpu_data[cpu].migration->flags |= PF_NO_SETAFFINITY;
	}
	workqueue_init();
	init_mm_internals();
}
