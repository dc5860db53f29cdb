/*
 * mincore(2) (mm/mincore.c): one byte per page of the range, 1 where the page is resident: an
 * anonymous page that is mapped (its PTE present; no swap here), a file's page mapped or in
 * its page cache.  The range stops at a hole (ENOMEM); a start not page-aligned is EINVAL.  A
 * file mapping the caller could not open for writing reads as all resident (6.1's
 * can_do_mincore: no side channel on others' page cache).  A session task's VMAs are its host
 * process's (MMF_HOST_VMAS): their pages are the host's, which the kernel does not map, so an
 * anonymous one reads as not resident here.
 */
#include "../include/syscalls.h"
#include "../include/mm.h"
#include "../include/fs.h"
#include "../include/pagemap.h"
#include "../include/mmap_lock.h"
#include "../include/cred.h"

#define PMD_SPAN	(1UL << 21)	/* what one page table maps */

struct file *vma_mapped_file(struct vm_area_struct *vma);	/* mmap.c: a regular file's mapping */

static inline unsigned char mincore_page(struct address_space *mapping, unsigned long index)
{
	void *page = find_get_incore_page(mapping, index);
	unsigned char present;

	if (!page)
		return 0;
	present = PageUptodate(page);
	folio_put(page);
	return present;
}

/* pages without a PTE: a file's may be in its page cache, an anonymous one is not there */
static noinline int __mincore_unmapped_range(unsigned long addr, unsigned long end,
					    struct vm_area_struct *vma, unsigned char *vec)
{
	unsigned long nr = (end - addr) >> PAGE_SHIFT, i;
	struct file *file = vma_mapped_file(vma);

	if (file) {
		unsigned long pgoff = ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;

		for (i = 0; i < nr; i++, pgoff++)
			vec[i] = mincore_page(file->f_mapping, pgoff);
	} else {
		for (i = 0; i < nr; i++)
			vec[i] = 0;
	}
	return nr;
}

/* (the walk's pte_entry for one page table's span, as 6.1's per PMD) */
noinline int mincore_pte_range(struct vm_area_struct *vma, unsigned long addr, unsigned long end,
			       unsigned char *vec)
{
	for (; addr != end; addr += PAGE_SIZE, vec++) {
		u64 *pte = lookup_pte(vma->vm_mm, addr, false);

		if (pte && (*pte & _PAGE_PRESENT))
			*vec = 1;
		else
			__mincore_unmapped_range(addr, addr + PAGE_SIZE, vma, vec);
	}
	return 0;
}

/* whether the caller may learn the mapping's residency: anonymous memory, or a file it owns or
 * could write */
static inline bool can_do_mincore(struct vm_area_struct *vma)
{
	struct file *file = vma_mapped_file(vma);

	if (vma_is_anonymous(vma))
		return true;
	if (!file)
		return false;
	return inode_owner_or_capable(NULL, file->f_inode) || inode_permission(file->f_inode, MAY_WRITE) == 0;
}

/* The pages of [addr, addr + pages) in the VMA at addr, into vec: how many (at most the VMA's) */
static notrace long do_mincore(unsigned long addr, unsigned long pages, unsigned char *vec)
{
	struct vm_area_struct *vma = find_vma(current->mm, addr);
	unsigned long start = addr, end, next;

	if (!vma || addr < vma->vm_start)
		return -ENOMEM;
	end = min(vma->vm_end, addr + (pages << PAGE_SHIFT));
	if (!can_do_mincore(vma)) {
		memset(vec, 1, (end - addr) >> PAGE_SHIFT);
		return (end - addr) >> PAGE_SHIFT;
	}
	for (; addr < end; addr = next) {	/* walk_page_range(): a page table's span at a time */
		next = min((addr + PMD_SPAN) & ~(PMD_SPAN - 1), end);
		mincore_pte_range(vma, addr, next, vec);
		vec += (next - addr) >> PAGE_SHIFT;
	}
	return (end - start) >> PAGE_SHIFT;
}

SYSCALL_DEFINE3(mincore, unsigned long, start, size_t, len, unsigned char *, vec)
{
	unsigned long pages;
	unsigned char *tmp;
	long retval;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (len > TASK_SIZE_MAX || start > TASK_SIZE_MAX - len)	/* access_ok() */
		return -ENOMEM;
	pages = len >> PAGE_SHIFT;
	pages += offset_in_page(len) != 0;
	if (pages > TASK_SIZE_MAX || (unsigned long)vec > TASK_SIZE_MAX - pages)
		return -EFAULT;
	tmp = (void *)__get_free_pages(GFP_KERNEL, 0);	/* __get_free_page(GFP_USER) */
	if (!tmp)
		return -EAGAIN;
	retval = 0;
	while (pages) {	/* at most a page of bytes at a time: the buffer's size */
		mmap_read_lock(current->mm);
		retval = do_mincore(start, min(pages, PAGE_SIZE), tmp);
		mmap_read_unlock(current->mm);
		if (retval <= 0)
			break;
		if (copy_to_user(vec, tmp, retval)) {
			retval = -EFAULT;
			break;
		}
		pages -= retval;
		vec += retval;
		start += retval << PAGE_SHIFT;
		retval = 0;
	}
	free_page(tmp);
	return retval;
}
