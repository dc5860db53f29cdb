/* Address spaces: user page tables, thread stacks, uaccess. */
#include "../include/fs.h"
#include "../include/kernel.h"
#include "../include/uprobes.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/mmap_lock.h"

#define PTE_P _PAGE_PRESENT
#define PTE_W _PAGE_RW
#define PTE_U _PAGE_USER
#define PTE_ADDR PTE_PFN_MASK
/* No-execute, as Linux maps data (and Unicorn's stores stay fast: see
 * machine/paging.py).  Pages filled with code are reported: host_code_page. */
#define PTE_NX _PAGE_NX
/* A page other address spaces map too, which mmput() leaves alone (session.c's stub and
 * sink): _PAGE_SPECIAL, as Linux marks pages that have no struct page to count. */
#define PTE_SHARED _PAGE_SPECIAL

struct mm_struct init_mm;
static struct kmem_cache *mm_cachep;

void __init mem_init(void)
{
	u64 pgd;

	asm volatile("movq %%cr3, %0" : "=r"(pgd));
	init_mm.pgd = __va(pgd & PTE_ADDR);
	init_mm.mm_users = 1;
	init_mm.mm_count = 1;
	INIT_LIST_HEAD(&init_mm.mm_mt.vmas);
	page_alloc_init(init_mm.pgd);
	kmem_cache_init();
	vmalloc_init();
}

/* A page of user memory: text, data, stack (zeroed, as anonymous memory is). */
notrace void *alloc_page_zeroed(void)
{
	return (void *)get_zeroed_page(GFP_HIGHUSER_MOVABLE);
}

/* Thread stacks: THREAD_SIZE of contiguous pages. */
notrace void *alloc_thread_stack(void)
{
	struct page *page = alloc_pages(THREADINFO_GFP, THREAD_SIZE_ORDER);

	return page ? page_address(page) : NULL;
}

notrace void free_thread_stack(void *p)
{
	free_pages((unsigned long)p, THREAD_SIZE_ORDER);
}

/* ---- a user task's FPU/SSE state (arch/x86/kernel/fpu/) ---- */
/* fpstate_init_fxstate(): the x87 control word and MXCSR as after reset */
notrace void fpu_init_user(struct task_struct *t)
{
	memset(&t->fpu, 0, sizeof(t->fpu));
	*(u16 *)&t->fpu.bytes[0] = 0x37f;	/* cwd */
	*(u32 *)&t->fpu.bytes[24] = 0x1f80;	/* mxcsr */
	if (t == current)
		asm volatile("fxrstor64 %0" : : "m"(t->fpu));
}

/* The current task's live registers into its thread struct (before they are copied). */
notrace void fpu_save(struct task_struct *t)
{
	if (t == current)
		asm volatile("fxsave64 %0" : "=m"(t->fpu));
}

void __init proc_caches_init(void)
{
	vma_cache_init();
	mm_cachep = kmem_cache_create("mm_struct", sizeof(struct mm_struct), 0,
				      SLAB_HWCACHE_ALIGN | SLAB_PANIC | SLAB_ACCOUNT, NULL);
}

/* ---- user address spaces ---- */
/* kernel/fork.c: a new address space's own parts (its counts, lists, lock, owner) and its pgd
 * (mm_alloc_pgd); NULL, the struct freed, if there is no page for it */
static noinline struct mm_struct *mm_init(struct mm_struct *mm, struct task_struct *p)
{
	mm->pgd = (u64 *)get_zeroed_page(GFP_PGTABLE_USER);
	if (!mm->pgd) {
		kmem_cache_free(mm_cachep, mm);	/* free_mm() */
		return NULL;
	}
	/* the kernel half is shared by every address space */
	memcpy(mm->pgd + 256, init_mm.pgd + 256, 256 * sizeof(u64));
	mm->mm_users = 1;
	mm->mm_count = 1;
	mm->task_size = TASK_SIZE_MAX;
	INIT_LIST_HEAD(&mm->mm_mt.vmas);
	mmap_init_lock(mm);
	mm->owner = p;	/* mm_init_owner() */
	return mm;
}

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kmem_cache_zalloc(mm_cachep, GFP_KERNEL);

	if (!mm)
		return NULL;
	return mm_init(mm, current);
}

