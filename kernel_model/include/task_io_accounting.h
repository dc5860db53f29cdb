/* A task's I/O counts, /proc/PID/io's (6.1's include/linux/task_io_accounting.h and
 * task_io_accounting_ops.h, with fs.h's add_rchar() and friends) */
#ifndef _TASK_IO_ACCOUNTING_H
#define _TASK_IO_ACCOUNTING_H
#include "types.h"

struct task_io_accounting {
	u64 rchar;			/* bytes read(2) and its kin returned */
	u64 wchar;			/* bytes written */
	u64 syscr;			/* read calls */
	u64 syscw;			/* write calls */
	u64 read_bytes;			/* bytes it made the block layer read */
	u64 write_bytes;		/* bytes of page cache it dirtied */
	u64 cancelled_write_bytes;	/* of those, cleaned before writeback (truncated) */
};

static inline void task_io_accounting_add(struct task_io_accounting *dst, const struct task_io_accounting *src)
{
	dst->rchar += src->rchar;
	dst->wchar += src->wchar;
	dst->syscr += src->syscr;
	dst->syscw += src->syscw;
	dst->read_bytes += src->read_bytes;
	dst->write_bytes += src->write_bytes;
	dst->cancelled_write_bytes += src->cancelled_write_bytes;
}

/* current's, where 6.1 counts them (vfs_read/vfs_write, readv/writev, sendfile,
 * copy_file_range; submit_bio's reads; folio_account_dirtied/cleaned) */
#define add_rchar(tsk, amt) ((tsk)->ioac.rchar += (amt))
#define add_wchar(tsk, amt) ((tsk)->ioac.wchar += (amt))
#define inc_syscr(tsk) ((tsk)->ioac.syscr++)
#define inc_syscw(tsk) ((tsk)->ioac.syscw++)
#define task_io_account_read(bytes) (current->ioac.read_bytes += (bytes))
#define task_io_account_write(bytes) (current->ioac.write_bytes += (bytes))
#define task_io_account_cancelled_write(bytes) (current->ioac.cancelled_write_bytes += (bytes))
#endif
