/* Address spaces: user page tables, thread stacks, uaccess. */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/session.h"

#define PTE_P 0x001UL
#define PTE_W 0x002UL
#define PTE_U 0x004UL
#define PTE_ADDR 0x000ffffffffff000UL
/* No-execute, as Linux maps data (and Unicorn's stores stay fast: see
 * machine/paging.py).  Pages filled with code are reported: host_code_page. */
#define PTE_NX (1UL << 63)
/* Software bit (ignored by the MMU): a page other address spaces map too, which mmput()
 * leaves alone (session.c's stub and sink). */
#define PTE_SHARED (1UL << 9)

struct mm_struct init_mm;
static struct kmem_cache *mm_cachep;

void mem_init(void)
{
	u64 pgd;

	asm volatile("movq %%cr3, %0" : "=r"(pgd));
	init_mm.pgd = __va(pgd & PTE_ADDR);
	init_mm.users = 1;
	page_alloc_init(init_mm.pgd);
	kmem_cache_init();
}

/* A page of user memory: text, data, stack (zeroed, as anonymous memory is). */
void *alloc_page_zeroed(void)
{
	return (void *)get_zeroed_page(GFP_HIGHUSER_MOVABLE);
}

/* Thread stacks: THREAD_SIZE of contiguous pages. */
void *alloc_thread_stack(void)
{
	struct page *page = alloc_pages(THREADINFO_GFP, THREAD_SIZE_ORDER);

	return page ? page_address(page) : NULL;
}

void free_thread_stack(void *p)
{
	free_pages((unsigned long)p, THREAD_SIZE_ORDER);
}

void proc_caches_init(void)
{
	mm_cachep = kmem_cache_create("mm_struct", sizeof(struct mm_struct), 0,
				      SLAB_HWCACHE_ALIGN | SLAB_PANIC | SLAB_ACCOUNT, NULL);
}

/* ---- user address spaces ---- */
struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kmem_cache_zalloc(mm_cachep, GFP_KERNEL);

	if (!mm)
		return NULL;
	mm->pgd = (u64 *)get_zeroed_page(GFP_PGTABLE_USER);
	if (!mm->pgd) {
		kmem_cache_free(mm_cachep, mm);
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
		if (!alloc || !(p = (void *)get_zeroed_page(GFP_PGTABLE_USER)))
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
					np = (void *)__get_free_pages(GFP_HIGHUSER_MOVABLE, 0);
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
	kmem_cache_free(mm_cachep, mm);
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
	if (session_remote_uaccess(current))
		return session_copy_from_user(to, (u64)from, n);
	if (!access_ok(from, n))
		return n;
	memcpy(to, from, n);
	return 0;
}

long copy_to_user(void *to, const void *from, size_t n)
{
	if (session_remote_uaccess(current))
		return session_copy_to_user((u64)to, from, n);
	if (!access_ok(to, n))
		return n;
	memcpy(to, from, n);
	return 0;
}

long strncpy_from_user(char *dst, const char *src, long count)
{
	long i;

	if (session_remote_uaccess(current))
		return session_strncpy_from_user(dst, (u64)src, count);
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
