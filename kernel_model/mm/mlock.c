/*
 * mlock(2) and friends (mm/mlock.c): VM_LOCKED (and VM_LOCKONFAULT, mlock2's MLOCK_ONFAULT) on
 * the range's VMAs, split at its ends (mlock_fixup), the pages faulted in (__mm_populate) unless
 * on fault, counted in mm->locked_vm (/proc/PID/status's VmLck) and held to RLIMIT_MEMLOCK
 * (ENOMEM; EPERM when it is 0) without CAP_IPC_LOCK.  mlockall's MCL_FUTURE locks what is
 * mapped later (mm->def_flags).  There is no reclaim here, so a locked page and another are
 * alike once present: no mlock LRU, no mlock_folio.  A session task's VMAs are its host
 * process's (MMF_HOST_VMAS): flags and counts are kept, the host faulted the pages.  A VMA
 * whose flags changed back is not merged again with its neighbours (as mprotect here).
 */
#include "../include/syscalls.h"
#include "../include/mm.h"
#include "../include/mmap_lock.h"
#include "../include/cred.h"

#define MLOCK_ONFAULT		0x01
#define MCL_CURRENT		1
#define MCL_FUTURE		2
#define MCL_ONFAULT		4

/* May the caller lock memory at all: a RLIMIT_MEMLOCK above 0, or CAP_IPC_LOCK */
noinline bool can_do_mlock(void)
{
	if (rlimit(RLIMIT_MEMLOCK) != 0)
		return true;
	if (capable(CAP_IPC_LOCK))
		return true;
	return false;
}

/* the range's part of the VMA gets newflags (split off first), the locked pages counted */
static noinline int mlock_fixup(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				unsigned long newflags)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long oldflags = vma->vm_flags;
	long nr_pages;
	int ret;

	/* not for special mappings: neither set nor counted */
	if (newflags == oldflags || (oldflags & VM_SPECIAL))
		return 0;
	if ((ret = split_vma_range(mm, vma, start, end)))
		return ret;
	nr_pages = (end - start) >> PAGE_SHIFT;
	if (!(newflags & VM_LOCKED))
		nr_pages = -nr_pages;
	else if (oldflags & VM_LOCKED)
		nr_pages = 0;
	mm->locked_vm += nr_pages;
	vma->vm_flags = newflags;	/* (mlock_vma_pages_range: no mlock LRU to move them to) */
	return 0;
}

/* The flags on every VMA of [start, start + len); a hole is ENOMEM (what came before it is done) */
noinline int apply_vma_lock_flags(unsigned long start, size_t len, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long nstart, end, tmp;
	int error;

	end = start + len;
	if (end < start)
		return -EINVAL;
	for (nstart = start; nstart < end; nstart = tmp) {
		vma = find_vma(mm, nstart);
		if (!vma || vma->vm_start > nstart)
			return -ENOMEM;
		tmp = min(vma->vm_end, end);
		error = mlock_fixup(vma, nstart, tmp, (vma->vm_flags & ~VM_LOCKED_MASK) | flags);
		if (error)
			return error;
	}
	return 0;
}

/* How much of [start, start + len) is locked already (not to be counted twice) */
static notrace unsigned long count_mm_mlocked_page_nr(struct mm_struct *mm, unsigned long start, size_t len)
{
	struct vm_area_struct *vma;
	unsigned long count = 0, end = start + len;

	list_for_each_entry(vma, &mm->mm_mt.vmas, vm_list) {
		if (vma->vm_start >= end)
			break;
		if (!(vma->vm_flags & VM_LOCKED) || vma->vm_end <= start)
			continue;
		count += min(vma->vm_end, end) - max(vma->vm_start, start);
	}
	return count >> PAGE_SHIFT;
}

/* a fault's errors as POSIX names them for mlock: EFAULT is ENOMEM, ENOMEM is EAGAIN */
static inline int __mlock_posix_error_return(long retval)
{
	if (retval == -EFAULT)
		retval = -ENOMEM;
	else if (retval == -ENOMEM)
		retval = -EAGAIN;
	return retval;
}

