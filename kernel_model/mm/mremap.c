/*
 * mremap(2) (mm/mremap.c): a mapping shrinks (its tail unmapped), grows where it is when the
 * addresses above it are free, or moves: a new VMA at a place get_unmapped_area() finds (or
 * MREMAP_FIXED names), the page tables' entries moved over to it (move_page_tables), the old
 * range unmapped (kept, empty, with MREMAP_DONTUNMAP).  A locked mapping's pages count in
 * locked_vm where they go (not faulted in again: the moved ones are present).  No hugetlb or
 * userfaultfd here: nothing waits on a move.  A session task's VMAs are its host
 * process's (MMF_HOST_VMAS): the same VMA changes, no page tables to move.
 */
#include "../include/syscalls.h"
#include "../include/mm.h"
#include "../include/fs.h"
#include "../include/mmap_lock.h"

#define MREMAP_MAYMOVE		1
#define MREMAP_FIXED		2
#define MREMAP_DONTUNMAP	4


/*
 * The PTEs of [old_addr, old_addr+len) of vma moved to new_addr in new_vma (move_ptes, inline
 * in 6.1): each present one cleared at the old address (and the TLBs told) and set at the new;
 * how many bytes were moved (short: no page table for the new address).
 */
noinline unsigned long move_page_tables(struct vm_area_struct *vma, unsigned long old_addr,
					struct vm_area_struct *new_vma, unsigned long new_addr,
					unsigned long len, bool need_rmap_locks)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long moved;

	if (mm_host_vmas(mm))	/* (a host's VMA has no pages here) */
		return len;
	for (moved = 0; moved < len; moved += PAGE_SIZE) {
		u64 *old_pte = lookup_pte(mm, old_addr + moved, false), *new_pte, pte;

		if (!old_pte || !(*old_pte & _PAGE_PRESENT))
			continue;
		new_pte = lookup_pte(new_vma->vm_mm, new_addr + moved, true);
		if (!new_pte)
			break;
		pte = *old_pte;
		*old_pte = 0;
		flush_tlb_page(vma, old_addr + moved);
		*new_pte = pte;
	}
	flush_tlb_mm_range(mm, old_addr, old_addr + len);
	return moved;
}

/* The VMA at addr, if [addr, addr+old_len) may become new_len bytes (ERR_PTR: why not). */
noinline struct vm_area_struct *vma_to_resize(unsigned long addr, unsigned long old_len, unsigned long new_len,
					      unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	unsigned long pgoff;

	if (!vma)
		return ERR_PTR(-EFAULT);
	/* a zero old_len duplicates a shared mapping; a private one's copy would be unrelated */
	if (!old_len && !(vma->vm_flags & (VM_SHARED | VM_MAYSHARE)))
		return ERR_PTR(-EINVAL);
	if ((flags & MREMAP_DONTUNMAP) && (vma->vm_flags & (VM_DONTEXPAND | VM_PFNMAP)))
		return ERR_PTR(-EINVAL);
	/* no remap across VMA boundaries */
	if (old_len > vma->vm_end - addr)
		return ERR_PTR(-EFAULT);
	if (new_len == old_len)
		return vma;
	pgoff = ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
	if (pgoff + (new_len >> PAGE_SHIFT) < pgoff)
		return ERR_PTR(-EINVAL);
	if (vma->vm_flags & (VM_DONTEXPAND | VM_PFNMAP))
		return ERR_PTR(-EFAULT);
	if (!may_expand_vm(mm, vma->vm_flags, (new_len - old_len) >> PAGE_SHIFT))
		return ERR_PTR(-ENOMEM);
	return vma;
}

/* The move itself: a VMA at new_addr, the pages moved to it, the old range unmapped (unless
 * MREMAP_DONTUNMAP); new_addr, or -errno with nothing changed. */
