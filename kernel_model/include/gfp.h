/* GFP flags, defined in the same form as Linux 6.1 so that kmalloc's
 * stringified print fmt expands to the same text. */
#ifndef _GFP_H
#define _GFP_H
#define __force
#define ___GFP_DMA		0x01u
#define ___GFP_HIGHMEM		0x02u
#define ___GFP_DMA32		0x04u
#define ___GFP_MOVABLE		0x08u
#define ___GFP_RECLAIMABLE	0x10u
#define ___GFP_HIGH		0x20u
#define ___GFP_IO		0x40u
#define ___GFP_FS		0x80u
#define ___GFP_ZERO		0x100u
#define ___GFP_ATOMIC		0x200u
#define ___GFP_DIRECT_RECLAIM	0x400u
#define ___GFP_KSWAPD_RECLAIM	0x800u
#define ___GFP_WRITE		0x1000u
#define ___GFP_NOWARN		0x2000u
#define ___GFP_RETRY_MAYFAIL	0x4000u
#define ___GFP_NOFAIL		0x8000u
#define ___GFP_NORETRY		0x10000u
#define ___GFP_MEMALLOC		0x20000u
#define ___GFP_COMP		0x40000u
#define ___GFP_NOMEMALLOC	0x80000u
#define ___GFP_HARDWALL		0x100000u
#define ___GFP_THISNODE		0x200000u
#define ___GFP_ACCOUNT		0x400000u
#define ___GFP_ZEROTAGS		0x800000u
#define ___GFP_SKIP_ZERO		0
#define ___GFP_SKIP_KASAN_UNPOISON	0
#define ___GFP_SKIP_KASAN_POISON	0
#define __GFP_DMA	((__force gfp_t)___GFP_DMA)
#define __GFP_HIGHMEM	((__force gfp_t)___GFP_HIGHMEM)
#define __GFP_DMA32	((__force gfp_t)___GFP_DMA32)
#define __GFP_MOVABLE	((__force gfp_t)___GFP_MOVABLE)
#define __GFP_RECLAIMABLE ((__force gfp_t)___GFP_RECLAIMABLE)
#define __GFP_WRITE	((__force gfp_t)___GFP_WRITE)
#define __GFP_HARDWALL   ((__force gfp_t)___GFP_HARDWALL)
#define __GFP_THISNODE	((__force gfp_t)___GFP_THISNODE)
#define __GFP_ACCOUNT	((__force gfp_t)___GFP_ACCOUNT)
#define __GFP_ATOMIC	((__force gfp_t)___GFP_ATOMIC)
#define __GFP_HIGH	((__force gfp_t)___GFP_HIGH)
#define __GFP_MEMALLOC	((__force gfp_t)___GFP_MEMALLOC)
#define __GFP_NOMEMALLOC ((__force gfp_t)___GFP_NOMEMALLOC)
#define __GFP_IO	((__force gfp_t)___GFP_IO)
#define __GFP_FS	((__force gfp_t)___GFP_FS)
#define __GFP_DIRECT_RECLAIM	((__force gfp_t)___GFP_DIRECT_RECLAIM)
#define __GFP_KSWAPD_RECLAIM	((__force gfp_t)___GFP_KSWAPD_RECLAIM)
#define __GFP_RECLAIM ((__force gfp_t)(___GFP_DIRECT_RECLAIM|___GFP_KSWAPD_RECLAIM))
#define __GFP_RETRY_MAYFAIL	((__force gfp_t)___GFP_RETRY_MAYFAIL)
#define __GFP_NOFAIL	((__force gfp_t)___GFP_NOFAIL)
#define __GFP_NORETRY	((__force gfp_t)___GFP_NORETRY)
#define __GFP_NOWARN	((__force gfp_t)___GFP_NOWARN)
#define __GFP_COMP	((__force gfp_t)___GFP_COMP)
#define __GFP_ZERO	((__force gfp_t)___GFP_ZERO)
#define __GFP_ZEROTAGS	((__force gfp_t)___GFP_ZEROTAGS)
#define __GFP_SKIP_ZERO ((__force gfp_t)___GFP_SKIP_ZERO)
#define __GFP_SKIP_KASAN_UNPOISON ((__force gfp_t)___GFP_SKIP_KASAN_UNPOISON)
#define __GFP_SKIP_KASAN_POISON   ((__force gfp_t)___GFP_SKIP_KASAN_POISON)
#undef GFP_KERNEL
#undef GFP_ATOMIC
#define GFP_ATOMIC	(__GFP_HIGH|__GFP_ATOMIC|__GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL	(__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_KERNEL_ACCOUNT (GFP_KERNEL | __GFP_ACCOUNT)
#define GFP_NOWAIT	(__GFP_KSWAPD_RECLAIM)
#define GFP_NOIO	(__GFP_RECLAIM)
#define GFP_NOFS	(__GFP_RECLAIM | __GFP_IO)
#define GFP_USER	(__GFP_RECLAIM | __GFP_IO | __GFP_FS | __GFP_HARDWALL)
#define GFP_DMA		__GFP_DMA
#define GFP_DMA32	__GFP_DMA32
#define GFP_HIGHUSER	(GFP_USER | __GFP_HIGHMEM)
#define GFP_HIGHUSER_MOVABLE	(GFP_HIGHUSER | __GFP_MOVABLE | \
			 __GFP_SKIP_KASAN_POISON | __GFP_SKIP_KASAN_UNPOISON)
