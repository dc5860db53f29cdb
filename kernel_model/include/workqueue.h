/* Work items and workqueues (include/linux/workqueue.h): a work is a function
 * queued to run in a kworker thread; a delayed work is queued when its timer
 * fires. */
#ifndef _WORKQUEUE_H
#define _WORKQUEUE_H
#include "types.h"
#include "list.h"
#include "timer.h"
#include "spinlock.h"
#include "hostif.h"

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

#define WORK_STRUCT_PENDING	0x1UL	/* data: queued, or its timer armed */

struct work_struct {
	unsigned long data;		/* WORK_STRUCT_* flags */
	struct list_head entry;		/* in the pool's worklist */
	work_func_t func;
};

/* a work defined whole, as INIT_WORK() would make it */
#define __WORK_INITIALIZER(n, f)	{ .data = 0, .entry = LIST_HEAD_INIT((n).entry), .func = (f) }
#define DECLARE_WORK(n, f)		struct work_struct n = __WORK_INITIALIZER(n, f)

/* the per-cpu pools and each workqueue's view of them (kernel/workqueue_internal.h) */
struct worker_pool {
	raw_spinlock_t lock;
	int cpu;
	struct list_head worklist;	/* works waiting for the worker */
	struct task_struct *worker;	/* its kworker */
};

struct pool_workqueue {
	struct worker_pool *pool;
	struct workqueue_struct *wq;
	int nr_active;			/* works in the pool's worklist or running */
	int max_active;
	struct list_head inactive_works;	/* the rest, activated as active ones finish */
};

struct workqueue_struct {
	struct list_head list;
	char name[24];
	unsigned int flags;
	struct pool_workqueue cpu_pwqs[NR_CPUS];
};

struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
	struct workqueue_struct *wq;	/* where the timer queues it */
	int cpu;
};

/* the cpu of a queue_work() that names none: Linux's NR_CPUS, as the events report it */
#define WORK_CPU_UNBOUND	8192

#define WQ_UNBOUND		(1 << 1)
#define WQ_FREEZABLE		(1 << 2)
#define WQ_MEM_RECLAIM		(1 << 3)

static __always_inline void INIT_WORK(struct work_struct *work, work_func_t func)
{
	work->data = 0;
	INIT_LIST_HEAD(&work->entry);
	work->func = func;
}

void delayed_work_timer_fn(struct timer_list *t);
static __always_inline void __INIT_DELAYED_WORK(struct delayed_work *dwork, work_func_t func, unsigned int tflags)
{
	INIT_WORK(&dwork->work, func);
	init_timer_key(&dwork->timer, delayed_work_timer_fn, TIMER_IRQSAFE | tflags, NULL, NULL);
}
#define INIT_DELAYED_WORK(dwork, func) __INIT_DELAYED_WORK(dwork, func, 0)
#define INIT_DEFERRABLE_WORK(dwork, func) __INIT_DELAYED_WORK(dwork, func, TIMER_DEFERRABLE)
struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags, int max_active);
bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work);
bool queue_delayed_work_on(int cpu, struct workqueue_struct *wq, struct delayed_work *work,
			   unsigned long delay);
bool mod_delayed_work_on(int cpu, struct workqueue_struct *wq, struct delayed_work *dwork,
			 unsigned long delay);
static __always_inline bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	return queue_work_on(WORK_CPU_UNBOUND, wq, work);
}
extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *mm_percpu_wq;
static __always_inline bool schedule_work(struct work_struct *work)
{
	return queue_work(system_wq, work);
}
void workqueue_init_early(void);
void workqueue_init(void);
#endif
