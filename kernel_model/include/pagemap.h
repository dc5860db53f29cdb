/*
 * The page cache and writeback (include/linux/pagemap.h, page-flags.h, writeback.h,
 * backing-dev-defs.h, reduced): a file's pages in its address_space by index (kernel
 * addresses, as shmem keeps them), their state in struct page's flags with 6.1's bit numbers,
 * the operations a file system gives its mappings, the writeback control, and a block
 * device's bdi_writeback with its dirty inodes and its flusher work (mm/filemap.c,
 * mm/page-writeback.c, fs/fs-writeback.c).
 */
#ifndef _PAGEMAP_H
#define _PAGEMAP_H
#include "fs.h"
#include "mm.h"
#include "workqueue.h"

typedef unsigned long ino_t;
#ifndef LONG_MAX
#define LONG_MAX ((long)(~0UL >> 1))
#endif

/* enum pageflags' bits (6.1) */
#define PG_locked	(1UL << 0)
#define PG_referenced	(1UL << 1)
#define PG_uptodate	(1UL << 2)
#define PG_dirty	(1UL << 3)
#define PG_lru		(1UL << 4)
#define PG_active	(1UL << 5)
#define PG_private	(1UL << 13)	/* private holds the page's buffer heads */
#define PG_writeback	(1UL << 15)
#define PG_reclaim	(1UL << 18)	/* reclaim found it dirty or under writeback */

struct writeback_control;
struct address_space_operations {
	int (*writepage)(struct address_space *mapping, void *page, unsigned long index, struct writeback_control *wbc);
	int (*read_folio)(struct file *, void *page, unsigned long index);
	bool (*dirty_folio)(struct address_space *, void *page, unsigned long index);
	int (*write_begin)(struct file *, struct address_space *mapping, loff_t pos, unsigned len, void **pagep);
	int (*write_end)(struct file *, struct address_space *mapping, loff_t pos, unsigned len, unsigned copied,
			 void *page);
};

/* inode->i_state (6.1's bits) */
#define I_DIRTY_SYNC		(1 << 0)
#define I_DIRTY_DATASYNC	(1 << 1)
#define I_DIRTY_PAGES		(1 << 2)
#define I_NEW			(1 << 3)
#define I_WILL_FREE		(1 << 4)
#define I_FREEING		(1 << 5)
#define I_CLEAR			(1 << 6)
#define I_SYNC			(1 << 7)
#define I_REFERENCED		(1 << 8)
#define I_DIRTY_TIME		(1 << 11)
#define I_DIRTY_INODE (I_DIRTY_SYNC | I_DIRTY_DATASYNC)
#define I_DIRTY (I_DIRTY_INODE | I_DIRTY_PAGES)

enum writeback_sync_modes { WB_SYNC_NONE, WB_SYNC_ALL };
enum wb_reason {
	WB_REASON_BACKGROUND,
	WB_REASON_VMSCAN,
	WB_REASON_SYNC,
	WB_REASON_PERIODIC,
	WB_REASON_LAPTOP_TIMER,
	WB_REASON_FS_FREE_SPACE,
	WB_REASON_FORKER_THREAD,
	WB_REASON_FOREIGN_FLUSH,
	WB_REASON_MAX,
};

struct writeback_control {
	long nr_to_write;		/* pages to write; decremented per page written */
	long pages_skipped;
	loff_t range_start;
	loff_t range_end;
	enum writeback_sync_modes sync_mode;
	unsigned for_kupdate:1;
	unsigned for_background:1;
	unsigned tagged_writepages:1;
	unsigned for_reclaim:1;
	unsigned range_cyclic:1;
	unsigned for_sync:1;
};

/* A block device's flusher (6.1: bdi_writeback, one per backing_dev_info here). */
struct bdi_writeback {
	char name[32];			/* the bdi's device name, "MAJOR:MINOR" */
	spinlock_t list_lock;
	struct list_head b_dirty;	/* dirty inodes, oldest dirtied first */
	struct list_head work_list;	/* queued wb_writeback_work */
	struct delayed_work dwork;	/* wb_workfn on bdi_wq */
	unsigned long last_old_flush;	/* jiffies of the last periodic flush */
	int start_all_reason;		/* wb_start_writeback()'s, -1: none asked */
	struct list_head bdi_list;	/* in bdi_list */
	struct super_block *sb;		/* the file system on the device */
};

struct wb_completion {
	int count;
};

struct wb_writeback_work {
	long nr_pages;
	struct super_block *sb;
	enum writeback_sync_modes sync_mode;
	unsigned int for_kupdate:1;
	unsigned int range_cyclic:1;
	unsigned int for_background:1;
	unsigned int for_sync:1;
	unsigned int auto_free:1;
	enum wb_reason reason;
	struct list_head list;
	struct wb_completion *done;
};

/* bdi_dev_name(inode_to_bdi(inode)): a file system without a block device has none */
static __always_inline const char *inode_bdi_name(struct inode *inode)
{
	return inode->i_wb ? inode->i_wb->name : "(unknown)";
}

static __always_inline struct page *page_of(void *kaddr) { return virt_to_page(kaddr); }
static __always_inline bool PageDirty(void *p) { return page_of(p)->flags & PG_dirty; }
static __always_inline bool PageWriteback(void *p) { return page_of(p)->flags & PG_writeback; }
static __always_inline bool PageUptodate(void *p) { return page_of(p)->flags & PG_uptodate; }

