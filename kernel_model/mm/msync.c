/*
 * msync(2) (Linux 6.1's mm/msync.c): MS_SYNC writes a shared file mapping's range back through
 * the file's fsync (vfs_fsync_range); MS_ASYNC has nothing to start (6.1 neither: dirty pages
 * are tracked without it); MS_INVALIDATE refuses a locked VMA (EBUSY).  A hole in the range is
 * ENOMEM, once the rest is done (at once for MS_ASYNC).
 */
#include "../include/syscalls.h"
#include "../include/mm.h"
#include "../include/fs.h"
#include "../include/mmap_lock.h"

#define MS_ASYNC	1
#define MS_INVALIDATE	2
#define MS_SYNC		4

SYSCALL_DEFINE3(msync, unsigned long, start, size_t, len, int, flags)
{
	struct mm_struct *mm = current->mm;
	int unmapped_error = 0, error = -EINVAL;
	struct vm_area_struct *vma;
	unsigned long end;

	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return error;
	if (start & (PAGE_SIZE - 1))
		return error;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return error;
	len = (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	end = start + len;
	if (end < start)
		return -ENOMEM;
	if (end == start)
		return 0;
	mmap_read_lock(mm);
	vma = find_vma(mm, start);
	for (;;) {
		struct file *file;
		loff_t fstart, fend;

		error = -ENOMEM;
		if (!vma)
			goto out_unlock;
		if (start < vma->vm_start) {	/* a hole */
			if (flags == MS_ASYNC)
				goto out_unlock;
			start = vma->vm_start;
			if (start >= end)
				goto out_unlock;
			unmapped_error = -ENOMEM;
		}
		if ((flags & MS_INVALIDATE) && (vma->vm_flags & VM_LOCKED)) {
			error = -EBUSY;
			goto out_unlock;
		}
		file = vma->vm_file;
		fstart = (start - vma->vm_start) + ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
		fend = fstart + (min(end, vma->vm_end) - start) - 1;
		start = vma->vm_end;
		if ((flags & MS_SYNC) && file && (vma->vm_flags & VM_SHARED)) {
			get_file(file);
			mmap_read_unlock(mm);
			error = vfs_fsync_range(file, fstart, fend, 1);
			fput(file);
			if (error || start >= end)
				goto out;
			mmap_read_lock(mm);
			vma = find_vma(mm, start);
		} else {
			if (start >= end) {
				error = 0;
				goto out_unlock;
			}
			vma = find_vma(mm, vma->vm_end);
		}
	}
out_unlock:
	mmap_read_unlock(mm);
out:
	return error ? : unmapped_error;
}
