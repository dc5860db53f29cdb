/* writeback: dirtying and the flusher's work (include/trace/events/writeback.h).  The bdi's
 * name is its device's ("259:0"); without cgroup writeback every wb is the root cgroup's
 * (cgroup_ino 1). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM writeback

#define show_inode_state(state)					\
	__print_flags(state, "|",				\
		{I_DIRTY_SYNC,		"I_DIRTY_SYNC"},	\
		{I_DIRTY_DATASYNC,	"I_DIRTY_DATASYNC"},	\
		{I_DIRTY_PAGES,		"I_DIRTY_PAGES"},	\
		{I_NEW,			"I_NEW"},		\
		{I_WILL_FREE,		"I_WILL_FREE"},		\
		{I_FREEING,		"I_FREEING"},		\
		{I_CLEAR,		"I_CLEAR"},		\
		{I_SYNC,		"I_SYNC"},		\
		{I_DIRTY_TIME,		"I_DIRTY_TIME"},	\
		{I_REFERENCED,		"I_REFERENCED"}		\
	)

#define WB_TRACE_CGROUP_INO 1

/* enum wb_reason's names (WB_WORK_REASON) */
#define show_wb_reason(reason) __print_symbolic(reason, { 0, "background" }, { 1, "vmscan" }, { 2, "sync" }, { 3, "periodic" }, { 4, "laptop_timer" }, { 5, "fs_free_space" }, { 6, "forker_thread" }, { 7, "foreign_flush" })

TRACE_EVENT(writeback_dirty_folio,
	TP_PROTO(struct address_space *mapping, unsigned long index),
	TP_ARGS(mapping, index),
	TP_STRUCT__entry (
		__array(char, name, 32)
		__field(ino_t, ino)
		__field(unsigned long, index)
	),
	TP_fast_assign(
		strscpy_pad(__entry->name, inode_bdi_name(mapping->host), 32);
		__entry->ino = mapping->host->i_ino;
		__entry->index = index;
	),
	TP_printk("bdi %s: ino=%lu index=%lu",
		__entry->name,
		(unsigned long)__entry->ino,
		__entry->index
	)
)

#define WRITEBACK_DIRTY_INODE_TEMPLATE(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct inode *inode, int flags), \
	TP_ARGS(inode, flags), \
	TP_STRUCT__entry ( \
		__array(char, name, 32) \
		__field(ino_t, ino) \
		__field(unsigned long, state) \
		__field(unsigned long, flags) \
	), \
	TP_fast_assign( \
		strscpy_pad(__entry->name, inode_bdi_name(inode), 32); \
		__entry->ino		= inode->i_ino; \
		__entry->state		= inode->i_state; \
		__entry->flags		= flags; \
	), \
	TP_printk("bdi %s: ino=%lu state=%s flags=%s", \
		__entry->name, \
		(unsigned long)__entry->ino, \
		show_inode_state(__entry->state), \
		show_inode_state(__entry->flags) \
	) \
)
WRITEBACK_DIRTY_INODE_TEMPLATE(writeback_mark_inode_dirty)
WRITEBACK_DIRTY_INODE_TEMPLATE(writeback_dirty_inode_start)
WRITEBACK_DIRTY_INODE_TEMPLATE(writeback_dirty_inode)

#define WRITEBACK_WORK_TEMPLATE(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct bdi_writeback *wb, struct wb_writeback_work *work), \
	TP_ARGS(wb, work), \
	TP_STRUCT__entry( \
		__array(char, name, 32) \
		__field(long, nr_pages) \
		__field(dev_t, sb_dev) \
		__field(int, sync_mode) \
		__field(int, for_kupdate) \
		__field(int, range_cyclic) \
		__field(int, for_background) \
		__field(int, reason) \
		__field(ino_t, cgroup_ino) \
	), \
	TP_fast_assign( \
		strscpy_pad(__entry->name, wb->name, 32); \
		__entry->nr_pages = work->nr_pages; \
		__entry->sb_dev = work->sb ? work->sb->s_dev : 0; \
		__entry->sync_mode = work->sync_mode; \
		__entry->for_kupdate = work->for_kupdate; \
		__entry->range_cyclic = work->range_cyclic; \
		__entry->for_background	= work->for_background; \
		__entry->reason = work->reason; \
		__entry->cgroup_ino = WB_TRACE_CGROUP_INO; \
	), \
	TP_printk("bdi %s: sb_dev %d:%d nr_pages=%ld sync_mode=%d " \
		  "kupdate=%d range_cyclic=%d background=%d reason=%s cgroup_ino=%lu", \
		  __entry->name, \
		  MAJOR(__entry->sb_dev), MINOR(__entry->sb_dev), \
		  __entry->nr_pages, \
		  __entry->sync_mode, \
		  __entry->for_kupdate, \
		  __entry->range_cyclic, \
		  __entry->for_background, \
		  show_wb_reason(__entry->reason), \
		  (unsigned long)__entry->cgroup_ino \
	) \
)
WRITEBACK_WORK_TEMPLATE(writeback_queue)
WRITEBACK_WORK_TEMPLATE(writeback_exec)
WRITEBACK_WORK_TEMPLATE(writeback_start)
WRITEBACK_WORK_TEMPLATE(writeback_written)

