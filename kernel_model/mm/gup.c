/*
 * mm/gup.c: get_user_pages_remote(), the pages of another address space by their user
 * addresses, faulted in where they are not there yet -- what access_remote_vm() reads and
 * writes through (/proc/PID/mem, cmdline, environ).  FOLL_FORCE lets a reader that may trace
 * the task read what it cannot read itself (VM_MAYREAD) and write into its private read-only
 * mappings (program text, as a debugger's breakpoint): the write breaks COW into a page of
 * its own that stays read-only to the task (follow_page_pte's can_follow_write_pte()).
 * One page at a time here: no huge pages, no pinning (FOLL_PIN), no gate area.
 */
#include "../include/kernel.h"
#include "../include/mmap_lock.h"
#include "../include/session.h"
#include "../include/pagemap.h"

/* A private mapping that may be written: its writes are copies (include/linux/mm.h) */
static inline bool is_cow_mapping(unsigned long flags)
{
	return (flags & (VM_SHARED | VM_MAYWRITE)) == VM_MAYWRITE;
}

/* No page table, or no page in it: a fault brings one, except a FOLL_DUMP hole */
static inline struct page *no_page_table(struct vm_area_struct *vma, unsigned int flags)
{
	if ((flags & FOLL_DUMP) && (vma_is_anonymous(vma) || !vma->vm_ops->fault))
		return ERR_PTR(-EFAULT);
	return NULL;
}

/* A reference to the page for the caller (FOLL_GET).  The zero page is counted by no one here
 * (a kernel page that no allocation made): its references are not taken, as later kernels
 * skip them (is_zero_page()), and put_gup_page() drops none. */
noinline bool try_grab_page(struct page *page, unsigned int flags)
{
	if ((flags & FOLL_GET) && !is_zero_page(page))
		get_page(page);
	return true;
}

/* put_page() of a page get_user_pages*() gave: its reference (the zero page has none) */
notrace void put_gup_page(struct page *page)
{
	if (!is_zero_page(page))
		__free_pages(page, 0);
}

/* May the write go to the page without a write fault first?  Its PTE is writable; or a forced
 * write into a private read-only mapping whose page is already this mm's own copy (6.1's
 * PageAnonExclusive: an anonymous page mapped once, one reference, here) */
static inline bool can_follow_write_pte(u64 pte, struct page *page, struct vm_area_struct *vma,
					unsigned int flags)
{
	if (pte & _PAGE_RW)
		return true;
	if (!(flags & FOLL_FORCE))
		return false;
	if (vma->vm_flags & (VM_MAYSHARE | VM_SHARED))
		return false;
	if (!(vma->vm_flags & VM_MAYWRITE))
		return false;
	if (vma->vm_flags & VM_WRITE)	/* a writable VMA's fault made the PTE writable */
		return false;
	return page && (page->flags & PG_anon) && page_count(page) == 1;
}

/* The page the PTE maps (the model's walk hands the PTE, 6.1's the PMD it is under) */
noinline struct page *follow_page_pte(struct vm_area_struct *vma, unsigned long address, u64 *ptep,
				      unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	struct page *page;
	u64 pte;

	spin_lock(&mm->page_table_lock);	/* pte_offset_map_lock() */
	pte = *ptep;
	if (!(pte & _PAGE_PRESENT)) {
		spin_unlock(&mm->page_table_lock);
		return pte ? NULL : no_page_table(vma, flags);
	}
	page = vm_normal_page(vma, address, pte);
	if ((flags & FOLL_WRITE) && !can_follow_write_pte(pte, page, vma, flags)) {
		page = NULL;	/* a write fault first */
		goto out;
	}
	if (!page) {
		if (flags & FOLL_DUMP) {
			page = ERR_PTR(-EFAULT);
			goto out;
		}
		if (pte_pfn(pte) == __pa(empty_zero_page) >> 12) {	/* is_zero_pfn() */
			page = virt_to_page(empty_zero_page);
		} else {
			page = ERR_PTR(-EFAULT);	/* follow_pfn_pte(): no struct page to give */
			goto out;
		}
	}
	if (!try_grab_page(page, flags)) {
		page = ERR_PTR(-ENOMEM);
		goto out;
	}
	if (flags & FOLL_TOUCH)	/* (a written page's PTE is dirty already: its fault made it so) */
		mark_page_accessed(page);
out:
	spin_unlock(&mm->page_table_lock);
	return page;
}

