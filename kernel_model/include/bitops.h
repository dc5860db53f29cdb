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

/* hweight64(): the bits set (the generic __sw_hweight64; this kernel is built without popcnt) */
static __always_inline unsigned int hweight64(u64 w)
{
	w -= (w >> 1) & 0x5555555555555555UL;
	w = (w & 0x3333333333333333UL) + ((w >> 2) & 0x3333333333333333UL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fUL;
	return (w * 0x0101010101010101UL) >> 56;
}

#define for_each_set_bit(bit, addr, size) \
	for ((bit) = find_next_bit((addr), (size), 0); (bit) < (size); \
	     (bit) = find_next_bit((addr), (size), (bit) + 1))
#endif
