/*
 * mmap(2) (mm/mmap.c), as far as this kernel has it: a session process's mapping of memory the
 * kernel shares with the host (a perf event's ring buffer, kernel/events/ring_buffer.c).  The
 * file's mmap_shared makes what is mapped in a region of the perf pool; the call is served
 * (kernel/session.c), and the supervisor gives the process that region's memory file in place
 * of the fd before the host makes the mapping (session/native/serve.c).  Address spaces here
 * have no mappings of their own yet: any other mmap is ENOSYS, as before.
 */
#include "../include/syscalls.h"
#include "../include/fs.h"
#include "../include/session.h"

SYSCALL_DEFINE6(mmap, unsigned long, addr, unsigned long, len, unsigned long, prot, unsigned long, flags, unsigned long, fd, unsigned long, off)
{
	struct file *file;
	long region;

	if (!session_remote_uaccess(current))
		return -ENOSYS;
	if (off & (PAGE_SIZE - 1))
		return -EINVAL;
	if (!len)
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	if (!len)
		return -ENOMEM;
	file = fget(fd);
	if (!file)
		return -EBADF;
	if (!file->f_op || !file->f_op->mmap_shared)
		region = -ENODEV;
	else
		region = file->f_op->mmap_shared(file, len, prot, flags, off / PAGE_SIZE);
	fput(file);
	if (region < 0)
		return region;
	session_serve_region(current, region);
	return 0;
}
