/*
 * Page faults on user memory (mm/memory.c): demand paging of anonymous memory (the zero
 * page for reads, a fresh page for writes) and of file-backed mappings through the VMA's
 * ->fault, copy-on-write after fork, and the page-table walks of munmap, mprotect and fork.
 */
#include "../include/kernel.h"
#include "../include/mmap_lock.h"
#include "../include/tlb.h"


/* mm/memory.c: the shared zero page, mapped read-only wherever anonymous memory is read
 * before it is written (_PAGE_SPECIAL: no reference is counted, no one frees it). */
u8 empty_zero_page[PAGE_SIZE] __aligned(PAGE_SIZE);

static inline struct page *pte_page(u64 pte)
{
	return pfn_to_page((pte & PTE_PFN_MASK) >> 12);
}

/* The struct page a PTE maps, NULL for a special one (6.1 with ARCH_HAS_PTE_SPECIAL: the zero
 * page, and here the session's shared stub, which no one counts) */
noinline struct page *vm_normal_page(struct vm_area_struct *vma, unsigned long addr, u64 pte)
{
	if (likely(!(pte & _PAGE_SPECIAL)))
		return pte_page(pte);
	return NULL;
}

static inline void *pte_addr(u64 pte)
{
	return __va(pte & PTE_PFN_MASK);
}

static inline void put_page(struct page *page)
{
	__free_pages(page, 0);
}

/* include/linux/mm.h: the rss counter a mapped page counts in (a tmpfs page: RssShmem) */
static inline int mm_counter(struct page *page)
{
	if (page->flags & PG_anon)
		return MM_ANONPAGES;
	return page->flags & PG_swapbacked ? MM_SHMEMPAGES : MM_FILEPAGES;
}

/* Set the PTE of vmf->address to page, and drop stale translations of code. */
noinline void do_set_pte(struct vm_fault *vmf, struct page *page, u64 prot)
{
	void *addr = page_address(page);

	if (!(prot & _PAGE_NX))
		host_code_page(addr);
	*vmf->pte = __pa(addr) | prot;
	if (vmf->orig_pte & _PAGE_PRESENT) {
		/* another page than before (a COW copy): a thread of this mm on another CPU must not
		 * go on reading the old one through its TLB (x86's flush_tlb_page shoots it down) */
		flush_tlb_page(vmf->vma, vmf->address);
		flush_tlb_mm_range(vmf->vma->vm_mm, vmf->address, vmf->address + PAGE_SIZE);
	}
}

/* A page for the VMA at addr (mm/mempolicy.c: one node here, no policy to apply); a folio, so
 * __GFP_COMP, as 6.1's __folio_alloc() asks (the OOM killer's log and mm_page_alloc show it) */
noinline struct page *vma_alloc_folio(gfp_t gfp, int order, struct vm_area_struct *vma, unsigned long addr,
				      bool hugepage)
{
	return __folio_alloc(gfp, order, 0, NULL);	/* the default policy: this (the only) node */
}

static inline struct page *alloc_anon_page(struct vm_fault *vmf, bool zero)
{
	return vma_alloc_folio(GFP_HIGHUSER_MOVABLE | (zero ? __GFP_ZERO : 0), 0, vmf->vma, vmf->address, false);
}

/* mm/rmap.c: a page this VMA's fault just made is anonymous memory (PageAnon), mapped once. */
noinline void page_add_new_anon_rmap(struct page *page, struct vm_area_struct *vma, unsigned long address)
{
	page->flags |= PG_anon;
}

/* ---- the rss counters (SPLIT_RSS_COUNTING, as 6.1 builds x86-64) ---- */
noinline void mm_trace_rss_stat(struct mm_struct *mm, int member, long count)
{
	trace_rss_stat(mm, member, count);
}

/* the task's cached changes to its own mm's counters go to the mm */
noinline void sync_mm_rss(struct mm_struct *mm)
{
	int i;

	for (i = 0; i < NR_MM_COUNTERS; i++) {
		if (current->rss_stat.count[i]) {
			add_mm_counter(mm, i, current->rss_stat.count[i]);
			current->rss_stat.count[i] = 0;
		}
	}
	current->rss_stat.events = 0;
}