/* ---- page-table pages (mm/memory.c, arch/x86/mm/pgtable.c) ---- */
/* A table the walk found missing, installed under the mm's page_table_lock where the entry is
 * still empty (another thread's fault, under the mmap_lock for reading too, may have installed
 * one meanwhile: then the new one goes back), as 6.1's __pud_alloc, __pmd_alloc. */
static inline int install_table(struct mm_struct *mm, u64 *entry, void *table)
{
	if (!table)
		return -ENOMEM;
	spin_lock(&mm->page_table_lock);
	if (!(*entry & PTE_P)) {
		__atomic_add_fetch(&mm->pgtables_bytes, PAGE_SIZE, __ATOMIC_RELAXED);	/* mm_inc_nr_puds/pmds */
		WRITE_ONCE(*entry, __pa(table) | PTE_P | PTE_W | PTE_U);
		table = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (table)
		free_page(table);
	return 0;
}

noinline int __pud_alloc(struct mm_struct *mm, u64 *p4d, unsigned long address)
{
	return install_table(mm, p4d, (void *)get_zeroed_page(GFP_PGTABLE_USER));	/* pud_alloc_one */
}

noinline int __pmd_alloc(struct mm_struct *mm, u64 *pud, unsigned long address)
{
	return install_table(mm, pud, (void *)get_zeroed_page(GFP_PGTABLE_USER));	/* pmd_alloc_one */
}

/* A page for a page table of PTEs (arch/x86/mm/pgtable.c). */
noinline void *pte_alloc_one(struct mm_struct *mm)
{
	return (void *)get_zeroed_page(GFP_PGTABLE_USER);
}

/* The PTE table into the PMD entry, unless one is there already (then the caller frees it). */
noinline void pmd_install(struct mm_struct *mm, u64 *pmd, void **pte)
{
	spin_lock(&mm->page_table_lock);	/* pmd_lock() */
	if (!(*pmd & PTE_P)) {
		__atomic_add_fetch(&mm->pgtables_bytes, PAGE_SIZE, __ATOMIC_RELAXED);	/* mm_inc_nr_ptes */
		WRITE_ONCE(*pmd, __pa(*pte) | PTE_P | PTE_W | PTE_U);
		*pte = NULL;
	}
	spin_unlock(&mm->page_table_lock);
}

noinline int __pte_alloc(struct mm_struct *mm, u64 *pmd)
{
	void *new = pte_alloc_one(mm);

	if (!new)
		return -ENOMEM;
	pmd_install(mm, pmd, &new);
	if (new)
		free_page(new);	/* pte_free */
	return 0;
}

notrace int map_user_page(struct mm_struct *mm, u64 va, void *page, bool exec)
{
	u64 *pte = lookup_pte(mm, va, true);

	if (!pte)
		return -ENOMEM;
	*pte = __pa(page) | PTE_P | PTE_W | PTE_U | (exec ? 0 : PTE_NX);
	return 0;
}

notrace int map_user_page_shared(struct mm_struct *mm, u64 va, void *page, bool exec)
{
	u64 *pte = lookup_pte(mm, va, true);

	if (!pte)
		return -ENOMEM;
	*pte = __pa(page) | PTE_P | PTE_W | PTE_U | PTE_SHARED | (exec ? 0 : PTE_NX);
	return 0;
}

notrace void *user_page(struct mm_struct *mm, u64 va)
{
	u64 *pte = lookup_pte(mm, va, false);

	return pte && (*pte & PTE_P) ? __va(*pte & PTE_ADDR) : NULL;
}

static noinline void free_pgtables(u64 *table, int level)
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

/* The address space's last user is gone: its VMAs, pages and page tables. */
void mmput(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->mm_users, 1, __ATOMIC_ACQ_REL))
		return;
	exit_mmap(mm);
	uprobe_clear_state(mm);
	set_mm_exe_file(mm, NULL);
	free_pgtables(mm->pgd, 4);
	/* its pages are back: the OOM killer passes over a victim of this mm now (6.1's
	 * exit_mmap sets it once the VMAs' pages and tables are freed, as here) */
	__atomic_or_fetch(&mm->flags, 1UL << MMF_OOM_SKIP, __ATOMIC_RELAXED);
	mmdrop(mm);
}