noinline unsigned long move_vma(struct vm_area_struct *vma, unsigned long old_addr, unsigned long old_len,
				unsigned long new_len, unsigned long new_addr, bool *locked, unsigned long flags,
				void *uf, void *uf_unmap)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long vm_flags = vma->vm_flags, new_pgoff, moved_len, excess = 0, hiwater_vm;
	struct vm_area_struct *new_vma;
	bool need_rmap_locks;
	int split = 0;
	long err = 0;

	/* do_munmap() below may split one VMA into three */
	if (mm->map_count >= MAX_MAP_COUNT - 3)
		return -ENOMEM;
	new_pgoff = vma->vm_pgoff + ((old_addr - vma->vm_start) >> PAGE_SHIFT);
	new_vma = copy_vma(&vma, new_addr, new_len, new_pgoff, &need_rmap_locks);
	if (!new_vma)
		return -ENOMEM;
	moved_len = move_page_tables(vma, old_addr, new_vma, new_addr, old_len, need_rmap_locks);
	if (moved_len < old_len) {
		/* the entries go back, and the new range is what is unmapped */
		err = -ENOMEM;
		move_page_tables(new_vma, new_addr, vma, old_addr, moved_len, true);
		vma = new_vma;
		old_len = new_len;
		old_addr = new_addr;
		new_addr = err;
	}
	/* VM_ACCOUNT hidden while the old range goes, so the pieces left keep their reservation */
	if ((vm_flags & VM_ACCOUNT) && !(flags & MREMAP_DONTUNMAP)) {
		vma->vm_flags &= ~VM_ACCOUNT;
		excess = vma->vm_end - vma->vm_start - old_len;
		if (old_addr > vma->vm_start && old_addr + old_len < vma->vm_end)
			split = 1;
	}
	/* total_vm counts the new range before the old one goes: the high-water mark is kept */
	hiwater_vm = mm->hiwater_vm;
	vm_stat_account(mm, vma->vm_flags, new_len >> PAGE_SHIFT);
	if (vm_flags & VM_LOCKED)	/* (the old range's are uncounted as it is unmapped) */
		mm->locked_vm += new_len >> PAGE_SHIFT;
	if (!err && (flags & MREMAP_DONTUNMAP)) {
		/* the old VMA stays, empty: an anonymous one as one never faulted */
		if (vma->vm_start == old_addr && vma->vm_end == old_addr + old_len && vma_is_anonymous(vma) &&
		    !vma->vm_file)
			vma->vm_pgoff = vma->vm_start >> PAGE_SHIFT;
		return new_addr;
	}
	if (do_mas_munmap(mm, old_addr, old_len) < 0)
		excess = 0;
	mm->hiwater_vm = hiwater_vm;
	if (excess) {
		vma->vm_flags |= VM_ACCOUNT;
		if (split)
			find_vma(mm, vma->vm_end)->vm_flags |= VM_ACCOUNT;
	}
	return new_addr;
}

/* MREMAP_FIXED or MREMAP_DONTUNMAP: a move to new_addr (FIXED) or where there is room */
static unsigned long mremap_to(unsigned long addr, unsigned long old_len, unsigned long new_addr,
			       unsigned long new_len, bool *locked, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long map_flags = 0;
	long ret;

	if (offset_in_page(new_addr))
		return -EINVAL;
	if (new_len > TASK_SIZE_MAX || new_addr > TASK_SIZE_MAX - new_len)
		return -EINVAL;
	/* the old and new ranges may not overlap */
	if (addr + old_len > new_addr && new_addr + new_len > addr)
		return -EINVAL;
	/* both ranges split in three at worst: room for move_vma()'s own check after that */
	if (mm->map_count + 2 >= MAX_MAP_COUNT - 3)
		return -ENOMEM;
	if (flags & MREMAP_FIXED) {
		ret = do_mas_munmap(mm, new_addr, new_len);
		if (ret)
			return ret;
	}
	if (old_len > new_len) {
		ret = do_mas_munmap(mm, addr + new_len, old_len - new_len);
		if (ret)
			return ret;
		old_len = new_len;
	}
	vma = vma_to_resize(addr, old_len, new_len, flags);
	if (IS_ERR(vma))
		return PTR_ERR(vma);
	/* MREMAP_DONTUNMAP grows the address space by old_len (== new_len) */
	if ((flags & MREMAP_DONTUNMAP) && !may_expand_vm(mm, vma->vm_flags, old_len >> PAGE_SHIFT))
		return -ENOMEM;
	if (flags & MREMAP_FIXED)
		map_flags |= MAP_FIXED;
	if (vma->vm_flags & VM_MAYSHARE)
		map_flags |= MAP_SHARED;
	ret = get_unmapped_area(vma->vm_file, new_addr, new_len,
				vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT), map_flags);
	if (IS_ERR((void *)ret))
		return ret;
	if (!(flags & MREMAP_FIXED))
		new_addr = ret;
	return move_vma(vma, addr, old_len, new_len, new_addr, locked, flags, NULL, NULL);
}

