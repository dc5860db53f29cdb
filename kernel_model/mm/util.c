/* mm/util.c of Linux 6.1: what the rest of the kernel copies with. */
#include "../include/kernel.h"
#include "../include/slab.h"

noinline char *kstrdup(const char *s, gfp_t gfp)
{
	size_t len;
	char *buf;

	if (!s)
		return NULL;
	len = strlen(s) + 1;
	buf = kmalloc(len, gfp);
	if (buf)
		memcpy(buf, s, len);
	return buf;
}