/* a fault's change: cached in the task when the mm is its own */
static noinline void add_mm_counter_fast(struct mm_struct *mm, int member, int val)
{
	struct task_struct *task = current;

	if (likely(task->mm == mm))
		task->rss_stat.count[member] += val;
	else
		add_mm_counter(mm, member, val);
}
#define inc_mm_counter_fast(mm, member) add_mm_counter_fast(mm, member, 1)
#define dec_mm_counter_fast(mm, member) add_mm_counter_fast(mm, member, -1)

/* sync counter once per 64 page faults */
#define TASK_RSS_EVENTS_THRESH	(64)
static void check_sync_rss_stat(struct task_struct *task)
{
	if (unlikely(task != current))
		return;
	if (unlikely(task->rss_stat.events++ > TASK_RSS_EVENTS_THRESH))
		sync_mm_rss(task->mm);
}

/* the end of a page table's walk (zap_pte_range, copy_pte_range): its changes at once, under
 * the table's lock as 6.1's (its split pte lock; the mm's page_table_lock here), which the
 * caller holds */
static inline void __add_mm_rss_vec(struct mm_struct *mm, int *rss)
{
	int i;

	if (current->mm == mm)
		sync_mm_rss(mm);
	for (i = 0; i < NR_MM_COUNTERS; i++)
		if (rss[i])
			add_mm_counter(mm, i, rss[i]);
	memset(rss, 0, sizeof(int) * NR_MM_COUNTERS);
}

static inline void add_mm_rss_vec(struct mm_struct *mm, int *rss)
{
	spin_lock(&mm->page_table_lock);
	__add_mm_rss_vec(mm, rss);
	spin_unlock(&mm->page_table_lock);
}

/* the walks below go page by page: a page table (6.1's zap_pte_range/copy_pte_range call)
 * ends at the next boundary of the span one table maps (a PMD entry's) or the range's end */
#define PMD_SIZE (512UL * PAGE_SIZE)

static inline bool pte_table_end(unsigned long addr, unsigned long end)
{
	return !((addr + PAGE_SIZE) & (PMD_SIZE - 1)) || addr + PAGE_SIZE >= end;
}

/* A written PTE: writable if the VMA is (a forced write -- FOLL_FORCE, a tracer's -- into a
 * read-only private mapping leaves it read-only to the task) */
static inline u64 maybe_mkwrite(u64 pte, struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_WRITE ? pte | _PAGE_RW : pte;
}

/* A new anonymous page mapped, dirty, at the fault's address (the caller holds the table's
 * lock, as 6.1's pte_offset_map_lock: the mm's page_table_lock here). */
static inline void map_new_anon_page(struct vm_fault *vmf, struct page *page)
{
	inc_mm_counter_fast(vmf->vma->vm_mm, MM_ANONPAGES);
	page_add_new_anon_rmap(page, vmf->vma, vmf->address);
	lru_cache_add_inactive_or_unevictable(page, vmf->vma);
	do_set_pte(vmf, page, maybe_mkwrite(vmf->vma->vm_page_prot | _PAGE_DIRTY, vmf->vma));
}

/*
 * A fault holds the mmap_lock for reading only: another thread of the mm may fault on the same
 * page at once.  The PTE changes under the table's lock (6.1's pte_offset_map_lock, split per
 * table; the mm's page_table_lock here), and only if it is still what the fault found
 * (pte_same): else the other thread's page stays, and this fault's work is undone.
 */
static inline void pte_lock(struct vm_fault *vmf)
{
	spin_lock(&vmf->vma->vm_mm->page_table_lock);
}

static inline void pte_unlock(struct vm_fault *vmf)
{
	spin_unlock(&vmf->vma->vm_mm->page_table_lock);
}

/* under the lock: the PTE changed since the fault read it (vmf_pte_changed) */
static inline bool pte_changed(struct vm_fault *vmf)
{
	return *vmf->pte != vmf->orig_pte;
}

static inline int do_anonymous_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct page *page;

	if (!(vmf->flags & FAULT_FLAG_WRITE) && !(vma->vm_flags & VM_SHARED)) {
		/* a read: the zero page, until written */
		pte_lock(vmf);
		if (!pte_changed(vmf))
			*vmf->pte = __pa(empty_zero_page) | (vma->vm_page_prot & ~_PAGE_RW) | _PAGE_SPECIAL;
		pte_unlock(vmf);
		return 0;
	}
	page = alloc_anon_page(vmf, true);
	if (!page)
		return VM_FAULT_OOM;
	pte_lock(vmf);
	if (pte_changed(vmf)) {
		pte_unlock(vmf);
		put_page(page);
		return 0;
	}
	map_new_anon_page(vmf, page);
	pte_unlock(vmf);
	return 0;
}