/* Whether the VMA may grow by delta where it is (nothing above it up to there, and in the
 * address space) */
static int vma_expandable(struct vm_area_struct *vma, unsigned long delta)
{
	unsigned long end = vma->vm_end + delta;

	if (end < vma->vm_end)
		return 0;
	if (find_vma_intersection(vma->vm_mm, vma->vm_end, end))
		return 0;
	if (get_unmapped_area(NULL, vma->vm_start, end - vma->vm_start, 0, MAP_FIXED) & ~PAGE_MASK)
		return 0;
	return 1;
}

SYSCALL_DEFINE5(mremap, unsigned long, addr, unsigned long, old_len, unsigned long, new_len, unsigned long, flags,
		unsigned long, new_addr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long ret = -EINVAL;
	bool locked = false;

	if (flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return ret;
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return ret;
	/* MREMAP_DONTUNMAP is always a move, and never resizes */
	if ((flags & MREMAP_DONTUNMAP) && (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
		return ret;
	if (offset_in_page(addr))
		return ret;
	old_len = PAGE_ALIGN(old_len);
	new_len = PAGE_ALIGN(new_len);
	/* a zero old_len is allowed (a shared mapping duplicated), a zero new_len is not */
	if (!new_len)
		return ret;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, addr);
	if (!vma) {
		ret = -EFAULT;
		goto out;
	}
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
		ret = mremap_to(addr, old_len, new_addr, new_len, &locked, flags);
		goto out;
	}
	/* shrinking always works: the pages past new_len go */
	if (old_len >= new_len) {
		int retval = do_mas_munmap(mm, addr + new_len, old_len - new_len);

		if (retval < 0 && old_len != new_len) {
			ret = retval;
			goto out;
		}
		ret = addr;
		goto out;
	}
	/* growing */
	vma = vma_to_resize(addr, old_len, new_len, flags);
	if (IS_ERR(vma)) {
		ret = PTR_ERR(vma);
		goto out;
	}
	/* up to the VMA's end: in place, when the addresses above it are free */
	if (old_len == vma->vm_end - addr && vma_expandable(vma, new_len - old_len)) {
		long pages = (new_len - old_len) >> PAGE_SHIFT;
		unsigned long extension_start = addr + old_len, extension_end = addr + new_len;
		unsigned long extension_pgoff = vma->vm_pgoff + ((extension_start - vma->vm_start) >> PAGE_SHIFT);
		struct vm_area_struct *merged;

		/* vma_merge() extends it (and takes in the next one if that becomes adjacent and
		 * alike); the model's vma_merge() leaves file VMAs alone, whose extension is
		 * vma_adjust()'s simple one then, as 6.1's for a VMA with ->close */
		merged = vma_merge(mm, vma, extension_start, extension_end, vma->vm_flags, vma->vm_ops,
				   vma->vm_private_data, extension_pgoff);
		if (!merged)
			vma->vm_end = extension_end;
		else
			vma = merged;
		vm_stat_account(mm, vma->vm_flags, pages);
		if (vma->vm_flags & VM_LOCKED)
			mm->locked_vm += pages;
		ret = addr;
		goto out;
	}
	/* elsewhere, if it may move */
	ret = -ENOMEM;
	if (flags & MREMAP_MAYMOVE) {
		unsigned long map_flags = vma->vm_flags & VM_MAYSHARE ? MAP_SHARED : 0;

		new_addr = get_unmapped_area(vma->vm_file, 0, new_len,
					     vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT), map_flags);
		if (IS_ERR((void *)new_addr)) {
			ret = new_addr;
			goto out;
		}
		ret = move_vma(vma, addr, old_len, new_len, new_addr, &locked, flags, NULL, NULL);
	}
out:
	mmap_write_unlock(mm);
	return ret;
}
