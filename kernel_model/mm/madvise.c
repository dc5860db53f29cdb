/*
 * madvise(2) (mm/madvise.c): do_madvise walks the range's VMAs (a hole: ENOMEM once the rest is
 * done) with madvise_vma_behavior.  Flags split the VMA at the range's ends (madvise_update_vma):
 * VM_SEQ_READ/VM_RAND_READ, VM_DONTCOPY (fork leaves the VMA out), VM_WIPEONFORK (the child's
 * copy starts empty), VM_DONTDUMP.  MADV_DONTNEED zaps the pages (anonymous ones read as zeros
 * after it, a file's are read again).  What would act on reclaim, swap or readahead (FREE,
 * WILLNEED, COLD, PAGEOUT) has nothing to act on here: no reclaim, no swap, no readahead.
 * MADV_POPULATE_READ/WRITE fault the range in.  KSM, transparent huge pages and memory-failure
 * injection are not built in (MERGEABLE, HUGEPAGE, COLLAPSE, HWPOISON...: EINVAL, as a kernel
 * without them).  A session task's VMAs are its host process's (MMF_HOST_VMAS): the flags and
 * checks are the same, but no page is zapped or faulted in.
 */
#include "../include/syscalls.h"
#include "../include/mm.h"
#include "../include/fs.h"
#include "../include/mmap_lock.h"
#include "../include/pid.h"
#include "../include/cred.h"
#include "../include/ptrace.h"

#define MADV_NORMAL		0
#define MADV_RANDOM		1
#define MADV_SEQUENTIAL		2
#define MADV_WILLNEED		3
#define MADV_DONTNEED		4
#define MADV_FREE		8
#define MADV_REMOVE		9
#define MADV_DONTFORK		10
#define MADV_DOFORK		11
#define MADV_DONTDUMP		16
#define MADV_DODUMP		17
#define MADV_WIPEONFORK		18
#define MADV_KEEPONFORK		19
#define MADV_COLD		20
#define MADV_PAGEOUT		21
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#define MADV_DONTNEED_LOCKED	24
#define MADV_COLLAPSE		25

#define VM_SEQ_READ	0x00008000UL
#define VM_RAND_READ	0x00010000UL
#define VM_DONTCOPY	0x00020000UL
#define VM_WIPEONFORK	0x02000000UL
#define VM_DONTDUMP	0x04000000UL


/* a file's mapping (a host process's has no struct file: host_file_vm_ops says it) */
static bool vma_is_file(struct vm_area_struct *vma)
{
	return vma->vm_file || vma->vm_ops == &host_file_vm_ops;
}

static bool madvise_behavior_valid(int behavior)
{
	switch (behavior) {
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL: case MADV_WILLNEED:
	case MADV_DONTNEED: case MADV_DONTNEED_LOCKED: case MADV_FREE: case MADV_COLD:
	case MADV_PAGEOUT: case MADV_POPULATE_READ: case MADV_POPULATE_WRITE: case MADV_REMOVE:
	case MADV_DONTFORK: case MADV_DOFORK: case MADV_DONTDUMP: case MADV_DODUMP:
	case MADV_WIPEONFORK: case MADV_KEEPONFORK:
		return true;
	default:
		return false;
	}
}

/* the range's part of the VMA gets the new flags: split off at start and end first */
static __always_inline int madvise_update_vma(struct vm_area_struct *vma, unsigned long start,
				       unsigned long end, unsigned long new_flags)
{
	int err;

	if (new_flags == vma->vm_flags)
		return 0;
	if ((err = split_vma_range(vma->vm_mm, vma, start, end)))
		return err;
	vma->vm_flags = new_flags;
	return 0;
}

static long madvise_dontneed_free(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				  int behavior)
{
	if ((vma->vm_flags & (VM_PFNMAP)) ||
	    ((vma->vm_flags & VM_LOCKED) && behavior != MADV_DONTNEED_LOCKED))
		return -EINVAL;	/* !can_madv_lru_vma() */
	if (behavior == MADV_FREE) {
		if (vma_is_file(vma))
			return -EINVAL;	/* anonymous memory only */
		return 0;	/* freed at reclaim, which never comes here: the pages stay */
	}
	if (!mm_host_vmas(vma->vm_mm))
		zap_page_range(vma, start, end);
	return 0;
}

