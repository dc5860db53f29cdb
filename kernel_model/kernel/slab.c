/*
 * The slab allocator (mm/slab_common.c, mm/slub.c without per-cpu slabs):
 * a kmem_cache hands out objects of one size from slabs, blocks of pages
 * whose free objects are chained through their first word; the slabs with
 * free objects wait on the cache's partial list, an empty one goes back to
 * the page allocator when another is partial.  kmalloc() serves from the
 * kmalloc-N caches (kmalloc_caches), larger sizes from the page allocator.
 * The kmem:kmem_cache_alloc/free and kmalloc/kfree events are 6.1's.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define PAGE_ALLOC_COSTLY_ORDER	3
#define SLUB_MIN_OBJECTS	12			/* 4 * (fls(nr_cpus) + 1) on 2 cpus */
#define ZERO_SIZE_PTR		((void *)16)
#define ZERO_OR_NULL_PTR(x)	((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)
#define NUMA_NO_NODE		(-1)
#define L1_CACHE_BYTES		64

static DEFINE_MUTEX(slab_mutex);		/* slab_caches, cache creation */
static LIST_HEAD(slab_caches);
static struct kmem_cache kmem_cache_boot = { .name = "kmem_cache" };
static struct kmem_cache *kmem_cache = &kmem_cache_boot;	/* the caches' own cache */
struct kmem_cache *kmalloc_caches[KMALLOC_SHIFT_HIGH + 1] __ro_after_init;

/* The order of a cache's slabs: the smallest that holds enough objects, costly ones aside. */
static unsigned int calculate_order(unsigned int size)
{
	unsigned int order;

	for (order = 0; order < PAGE_ALLOC_COSTLY_ORDER; order++)
		if ((PAGE_SIZE << order) / size >= SLUB_MIN_OBJECTS)
			break;
	while ((PAGE_SIZE << order) < size)
		order++;
	return order;
}

/* the alignment of a cache's objects (calculate_alignment()) */
static unsigned int calculate_alignment(slab_flags_t flags, unsigned int align, unsigned int size)
{
	if (flags & SLAB_HWCACHE_ALIGN) {
		unsigned int ralign = L1_CACHE_BYTES;

		while (size <= ralign / 2)
			ralign /= 2;
		align = max(align, ralign);
	}
	return ALIGN(max(align, (unsigned int)sizeof(void *)), sizeof(void *));
}

static notrace void kmem_cache_setup(struct kmem_cache *s, const char *name, unsigned int size, unsigned int align,
			     slab_flags_t flags, void (*ctor)(void *))
{
	s->name = name;
	s->object_size = size;
	s->align = calculate_alignment(flags, align, size);
	s->size = ALIGN(max(size, (unsigned int)sizeof(void *)), s->align);
	s->flags = flags;
	s->ctor = ctor;
	s->order = calculate_order(s->size);
	s->objects = (PAGE_SIZE << s->order) / s->size;
	INIT_LIST_HEAD(&s->partial);
	list_add_tail(&s->list, &slab_caches);
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     slab_flags_t flags, void (*ctor)(void *))
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	s = kmem_cache_zalloc(kmem_cache, GFP_KERNEL);
	if (s)
		kmem_cache_setup(s, name, size, align, flags, ctor);
	mutex_unlock(&slab_mutex);
	if (!s && (flags & SLAB_PANIC))
		panic("kmem_cache_create: cannot create a cache");
	return s;
}

/* each object of a new slab: its constructor (no debug or KASAN state to set up) */
static noinline void *setup_object(struct kmem_cache *s, void *object)
{
	if (unlikely(s->ctor))
		s->ctor(object);
	return object;
}

/* A slab of s: a block of pages, its objects all free and chained. */
static noinline struct page *allocate_slab(struct kmem_cache *s, gfp_t flags)
{
	gfp_t alloc_gfp = (flags & ~__GFP_ZERO) | (s->order ? __GFP_COMP : 0) |
			  (s->flags & SLAB_ACCOUNT ? __GFP_ACCOUNT : 0);
	struct page *page = alloc_pages(alloc_gfp, s->order);
	char *start;
	unsigned int i;

	if (!page)
		return NULL;
	page->flags |= PG_slab;
	page->slab_cache = s;
	page->inuse = 0;
	page->objects = s->objects;
	start = page_address(page);
	for (i = 0; i < s->objects; i++) {
		void *obj = setup_object(s, start + i * s->size);

		*(void **)obj = i + 1 < s->objects ? start + (i + 1) * s->size : NULL;
	}
	page->freelist = start;
	return page;
}