TRACE_EVENT(writeback_queue_io,
	TP_PROTO(struct bdi_writeback *wb, struct wb_writeback_work *work, unsigned long dirtied_before,
		 int moved),
	TP_ARGS(wb, work, dirtied_before, moved),
	TP_STRUCT__entry(
		__array(char,		name, 32)
		__field(unsigned long,	older)
		__field(long,		age)
		__field(int,		moved)
		__field(int,		reason)
		__field(ino_t,		cgroup_ino)
	),
	TP_fast_assign(
		strscpy_pad(__entry->name, wb->name, 32);
		__entry->older	= dirtied_before;
		__entry->age	= (jiffies - dirtied_before) * 1000 / HZ;
		__entry->moved	= moved;
		__entry->reason	= work->reason;
		__entry->cgroup_ino	= WB_TRACE_CGROUP_INO;
	),
	TP_printk("bdi %s: older=%lu age=%ld enqueue=%d reason=%s cgroup_ino=%lu",
		__entry->name,
		__entry->older,	/* dirtied_before in jiffies */
		__entry->age,	/* dirtied_before in relative milliseconds */
		__entry->moved,
		show_wb_reason(__entry->reason),
		(unsigned long)__entry->cgroup_ino
	)
)

/* DECLARE_EVENT_CLASS(writeback_single_inode_template) */
#define WRITEBACK_SINGLE_INODE_TEMPLATE(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct inode *inode, struct writeback_control *wbc, unsigned long nr_to_write), \
	TP_ARGS(inode, wbc, nr_to_write), \
	TP_STRUCT__entry( \
		__array(char, name, 32) \
		__field(ino_t, ino) \
		__field(unsigned long, state) \
		__field(unsigned long, dirtied_when) \
		__field(unsigned long, writeback_index) \
		__field(long, nr_to_write) \
		__field(unsigned long, wrote) \
		__field(ino_t, cgroup_ino) \
	), \
	TP_fast_assign( \
		strscpy_pad(__entry->name, inode_bdi_name(inode), 32); \
		__entry->ino		= inode->i_ino; \
		__entry->state		= inode->i_state; \
		__entry->dirtied_when	= inode->dirtied_when; \
		__entry->writeback_index = inode->i_mapping->writeback_index; \
		__entry->nr_to_write	= nr_to_write; \
		__entry->wrote		= nr_to_write - wbc->nr_to_write; \
		__entry->cgroup_ino	= WB_TRACE_CGROUP_INO; \
	), \
	TP_printk("bdi %s: ino=%lu state=%s dirtied_when=%lu age=%lu " \
		  "index=%lu to_write=%ld wrote=%lu cgroup_ino=%lu", \
		  __entry->name, \
		  (unsigned long)__entry->ino, \
		  show_inode_state(__entry->state), \
		  __entry->dirtied_when, \
		  (jiffies - __entry->dirtied_when) / HZ, \
		  __entry->writeback_index, \
		  __entry->nr_to_write, \
		  __entry->wrote, \
		  (unsigned long)__entry->cgroup_ino \
	) \
)
WRITEBACK_SINGLE_INODE_TEMPLATE(writeback_single_inode_start)
WRITEBACK_SINGLE_INODE_TEMPLATE(writeback_single_inode)
#undef WRITEBACK_SINGLE_INODE_TEMPLATE

TRACE_EVENT(writeback_pages_written,
	TP_PROTO(long pages_written),
	TP_ARGS(pages_written),
	TP_STRUCT__entry(
		__field(long,		pages)
	),
	TP_fast_assign(
		__entry->pages		= pages_written;
	),
	TP_printk("%ld", __entry->pages)
)

TRACE_EVENT(wbc_writepage,
	TP_PROTO(struct writeback_control *wbc, const char *bdi_name),
	TP_ARGS(wbc, bdi_name),
	TP_STRUCT__entry(
		__array(char, name, 32)
		__field(long, nr_to_write)
		__field(long, pages_skipped)
		__field(int, sync_mode)
		__field(int, for_kupdate)
		__field(int, for_background)
		__field(int, for_reclaim)
		__field(int, range_cyclic)
		__field(long, range_start)
		__field(long, range_end)
		__field(ino_t, cgroup_ino)
	),
	TP_fast_assign(
		strscpy_pad(__entry->name, bdi_name, 32);
		__entry->nr_to_write	= wbc->nr_to_write;
		__entry->pages_skipped	= wbc->pages_skipped;
		__entry->sync_mode	= wbc->sync_mode;
		__entry->for_kupdate	= wbc->for_kupdate;
		__entry->for_background	= wbc->for_background;
		__entry->for_reclaim	= wbc->for_reclaim;
		__entry->range_cyclic	= wbc->range_cyclic;
		__entry->range_start	= (long)wbc->range_start;
		__entry->range_end	= (long)wbc->range_end;
		__entry->cgroup_ino	= WB_TRACE_CGROUP_INO;
	),
	TP_printk("bdi %s: towrt=%ld skip=%ld mode=%d kupd=%d "
		"bgrd=%d reclm=%d cyclic=%d "
		"start=0x%lx end=0x%lx cgroup_ino=%lu",
		__entry->name,
		__entry->nr_to_write,
		__entry->pages_skipped,
		__entry->sync_mode,
		__entry->for_kupdate,
		__entry->for_background,
		__entry->for_reclaim,
		__entry->range_cyclic,
		__entry->range_start,
		__entry->range_end,
		(unsigned long)__entry->cgroup_ino
	)
)
