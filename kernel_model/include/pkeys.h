/*
 * Memory protection keys (arch/x86/include/asm/pkeys.h) as 6.1 has them on a cpu without
 * X86_FEATURE_OSPKE: this kernel never sets CR4.PKE, so it has one key, the default 0, which
 * init_new_context() leaves out of every mm's allocation map (it fills the map only with
 * OSPKE).  So no mm holds a key: pkey_alloc() finds none (ENOSPC), pkey_free() and
 * pkey_mprotect() with any key but -1 are EINVAL.
 */
#ifndef _PKEYS_H
#define _PKEYS_H
#include "mm.h"

#define PKEY_DISABLE_ACCESS	0x1
#define PKEY_DISABLE_WRITE	0x2
#define PKEY_ACCESS_MASK	(PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE)

#define arch_max_pkey()		1	/* cpu_feature_enabled(X86_FEATURE_OSPKE) ? 16 : 1 */
#define mm_pkey_allocation_map(mm)	0U	/* mm->context's: never filled without OSPKE */

static inline bool mm_pkey_is_allocated(struct mm_struct *mm, int pkey)
{
	if (pkey < 0 || pkey >= arch_max_pkey())
		return false;
	return mm_pkey_allocation_map(mm) & (1U << pkey);
}

/* a free key, or -1: none while !arch_pkeys_enabled() (no OSPKE) */
static inline int mm_pkey_alloc(struct mm_struct *mm)
{
	return -1;
}

/* (with OSPKE the key would leave the map) */
static inline int mm_pkey_free(struct mm_struct *mm, int pkey)
{
	return mm_pkey_is_allocated(mm, pkey) ? 0 : -EINVAL;
}
#endif