static struct page *new_slab(struct kmem_cache *s, gfp_t flags)
{
	return allocate_slab(s, flags);
}

static noinline void discard_slab(struct kmem_cache *s, struct page *slab)
{
	slab->flags &= ~PG_slab;
	__free_pages(slab, s->order);
}

/* An object from the first slab with room.  list_lock held. */
static __always_inline void *take_object(struct kmem_cache *s)
{
	struct page *slab = list_first_entry(&s->partial, struct page, slab_list);
	void *object = slab->freelist;

	slab->freelist = *(void **)object;
	if (++slab->inuse == slab->objects)
		list_del_init(&slab->slab_list);		/* full: off the partial list */
	return object;
}

/* The slow path: no slab of s has room (6.1: the cpu slab and the partial lists are empty),
 * a new one is made. */
static noinline void *___slab_alloc(struct kmem_cache *s, gfp_t gfpflags, int node, unsigned long addr,
				    size_t orig_size)
{
	struct page *slab = new_slab(s, gfpflags);
	unsigned long flags;
	void *object;

	if (!slab)
		return NULL;
	raw_spin_lock_irqsave(&s->list_lock, flags);
	list_add(&slab->slab_list, &s->partial);
	object = take_object(s);
	raw_spin_unlock_irqrestore(&s->list_lock, flags);
	return object;
}

/* An object of s, or NULL: from a slab with room, else from a new slab. */
static __always_inline void *slab_alloc_node(struct kmem_cache *s, gfp_t gfpflags, int node, size_t orig_size,
					     unsigned long addr)
{
	unsigned long flags;
	void *object = NULL;

	raw_spin_lock_irqsave(&s->list_lock, flags);
	if (!list_empty(&s->partial))
		object = take_object(s);
	raw_spin_unlock_irqrestore(&s->list_lock, flags);
	if (!object)
		object = ___slab_alloc(s, gfpflags, node, addr, orig_size);
	if (object && (gfpflags & __GFP_ZERO))
		memset(object, 0, s->object_size);
	return object;
}

/* The slow path of a free: the slab changes lists, full to partial, or empty and discarded
 * (unless it is the only one left with room).  list_lock held; dropped. */
static noinline void __slab_free(struct kmem_cache *s, struct page *slab, void *head, void *tail, int cnt,
				 unsigned long addr, unsigned long flags)
{
	if (slab->inuse + cnt == slab->objects)	/* was full */
		list_add(&slab->slab_list, &s->partial);
	if (!slab->inuse && s->partial.next != s->partial.prev) {
		list_del_init(&slab->slab_list);
		raw_spin_unlock_irqrestore(&s->list_lock, flags);
		discard_slab(s, slab);
		return;
	}
	raw_spin_unlock_irqrestore(&s->list_lock, flags);
}

static __always_inline void slab_free(struct kmem_cache *s, struct page *slab, void *object, unsigned long addr)
{
	bool was_full;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->list_lock, flags);
	was_full = slab->inuse == slab->objects;
	*(void **)object = slab->freelist;
	slab->freelist = object;
	slab->inuse--;
	if (was_full || (!slab->inuse && s->partial.next != s->partial.prev)) {
		__slab_free(s, slab, object, object, 1, addr, flags);
		return;
	}
	raw_spin_unlock_irqrestore(&s->list_lock, flags);
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfpflags)
{
	void *ret = slab_alloc_node(s, gfpflags, NUMA_NO_NODE, s->object_size, _RET_IP_);

	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfpflags, NUMA_NO_NODE);
	return ret;
}

/* the same, for an object on a list_lru (dentries, inodes): the lru is memcg's, none here */
noinline void *kmem_cache_alloc_lru(struct kmem_cache *s, struct list_lru *lru, gfp_t gfpflags)
{
	void *ret = slab_alloc_node(s, gfpflags, NUMA_NO_NODE, s->object_size, _RET_IP_);

	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfpflags, NUMA_NO_NODE);
	return ret;
}

void kmem_cache_free(struct kmem_cache *s, void *x)
{
	if (!x)
		return;
	trace_kmem_cache_free(_RET_IP_, x, s);
	slab_free(s, virt_to_head_page(x), x, _RET_IP_);
}

/* ---- kmalloc ---- */
/* A kmalloc cache's object (for kmalloc_trace, __kmalloc) */
noinline void *__kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfpflags, int node, size_t orig_size,
				       unsigned long caller)
{
	return slab_alloc_node(s, gfpflags, node, orig_size, caller);
}

