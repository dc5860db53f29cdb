/*
 * A fixed kernel-mode workload for benchmarks/boot.py: it runs this function
 * directly on one CPU (no I/O, no sleeping, no doorbells) to compare guest
 * instructions per second with and without the machine around it.  Never
 * called by the kernel itself.
 */
#include "../include/kernel.h"

int rw_verify_area(int read_write, struct file *file, const loff_t *ppos, size_t count);

u64 bench_kernel_work(u64 iterations)
{
	static const char name[] = "/etc/passwd";
	u64 i, sum = 0;

	for (i = 0; i < iterations; i++) {
		char *p = kmalloc(64 + (i & 63), GFP_KERNEL);
		loff_t pos = i & 4095;

		if (p) {
			memcpy(p, name, sizeof(name));
			sum += strlen(kbasename(p));
			kfree(p);
		}
		sum += rw_verify_area(0, NULL, &pos, i & 0xfff) == 0;
		sum += ktime_get() & 1;
	}
	return sum;
}
