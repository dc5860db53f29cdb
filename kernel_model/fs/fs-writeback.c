/*
 * The flusher (fs/fs-writeback.c, mm/backing-dev.c): each block device's bdi_writeback keeps
 * its dirty inodes (`__mark_inode_dirty`: `writeback:writeback_mark_inode_dirty`, the inode's
 * dirtying time, the flusher's work armed for dirty_writeback_interval later,
 * `wb_wakeup_delayed`) and runs `wb_workfn` on the "writeback" workqueue (a kworker):
 * queued works first (`wb_do_writeback`: `writeback_exec`; sync(2)'s, `sync_inodes_sb`,
 * queued with `writeback_queue` and waited for), then a "start all" asked by
 * `wakeup_flusher_threads`, then the periodic flush of inodes dirtied longer than
 * dirty_expire_interval ago (`wb_check_old_data_flush`, kupdate).  `wb_writeback`
 * (`writeback_start`/`writeback_written`) → `writeback_sb_inodes` →
 * `__writeback_single_inode` → `do_writepages`; `writeback_pages_written` after each round.
 */
#include "../include/pagemap.h"
#include "../include/slab.h"
#include "../include/timer.h"
#include "../include/trace/trace.h"

static LIST_HEAD(bdi_list);
static struct workqueue_struct *bdi_wq;
long global_dirty_pages;	/* NR_FILE_DIRTY */
/* the waiters for their works' completion (6.1: the bdi's wb_waitq): not on a waiter's stack,
 * which may be gone as soon as it sees its count reach 0 */
static struct wait_queue_head wb_waitq = {
	.lock = __SPIN_LOCK_UNLOCKED,
	.head = LIST_HEAD_INIT(wb_waitq.head),
};

#define centisecs_to_jiffies(cs) ((unsigned long)(cs) * HZ / 100)
#define MAX_WRITEBACK_PAGES 1024

static void wb_workfn(struct work_struct *work);