noinline int do_mlock(unsigned long start, size_t len, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	unsigned long locked, lock_limit;
	int error = -ENOMEM;

	if (!can_do_mlock())
		return -EPERM;
	len = PAGE_ALIGN(len + offset_in_page(start));
	start &= PAGE_MASK;
	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	locked = len >> PAGE_SHIFT;
	mmap_write_lock(mm);
	locked += mm->locked_vm;
	if (locked > lock_limit && !capable(CAP_IPC_LOCK))
		locked -= count_mm_mlocked_page_nr(mm, start, len);
	if (locked <= lock_limit || capable(CAP_IPC_LOCK))
		error = apply_vma_lock_flags(start, len, flags);
	if (!error)
		error = __mlock_posix_error_return(__mm_populate(start, len, 0));	/* (6.1's after the unlock) */
	mmap_write_unlock(mm);
	return error;
}

SYSCALL_DEFINE2(mlock, unsigned long, start, size_t, len)
{
	return do_mlock(start, len, VM_LOCKED);
}

SYSCALL_DEFINE3(mlock2, unsigned long, start, size_t, len, int, flags)
{
	unsigned long vm_flags = VM_LOCKED;

	if (flags & ~MLOCK_ONFAULT)
		return -EINVAL;
	if (flags & MLOCK_ONFAULT)
		vm_flags |= VM_LOCKONFAULT;
	return do_mlock(start, len, vm_flags);
}

SYSCALL_DEFINE2(munlock, unsigned long, start, size_t, len)
{
	int ret;

	len = PAGE_ALIGN(len + offset_in_page(start));
	start &= PAGE_MASK;
	mmap_write_lock(current->mm);
	ret = apply_vma_lock_flags(start, len, 0);
	mmap_write_unlock(current->mm);
	return ret;
}

/* MCL_FUTURE: what is mapped from now on is locked (def_flags); MCL_CURRENT: every VMA now
 * (errors ignored); none: both undone */
/* mlockall(MCL_CURRENT)'s mm_populate(0, TASK_SIZE): every locked VMA's pages faulted in, what
 * cannot be (PROT_NONE, I/O mappings) passed over (a VMA at a time: the model's VMAs are a list) */
static notrace void populate_locked(struct mm_struct *mm)
{
	struct vm_area_struct *vma;

	list_for_each_entry(vma, &mm->mm_mt.vmas, vm_list)
		if (vma->vm_flags & VM_LOCKED)
			__mm_populate(vma->vm_start, vma->vm_end - vma->vm_start, 1);
}

noinline int apply_mlockall_flags(int flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma, *next;
	unsigned long to_add = 0;

	mm->def_flags &= ~VM_LOCKED_MASK;
	if (flags & MCL_FUTURE) {
		mm->def_flags |= VM_LOCKED;
		if (flags & MCL_ONFAULT)
			mm->def_flags |= VM_LOCKONFAULT;
		if (!(flags & MCL_CURRENT))
			return 0;
	}
	if (flags & MCL_CURRENT) {
		to_add |= VM_LOCKED;
		if (flags & MCL_ONFAULT)
			to_add |= VM_LOCKONFAULT;
	}
	list_for_each_entry_safe(vma, next, &mm->mm_mt.vmas, vm_list)
		mlock_fixup(vma, vma->vm_start, vma->vm_end, (vma->vm_flags & ~VM_LOCKED_MASK) | to_add);
	return 0;
}

SYSCALL_DEFINE1(mlockall, int, flags)
{
	struct mm_struct *mm = current->mm;
	unsigned long lock_limit;
	int ret;

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	if (!can_do_mlock())
		return -EPERM;
	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	mmap_write_lock(mm);
	ret = -ENOMEM;
	if (!(flags & MCL_CURRENT) || mm->total_vm <= lock_limit || capable(CAP_IPC_LOCK))
		ret = apply_mlockall_flags(flags);
	if (!ret && (flags & MCL_CURRENT) && !mm_host_vmas(mm))
		populate_locked(mm);
	mmap_write_unlock(mm);
	return ret;
}

SYSCALL_DEFINE0(munlockall)
{
	int ret;

	mmap_write_lock(current->mm);
	ret = apply_mlockall_flags(0);
	mmap_write_unlock(current->mm);
	return ret;
}
