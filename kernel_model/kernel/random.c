/* Kernel PRNG (xorshift64*), seeded from boot_params: a seeded machine's
 * workload draws all its randomness from here (getrandom). */
#include "../include/syscalls.h"

static u64 rand_state;
static spinlock_t rand_lock;

void __init random_init(void)
{
	rand_state = boot_params.seed * 0x9e3779b97f4a7c15UL + 0x2545f4914f6cdd1dUL;
	if (!rand_state)
		rand_state = 1;
}

noinline u64 get_random_u64(void)
{
	unsigned long flags;
	u64 x;

	spin_lock_irqsave(&rand_lock, flags);
	x = rand_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rand_state = x;
	spin_unlock_irqrestore(&rand_lock, flags);
	return x * 0x2545f4914f6cdd1dUL;
}

SYSCALL_DEFINE3(getrandom, char *, ubuf, size_t, len, unsigned int, flags)
{
	size_t count = min(len, 256UL), done = 0;
	char tmp[256];

	while (done < count) {
		u64 v = get_random_u64();
		size_t n = min(count - done, 8UL);
		memcpy(tmp + done, &v, n);
		done += n;
	}
	if (copy_to_user(ubuf, tmp, count))
		return -EFAULT;
	return count;
}
