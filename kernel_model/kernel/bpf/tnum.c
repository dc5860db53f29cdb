/* Tristate numbers (kernel/bpf/tnum.c): a value and a mask of unknown bits, what the verifier
 * knows of a scalar's bits. */
#include "../../include/bpf_verifier.h"

noinline struct tnum tnum_const(u64 value) { return TNUM(value, 0); }

struct tnum tnum_range(u64 min, u64 max)
{
	u64 chi = min ^ max, delta;
	u8 bits = chi ? 64 - __builtin_clzl(chi) : 0;

	if (bits > 63)
		return tnum_unknown;
	delta = (1ULL << bits) - 1;
	return TNUM(min & ~delta, delta);
}

noinline struct tnum tnum_lshift(struct tnum a, u8 shift) { return TNUM(a.value << shift, a.mask << shift); }
noinline struct tnum tnum_rshift(struct tnum a, u8 shift) { return TNUM(a.value >> shift, a.mask >> shift); }

struct tnum tnum_arshift(struct tnum a, u8 min_shift, u8 insn_bitness)
{
	if (insn_bitness == 32)
		return TNUM((u32)(((s32)a.value) >> min_shift), (u32)(((s32)a.mask) >> min_shift));
	return TNUM((s64)a.value >> min_shift, (s64)a.mask >> min_shift);
}

noinline struct tnum tnum_add(struct tnum a, struct tnum b)
{
	u64 sm = a.mask + b.mask, sv = a.value + b.value, sigma = sm + sv;
	u64 chi = sigma ^ sv, mu = chi | a.mask | b.mask;

	return TNUM(sv & ~mu, mu);
}

struct tnum tnum_sub(struct tnum a, struct tnum b)
{
	u64 dv = a.value - b.value, alpha = dv + a.mask, beta = dv - b.mask;
	u64 chi = alpha ^ beta, mu = chi | a.mask | b.mask;

	return TNUM(dv & ~mu, mu);
}

struct tnum tnum_and(struct tnum a, struct tnum b)
{
	u64 alpha = a.value | a.mask, beta = b.value | b.mask, v = a.value & b.value;

	return TNUM(v, alpha & beta & ~v);
}

noinline struct tnum tnum_or(struct tnum a, struct tnum b)
{
	u64 v = a.value | b.value, mu = a.mask | b.mask;

	return TNUM(v, mu & ~v);
}

struct tnum tnum_xor(struct tnum a, struct tnum b)
{
	u64 v = a.value ^ b.value, mu = a.mask | b.mask;

	return TNUM(v & ~mu, mu);
}

struct tnum tnum_mul(struct tnum a, struct tnum b)
{
	u64 acc_v = a.value * b.value;
	struct tnum acc_m = TNUM(0, 0);

	while (a.value || a.mask) {
		if (a.value & 1)
			acc_m = tnum_add(acc_m, TNUM(0, b.mask));
		else if (a.mask & 1)
			acc_m = tnum_add(acc_m, TNUM(0, b.value | b.mask));
		a = tnum_rshift(a, 1);
		b = tnum_lshift(b, 1);
	}
	return tnum_add(TNUM(acc_v, 0), acc_m);
}

struct tnum tnum_intersect(struct tnum a, struct tnum b)
{
	u64 v = a.value | b.value, mu = a.mask & b.mask;

	return TNUM(v & ~mu, mu);
}

noinline struct tnum tnum_cast(struct tnum a, u8 size)
{
	a.value &= (1ULL << (size * 8)) - 1;
	a.mask &= (1ULL << (size * 8)) - 1;
	return a;
}

bool tnum_in(struct tnum a, struct tnum b)
{
	if (b.mask & ~a.mask)
		return false;
	b.value &= ~a.mask;
	return a.value == b.value;
}

/* "(%#llx; %#llx)" as the kernel's vsnprintf prints it: 0x0 too */
int tnum_strn(char *str, size_t size, struct tnum a)
{
	return scnprintf(str, size, "(0x%lx; 0x%lx)", a.value, a.mask);
}

struct tnum tnum_subreg(struct tnum a) { return tnum_cast(a, 4); }
noinline struct tnum tnum_clear_subreg(struct tnum a) { return tnum_lshift(tnum_rshift(a, 32), 32); }
struct tnum tnum_const_subreg(struct tnum a, u32 value) { return tnum_or(tnum_clear_subreg(a), tnum_const(value)); }