#define GFP_TRANSHUGE_LIGHT	((GFP_HIGHUSER_MOVABLE | __GFP_COMP | \
			 __GFP_NOMEMALLOC | __GFP_NOWARN) & ~__GFP_RECLAIM)
#define GFP_TRANSHUGE	(GFP_TRANSHUGE_LIGHT | __GFP_DIRECT_RECLAIM)

#define gfpflag_string(flag) {(__force unsigned long)flag, #flag}

/* include/linux/tracepoint-defs.h: a flag's mask and its name, as trace_print_flags_seq() takes them */
struct trace_print_flags {
	unsigned long mask;
	const char *name;
};
extern const struct trace_print_flags gfpflag_names[];	/* mm/debug.c: ends with a NULL name */
#define __def_gfpflag_names \
	gfpflag_string(GFP_TRANSHUGE), gfpflag_string(GFP_TRANSHUGE_LIGHT), \
	gfpflag_string(GFP_HIGHUSER_MOVABLE), gfpflag_string(GFP_HIGHUSER), \
	gfpflag_string(GFP_USER), gfpflag_string(GFP_KERNEL_ACCOUNT), \
	gfpflag_string(GFP_KERNEL), gfpflag_string(GFP_NOFS), \
	gfpflag_string(GFP_ATOMIC), gfpflag_string(GFP_NOIO), \
	gfpflag_string(GFP_NOWAIT), gfpflag_string(GFP_DMA), \
	gfpflag_string(__GFP_HIGHMEM), gfpflag_string(GFP_DMA32), \
	gfpflag_string(__GFP_HIGH), gfpflag_string(__GFP_ATOMIC), \
	gfpflag_string(__GFP_IO), gfpflag_string(__GFP_FS), \
	gfpflag_string(__GFP_NOWARN), gfpflag_string(__GFP_RETRY_MAYFAIL), \
	gfpflag_string(__GFP_NOFAIL), gfpflag_string(__GFP_NORETRY), \
	gfpflag_string(__GFP_COMP), gfpflag_string(__GFP_ZERO), \
	gfpflag_string(__GFP_NOMEMALLOC), gfpflag_string(__GFP_MEMALLOC), \
	gfpflag_string(__GFP_HARDWALL), gfpflag_string(__GFP_THISNODE), \
	gfpflag_string(__GFP_RECLAIMABLE), gfpflag_string(__GFP_MOVABLE), \
	gfpflag_string(__GFP_ACCOUNT), gfpflag_string(__GFP_WRITE), \
	gfpflag_string(__GFP_RECLAIM), gfpflag_string(__GFP_DIRECT_RECLAIM), \
	gfpflag_string(__GFP_KSWAPD_RECLAIM), gfpflag_string(__GFP_ZEROTAGS)
#define __def_gfpflag_names_kasan
#define show_gfp_flags(flags) \
	(flags) ? __print_flags(flags, "|", \
	__def_gfpflag_names __def_gfpflag_names_kasan \
	) : "none"
#endif