/* The page of the file at vmf->pgoff, from the VMA's ->fault. */
noinline int __do_fault(struct vm_fault *vmf)
{
	return vmf->vma->vm_ops->fault(vmf);
}

/* The page __do_fault found, or a private write's copy of it, into the PTE. */
noinline int finish_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;

	pte_lock(vmf);
	if (pte_changed(vmf)) {	/* another thread mapped it: its page stays */
		pte_unlock(vmf);
		put_page(vmf->cow_page ? vmf->cow_page : vmf->page);
		return 0;
	}
	if ((vmf->flags & FAULT_FLAG_WRITE) && !(vma->vm_flags & VM_SHARED)) {	/* did we COW? */
		map_new_anon_page(vmf, vmf->cow_page);
	} else {
		/* private: read-only until written (then copied: do_wp_page) */
		inc_mm_counter_fast(vma->vm_mm, mm_counter(vmf->page));
		do_set_pte(vmf, vmf->page, vma->vm_flags & VM_SHARED ? vma->vm_page_prot : vma->vm_page_prot & ~_PAGE_RW);
	}
	pte_unlock(vmf);
	return 0;
}

static inline int do_read_fault(struct vm_fault *vmf)
{
	int ret = __do_fault(vmf);

	if (ret)
		return ret;
	return finish_fault(vmf);
}

static inline int do_cow_fault(struct vm_fault *vmf)
{
	int ret;

	vmf->cow_page = alloc_anon_page(vmf, false);
	if (!vmf->cow_page)
		return VM_FAULT_OOM;
	ret = __do_fault(vmf);
	if (ret) {
		put_page(vmf->cow_page);
		return ret;
	}
	memcpy(page_address(vmf->cow_page), page_address(vmf->page), PAGE_SIZE);	/* copy_user_highpage */
	put_page(vmf->page);
	return finish_fault(vmf);
}

/* A write to a shared mapping: the file's own page, mapped writable (no page_mkwrite here:
 * tmpfs has none) */
static inline int do_shared_fault(struct vm_fault *vmf)
{
	int ret = __do_fault(vmf);

	if (ret)
		return ret;
	return finish_fault(vmf);
}

noinline int do_fault(struct vm_fault *vmf)
{
	if (!(vmf->flags & FAULT_FLAG_WRITE))
		return do_read_fault(vmf);
	if (!(vmf->vma->vm_flags & VM_SHARED))
		return do_cow_fault(vmf);
	return do_shared_fault(vmf);
}

/* Break COW: a copy of the page (or of the zero page) that this address space owns. */
noinline int wp_page_copy(struct vm_fault *vmf)
{
	u64 old = vmf->orig_pte;
	struct page *page = alloc_anon_page(vmf, !!(old & _PAGE_SPECIAL));

	if (!page)
		return VM_FAULT_OOM;
	if (!(old & _PAGE_SPECIAL))
		memcpy(page_address(page), pte_addr(old), PAGE_SIZE);
	pte_lock(vmf);
	if (pte_changed(vmf)) {	/* another thread broke the COW first */
		pte_unlock(vmf);
		put_page(page);
		return 0;
	}
	map_new_anon_page(vmf, page);
	if (!(old & _PAGE_SPECIAL))
		dec_mm_counter_fast(vmf->vma->vm_mm, mm_counter(pte_page(old)));
	pte_unlock(vmf);
	if (!(old & _PAGE_SPECIAL))
		put_page(pte_page(old));
	return 0;
}

/* Called with the PTE's lock held (and the PTE as the fault found it); drops it. */
noinline int do_wp_page(struct vm_fault *vmf)
{
	u64 pte = vmf->orig_pte;
	struct page *page;

	if (vmf->vma->vm_flags & VM_SHARED) {
		*vmf->pte = pte | _PAGE_RW | _PAGE_DIRTY;
		pte_unlock(vmf);
		flush_tlb_page(vmf->vma, vmf->address);
		return 0;
	}
	page = vm_normal_page(vmf->vma, vmf->address, pte);
	if (page && (page->flags & PG_anon) && page_count(page) == 1) {
		/* wp_page_reuse(): no one else maps it any more */
		*vmf->pte = maybe_mkwrite(pte | _PAGE_DIRTY, vmf->vma);
		pte_unlock(vmf);
		flush_tlb_page(vmf->vma, vmf->address);
		return 0;
	}
	pte_unlock(vmf);	/* (wp_page_copy allocates, then checks the PTE again) */
	return wp_page_copy(vmf);
}