/* The last reference to the struct (an OOM victim's signal struct may hold one: oom_mm). */
notrace noinline void mmdrop(struct mm_struct *mm)
{
	if (!__atomic_sub_fetch(&mm->mm_count, 1, __ATOMIC_ACQ_REL))
		__mmdrop(mm);
}

/* kernel/fork.c: the struct's last reference gone: its pgd, then itself */
noinline void __mmdrop(struct mm_struct *mm)
{
	free_page(mm->pgd);	/* mm_free_pgd() */
	kmem_cache_free(mm_cachep, mm);	/* free_mm() */
}

notrace void switch_mm(struct mm_struct *mm)
{
	asm volatile("movq %0, %%cr3" : : "r"(__pa((mm ? mm : &init_mm)->pgd)) : "memory");
}

/* A present PTE changed: this CPU's TLB forgets it.  Another CPU reloads CR3 (a full
 * flush) before it runs another address space; one that runs this one too (a thread)
 * hears of it from flush_tlb_mm_range(). */
notrace void flush_tlb_page(struct vm_area_struct *vma, unsigned long addr)
{
	asm volatile("invlpg (%0)" : : "r"(addr) : "memory");
}

/* After a range of PTEs changed: the other CPUs that may run this address space forget
 * theirs (Linux's shootdown IPIs; here the machine flushes their TLBs). */
void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	if (READ_ONCE(mm->mm_users) > 1)
		host_doorbell(PORT_TLB, 0);
}

/*
 * ---- uaccess (arch/x86/include/asm/uaccess.h, lib/usercopy.c) ----
 * Not traced: 6.1 inlines them all (access_ok is a macro, copy_{from,to}_user are
 * __always_inline around copy_user_enhanced_fast_string), and builds lib/ without ftrace.
 * access_ok() checks the range only; the copy itself may fault: the page fault handler
 * brings the page in (demand paging, COW), and where it cannot, the copy's exception table
 * entry makes it return what it did not copy.
 */
unsigned long copy_user_enhanced_fast_string(void *to, const void *from, unsigned int len);

noinline notrace bool access_ok(const void *uaddr, size_t len)
{
	u64 a = (u64)uaddr, end = a + len;

	return end >= a && end <= TASK_SIZE_MAX;
}

notrace long copy_from_user(void *to, const void *from, size_t n)
{
	if (session_remote_uaccess(current))
		return session_copy_from_user(to, (u64)from, n);
	if (!current->mm || !access_ok(from, n))
		return n;
	return copy_user_enhanced_fast_string(to, from, n);
}

notrace long copy_to_user(void *to, const void *from, size_t n)
{
	if (session_remote_uaccess(current))
		return session_copy_to_user((u64)to, from, n);
	if (!current->mm || !access_ok(to, n))
		return n;
	return copy_user_enhanced_fast_string(to, from, n);
}

/* lib/strncpy_from_user.c: a page at most at a time, up to its NUL */
notrace long strncpy_from_user(char *dst, const char *src, long count)
{
	long i = 0;

	if (session_remote_uaccess(current))
		return session_strncpy_from_user(dst, (u64)src, count);
	while (i < count) {
		long chunk = min(count - i, (long)(PAGE_SIZE - (((u64)src + i) & (PAGE_SIZE - 1)))), k;

		if (copy_from_user(dst + i, src + i, chunk))
			return -EFAULT;
		for (k = 0; k < chunk; k++)
			if (!dst[i + k])
				return i + k;
		i += chunk;
	}
	return count;
}

/* mm/util.c: a user's string, at most n bytes with its NUL, copied to the kernel (kfree it):
 * -EFAULT where it cannot be read, -EINVAL if longer */
noinline char *strndup_user(const char *s, long n)
{
	char *p = kmalloc(n, GFP_KERNEL);
	long len;

	if (!p)
		return ERR_PTR(-ENOMEM);
	len = strncpy_from_user(p, s, n);
	if (len < 0 || len >= n) {
		kfree(p);
		return ERR_PTR(len < 0 ? -EFAULT : -EINVAL);
	}
	return p;
}