/* Whether the page is on an LRU list (mm/vmscan.c): a page of the page cache flagged PG_lru
 * (anonymous pages are flagged but kept on no list: with no swap, reclaim leaves them) */
static __always_inline bool folio_on_lru_list(struct page *page)
{
	return (page->flags & (PG_lru | PG_anon)) == PG_lru;
}

/* A page's lock (PG_locked) and references (include/linux/pagemap.h, mm.h).  The page cache
 * holds one reference on each of its pages; whoever uses one outside the cache's locks takes
 * its own (folio_try_get: not on a page whose count reclaim froze at 0) and drops it
 * (folio_put: the last frees the page). */
static __always_inline bool folio_trylock(void *page)
{
	return !(__atomic_fetch_or(&page_of(page)->flags, PG_locked, __ATOMIC_ACQUIRE) & PG_locked);
}
void __folio_lock(void *page);
static __always_inline void folio_lock(void *page)
{
	if (!folio_trylock(page))
		__folio_lock(page);
}
static __always_inline bool folio_try_get(void *page)
{
	int *count = &page_of(page)->_refcount, v = READ_ONCE(*count);

	do {
		if (!v)
			return false;
	} while (!__atomic_compare_exchange_n(count, &v, v + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return true;
}
static __always_inline void folio_get(void *page)
{
	__atomic_add_fetch(&page_of(page)->_refcount, 1, __ATOMIC_SEQ_CST);
}
void __folio_put(struct page *page);
static __always_inline void folio_put(void *page)
{
	if (!__atomic_sub_fetch(&page_of(page)->_refcount, 1, __ATOMIC_SEQ_CST))
		__folio_put(page_of(page));
}

/* mm/filemap.c */
void **mapping_slot(struct address_space *m, unsigned long index, bool grow);
int filemap_add_folio(struct address_space *mapping, void *page, unsigned long index, gfp_t gfp);
#define FGP_ACCESSED	0x00000001
#define FGP_LOCK	0x00000002
#define FGP_CREAT	0x00000004
#define FGP_WRITE	0x00000008
void *__filemap_get_folio(struct address_space *mapping, unsigned long index, int fgp_flags, gfp_t gfp);
/* mm/swap_state.c: the file's cached page at index, or NULL */
void *find_get_incore_page(struct address_space *mapping, unsigned long index);
void filemap_remove_folio(struct address_space *mapping, unsigned long index);
void __filemap_remove_folio(struct address_space *mapping, void *page, unsigned long index);
bool filemap_release_folio(void *page, gfp_t gfp);
void truncate_inode_pages(struct address_space *mapping, loff_t lstart);
void truncate_inode_pages_final(struct address_space *mapping);
void truncate_inode_pages_range(struct address_space *mapping, loff_t lstart, loff_t lend);
void *filemap_alloc_folio(gfp_t gfp, unsigned int order);
void folio_unlock(void *page);
void folio_wait_bit(void *page, unsigned long bit);
ssize_t generic_file_read_iter(struct kiocb *iocb, struct iov_iter *iter);
ssize_t generic_file_write_iter(struct kiocb *iocb, struct iov_iter *from);
int filemap_fdatawrite_wbc(struct address_space *mapping, struct writeback_control *wbc);
int file_write_and_wait_range(struct file *file, loff_t start, loff_t end);
int __filemap_fdatawrite_range(struct address_space *mapping, loff_t start, loff_t end, int sync_mode);
int file_fdatawait_range(struct file *file, loff_t start_byte, loff_t end_byte);
int generic_file_rw_checks(struct file *file_in, struct file *file_out);
int generic_write_check_limits(struct file *file, loff_t pos, loff_t *count);
int filemap_fdatawait_range(struct address_space *mapping, loff_t start, loff_t end);
void folio_wait_writeback(void *page);
void folio_end_writeback(void *page);
bool filemap_dirty_folio(struct address_space *mapping, void *page, unsigned long index);
/* mm/swap.c */
void folio_mark_accessed(void *page);
void mark_page_accessed(struct page *page);	/* folio-compat.c: its page-based name */
void folio_add_lru(void *page);
/* mm/page-writeback.c */
bool folio_mark_dirty(struct address_space *mapping, void *page, unsigned long index);
bool folio_clear_dirty_for_io(void *page);
void folio_account_cleaned(void *page);
void __folio_mark_dirty(struct address_space *mapping, void *page, unsigned long index);
bool __folio_end_writeback(void *page);
bool __folio_start_writeback(void *page, bool keep_write);
static __always_inline void folio_start_writeback(void *page)
{
	__folio_start_writeback(page, false);
}
int do_writepages(struct address_space *mapping, struct writeback_control *wbc);
extern unsigned int dirty_writeback_interval;
extern unsigned int dirty_expire_interval;
/* fs/fs-writeback.c */
void __mark_inode_dirty(struct inode *inode, int flags);
/* fs/inode.c */
int file_update_time(struct file *file);
void bdi_writeback_init(struct bdi_writeback *wb, dev_t dev, struct super_block *sb);
void bdi_writeback_exit(struct bdi_writeback *wb);
void mark_inode_dirty(struct inode *inode);
extern long global_dirty_pages;
void inode_attach_wb(struct inode *inode, struct bdi_writeback *wb);
void inode_io_list_del(struct inode *inode);
void wakeup_flusher_threads(enum wb_reason reason);
void sync_inodes_sb(struct super_block *sb);
void wb_wakeup_delayed(struct bdi_writeback *wb);
#endif