/* kfree's of an object of a cache */
noinline void __kmem_cache_free(struct kmem_cache *s, void *x, unsigned long caller)
{
	slab_free(s, virt_to_head_page(x), x, caller);
}

noinline struct kmem_cache *kmalloc_slab(size_t size, gfp_t flags)
{
	if (!size)
		return ZERO_SIZE_PTR;
	return kmalloc_caches[kmalloc_index(size)];
}

static __always_inline unsigned int get_order(size_t size)
{
	return size <= PAGE_SIZE ? 0 : 64 - __builtin_clzl((size - 1) >> 12);
}

static noinline void *__kmalloc_large_node(size_t size, gfp_t flags, int node)
{
	struct page *page = alloc_pages(flags | __GFP_COMP, get_order(size));

	return page ? page_address(page) : NULL;
}

static __always_inline void *__do_kmalloc_node(size_t size, gfp_t flags, int node, unsigned long caller)
{
	struct kmem_cache *s;
	void *ret;

	if (unlikely(size > KMALLOC_MAX_CACHE_SIZE)) {
		ret = __kmalloc_large_node(size, flags, node);
		trace_kmalloc(caller, ret, size, PAGE_SIZE << get_order(size), flags, node);
		return ret;
	}
	s = kmalloc_slab(size, flags);
	if (unlikely(ZERO_OR_NULL_PTR(s)))
		return s;
	ret = __kmem_cache_alloc_node(s, flags, node, size, caller);
	trace_kmalloc(caller, ret, size, s->size, flags, node);
	return ret;
}

/* kmalloc of a size not known at compile time */
noinline void *__kmalloc(size_t size, gfp_t flags)
{
	return __do_kmalloc_node(size, flags, NUMA_NO_NODE, _RET_IP_);
}

/* kmalloc of a size known at compile time: its cache chosen by the caller */
noinline void *kmalloc_trace(struct kmem_cache *s, gfp_t gfpflags, size_t size)
{
	void *ret = __kmem_cache_alloc_node(s, gfpflags, NUMA_NO_NODE, size, _RET_IP_);

	trace_kmalloc(_RET_IP_, ret, size, s->size, gfpflags, NUMA_NO_NODE);
	return ret;
}

/* ... and bigger than the caches: pages */
noinline void *kmalloc_large(size_t size, gfp_t flags)
{
	void *ret = __kmalloc_large_node(size, flags, NUMA_NO_NODE);

	trace_kmalloc(_RET_IP_, ret, size, PAGE_SIZE << get_order(size), flags, NUMA_NO_NODE);
	return ret;
}

/* A kmalloc too big for the caches: its pages back to the allocator. */
noinline void free_large_kmalloc(struct page *page, void *object)
{
	__free_pages(page, page->order);
}

void kfree(const void *object)
{
	struct page *page;

	trace_kfree(_RET_IP_, object);
	if (unlikely(ZERO_OR_NULL_PTR(object)))
		return;
	page = virt_to_head_page(object);
	if (unlikely(!(page->flags & PG_slab))) {
		free_large_kmalloc(page, (void *)object);
		return;
	}
	__kmem_cache_free(page->slab_cache, (void *)object, _RET_IP_);
}

static const struct { const char *name; unsigned int size; } kmalloc_info[] = {
	[1] = { "kmalloc-96", 96 }, [2] = { "kmalloc-192", 192 }, [3] = { "kmalloc-8", 8 },
	[4] = { "kmalloc-16", 16 }, [5] = { "kmalloc-32", 32 }, [6] = { "kmalloc-64", 64 },
	[7] = { "kmalloc-128", 128 }, [8] = { "kmalloc-256", 256 }, [9] = { "kmalloc-512", 512 },
	[10] = { "kmalloc-1k", 1024 }, [11] = { "kmalloc-2k", 2048 }, [12] = { "kmalloc-4k", 4096 },
	[13] = { "kmalloc-8k", 8192 },
};

/* The caches' own cache, then the kmalloc caches (kmem_cache_init, create_kmalloc_caches). */
void __init kmem_cache_init(void)
{
	unsigned int i;

	kmem_cache_setup(kmem_cache, "kmem_cache", sizeof(struct kmem_cache), 0, SLAB_HWCACHE_ALIGN, NULL);
	for (i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		kmalloc_caches[i] = kmem_cache_create(kmalloc_info[i].name, kmalloc_info[i].size, 0,
						      SLAB_PANIC, NULL);
}
