/* Bit searches (include/linux/find.h).  A static inline, which Linux builds notrace: a file
 * the compiler does not inline it into gets its own copy (6.1's kallsyms lists seven
 * `t find_next_bit`). */
#ifndef _BITOPS_H
#define _BITOPS_H
#include "types.h"

#define BITS_PER_LONG 64

/* The first set bit of the bitmap at or after offset, or size. */
static noinline notrace unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
						    unsigned long offset)
{
	while (offset < size) {
		unsigned long word = addr[offset / BITS_PER_LONG] >> (offset % BITS_PER_LONG);

		if (word)
			return min(offset + __builtin_ctzl(word), size);
		offset = (offset / BITS_PER_LONG + 1) * BITS_PER_LONG;
	}
	return size;
}

#define for_each_set_bit(bit, addr, size) \
	for ((bit) = find_next_bit((addr), (size), 0); (bit) < (size); \
	     (bit) = find_next_bit((addr), (size), (bit) + 1))
#endif