static inline int handle_pte_fault(struct vm_fault *vmf)
{
	vmf->orig_pte = READ_ONCE(*vmf->pte);
	if (!(vmf->orig_pte & _PAGE_PRESENT))
		return vma_is_anonymous(vmf->vma) ? do_anonymous_page(vmf) : do_fault(vmf);
	pte_lock(vmf);
	if (pte_changed(vmf)) {	/* another thread changed it meanwhile: its fault did the work */
		pte_unlock(vmf);
		return 0;
	}
	if ((vmf->flags & FAULT_FLAG_WRITE) && !(vmf->orig_pte & _PAGE_RW))
		return do_wp_page(vmf);
	pte_unlock(vmf);
	/* spurious: another thread got there first, or a stale TLB entry */
	flush_tlb_page(vmf->vma, vmf->address);
	return 0;
}

static noinline int __handle_mm_fault(struct vm_area_struct *vma, unsigned long address,
				      unsigned int flags)
{
	struct vm_fault vmf = {
		.vma = vma,
		.address = address & PAGE_MASK,
		.flags = flags,
		.pgoff = vma->vm_pgoff + (((address & PAGE_MASK) - vma->vm_start) >> 12),
	};

	vmf.pte = lookup_pte(vma->vm_mm, vmf.address, true);
	if (!vmf.pte)
		return VM_FAULT_OOM;
	return handle_pte_fault(&vmf);
}

/* The mmap_lock for a fault (mmap_read_trylock, then mmap_read_lock_killable), unless a fault
 * of the kernel's comes from code that may not fault (no fixup): it may hold the lock already. */
static inline bool get_mmap_lock_carefully(struct mm_struct *mm, struct pt_regs *regs)
{
	if (likely(mmap_read_trylock(mm)))
		return true;
	if (regs && !user_mode(regs) && !search_exception_tables(regs->ip))
		return false;
	return !mmap_read_lock_killable(mm);
}

/* No atomic upgrade of a read lock (6.1's mmap_upgrade_trylock() has none yet): it is let go
 * and the write lock taken, so the caller looks the VMA up again. */
static inline bool upgrade_mmap_lock_carefully(struct mm_struct *mm, struct pt_regs *regs)
{
	mmap_read_unlock(mm);
	if (regs && !user_mode(regs) && !search_exception_tables(regs->ip))
		return false;
	return !mmap_write_lock_killable(mm);
}

/*
 * do_user_addr_fault's: the mmap_lock held for reading and the VMA at addr, or NULL (and no
 * lock).  A stack that must grow down to addr grows with the lock held for writing, which is
 * then downgraded: a stack's VMA never changes under readers (6.1.192's, after the StackRot fix).
 */
noinline struct vm_area_struct *lock_mm_and_find_vma(struct mm_struct *mm, unsigned long addr,
						     struct pt_regs *regs)
{
	struct vm_area_struct *vma;

	if (!get_mmap_lock_carefully(mm, regs))
		return NULL;
	vma = find_vma(mm, addr);
	if (likely(vma && vma->vm_start <= addr))
		return vma;
	if (!vma || !(vma->vm_flags & VM_GROWSDOWN)) {
		mmap_read_unlock(mm);
		return NULL;
	}
	if (!upgrade_mmap_lock_carefully(mm, regs))
		return NULL;
	vma = find_vma(mm, addr);
	if (!vma)
		goto fail;
	if (vma->vm_start <= addr)
		goto success;
	if (!(vma->vm_flags & VM_GROWSDOWN) || expand_stack_locked(vma, addr))
		goto fail;
success:
	mmap_write_downgrade(mm);
	return vma;
fail:
	mmap_write_unlock(mm);
	return NULL;
}

/* The caller holds mmap_lock and checked the access against the VMA. */
noinline int handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags,
			     struct pt_regs *regs)
{
	/* do counter updates before entering really critical section. */
	check_sync_rss_stat(current);
	return __handle_mm_fault(vma, address, flags);
}

/* ---- page-table walks over a VMA's range ---- */
struct zap_details;	/* (which pages a zap takes: always NULL here, every one) */
/*
 * The pages mapped in [start, end) of the VMA unmapped, their references gathered in tlb
 * (zap_p4d_range → ... → zap_pte_range, inline in 6.1): freed once the TLBs forgot them, at
 * the caller's tlb_finish_mmu, or here when the batches are full (force_flush).
 */