/* The page mapped at address, NULL if a fault must bring it (the table walk down to the PTE:
 * follow_p4d_mask .. follow_pmd_mask, inline in 6.1) */
noinline struct page *follow_page_mask(struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	u64 *ptep = lookup_pte(vma->vm_mm, address, false);

	if (!ptep)
		return no_page_table(vma, flags);
	return follow_page_pte(vma, address, ptep, flags);
}

/* The fault a missing (or write-protected) page needs, as the task's own access would make it */
static inline int faultin_page(struct vm_area_struct *vma, unsigned long address, unsigned int *flags)
{
	unsigned int fault_flags = 0;
	int ret;

	if (*flags & FOLL_WRITE)
		fault_flags |= FAULT_FLAG_WRITE;
	if (*flags & FOLL_REMOTE)
		fault_flags |= FAULT_FLAG_REMOTE;
	ret = handle_mm_fault(vma, address, fault_flags, NULL);
	if (ret & VM_FAULT_ERROR)	/* vm_fault_to_errno() */
		return ret & VM_FAULT_OOM ? -ENOMEM : -EFAULT;
	return 0;
}

/* May the access go to this VMA at all? */
noinline int check_vma_flags(struct vm_area_struct *vma, unsigned long gup_flags)
{
	unsigned long vm_flags = vma->vm_flags;

	if ((gup_flags & FOLL_ANON) && !vma_is_anonymous(vma))
		return -EFAULT;
	if (gup_flags & FOLL_WRITE) {
		if (!(vm_flags & VM_WRITE)) {
			if (!(gup_flags & FOLL_FORCE))
				return -EFAULT;
			if (!is_cow_mapping(vm_flags))	/* never into a shared mapping it cannot write */
				return -EFAULT;
		}
	} else if (!(vm_flags & VM_READ)) {
		if (!(gup_flags & FOLL_FORCE))
			return -EFAULT;
		if (!(vm_flags & VM_MAYREAD))
			return -EFAULT;
	}
	return 0;
}

/* nr_pages pages from start into pages[] (each with a reference) and their VMAs into vmas[];
 * how many it got, or the error that stopped it at the first (the caller holds mmap_lock) */
noinline long __get_user_pages(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
			       unsigned int gup_flags, struct page **pages, struct vm_area_struct **vmas)
{
	struct vm_area_struct *vma = NULL;
	long ret = 0, i = 0;

	if (!nr_pages)
		return 0;
	start &= ~(PAGE_SIZE - 1);
	if (pages)
		gup_flags |= FOLL_GET;
	do {
		struct page *page;

		if (!vma || start >= vma->vm_end) {
			/* (6.1.192's: no stack grows under the read lock, only a fault's does) */
			vma = vma_lookup(mm, start);
			if (!vma) {
				ret = -EFAULT;
				goto out;
			}
			ret = check_vma_flags(vma, gup_flags);
			if (ret)
				goto out;
		}
retry:
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out;
		}
		page = follow_page_mask(vma, start, gup_flags);
		if (!page) {
			ret = faultin_page(vma, start, &gup_flags);
			if (ret)
				goto out;
			goto retry;
		} else if (IS_ERR(page)) {
			ret = PTR_ERR(page);
			goto out;
		}
		if (pages)
			pages[i] = page;
		else
			put_gup_page(page);
		if (vmas)
			vmas[i] = vma;
		i++;
		start += PAGE_SIZE;
	} while (--nr_pages);
out:
	return i ? i : ret;
}

/* __get_user_pages_locked() (inline): mmap_lock held by the caller throughout here */
noinline long __get_user_pages_remote(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
				      unsigned int gup_flags, struct page **pages, struct vm_area_struct **vmas,
				      int *locked)
{
	return __get_user_pages(mm, start, nr_pages, gup_flags | FOLL_TOUCH | FOLL_REMOTE, pages, vmas);
}

/* Another mm's pages (or the caller's own, as a tracer's): the caller holds its mmap_lock */
noinline long get_user_pages_remote(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
				    unsigned int gup_flags, struct page **pages, struct vm_area_struct **vmas,
				    int *locked)
{
	if (gup_flags & (FOLL_PIN | FOLL_LONGTERM))	/* is_valid_gup_flags(): pin_user_pages*()'s */
		return -EINVAL;
	return __get_user_pages_remote(mm, start, nr_pages, gup_flags, pages, vmas, locked);
}
