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
void *kmalloc(size_t size, gfp_t flags);
void *kzalloc(size_t size, gfp_t flags);
void kfree(const void *p);
#endif