noinline void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
			       unsigned long end, struct zap_details *details)
{
	struct mm_struct *mm = vma->vm_mm;
	int rss[NR_MM_COUNTERS] = { 0 };
	bool table = false, force_flush = false;
	unsigned long addr;

	for (addr = start; addr < end; addr += PAGE_SIZE) {
		u64 *pte = lookup_pte(mm, addr, false), old;
		struct page *page;

		/* a table's PTEs under its lock (madvise's zap holds the mmap_lock for reading only:
		 * a fault of another thread may map one of them at once) */
		if (pte && !table)
			spin_lock(&mm->page_table_lock);
		table |= pte != NULL;
		if (pte && (*pte & _PAGE_PRESENT)) {
			old = *pte;
			*pte = 0;
			tlb_remove_tlb_entry(tlb, vma, addr);
			page = vm_normal_page(vma, addr, old);
			if (page) {
				rss[mm_counter(page)]--;
				force_flush = __tlb_remove_page(tlb, page);
			}
		}
		if (table && (force_flush || pte_table_end(addr, end))) {
			__add_mm_rss_vec(mm, rss);
			spin_unlock(&mm->page_table_lock);
			table = false;
		}
		if (force_flush) {	/* no room for more: free these before going on */
			tlb_flush_mmu(tlb);
			force_flush = false;
		}
	}
}

/* The part of [start_addr, end_addr) in the VMA. */
static noinline void unmap_single_vma(struct mmu_gather *tlb, struct vm_area_struct *vma,
				      unsigned long start_addr, unsigned long end_addr, struct zap_details *details)
{
	unsigned long start = max(vma->vm_start, start_addr), end = min(vma->vm_end, end_addr);

	if (start < end)
		unmap_page_range(tlb, vma, start, end, details);
}

/* munmap's: the range of the VMA (6.1 walks the maple tree's VMAs from vma on to end_addr;
 * unmap_region gives one VMA at a time here) */
noinline void unmap_vmas(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start_addr,
			 unsigned long end_addr)
{
	unmap_single_vma(tlb, vma, start_addr, end_addr, NULL);
}

/* madvise(MADV_DONTNEED)'s (zap_page_range in 6.1.0: its own gather around the same walk) */
noinline void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	struct mmu_gather tlb;

	tlb_gather_mmu(&tlb, vma->vm_mm);
	unmap_single_vma(&tlb, vma, start, end, NULL);
	tlb_finish_mmu(&tlb);
}

/*
 * The pages of the file from page first on (nr pages; 0: to its end) unmapped from every VMA
 * that maps them (truncate, hole punch): a later access faults, and past the end gets SIGBUS.
 * A session task's VMAs have no pages here.
 */
noinline void unmap_mapping_pages(struct address_space *mapping, unsigned long first, unsigned long nr,
				  bool even_cows)
{
	unsigned long last = nr ? first + nr - 1 : ~0UL;
	struct vm_area_struct *vma;

	mutex_lock(&mapping->i_mmap_rwsem);
	list_for_each_entry(vma, &mapping->i_mmap, i_mmap_link) {
		unsigned long vstart = vma->vm_pgoff, vend = vstart + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1;
		unsigned long from = max(first, vstart), to = min(last, vend);

		if (from > to || mm_host_vmas(vma->vm_mm))
			continue;
		zap_page_range(vma, vma->vm_start + ((from - vstart) << PAGE_SHIFT),
			       vma->vm_start + ((to - vstart + 1) << PAGE_SHIFT));
	}
	mutex_unlock(&mapping->i_mmap_rwsem);
}

/* unmap_mapping_pages() of the bytes [holebegin, holebegin + holelen) (0: to the end), whole
 * pages from the one holebegin is in */
noinline void unmap_mapping_range(struct address_space *mapping, loff_t const holebegin, loff_t const holelen,
				  int even_cows)
{
	unsigned long hba = holebegin >> PAGE_SHIFT, hlen = 0;

	if (holelen) {
		hlen = (holelen + PAGE_SIZE - 1) >> PAGE_SHIFT;
		if (hba + hlen < hba)
			hlen = 0;	/* past the top: to the end */
	}
	unmap_mapping_pages(mapping, hba, hlen, even_cows);
}

