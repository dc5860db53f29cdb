/* Vectored reads and writes (fs/read_write.c): each segment through the file's read or
 * write in turn, until one comes back short (musl's stdio writes with writev). */
#include "../include/syscalls.h"

#define UIO_MAXIOV 1024
struct iovec { void *iov_base; size_t iov_len; };

static noinline ssize_t do_loop_readv_writev(unsigned long fd, const struct iovec *vec,
					     unsigned long vlen, bool write)
{
	ssize_t ret = 0;
	unsigned long i;

	if (vlen > UIO_MAXIOV)
		return -EINVAL;
	for (i = 0; i < vlen; i++) {
		struct iovec iov;
		ssize_t n;

		if (copy_from_user(&iov, vec + i, sizeof(iov)))
			return ret ? ret : -EFAULT;
		if (!iov.iov_len)
			continue;
		n = write ? ksys_write(fd, iov.iov_base, iov.iov_len) : ksys_read(fd, iov.iov_base, iov.iov_len);
		if (n < 0)
			return ret ? ret : n;
		ret += n;
		if ((size_t)n < iov.iov_len)
			break;
	}
	return ret;
}

SYSCALL_DEFINE3(readv, unsigned long, fd, const struct iovec *, vec, unsigned long, vlen)
{
	return do_loop_readv_writev(fd, vec, vlen, false);
}

SYSCALL_DEFINE3(writev, unsigned long, fd, const struct iovec *, vec, unsigned long, vlen)
{
	return do_loop_readv_writev(fd, vec, vlen, true);
}