static long madvise_remove(struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_LOCKED)
		return -EINVAL;
	if (!vma->vm_file || !vma->vm_file->f_mapping)
		return -EINVAL;
	/* a hole punched in a shared writable file mapping: the model has none */
	return (vma->vm_flags & (VM_SHARED | VM_WRITE)) != (VM_SHARED | VM_WRITE) ? -EACCES : -EOPNOTSUPP;
}

static long madvise_populate(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			     int behavior)
{
	bool write = behavior == MADV_POPULATE_WRITE;

	if (vma->vm_flags & (VM_IO | VM_PFNMAP))
		return -EINVAL;
	if (!(vma->vm_flags & (write ? VM_WRITE : VM_READ)))
		return -EINVAL;	/* check_vma_flags(): no such access */
	if (mm_host_vmas(vma->vm_mm))
		return 0;	/* (the host faulted them in) */
	for (; start < end; start += PAGE_SIZE) {
		int fault = handle_mm_fault(vma, start, write ? FAULT_FLAG_WRITE : 0, NULL);

		if (fault & VM_FAULT_OOM)
			return -ENOMEM;
		if (fault & (VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV))
			return -EFAULT;
	}
	return 0;
}

static __always_inline int madvise_vma_behavior(struct vm_area_struct *vma, unsigned long start,
					 unsigned long end, int behavior)
{
	unsigned long new_flags = vma->vm_flags;

	switch (behavior) {
	case MADV_REMOVE:
		return madvise_remove(vma);
	case MADV_WILLNEED:
	case MADV_COLD:
	case MADV_PAGEOUT:
		return 0;	/* no readahead, no swap, no reclaim */
	case MADV_FREE:
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
		return madvise_dontneed_free(vma, start, end, behavior);
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
		return madvise_populate(vma, start, end, behavior);
	case MADV_NORMAL:
		new_flags &= ~(VM_RAND_READ | VM_SEQ_READ);
		break;
	case MADV_SEQUENTIAL:
		new_flags = (new_flags & ~VM_RAND_READ) | VM_SEQ_READ;
		break;
	case MADV_RANDOM:
		new_flags = (new_flags & ~VM_SEQ_READ) | VM_RAND_READ;
		break;
	case MADV_DONTFORK:
		new_flags |= VM_DONTCOPY;
		break;
	case MADV_DOFORK:
		if (vma->vm_flags & VM_IO)
			return -EINVAL;
		new_flags &= ~VM_DONTCOPY;
		break;
	case MADV_WIPEONFORK:
		if (vma_is_file(vma) || (vma->vm_flags & VM_SHARED))
			return -EINVAL;	/* anonymous private memory only */
		new_flags |= VM_WIPEONFORK;
		break;
	case MADV_KEEPONFORK:
		new_flags &= ~VM_WIPEONFORK;
		break;
	case MADV_DONTDUMP:
		new_flags |= VM_DONTDUMP;
		break;
	case MADV_DODUMP:
		if (new_flags & VM_SPECIAL)
			return -EINVAL;
		new_flags &= ~VM_DONTDUMP;
		break;
	}
	return madvise_update_vma(vma, start, end, new_flags);
}

/* the advice that changes VMAs takes the mmap_lock for writing; the rest only reads them */
static int madvise_need_mmap_write(int behavior)
{
	switch (behavior) {
	case MADV_REMOVE:
	case MADV_WILLNEED:
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
	case MADV_COLD:
	case MADV_PAGEOUT:
	case MADV_FREE:
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
		return 0;
	default:
		return 1;
	}
}

