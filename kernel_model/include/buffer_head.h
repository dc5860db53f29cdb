/* Buffer heads (include/linux/buffer_head.h): fs/buffer.c.  6.1 finds a buffer's mapping and
 * index through its page (folio->mapping, ->index); this kernel's struct page has neither, so
 * the buffer keeps them. */
#ifndef _BUFFER_HEAD_H
#define _BUFFER_HEAD_H
#include "pagemap.h"

struct block_device;

enum bh_state_bits { BH_Uptodate, BH_Dirty, BH_Lock, BH_Req, BH_Mapped = 5, BH_New };

struct buffer_head {
	unsigned long b_state;
	struct buffer_head *b_this_page;	/* the page's ring of buffers */
	struct page *b_page;
	u64 b_blocknr;
	struct block_device *b_bdev;
	size_t b_size;
	char *b_data;
	struct address_space *b_mapping;	/* (6.1: b_page's mapping) */
	unsigned long b_index;			/* (6.1: b_page's index) */
};

static __always_inline struct buffer_head *page_buffers(void *page)
{
	return (struct buffer_head *)page_of(page)->private;
}

static __always_inline void clear_buffer_dirty(struct buffer_head *bh)
{
	bh->b_state &= ~(1UL << BH_Dirty);
}

struct buffer_head *alloc_buffer_head(gfp_t gfp_flags);
void free_buffer_head(struct buffer_head *bh);
struct buffer_head *create_empty_buffers(struct address_space *mapping, void *page, unsigned long index,
					unsigned long blocksize, unsigned long b_state);
void mark_buffer_dirty(struct buffer_head *bh);
int block_write_end(struct file *file, struct address_space *mapping, loff_t pos, unsigned len,
		    unsigned copied, void *page);
int generic_write_end(struct file *file, struct address_space *mapping, loff_t pos, unsigned len,
		      unsigned copied, void *page);
bool try_to_free_buffers(void *page);
#endif
