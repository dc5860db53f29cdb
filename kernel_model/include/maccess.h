/* Non-faulting memory access (include/linux/uaccess.h's *_nofault, mm/maccess.c): a read of an
 * unmapped byte says -EFAULT instead of faulting; kernel copies refuse user addresses (-ERANGE).
 * The strncpy ones return the string's length with its NUL (count if it was cut). */
#ifndef _MACCESS_H
#define _MACCESS_H
#include "kernel.h"

long copy_from_kernel_nofault(void *dst, const void *src, size_t size);
long copy_from_user_nofault(void *dst, const void *src, size_t size);
long strncpy_from_kernel_nofault(char *dst, const void *unsafe_addr, long count);
long strncpy_from_user_nofault(char *dst, const void *unsafe_addr, long count);
#endif
