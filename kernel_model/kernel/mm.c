/* Physical pages, kmalloc size classes, user page tables and uaccess. */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define MAX_PAGES (1UL << 18)	/* 1 GiB of RAM */
#define PTE_P 0x001UL
#define PTE_W 0x002UL
#define PTE_U 0x004UL
#define PTE_PS 0x080UL
#define PTE_ADDR 0x000ffffffffff000UL
/* No-execute, as Linux maps data (and Unicorn's stores stay fast: see
 * machine/paging.py).  Pages filled with code are reported: host_code_page. */
#define PTE_NX (1UL << 63)
/* Software bit (ignored by the MMU): a page other address spaces map too, which mmput()
 * leaves alone (session.c's stub and sink). */
#define PTE_SHARED (1UL << 9)

static u64 page_bitmap[MAX_PAGES / 64];
static u64 first_pfn, last_pfn, next_hint;
u64 nr_free_pages;
static spinlock_t page_lock;
struct mm_struct init_mm;

void mem_init(void)
{
	u64 pgd;

	first_pfn = ALIGN(__pa(_end), 1UL << 21) >> 12;
	last_pfn = boot_params.ram_size >> 12;
	if (last_pfn > MAX_PAGES)
		last_pfn = MAX_PAGES;
	next_hint = first_pfn;
	nr_free_pages = last_pfn - first_pfn;
	asm volatile("movq %%cr3, %0" : "=r"(pgd));
	init_mm.pgd = __va(pgd & PTE_ADDR);
	init_mm.users = 1;
}

static void *__alloc_page(void)
{
	unsigned long flags;
	u64 pfn, n;

	spin_lock_irqsave(&page_lock, flags);
	for (n = 0, pfn = next_hint; n < last_pfn - first_pfn; n++, pfn++) {
		if (pfn >= last_pfn)
			pfn = first_pfn;
		if (!(page_bitmap[pfn / 64] & (1UL << (pfn % 64)))) {
			page_bitmap[pfn / 64] |= 1UL << (pfn % 64);
			next_hint = pfn + 1;
			nr_free_pages--;
			spin_unlock_irqrestore(&page_lock, flags);
			return __va(pfn << 12);
		}
	}
	spin_unlock_irqrestore(&page_lock, flags);
	return NULL;
}

void *alloc_page_zeroed(void)
{
	void *p = __alloc_page();

	if (p)
		memset(p, 0, PAGE_SIZE);
	return p;
}

void free_page(void *p)
{
	unsigned long flags;
	u64 pfn = __pa(p) >> 12;

	spin_lock_irqsave(&page_lock, flags);
	page_bitmap[pfn / 64] &= ~(1UL << (pfn % 64));
	nr_free_pages++;
	/* Reuse the lowest freed page first, as Linux reuses recently freed pages: a next-fit
	 * scan would touch every page of RAM before reusing one, so the host's resident set of
	 * guest RAM kept growing with every exec. */
	if (pfn < next_hint)
		next_hint = pfn;
	spin_unlock_irqrestore(&page_lock, flags);
}

/* Thread stacks: 4 contiguous pages found by a linear scan. */
void *alloc_thread_stack(void)
{
	unsigned long flags;
	u64 pfn, k, npages = THREAD_SIZE / PAGE_SIZE;

	spin_lock_irqsave(&page_lock, flags);
	for (pfn = ALIGN(first_pfn, npages); pfn + npages <= last_pfn; pfn += npages) {
		for (k = 0; k < npages; k++)
			if (page_bitmap[(pfn + k) / 64] & (1UL << ((pfn + k) % 64)))
				break;
		if (k == npages) {
			for (k = 0; k < npages; k++)
				page_bitmap[(pfn + k) / 64] |= 1UL << ((pfn + k) % 64);
			nr_free_pages -= npages;
			spin_unlock_irqrestore(&page_lock, flags);
			return __va(pfn << 12);
		}
	}
	spin_unlock_irqrestore(&page_lock, flags);
	return NULL;
}

