/* Slab caches (include/linux/slab.h, slub_def.h). */
#ifndef _SLAB_H
#define _SLAB_H
#include "types.h"
#include "list.h"
#include "spinlock.h"
#include "gfp.h"

typedef unsigned int slab_flags_t;
#define SLAB_HWCACHE_ALIGN	((slab_flags_t __force)0x00002000U)	/* objects on cache lines */
#define SLAB_PANIC		((slab_flags_t __force)0x00040000U)	/* creation must not fail */
#define SLAB_ACCOUNT		((slab_flags_t __force)0x04000000U)	/* charged to the memory cgroup */

struct kmem_cache {
	const char *name;
	unsigned int object_size;	/* what a user asks for */
	unsigned int size;		/* an object with its alignment */
	unsigned int align;
	slab_flags_t flags;
	unsigned int order;		/* of its slabs */
	unsigned int objects;		/* per slab */
	void (*ctor)(void *);
	struct list_head list;		/* slab_caches */
	raw_spinlock_t list_lock;
	struct list_head partial;	/* slabs with free objects */
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     slab_flags_t flags, void (*ctor)(void *));
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfpflags);
struct list_lru;
void *kmem_cache_alloc_lru(struct kmem_cache *s, struct list_lru *lru, gfp_t gfpflags);
void kmem_cache_free(struct kmem_cache *s, void *x);
static __always_inline void *kmem_cache_zalloc(struct kmem_cache *s, gfp_t flags)
{
	return kmem_cache_alloc(s, flags | __GFP_ZERO);
}
void kmem_cache_init(void);
void kfree(const void *p);

/* kmalloc as include/linux/slab.h inlines it: a size known at compile time goes straight to
 * its cache (kmalloc_trace) or the page allocator (kmalloc_large); any other to __kmalloc */
#define KMALLOC_SHIFT_HIGH	13			/* SLUB: kmalloc caches up to 2 pages */
#define KMALLOC_MAX_CACHE_SIZE	(1UL << KMALLOC_SHIFT_HIGH)
#define KMALLOC_MIN_SIZE	8
extern struct kmem_cache *kmalloc_caches[KMALLOC_SHIFT_HIGH + 1];
void *__kmalloc(size_t size, gfp_t flags);
void *kmalloc_trace(struct kmem_cache *s, gfp_t flags, size_t size);
void *kmalloc_large(size_t size, gfp_t flags);

/* the kmalloc cache of a size: kmalloc-8 .. kmalloc-8k, with 96 and 192 between */
static __always_inline unsigned int kmalloc_index(size_t size)
{
	if (size <= KMALLOC_MIN_SIZE)
		return 3;
	if (size > 64 && size <= 96)
		return 1;
	if (size > 128 && size <= 192)
		return 2;
	return 64 - __builtin_clzl(size - 1);
}

static __always_inline void *kmalloc(size_t size, gfp_t flags)
{
	if (__builtin_constant_p(size) && size) {
		if (size > KMALLOC_MAX_CACHE_SIZE)
			return kmalloc_large(size, flags);
		return kmalloc_trace(kmalloc_caches[kmalloc_index(size)], flags, size);
	}
	return __kmalloc(size, flags);
}

static __always_inline void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

/* mm/util.c: a kmalloc'd copy of the string (NULL: none, or no memory) */
char *kstrdup(const char *s, gfp_t gfp);
#endif
