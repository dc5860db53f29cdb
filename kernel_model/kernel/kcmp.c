/*
 * kcmp(2) (kernel/kcmp.c): whether two tasks share a kernel resource (a file, the fd table,
 * the address space, the fs context, the signal handlers, the I/O context, an epoll set's
 * target file), told as an order of the objects' obfuscated addresses: 0 equal, 1 less,
 * 2 greater.  The tasks are looked at under sched_lock (6.1: references and both tasks'
 * exec_update_lock), which keeps them and their pointers as they are.
 */
#include "../include/syscalls.h"
#include "../include/fs.h"
#include "../include/pid.h"
#include "../include/ptrace.h"

enum kcmp_type {
	KCMP_FILE,
	KCMP_VM,
	KCMP_FILES,
	KCMP_FS,
	KCMP_SIGHAND,
	KCMP_IO,
	KCMP_SYSVSEM,
	KCMP_EPOLL_TFD,
	KCMP_TYPES,
};

/* KCMP_EPOLL_TFD's idx2: the epoll set (of task 2) and its target fd, the toff-th item on it */
struct kcmp_epoll_slot {
	u32 efd;
	u32 tfd;
	u32 toff;
};

/* a random xor and (odd, top bit set) multiplier per type: the order tells nothing of addresses */
static unsigned long cookies[KCMP_TYPES][2];

void __init kcmp_cookies_init(void)
{
	int i;

	for (i = 0; i < KCMP_TYPES; i++) {
		cookies[i][0] = get_random_u64();
		cookies[i][1] = get_random_u64() | (~(~0UL >> 1) | 1);
	}
}

static long kptr_obfuscate(long v, int type)
{
	return (v ^ cookies[type][0]) * cookies[type][1];
}

static int kcmp_ptr(void *v1, void *v2, enum kcmp_type type)
{
	long t1 = kptr_obfuscate((long)v1, type), t2 = kptr_obfuscate((long)v2, type);

	return (t1 < t2) | ((t1 > t2) << 1);
}

/* ESRCH (either task missing), EPERM (not ptrace-readable), or the type's comparison; files
 * found are returned referenced in *filp1 and *filp2 (the caller compares and drops them) */
static int kcmp_tasks(pid_t pid1, pid_t pid2, int type, unsigned long idx1, unsigned long idx2,
		      const struct kcmp_epoll_slot *slot, struct file **filp1, struct file **filp2)
{
	struct task_struct *task1 = find_task_by_vpid(pid1), *task2 = find_task_by_vpid(pid2);

	if (!task1 || !task2)
		return -ESRCH;
	if (!ptrace_may_access(task1, PTRACE_MODE_READ_REALCREDS) ||
	    !ptrace_may_access(task2, PTRACE_MODE_READ_REALCREDS))
		return -EPERM;
	switch (type) {
	case KCMP_FILE:
		*filp1 = fget_task(task1, idx1);
		*filp2 = fget_task(task2, idx2);
		return 0;
	case KCMP_VM:
		return kcmp_ptr(task1->mm, task2->mm, KCMP_VM);
	case KCMP_FILES:
		return kcmp_ptr(task1->files, task2->files, KCMP_FILES);
	case KCMP_FS:
		return kcmp_ptr(task1->fs, task2->fs, KCMP_FS);
	case KCMP_SIGHAND:
		return kcmp_ptr(task1->sighand, task2->sighand, KCMP_SIGHAND);
	case KCMP_IO:
		return kcmp_ptr(task1->io_context, task2->io_context, KCMP_IO);
	case KCMP_SYSVSEM:	/* their SEM_UNDO lists (ipc/sem.c) */
		return kcmp_ptr(task1->sysvsem.undo_list, task2->sysvsem.undo_list, KCMP_SYSVSEM);
	case KCMP_EPOLL_TFD:
		if (!slot)
			return -EFAULT;
		*filp1 = fget_task(task1, idx1);
		if (*filp1)
			*filp2 = fget_task(task2, slot->efd);
		return 0;
	}
	return -EINVAL;
}

SYSCALL_DEFINE5(kcmp, pid_t, pid1, pid_t, pid2, int, type, unsigned long, idx1, unsigned long, idx2)
{
	struct kcmp_epoll_slot slot;
	struct file *filp1 = NULL, *filp2 = NULL, *filp_tgt;
	unsigned long flags;
	bool have_slot = false;
	int ret;

	/* the slot read before the tasks are held (a fault may sleep); its EFAULT in 6.1's turn */
	if (type == KCMP_EPOLL_TFD)
		have_slot = !copy_from_user(&slot, (void *)idx2, sizeof(slot));
	spin_lock_irqsave(&sched_lock, flags);
	ret = kcmp_tasks(pid1, pid2, type, idx1, idx2, have_slot ? &slot : NULL, &filp1, &filp2);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (ret || (type != KCMP_FILE && type != KCMP_EPOLL_TFD))
		return ret;
	if (!filp1 || !filp2) {
		ret = -EBADF;
	} else if (type == KCMP_FILE) {
		ret = kcmp_ptr(filp1, filp2, KCMP_FILE);
	} else {
		filp_tgt = get_epoll_tfile_raw_ptr(filp2, slot.tfd, slot.toff);
		ret = IS_ERR(filp_tgt) ? PTR_ERR(filp_tgt) : kcmp_ptr(filp1, filp_tgt, KCMP_FILE);
	}
	if (filp1)
		fput(filp1);
	if (filp2)
		fput(filp2);
	return ret;
}