void free_thread_stack(void *p)
{
	u64 k;
	for (k = 0; k < THREAD_SIZE / PAGE_SIZE; k++)
		free_page((char *)p + k * PAGE_SIZE);
}

/* ---- kmalloc: power-of-two classes 32..2048 carved from pages ---- */
struct kmem_cache_node { struct kmem_cache_node *next; };
static struct kmem_cache_node *kmalloc_free[7];
static spinlock_t kmalloc_lock;
#define KMALLOC_HDR 16	/* size class stored before the object */

static int kmalloc_index(size_t size)
{
	int i;
	for (i = 0; i < 7; i++)
		if (size + KMALLOC_HDR <= (32UL << i))
			return i;
	return -1;
}

static void *__kmalloc(size_t size)
{
	unsigned long flags;
	int idx = kmalloc_index(size);
	struct kmem_cache_node *obj;
	u64 *hdr;

	if (idx < 0)
		return NULL;
	spin_lock_irqsave(&kmalloc_lock, flags);
	if (!kmalloc_free[idx]) {
		char *page = __alloc_page();
		size_t sz = 32UL << idx, off;
		if (!page) {
			spin_unlock_irqrestore(&kmalloc_lock, flags);
			return NULL;
		}
		for (off = 0; off + sz <= PAGE_SIZE; off += sz) {
			struct kmem_cache_node *n = (void *)(page + off);
			n->next = kmalloc_free[idx];
			kmalloc_free[idx] = n;
		}
	}
	obj = kmalloc_free[idx];
	kmalloc_free[idx] = obj->next;
	spin_unlock_irqrestore(&kmalloc_lock, flags);
	hdr = (u64 *)obj;
	hdr[0] = idx;
	return (char *)obj + KMALLOC_HDR;
}

void *kmalloc(size_t size, gfp_t flags)
{
	void *p = __kmalloc(size);

	if (p)
		trace_kmalloc(_RET_IP_, p, size, (32UL << ((u64 *)p)[-2]) - KMALLOC_HDR, flags, -1);
	return p;
}

void *kzalloc(size_t size, gfp_t flags)
{
	void *p = __kmalloc(size);

	if (p) {
		memset(p, 0, size);
		trace_kmalloc(_RET_IP_, p, size, (32UL << ((u64 *)p)[-2]) - KMALLOC_HDR, flags | __GFP_ZERO, -1);
	}
	return p;
}

void kfree(const void *p)
{
	unsigned long flags;
	struct kmem_cache_node *n;
	int idx;

	trace_kfree(_RET_IP_, p);
	if (!p)
		return;
	n = (void *)((char *)p - KMALLOC_HDR);
	idx = (int)((u64 *)n)[0];
	spin_lock_irqsave(&kmalloc_lock, flags);
	n->next = kmalloc_free[idx];
	kmalloc_free[idx] = n;
	spin_unlock_irqrestore(&kmalloc_lock, flags);
}

/* ---- user address spaces ---- */
struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm), GFP_KERNEL);

	if (!mm)
		return NULL;
	mm->pgd = alloc_page_zeroed();
	if (!mm->pgd) {
		kfree(mm);
		return NULL;
	}
	/* the kernel half is shared by every address space */
	memcpy(mm->pgd + 256, init_mm.pgd + 256, 256 * sizeof(u64));
	mm->users = 1;
	return mm;
}

static u64 *walk(u64 *table, int idx, bool alloc)
{
	u64 e = table[idx];

	if (!(e & PTE_P)) {
		void *p;
		if (!alloc || !(p = alloc_page_zeroed()))
			return NULL;
		table[idx] = __pa(p) | PTE_P | PTE_W | PTE_U;
		return p;
	}
	return __va(e & PTE_ADDR);
}

static u64 *lookup_pte(struct mm_struct *mm, u64 va, bool alloc)
{
	u64 *t = mm->pgd;

	t = walk(t, (va >> 39) & 511, alloc);
	if (t)
		t = walk(t, (va >> 30) & 511, alloc);
	if (t)
		t = walk(t, (va >> 21) & 511, alloc);
	return t ? &t[(va >> 12) & 511] : NULL;
}

