/* filelock: flock and POSIX/OFD record locks (include/trace/events/filelock.h).  6.1's lease
 * events (generic_add_lease, break_lease_*, time_out_leases, ...) are absent with the leases
 * they trace. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM filelock

struct inode;
struct file_lock;
struct file_lock_context;	/* (include/filelock.h: events.c has them whole) */

#define show_fl_flags(val) \
	__print_flags(val, "|", { 1, "FL_POSIX" }, { 2, "FL_FLOCK" }, { 4, "FL_DELEG" }, \
		      { 8, "FL_ACCESS" }, { 16, "FL_EXISTS" }, { 32, "FL_LEASE" }, { 64, "FL_CLOSE" }, \
		      { 128, "FL_SLEEP" }, { 256, "FL_DOWNGRADE_PENDING" }, { 512, "FL_UNLOCK_PENDING" }, \
		      { 1024, "FL_OFDLCK" }, { 4096, "FL_RECLAIM"})
#define show_fl_type(val) __print_symbolic(val, { 0, "F_RDLCK" }, { 1, "F_WRLCK" }, { 2, "F_UNLCK" })

TRACE_EVENT(locks_get_lock_context,
	TP_PROTO(struct inode *inode, int type, struct file_lock_context *ctx),
	TP_ARGS(inode, type, ctx),
	TP_STRUCT__entry(
		__field(unsigned long, i_ino)
		__field(dev_t, s_dev)
		__field(unsigned char, type)
		__field(struct file_lock_context *, ctx)
	),
	TP_fast_assign(
		__entry->s_dev = inode->i_sb->s_dev;
		__entry->i_ino = inode->i_ino;
		__entry->type = type;
		__entry->ctx = ctx;
	),
	TP_printk("dev=0x%x:0x%x ino=0x%lx type=%s ctx=%p",
		  MAJOR(__entry->s_dev), MINOR(__entry->s_dev),
		  __entry->i_ino, show_fl_type(__entry->type), __entry->ctx)
)

/* DECLARE_EVENT_CLASS(filelock_lock) */
#define FILELOCK_LOCK_TEMPLATE(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct inode *inode, struct file_lock *fl, int ret), \
	TP_ARGS(inode, fl, ret), \
	TP_STRUCT__entry( \
		__field(struct file_lock *, fl) \
		__field(unsigned long, i_ino) \
		__field(dev_t, s_dev) \
		__field(struct file_lock *, fl_blocker) \
		__field(fl_owner_t, fl_owner) \
		__field(unsigned int, fl_pid) \
		__field(unsigned int, fl_flags) \
		__field(unsigned char, fl_type) \
		__field(loff_t, fl_start) \
		__field(loff_t, fl_end) \
		__field(int, ret) \
	), \
	TP_fast_assign( \
		__entry->fl = fl ? fl : NULL; \
		__entry->s_dev = inode->i_sb->s_dev; \
		__entry->i_ino = inode->i_ino; \
		__entry->fl_blocker = fl ? fl->fl_blocker : NULL; \
		__entry->fl_owner = fl ? fl->fl_owner : NULL; \
		__entry->fl_pid = fl ? fl->fl_pid : 0; \
		__entry->fl_flags = fl ? fl->fl_flags : 0; \
		__entry->fl_type = fl ? fl->fl_type : 0; \
		__entry->fl_start = fl ? fl->fl_start : 0; \
		__entry->fl_end = fl ? fl->fl_end : 0; \
		__entry->ret = ret; \
	), \
	TP_printk("fl=%p dev=0x%x:0x%x ino=0x%lx fl_blocker=%p fl_owner=%p fl_pid=%u fl_flags=%s fl_type=%s fl_start=%lld fl_end=%lld ret=%d", \
		__entry->fl, MAJOR(__entry->s_dev), MINOR(__entry->s_dev), \
		__entry->i_ino, __entry->fl_blocker, __entry->fl_owner, \
		__entry->fl_pid, show_fl_flags(__entry->fl_flags), \
		show_fl_type(__entry->fl_type), \
		__entry->fl_start, __entry->fl_end, __entry->ret) \
)
FILELOCK_LOCK_TEMPLATE(posix_lock_inode)
FILELOCK_LOCK_TEMPLATE(fcntl_setlk)
FILELOCK_LOCK_TEMPLATE(locks_remove_posix)
FILELOCK_LOCK_TEMPLATE(flock_lock_inode)
