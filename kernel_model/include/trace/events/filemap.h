/* filemap: pages entering and leaving the page cache (include/trace/events/filemap.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM filemap

#define MM_FILEMAP_OP_PAGE_CACHE(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct address_space *mapping, void *page, unsigned long index), \
	TP_ARGS(mapping, page, index), \
	TP_STRUCT__entry( \
		__field(unsigned long, pfn) \
		__field(unsigned long, i_ino) \
		__field(unsigned long, index) \
		__field(dev_t, s_dev) \
		__field(unsigned char, order) \
	), \
	TP_fast_assign( \
		__entry->pfn = page_to_pfn(virt_to_page(page)); \
		__entry->i_ino = mapping->host->i_ino; \
		__entry->index = index; \
		if (mapping->host->i_sb) \
			__entry->s_dev = mapping->host->i_sb->s_dev; \
		else \
			__entry->s_dev = mapping->host->i_rdev; \
		__entry->order = 0; \
	), \
	TP_printk("dev %d:%d ino %lx pfn=0x%lx ofs=%lu order=%u", \
		MAJOR(__entry->s_dev), MINOR(__entry->s_dev), \
		__entry->i_ino, \
		__entry->pfn, \
		__entry->index << PAGE_SHIFT, \
		__entry->order) \
)
MM_FILEMAP_OP_PAGE_CACHE(mm_filemap_delete_from_page_cache)
MM_FILEMAP_OP_PAGE_CACHE(mm_filemap_add_to_page_cache)