int map_user_page(struct mm_struct *mm, u64 va, void *page, bool exec)
{
	u64 *pte = lookup_pte(mm, va, true);

	if (!pte)
		return -ENOMEM;
	*pte = __pa(page) | PTE_P | PTE_W | PTE_U | (exec ? 0 : PTE_NX);
	return 0;
}

int map_user_page_shared(struct mm_struct *mm, u64 va, void *page, bool exec)
{
	u64 *pte = lookup_pte(mm, va, true);

	if (!pte)
		return -ENOMEM;
	*pte = __pa(page) | PTE_P | PTE_W | PTE_U | PTE_SHARED | (exec ? 0 : PTE_NX);
	return 0;
}

void *user_page(struct mm_struct *mm, u64 va)
{
	u64 *pte = lookup_pte(mm, va, false);

	return pte && (*pte & PTE_P) ? __va(*pte & PTE_ADDR) : NULL;
}

/* fork: copy every present user page into dst */
int dup_mm_pages(struct mm_struct *dst, struct mm_struct *src)
{
	int i, j, k, l;

	for (i = 0; i < 256; i++) {
		u64 *pud = walk(src->pgd, i, false);
		if (!pud)
			continue;
		for (j = 0; j < 512; j++) {
			u64 *pmd = walk(pud, j, false);
			if (!pmd)
				continue;
			for (k = 0; k < 512; k++) {
				u64 *pt = walk(pmd, k, false);
				if (!pt)
					continue;
				for (l = 0; l < 512; l++) {
					u64 va = ((u64)i << 39) | ((u64)j << 30) | ((u64)k << 21) | ((u64)l << 12);
					void *np;
					if (!(pt[l] & PTE_P))
						continue;
					np = __alloc_page();
					if (!np || map_user_page(dst, va, np, !(pt[l] & PTE_NX)))
						return -ENOMEM;
					memcpy(np, __va(pt[l] & PTE_ADDR), PAGE_SIZE);
					if (!(pt[l] & PTE_NX))
						host_code_page(np);
				}
			}
		}
	}
	return 0;
}

static void free_pgtables(u64 *table, int level)
{
	int i, n = level == 4 ? 256 : 512;

	for (i = 0; i < n; i++) {
		if (!(table[i] & PTE_P))
			continue;
		if (level > 1)
			free_pgtables(__va(table[i] & PTE_ADDR), level - 1);
		else if (!(table[i] & PTE_SHARED))
			free_page(__va(table[i] & PTE_ADDR));
	}
	if (level < 4)
		free_page(table);
}

void mmput(struct mm_struct *mm)
{
	if (--mm->users)
		return;
	free_pgtables(mm->pgd, 4);
	free_page(mm->pgd);
	kfree(mm);
}

notrace void switch_mm(struct mm_struct *mm)
{
	asm volatile("movq %0, %%cr3" : : "r"(__pa((mm ? mm : &init_mm)->pgd)) : "memory");
}

/* ---- uaccess: user pointers are checked against the page tables ---- */
bool access_ok(const void *uaddr, size_t len)
{
	u64 a = (u64)uaddr, end = a + len, va;
	struct mm_struct *mm = current->mm;

	if (!mm || end < a || end > TASK_SIZE_MAX)
		return false;
	for (va = a & ~(PAGE_SIZE - 1); va < end; va += PAGE_SIZE)
		if (!user_page(mm, va))
			return false;
	return true;
}

long copy_from_user(void *to, const void *from, size_t n)
{
	if (!access_ok(from, n))
		return n;
	memcpy(to, from, n);
	return 0;
}

long copy_to_user(void *to, const void *from, size_t n)
{
	if (!access_ok(to, n))
		return n;
	memcpy(to, from, n);
	return 0;
}

long strncpy_from_user(char *dst, const char *src, long count)
{
	long i;

	for (i = 0; i < count; i++) {
		if (((u64)(src + i) & (PAGE_SIZE - 1)) == 0 || i == 0)
			if (!access_ok(src + i, 1))
				return -EFAULT;
		dst[i] = src[i];
		if (!dst[i])
			return i;
	}
	return count;
}
