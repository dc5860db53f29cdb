/* Non-faulting memory access (mm/maccess.c): copies through the page tables that say -EFAULT
 * for an unmapped byte instead of faulting, for BPF's probe_read helpers.  Kernel copies refuse
 * user addresses (-ERANGE), as x86's copy_from_kernel_nofault_allowed(). */
#include "../include/bpf.h"
#include "../include/maccess.h"
#include "../include/trace/probe_stage.h"

/* x86's copy_from_kernel_nofault_allowed(): past user space and its guard page, canonical */
static bool kernel_range_allowed(u64 va, size_t size)
{
	return va >= TASK_SIZE_MAX + PAGE_SIZE && (s64)(va << 16) >> 16 == (s64)va;
}

long copy_from_kernel_nofault(void *dst, const void *src, size_t size)
{
	if (!kernel_range_allowed((u64)src, size))
		return -ERANGE;
	return kg_read(dst, (u64)src, size, false) ? -EFAULT : 0;
}

long copy_from_user_nofault(void *dst, const void *src, size_t size)
{
	return kg_read(dst, (u64)src, size, true) ? -EFAULT : 0;
}

/* The string's length with its NUL, count if it was cut (dst[count - 1] = NUL), or -EFAULT. */
static long strncpy_nofault(char *dst, u64 va, long count)
{
	long n = 0;

	while (n < count) {
		long pa = kg_translate(va + n);
		if (pa < 0) {
			dst[0] = 0;
			return -EFAULT;
		}
		dst[n] = *(char *)__va(pa);
		if (!dst[n++])
			return n;
	}
	dst[count - 1] = 0;
	return count;
}

long strncpy_from_kernel_nofault(char *dst, const void *unsafe_addr, long count)
{
	if (count <= 0)
		return 0;
	if (!kernel_range_allowed((u64)unsafe_addr, count))
		return -ERANGE;
	return strncpy_nofault(dst, (u64)unsafe_addr, count);
}

long strncpy_from_user_nofault(char *dst, const void *unsafe_addr, long count)
{
	long ret;

	if (count <= 0)
		return 0;
	if ((u64)unsafe_addr >= TASK_SIZE_MAX)
		return -EFAULT;
	ret = strncpy_nofault(dst, (u64)unsafe_addr, min((u64)count, TASK_SIZE_MAX - (u64)unsafe_addr));
	return ret;
}
