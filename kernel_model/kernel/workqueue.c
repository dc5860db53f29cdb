/*
 * Workqueues (kernel/workqueue.c): one worker pool per cpu, served by its
 * kworker/N:1 thread; a workqueue has a pool_workqueue per cpu that feeds
 * its works to that cpu's pool, at most max_active of them at once.  Works
 * show in the workqueue:* events: queued, activated, run by process_one_work().
 * Delayed works queue themselves when their timer fires.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define WQ_MAX_ACTIVE 512

/* a work's data while queued: the pwq it is queued on, and its flags */
#define WORK_STRUCT_INACTIVE	0x2UL
#define WORK_STRUCT_FLAG_MASK	0xfUL

static struct worker_pool cpu_worker_pools[NR_CPUS];
static DEFINE_MUTEX(wq_pool_mutex);	/* the workqueues list, their creation */
static LIST_HEAD(workqueues);

struct workqueue_struct *system_wq;
struct workqueue_struct *mm_percpu_wq;

static __always_inline struct pool_workqueue *get_work_pwq(struct work_struct *work)
{
	return (struct pool_workqueue *)(work->data & ~WORK_STRUCT_FLAG_MASK);
}

/* pool->lock held */
static noinline void insert_work(struct pool_workqueue *pwq, struct work_struct *work, struct list_head *head,
			unsigned long extra_flags)
{
	struct worker_pool *pool = pwq->pool;

	work->data = (unsigned long)pwq | WORK_STRUCT_PENDING | extra_flags;
	list_add_tail(&work->entry, head);
	if (pool->worker)
		wake_up_process(pool->worker);
}

static void __queue_work(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	unsigned int req_cpu = cpu;
	struct pool_workqueue *pwq;
	struct worker_pool *pool;
	struct list_head *worklist;
	unsigned long work_flags = 0;

	if (req_cpu == WORK_CPU_UNBOUND)
		cpu = smp_processor_id();
	pwq = &wq->cpu_pwqs[cpu];
	pool = pwq->pool;
	raw_spin_lock(&pool->lock);
	trace_workqueue_queue_work(req_cpu, pwq, work);
	if (pwq->nr_active < pwq->max_active) {
		trace_workqueue_activate_work(work);
		pwq->nr_active++;
		worklist = &pool->worklist;
	} else {
		work_flags |= WORK_STRUCT_INACTIVE;
		worklist = &pwq->inactive_works;
	}
	insert_work(pwq, work, worklist, work_flags);
	raw_spin_unlock(&pool->lock);
}

/* false: it was pending already */
bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	unsigned long flags = arch_local_irq_save();
	bool ret = false;

	if (!(__atomic_fetch_or(&work->data, WORK_STRUCT_PENDING, __ATOMIC_ACQUIRE) & WORK_STRUCT_PENDING)) {
		__queue_work(cpu, wq, work);
		ret = true;
	}
	arch_local_irq_restore(flags);
	return ret;
}

/* TIMER_SOFTIRQ (an irqsafe timer): a delayed work's delay is over */
void delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dwork = container_of(t, struct delayed_work, timer);

	__queue_work(dwork->cpu, dwork->wq, &dwork->work);
}

static noinline void __queue_delayed_work(int cpu, struct workqueue_struct *wq, struct delayed_work *dwork,
				 unsigned long delay)
{
	struct timer_list *timer = &dwork->timer;

	if (!delay) {
		__queue_work(cpu, wq, &dwork->work);
		return;
	}
	dwork->wq = wq;
	dwork->cpu = cpu;
	timer->expires = jiffies + delay;
	if (cpu == WORK_CPU_UNBOUND)
		add_timer(timer);
	else
		add_timer_on(timer, cpu);
}

bool queue_delayed_work_on(int cpu, struct workqueue_struct *wq, struct delayed_work *dwork,
			   unsigned long delay)
{
	struct work_struct *work = &dwork->work;
	unsigned long flags = arch_local_irq_save();
	bool ret = false;

	if (!(__atomic_fetch_or(&work->data, WORK_STRUCT_PENDING, __ATOMIC_ACQUIRE) & WORK_STRUCT_PENDING)) {
		__queue_delayed_work(cpu, wq, dwork, delay);
		ret = true;
	}
	arch_local_irq_restore(flags);
	return ret;
}

/* The work's PENDING bit for the caller, interrupts off (*flags): 1 when it was pending on
 * its delayed work's timer (taken back), 0 when it was idle (PENDING set now), -ENOENT when it
 * is on a worklist (6.1 steals it from there; here it stays queued, and the caller leaves it) */
static noinline int try_to_grab_pending(struct work_struct *work, bool is_dwork, unsigned long *flags)
{
	*flags = arch_local_irq_save();
	if (is_dwork && likely(del_timer(&container_of(work, struct delayed_work, work)->timer)))
		return 1;
	if (!(__atomic_fetch_or(&work->data, WORK_STRUCT_PENDING, __ATOMIC_ACQUIRE) & WORK_STRUCT_PENDING))
		return 0;
	return -ENOENT;
}