notrace void bdi_writeback_init(struct bdi_writeback *wb, dev_t dev, struct super_block *sb)
{
	if (!bdi_wq)
		bdi_wq = alloc_workqueue("writeback", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	scnprintf(wb->name, sizeof(wb->name), "%u:%u", MAJOR(dev), MINOR(dev));
	wb->list_lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	INIT_LIST_HEAD(&wb->b_dirty);
	INIT_LIST_HEAD(&wb->work_list);
	INIT_DELAYED_WORK(&wb->dwork, wb_workfn);
	wb->last_old_flush = jiffies;
	wb->start_all_reason = -1;
	wb->sb = sb;
	list_add_tail(&wb->bdi_list, &bdi_list);
}

noinline void wb_wakeup_delayed(struct bdi_writeback *wb)
{
	queue_delayed_work_on(WORK_CPU_UNBOUND, bdi_wq, &wb->dwork,
			      centisecs_to_jiffies(dirty_writeback_interval));
}

static noinline void wb_wakeup(struct bdi_writeback *wb)
{
	mod_delayed_work_on(WORK_CPU_UNBOUND, bdi_wq, &wb->dwork, 0);
}

static noinline void wb_queue_work(struct bdi_writeback *wb, struct wb_writeback_work *work)
{
	unsigned long flags;

	trace_writeback_queue(wb, work);
	spin_lock_irqsave(&wb->list_lock, flags);
	if (work->done)
		work->done->count++;
	list_add_tail(&work->list, &wb->work_list);
	spin_unlock_irqrestore(&wb->list_lock, flags);
	wb_wakeup(wb);
}

noinline void __mark_inode_dirty(struct inode *inode, int flags)
{
	struct bdi_writeback *wb = inode->i_wb;
	unsigned long lflags;
	bool wakeup = false;

	trace_writeback_mark_inode_dirty(inode, flags);
	if (flags & I_DIRTY_INODE) {
		trace_writeback_dirty_inode_start(inode, flags);
		trace_writeback_dirty_inode(inode, flags);
	}
	if ((inode->i_state & flags) == flags || !wb)
		return;
	spin_lock_irqsave(&wb->list_lock, lflags);
	if (!(inode->i_state & I_DIRTY) && !(inode->i_state & (I_SYNC | I_FREEING))) {
		inode->dirtied_when = jiffies;
		wakeup = list_empty(&wb->b_dirty);
		list_add_tail(&inode->i_io_list, &wb->b_dirty);
	}
	inode->i_state |= flags;
	spin_unlock_irqrestore(&wb->list_lock, lflags);
	if (wakeup)
		wb_wakeup_delayed(wb);
}

notrace void mark_inode_dirty(struct inode *inode)
{
	__mark_inode_dirty(inode, I_DIRTY);
}

/* The inode leaves its flusher's lists (it is being evicted). */
noinline void inode_io_list_del(struct inode *inode)
{
	struct bdi_writeback *wb = inode->i_wb;
	unsigned long flags;

	if (!wb)
		return;
	spin_lock_irqsave(&wb->list_lock, flags);
	list_del_init(&inode->i_io_list);
	inode->i_state &= ~I_DIRTY;
	inode->i_state |= I_FREEING;
	spin_unlock_irqrestore(&wb->list_lock, flags);
}

static noinline int __writeback_single_inode(struct inode *inode, struct writeback_control *wbc)
{
	struct address_space *mapping = inode->i_mapping;
	long nr_to_write = wbc->nr_to_write;
	int ret;

	trace_writeback_single_inode_start(inode, wbc, nr_to_write);
	/* the dirty state goes before the pages are written: a write meanwhile dirties it again */
	inode->i_state &= ~I_DIRTY;
	ret = do_writepages(mapping, wbc);
	if (wbc->sync_mode == WB_SYNC_ALL)
		filemap_fdatawait_range(mapping, 0, LONG_MAX);
	trace_writeback_single_inode(inode, wbc, nr_to_write);
	return ret;
}

/* The inodes of b_io, each written (at most work->nr_pages pages in all); pages written. */
static noinline long writeback_sb_inodes(struct bdi_writeback *wb, struct list_head *b_io,
					 struct wb_writeback_work *work)
{
	struct writeback_control wbc = {
		.sync_mode = work->sync_mode,
		.for_kupdate = work->for_kupdate,
		.for_background = work->for_background,
		.for_sync = work->for_sync,
		.range_cyclic = work->range_cyclic,
		.range_start = 0,
		.range_end = LONG_MAX,
	};
	unsigned long flags;
	long wrote = 0;

	spin_lock_irqsave(&wb->list_lock, flags);
	while (!list_empty(b_io)) {
		struct inode *inode = list_first_entry(b_io, struct inode, i_io_list);
		long chunk = work->sync_mode == WB_SYNC_ALL ? LONG_MAX : MAX_WRITEBACK_PAGES;

		list_del_init(&inode->i_io_list);
		if (inode->i_state & I_FREEING)
			continue;
		ihold(inode);
		inode->i_state |= I_SYNC;
		spin_unlock_irqrestore(&wb->list_lock, flags);
		wbc.nr_to_write = chunk;
		wbc.pages_skipped = 0;
		__writeback_single_inode(inode, &wbc);
		wrote += chunk - wbc.nr_to_write;
		spin_lock_irqsave(&wb->list_lock, flags);
		inode->i_state &= ~I_SYNC;
		if ((inode->i_state & I_DIRTY) && list_empty(&inode->i_io_list) && !(inode->i_state & I_FREEING))
			list_add_tail(&inode->i_io_list, &wb->b_dirty);	/* requeue_inode: dirtied again */
		spin_unlock_irqrestore(&wb->list_lock, flags);
		iput(inode);
		spin_lock_irqsave(&wb->list_lock, flags);
	}
	spin_unlock_irqrestore(&wb->list_lock, flags);
	return wrote;
}

/* The inodes of b_dirty dirtied before dirtied_before (oldest first) move to b_io. */
static noinline void queue_io(struct bdi_writeback *wb, struct wb_writeback_work *work, struct list_head *b_io,
			      unsigned long dirtied_before)
{
	struct inode *inode, *next;
	int moved = 0;

	list_for_each_entry_safe(inode, next, &wb->b_dirty, i_io_list) {	/* move_expired_inodes */
		if (time_after(inode->dirtied_when, dirtied_before))
			break;
		if (work->sb && inode->i_sb != work->sb)
			continue;
		list_del_init(&inode->i_io_list);
		list_add_tail(&inode->i_io_list, b_io);
		moved++;
	}
	trace_writeback_queue_io(wb, work, dirtied_before, moved);
}

static noinline long wb_writeback(struct bdi_writeback *wb, struct wb_writeback_work *work)
{
	/* kupdate writes what has been dirty for dirty_expire_interval; the others all of it */
	unsigned long flags, dirtied_before = work->for_kupdate ?
		jiffies - centisecs_to_jiffies(dirty_expire_interval) : jiffies;
	LIST_HEAD(b_io);
	long wrote;

	trace_writeback_start(wb, work);
	spin_lock_irqsave(&wb->list_lock, flags);
	queue_io(wb, work, &b_io, dirtied_before);
	spin_unlock_irqrestore(&wb->list_lock, flags);
	wrote = writeback_sb_inodes(wb, &b_io, work);
	work->nr_pages -= wrote;
	trace_writeback_written(wb, work);
	return wrote;
}

static struct wb_writeback_work *get_next_work_item(struct bdi_writeback *wb)
{
	struct wb_writeback_work *work = NULL;
	unsigned long flags;

	spin_lock_irqsave(&wb->list_lock, flags);
	if (!list_empty(&wb->work_list)) {
		work = list_first_entry(&wb->work_list, struct wb_writeback_work, list);
		list_del_init(&work->list);
	}
	spin_unlock_irqrestore(&wb->list_lock, flags);
	return work;
}

static void finish_writeback_work(struct bdi_writeback *wb, struct wb_writeback_work *work)
{
	struct wb_completion *done = work->done;
	unsigned long flags;

	if (work->auto_free)
		kfree(work);
	if (done) {
		spin_lock_irqsave(&wb->list_lock, flags);
		done->count--;
		spin_unlock_irqrestore(&wb->list_lock, flags);
		__wake_up(&wb_waitq, TASK_NORMAL, 0, NULL);
	}
}

static notrace long wb_check_start_all(struct bdi_writeback *wb)
{
	int reason = __atomic_exchange_n(&wb->start_all_reason, -1, __ATOMIC_ACQ_REL);
	struct wb_writeback_work work = {
		.sync_mode = WB_SYNC_NONE,
		.range_cyclic = 1,
	};

	if (reason < 0 || !global_dirty_pages)
		return 0;
	work.nr_pages = global_dirty_pages;
	work.reason = reason;
	return wb_writeback(wb, &work);
}

static notrace long wb_check_old_data_flush(struct bdi_writeback *wb)
{
	unsigned long expired = wb->last_old_flush + centisecs_to_jiffies(dirty_writeback_interval);
	struct wb_writeback_work work = {
		.sync_mode = WB_SYNC_NONE,
		.for_kupdate = 1,
		.range_cyclic = 1,
		.reason = WB_REASON_PERIODIC,
	};

	if (time_before(jiffies, expired))
		return 0;
	wb->last_old_flush = jiffies;
	if (!global_dirty_pages)
		return 0;
	work.nr_pages = global_dirty_pages;
	return wb_writeback(wb, &work);
}

static notrace long wb_do_writeback(struct bdi_writeback *wb)
{
	struct wb_writeback_work *work;
	long wrote = 0;

	while ((work = get_next_work_item(wb)) != NULL) {
		trace_writeback_exec(wb, work);
		wrote += wb_writeback(wb, work);
		finish_writeback_work(wb, work);
	}
	wrote += wb_check_start_all(wb);
	wrote += wb_check_old_data_flush(wb);
	return wrote;
}

static noinline void wb_workfn(struct work_struct *work)
{
	struct bdi_writeback *wb = container_of(work, struct bdi_writeback, dwork.work);
	long pages_written;

	do {
		pages_written = wb_do_writeback(wb);
		trace_writeback_pages_written(pages_written);
	} while (!list_empty(&wb->work_list));
	if (!list_empty(&wb->b_dirty))
		wb_wakeup_delayed(wb);
}

/* Every flusher starts writing all it has (sync(2), and memory pressure in Linux). */
noinline void wakeup_flusher_threads(enum wb_reason reason)
{
	struct bdi_writeback *wb;

	list_for_each_entry(wb, &bdi_list, bdi_list) {
		if (list_empty(&wb->b_dirty))
			continue;
		WRITE_ONCE(wb->start_all_reason, reason);	/* wb_start_writeback */
		wb_wakeup(wb);
	}
}

/* Every dirty inode of sb written and waited for, by its flusher (sync(2), syncfs(2)). */
noinline void sync_inodes_sb(struct super_block *sb)
{
	struct wb_completion done = { .count = 0 };
	struct wb_writeback_work work = {
		.sb = sb,
		.sync_mode = WB_SYNC_ALL,
		.nr_pages = LONG_MAX,
		.range_cyclic = 0,
		.done = &done,
		.reason = WB_REASON_SYNC,
		.for_sync = 1,
	};
	struct bdi_writeback *wb;

	list_for_each_entry(wb, &bdi_list, bdi_list) {
		if (wb->sb != sb)
			continue;
		wb_queue_work(wb, &work);	/* bdi_split_work_to_wbs */
		wait_event(wb_waitq, !READ_ONCE(done.count));	/* wb_wait_for_completion */
	}
}