noinline int do_madvise(struct mm_struct *mm, unsigned long start, size_t len_in, int behavior)
{
	int write = madvise_need_mmap_write(behavior);
	unsigned long end, len, tmp;
	struct vm_area_struct *vma;
	int unmapped_error = 0, error = 0;

	if (!madvise_behavior_valid(behavior))
		return -EINVAL;
	if (start & (PAGE_SIZE - 1))
		return -EINVAL;
	len = (len_in + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	if (len_in && !len)
		return -EINVAL;	/* it overflowed */
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	if (write)
		mmap_write_lock(mm);
	else
		mmap_read_lock(mm);
	/* madvise_walk_vmas(): each VMA's part of the range; a hole before one is ENOMEM at the end */
	vma = find_vma(mm, start);
	for (;;) {
		if (!vma || vma->vm_start >= end) {
			unmapped_error = -ENOMEM;
			break;
		}
		if (start < vma->vm_start) {
			unmapped_error = -ENOMEM;
			start = vma->vm_start;
		}
		tmp = min(vma->vm_end, end);
		error = madvise_vma_behavior(vma, start, tmp, behavior);
		if (error)
			break;
		start = tmp;
		if (start >= end)
			break;
		vma = find_vma(mm, start);
	}
	if (write)
		mmap_write_unlock(mm);
	else
		mmap_read_unlock(mm);
	return error ? error : unmapped_error;
}

SYSCALL_DEFINE3(madvise, unsigned long, start, size_t, len_in, int, behavior)
{
	return do_madvise(current->mm, start, len_in, behavior);
}

/* ---- process_madvise(2): advice for another process's memory, named by a pidfd; only the
 * non-destructive kinds (nothing to act on here: see above), for CAP_SYS_NICE ---- */
static bool process_madvise_behavior_valid(int behavior)
{
	switch (behavior) {
	case MADV_COLD:
	case MADV_PAGEOUT:
	case MADV_WILLNEED:
	case MADV_COLLAPSE:
		return true;
	default:
		return false;
	}
}

/* the iterator's current segment (include/linux/uio.h) */
static inline struct iovec iov_iter_iovec(const struct iov_iter *iter)
{
	return (struct iovec){ .iov_base = (char *)iter->iov->iov_base + iter->iov_offset,
			       .iov_len = min(iter->count, iter->iov->iov_len - iter->iov_offset) };
}

/* the bytes advised: every segment's until one fails (its error if the first does) */
SYSCALL_DEFINE5(process_madvise, int, pidfd, const struct iovec *, vec, size_t, vlen, int, behavior,
		unsigned int, flags)
{
	struct iovec iovstack[UIO_FASTIOV], iovec;
	struct iovec *iov = iovstack;
	struct iov_iter iter;
	struct task_struct *task;
	struct mm_struct *mm;
	size_t total_len;
	unsigned int f_flags;
	ssize_t ret;

	if (flags != 0)
		return -EINVAL;
	ret = __import_iovec(READ, vec, vlen, ARRAY_SIZE(iovstack), &iov, &iter);	/* import_iovec() */
	if (ret < 0)
		return ret;
	preempt_disable();	/* rcu_read_lock(): the task stays while it is looked at */
	task = pidfd_get_task(pidfd, &f_flags);
	if (IS_ERR(task))
		mm = ERR_PTR(PTR_ERR(task));
	else if (!process_madvise_behavior_valid(behavior))
		mm = ERR_PTR(-EINVAL);
	else	/* PTRACE_MODE_READ, so as not to leak ASLR metadata */
		mm = mm_access(task, PTRACE_MODE_READ_FSCREDS);
	preempt_enable();
	if (IS_ERR(mm)) {
		ret = PTR_ERR(mm);
		goto free_iov;
	}
	/* it influences the process's performance */
	if (!capable(CAP_SYS_NICE)) {
		ret = -EPERM;
		goto release_mm;
	}
	total_len = iov_iter_count(&iter);
	while (iov_iter_count(&iter)) {
		iovec = iov_iter_iovec(&iter);
		ret = do_madvise(mm, (unsigned long)iovec.iov_base, iovec.iov_len, behavior);
		if (ret < 0)
			break;
		iov_iter_advance(&iter, iovec.iov_len);
	}
	ret = (total_len - iov_iter_count(&iter)) ? : ret;
release_mm:
	mmput(mm);
free_iov:
	kfree(iov);
	return ret;
}
