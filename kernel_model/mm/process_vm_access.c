/*
 * Another process's memory (mm/process_vm_access.c): process_vm_readv and process_vm_writev
 * copy between the caller's iovecs and the target's, a page at a time through
 * get_user_pages_remote (which faults the target's pages in, and breaks COW for a write), with
 * ptrace's attach rights over the target (mm_access; its EACCES is EPERM here, as 6.1's).  A
 * session task's memory is its host process's, none of it here: a session's own calls were
 * the host's (ENOSYS), and one as the target has no page to find (EFAULT).
 */
#include "../include/syscalls.h"
#include "../include/mm.h"
#include "../include/fs.h"
#include "../include/mmap_lock.h"
#include "../include/pid.h"
#include "../include/ptrace.h"

/* process_vm_rw_pages() for one page: len bytes at offset to or from the iterator */
static __always_inline size_t process_vm_rw_page(struct page *page, bool exec, unsigned int offset, size_t len,
						 struct iov_iter *iter, int vm_write)
{
	void *kaddr = page_address(page) + offset;
	size_t copied;

	if (!vm_write)
		return copy_to_iter(kaddr, len, iter);	/* copy_page_to_iter() */
	copied = copy_from_iter(kaddr, len, iter);	/* copy_page_from_iter() */
	if (copied && exec)	/* code written: no cpu may run its old translation */
		host_code_page(page_address(page));
	return copied;
}

/* process_vm_rw_single_vec(): one remote iovec, while the iterator has room; EFAULT where the
 * target's range stops being mapped or accessible, or where the caller's buffer faults */
static __always_inline int process_vm_rw_single_vec(unsigned long addr, unsigned long len, struct iov_iter *iter,
						    struct mm_struct *mm, int vm_write)
{
	unsigned int gup_flags = vm_write ? FOLL_WRITE : 0;

	while (len && iov_iter_count(iter)) {
		unsigned int offset = addr & (PAGE_SIZE - 1);
		size_t bytes = min(len, PAGE_SIZE - offset), copied;
		struct vm_area_struct *vma = NULL;
		struct page *page;
		bool exec;
		long pinned;

		mmap_read_lock(mm);
		pinned = get_user_pages_remote(mm, addr & PAGE_MASK, 1, gup_flags, &page, &vma, NULL);
		exec = pinned > 0 && (vma->vm_flags & VM_EXEC);
		mmap_read_unlock(mm);
		if (pinned <= 0)
			return -EFAULT;
		copied = process_vm_rw_page(page, exec, offset, bytes, iter, vm_write);
		put_gup_page(page);	/* (no page written here is ever written back: no dirtying) */
		if (copied < bytes && iov_iter_count(iter))
			return -EFAULT;
		len -= bytes;
		addr += bytes;
	}
	return 0;
}

/* The bytes copied, or the error of the first iovec that moved none (flags: 0, checked; GCC
 * specialises it for that, as 6.1's kallsyms has it: process_vm_rw_core.constprop.0) */
static noinline ssize_t process_vm_rw_core(pid_t pid, struct iov_iter *iter, const struct iovec *rvec,
					   unsigned long riovcnt, unsigned long flags, int vm_write)
{
	size_t total_len = iov_iter_count(iter);
	struct task_struct *task;
	struct mm_struct *mm;
	unsigned long i;
	bool any = false;
	ssize_t rc = 0;

	for (i = 0; i < riovcnt; i++)	/* (6.1 counts the pages to pin at once: one at a time here) */
		if ((ssize_t)rvec[i].iov_len > 0)
			any = true;
	if (!any)
		return 0;
	preempt_disable();	/* rcu_read_lock(): the task stays while its mm is taken */
	task = find_task_by_vpid(pid);
	mm = task ? mm_access(task, PTRACE_MODE_ATTACH_REALCREDS) : ERR_PTR(-ESRCH);
	preempt_enable();
	if (IS_ERR(mm))
		return PTR_ERR(mm) == -EACCES ? -EPERM : PTR_ERR(mm);
	if (mm_host_vmas(mm))	/* a session task's: its pages are on the host */
		rc = -EFAULT;
	for (i = 0; i < riovcnt && iov_iter_count(iter) && !rc; i++)
		rc = process_vm_rw_single_vec((unsigned long)rvec[i].iov_base, rvec[i].iov_len, iter, mm, vm_write);
	total_len -= iov_iter_count(iter);
	if (total_len)	/* some copied: how much, whatever stopped it */
		rc = total_len;
	mmput(mm);
	return rc;
}

noinline ssize_t process_vm_rw(pid_t pid, const struct iovec *lvec, unsigned long liovcnt, const struct iovec *rvec,
			       unsigned long riovcnt, unsigned long flags, int vm_write)
{
	struct iovec iovstack_l[UIO_FASTIOV], iovstack_r[UIO_FASTIOV];
	struct iovec *iov_l = iovstack_l, *iov_r;
	struct iov_iter iter;
	ssize_t rc;

	if (flags != 0)
		return -EINVAL;
	if (current->session)	/* the host copied its process's memory */
		return -ENOSYS;
	rc = __import_iovec(vm_write ? WRITE : READ, lvec, liovcnt, UIO_FASTIOV, &iov_l, &iter);	/* import_iovec() */
	if (rc < 0)
		return rc;
	if (!iov_iter_count(&iter))
		goto free_iov_l;
	iov_r = iovec_from_user(rvec, riovcnt, UIO_FASTIOV, iovstack_r);
	if (IS_ERR(iov_r)) {
		rc = PTR_ERR(iov_r);
		goto free_iov_l;
	}
	rc = process_vm_rw_core(pid, &iter, iov_r, riovcnt, flags, vm_write);
	if (iov_r != iovstack_r)
		kfree(iov_r);
free_iov_l:
	kfree(iov_l);
	return rc;
}

SYSCALL_DEFINE6(process_vm_readv, pid_t, pid, const struct iovec *, lvec, unsigned long, liovcnt,
		const struct iovec *, rvec, unsigned long, riovcnt, unsigned long, flags)
{
	return process_vm_rw(pid, lvec, liovcnt, rvec, riovcnt, flags, 0);
}

SYSCALL_DEFINE6(process_vm_writev, pid_t, pid, const struct iovec *, lvec, unsigned long, liovcnt,
		const struct iovec *, rvec, unsigned long, riovcnt, unsigned long, flags)
{
	return process_vm_rw(pid, lvec, liovcnt, rvec, riovcnt, flags, 1);
}