/* Queue dwork after delay whether or not it is pending: an armed timer is taken back first;
 * a work already on a worklist stays there. */
bool mod_delayed_work_on(int cpu, struct workqueue_struct *wq, struct delayed_work *dwork,
			 unsigned long delay)
{
	unsigned long flags;
	int ret = try_to_grab_pending(&dwork->work, true, &flags);

	if (ret >= 0)
		__queue_delayed_work(cpu, wq, dwork, delay);
	arch_local_irq_restore(flags);
	return ret != 0;	/* (false: it was idle) */
}

/* The work onto head (6.1 moves the barrier works linked after it too: no flush barriers
 * here, nothing is linked).  pool->lock held. */
static noinline void move_linked_works(struct work_struct *work, struct list_head *head,
				       struct work_struct **nextp)
{
	list_move_tail(&work->entry, head);
}

/* An inactive work onto its pool's worklist, active now.  pool->lock held. */
static noinline void pwq_activate_inactive_work(struct work_struct *work)
{
	struct pool_workqueue *pwq = get_work_pwq(work);

	trace_workqueue_activate_work(work);
	move_linked_works(work, &pwq->pool->worklist, NULL);
	work->data &= ~WORK_STRUCT_INACTIVE;
	pwq->nr_active++;
}

/* A work done: the oldest inactive one of its pwq takes its place.  pool->lock held. */
static noinline void pwq_dec_nr_in_flight(struct pool_workqueue *pwq)
{
	pwq->nr_active--;
	if (list_empty(&pwq->inactive_works) || pwq->nr_active >= pwq->max_active)
		return;
	pwq_activate_inactive_work(list_first_entry(&pwq->inactive_works, struct work_struct, entry));
}

/* pool->lock held (interrupts off); dropped while the function runs */
static noinline void process_one_work(struct worker_pool *pool, struct work_struct *work)
{
	struct pool_workqueue *pwq = get_work_pwq(work);
	work_func_t func = work->func;

	list_del_init(&work->entry);
	/* pending off before it runs: the function may queue it again */
	WRITE_ONCE(work->data, 0);
	raw_spin_unlock_irq(&pool->lock);
	trace_workqueue_execute_start(work);
	func(work);
	trace_workqueue_execute_end(work, func);
	raw_spin_lock_irq(&pool->lock);
	pwq_dec_nr_in_flight(pwq);
}

/* kworker/N:1: runs its pool's works, sleeps (TASK_IDLE) when there are none */
static int worker_thread(void *arg)
{
	struct worker_pool *pool = arg;

	for (;;) {
		raw_spin_lock_irq(&pool->lock);
		while (!list_empty(&pool->worklist))
			process_one_work(pool, list_first_entry(&pool->worklist, struct work_struct, entry));
		set_current_state(TASK_IDLE);
		raw_spin_unlock_irq(&pool->lock);
		schedule();
	}
	return 0;
}

struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags, int max_active)
{
	struct workqueue_struct *wq = kzalloc(sizeof(*wq), GFP_KERNEL);
	int cpu;

	if (!wq)
		return NULL;
	strscpy_pad(wq->name, name, sizeof(wq->name));
	wq->flags = flags;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct pool_workqueue *pwq = &wq->cpu_pwqs[cpu];

		pwq->pool = &cpu_worker_pools[cpu];
		pwq->wq = wq;
		pwq->max_active = max_active ? max_active : WQ_MAX_ACTIVE;
		INIT_LIST_HEAD(&pwq->inactive_works);
	}
	mutex_lock(&wq_pool_mutex);
	list_add_tail(&wq->list, &workqueues);
	mutex_unlock(&wq_pool_mutex);
	return wq;
}

/* The pools and the system workqueues: works can be queued from here on. */
void __init workqueue_init_early(void)
{
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		cpu_worker_pools[cpu].cpu = cpu;
		INIT_LIST_HEAD(&cpu_worker_pools[cpu].worklist);
	}
	system_wq = alloc_workqueue("events", 0, 0);
	mm_percpu_wq = alloc_workqueue("mm_percpu_wq", WQ_MEM_RECLAIM, 0);
}

/* The kworkers: the works queued so far run now. */
void __init workqueue_init(void)
{
	char name[TASK_COMM_LEN];
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct worker_pool *pool = &cpu_worker_pools[cpu];
		struct task_struct *t;
		unsigned long flags;

		scnprintf(name, sizeof(name), "kworker/%d:1", cpu);
		t = find_task_by_pid(kernel_thread(worker_thread, pool, name, cpu));
		t->flags |= PF_NO_SETAFFINITY;
		raw_spin_lock_irqsave(&pool->lock, flags);
		pool->worker = t;
		if (!list_empty(&pool->worklist))
			wake_up_process(t);
		raw_spin_unlock_irqrestore(&pool->lock, flags);
		cpu_data[cpu].kworker = t;
	}
}