/* fork: the child maps the parent's pages; private writable ones become copy-on-write in both. */
noinline int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	int rss[NR_MM_COUNTERS] = { 0 };
	bool table = false;
	unsigned long addr;

	for (addr = src_vma->vm_start; addr < src_vma->vm_end; addr += PAGE_SIZE) {
		u64 *src = lookup_pte(src_vma->vm_mm, addr, false), *dst, pte;
		struct page *page;

		table |= src != NULL;
		if (!src || !(*src & _PAGE_PRESENT))
			goto next;
		dst = lookup_pte(dst_vma->vm_mm, addr, true);
		if (!dst) {
			add_mm_rss_vec(dst_vma->vm_mm, rss);
			return -ENOMEM;
		}
		pte = *src;
		if (!(src_vma->vm_flags & VM_SHARED) && (pte & _PAGE_RW)) {
			pte &= ~_PAGE_RW;	/* copy-on-write */
			*src = pte;
			flush_tlb_page(src_vma, addr);
		}
		page = vm_normal_page(src_vma, addr, pte);	/* copy_present_pte */
		if (page) {
			get_page(page);
			rss[mm_counter(page)]++;
		}
		*dst = pte;
next:
		if (table && pte_table_end(addr, src_vma->vm_end)) {
			add_mm_rss_vec(dst_vma->vm_mm, rss);
			table = false;
		}
	}
	flush_tlb_mm_range(src_vma->vm_mm, src_vma->vm_start, src_vma->vm_end);
	return 0;
}

/* mprotect: the range's PTEs take the VMA's new protection (private pages stay COW). */
noinline void change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	unsigned long addr;

	for (addr = start; addr < end; addr += PAGE_SIZE) {
		u64 *pte = lookup_pte(vma->vm_mm, addr, false), old, new;

		if (!pte || !(*pte & _PAGE_PRESENT))
			continue;
		old = *pte;
		new = (old & (PTE_PFN_MASK | _PAGE_SPECIAL | _PAGE_DIRTY)) | (vma->vm_page_prot & ~_PAGE_RW);
		if ((vma->vm_flags & VM_WRITE) && ((vma->vm_flags & VM_SHARED) ||
		    (!(old & _PAGE_SPECIAL) && (old & _PAGE_RW))))
			new |= _PAGE_RW;
		if ((old & _PAGE_NX) && !(new & _PAGE_NX))
			host_code_page(pte_addr(old));
		*pte = new;
		flush_tlb_page(vma, addr);
	}
	flush_tlb_mm_range(vma->vm_mm, start, end);
}

/* ---- another address space's memory (access_remote_vm: /proc/PID/mem, cmdline, environ) ---- */
/* len bytes at addr of mm into buf, or from buf (FOLL_WRITE), a page at a time through
 * get_user_pages_remote (which faults them in, and breaks COW for a write); how many it moved,
 * short where the range stops being mapped or accessible. */
noinline int __access_remote_vm(struct mm_struct *mm, unsigned long addr, void *buf, int len,
				unsigned int gup_flags)
{
	void *old_buf = buf;
	int write = gup_flags & FOLL_WRITE;

	if (mm_host_vmas(mm))	/* another machine's memory: nothing of it is here */
		return 0;
	mmap_read_lock(mm);
	while (len) {
		int bytes, offset;
		struct vm_area_struct *vma = NULL;
		struct page *page;
		void *maddr;

		if (get_user_pages_remote(mm, addr, 1, gup_flags, &page, &vma, NULL) <= 0)
			break;	/* (no VMA here has an ->access of its own) */
		bytes = len;
		offset = addr & (PAGE_SIZE - 1);
		if (bytes > PAGE_SIZE - offset)
			bytes = PAGE_SIZE - offset;
		maddr = page_address(page);
		if (write) {
			memcpy(maddr + offset, buf, bytes);	/* copy_to_user_page() */
			if (vma->vm_flags & VM_EXEC)	/* code written: no cpu may run its old translation */
				host_code_page(maddr);
		} else {
			memcpy(buf, maddr + offset, bytes);	/* copy_from_user_page() */
		}
		put_gup_page(page);
		len -= bytes;
		buf += bytes;
		addr += bytes;
	}
	mmap_read_unlock(mm);
	return buf - old_buf;
}

noinline int access_remote_vm(struct mm_struct *mm, unsigned long addr, void *buf, int len,
			      unsigned int gup_flags)
{
	return __access_remote_vm(mm, addr, buf, len, gup_flags);
}
