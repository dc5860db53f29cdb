/*
 * Jump labels the kernel patches itself (kernel/jump_label.c, arch/x86/kernel/jump_label.c):
 * static_key_slow_inc() turns every site of the key from the image's 5-byte nop into a
 * `jmp` to its out-of-line block when the first user comes, static_key_slow_dec() back when
 * the last goes.  Only for keys the kernel owns (include/jump_label.h).
 */
#include "../include/kernel.h"
#include "../include/jump_label.h"

extern struct jump_entry __start___jump_table[], __stop___jump_table[];
static const u8 jump_nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static DEFINE_MUTEX(jump_label_mutex);

/*
 * Write the 5 bytes at addr through the direct map (the kernel map's text is read-only) as
 * one read-merge-write of the two aligned quadwords that cover them: straight-line code with
 * no branch, which the machine runs as one block, so no CPU, and no host patch of a
 * neighbouring site between slices, sees half of it.  The machine then drops every CPU's
 * translations of the page (host_code_page), as text_poke_sync() serialises Linux's CPUs.
 */
static notrace void text_poke_site(u64 addr, const u8 *insn)
{
	u64 base = addr & ~7UL, shift = (addr & 7) * 8, *p = __va(__pa(base));
	u64 val = 0, mask = 0x000000ffffffffffUL;
	u64 mask0, mask1, new0, new1, tmp;
	int i;

	for (i = 4; i >= 0; i--)
		val = val << 8 | insn[i];
	mask0 = mask << shift;
	new0 = val << shift;
	mask1 = shift ? mask >> (64 - shift) : 0;
	new1 = shift ? val >> (64 - shift) : 0;
	asm volatile("movq (%[p]), %[t]\n\t"
		     "andq %[nm0], %[t]\n\t"
		     "orq %[n0], %[t]\n\t"
		     "movq %[t], (%[p])\n\t"
		     "movq 8(%[p]), %[t]\n\t"
		     "andq %[nm1], %[t]\n\t"
		     "orq %[n1], %[t]\n\t"
		     "movq %[t], 8(%[p])"
		     : [t] "=&r"(tmp)
		     : [p] "r"(p), [nm0] "r"(~mask0), [n0] "r"(new0), [nm1] "r"(~mask1), [n1] "r"(new1)
		     : "memory", "cc");
	host_code_page((void *)(addr & ~(PAGE_SIZE - 1)));
	if ((addr & (PAGE_SIZE - 1)) > PAGE_SIZE - 5)
		host_code_page((void *)((addr & ~(PAGE_SIZE - 1)) + PAGE_SIZE));
}

static void jump_label_update(struct static_key *key, bool on)
{
	struct jump_entry *e;

	for (e = __start___jump_table; e < __stop___jump_table; e++) {
		u8 jmp[5];
		s32 rel;

		if (e->key != (u64)key)
			continue;
		if (!on) {
			text_poke_site(e->code, jump_nop5);
			continue;
		}
		rel = (s32)(e->target - (e->code + 5));
		jmp[0] = 0xe9;
		memcpy(jmp + 1, &rel, 4);
		text_poke_site(e->code, jmp);
	}
}

void static_key_slow_inc(struct static_key *key)
{
	mutex_lock(&jump_label_mutex);
	if (key->enabled++ == 0)
		jump_label_update(key, true);
	mutex_unlock(&jump_label_mutex);
}

void static_key_slow_dec(struct static_key *key)
{
	mutex_lock(&jump_label_mutex);
	if (--key->enabled == 0)
		jump_label_update(key, false);
	mutex_unlock(&jump_label_mutex);
}
