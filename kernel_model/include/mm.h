/* Page frames and their allocator (include/linux/mm_types.h, mm.h, gfp.h):
 * a struct page per frame in the virtual memory map at vmemmap_base (the
 * page's pfn is its index), allocated in power-of-two blocks. */
#ifndef _MM_H
#define _MM_H
#include "types.h"
#include "list.h"
#include "gfp.h"
#include "spinlock.h"
#include "mutex.h"
#include "rwsem.h"

struct kmem_cache;
struct page {
	unsigned long flags;		/* PG_* */
	union {
		struct list_head slab_list;	/* a slab: in its cache's partial list */
		struct list_head lru;		/* a page of the page cache: on its LRU list (mm/vmscan.c);
						 * a page being freed: on release_pages()' list */
		unsigned long compound_head;	/* a tail page of a __GFP_COMP block: its head | 1 */
	};
	union {
		struct {
			struct kmem_cache *slab_cache;	/* a slab: its cache */
			void *freelist;			/* a slab: its first free object */
		};
		struct {	/* a page of the page cache (6.1's mapping and index) */
			struct address_space *mapping;
			unsigned long index;
		};
	};
	unsigned int inuse;		/* a slab: objects allocated */
	unsigned int objects;		/* a slab: objects it holds */
	int _refcount;
	unsigned int order;		/* the block's order, in its first page */
	unsigned long private;		/* PG_private: the page's buffer heads */
};
_Static_assert(sizeof(struct page) == 64, "struct page is 64 bytes, as on x86-64 Linux");

#define PG_slab		(1UL << 9)
#define PG_anon		(1UL << 20)	/* anonymous memory (Linux: PAGE_MAPPING_ANON in ->mapping) */
#define PG_swapbacked	(1UL << 19)	/* tmpfs's: memory with no file to write back to (RssShmem) */
#define PG_head		(1UL << 16)	/* the first page of a block of order > 0 */

/* arch/x86/include/asm/pgtable_64_types.h, page_64.h: no KASLR, so the default base */
#define __VMEMMAP_BASE_L4	0xffffea0000000000UL
extern unsigned long vmemmap_base;
#define VMEMMAP_START		vmemmap_base
#define vmemmap			((struct page *)VMEMMAP_START)
#define __pfn_to_page(pfn)	(vmemmap + (pfn))
#define __page_to_pfn(page)	(unsigned long)((page) - vmemmap)
#define pfn_to_page __pfn_to_page
#define page_to_pfn __page_to_pfn
/* (__va and __pa: kernel.h) */
#define page_address(page)	__va(page_to_pfn(page) << 12)
#define virt_to_page(kaddr)	pfn_to_page(__pa(kaddr) >> 12)

/* The first page of the compound block page is in (slabs and large kmallocs are compound):
 * an object past a slab's first page is freed to the slab (page-flags.h). */
static inline struct page *compound_head(struct page *page)
{
	unsigned long head = page->compound_head;

	return head & 1 ? (struct page *)(head - 1) : page;
}
#define virt_to_head_page(kaddr)	compound_head(virt_to_page(kaddr))

#define MAX_ORDER 11
#define THREAD_SIZE_ORDER 2
/* the migrate type of an allocation, from its gfp flags (gfp_migratetype()) */
enum { MIGRATE_UNMOVABLE, MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE };
#define GFP_MOVABLE_MASK	(__GFP_RECLAIMABLE | __GFP_MOVABLE)
#define GFP_MOVABLE_SHIFT	3
#define GFP_PGTABLE_USER	(GFP_KERNEL_ACCOUNT | __GFP_ZERO)
#define THREADINFO_GFP		(GFP_KERNEL_ACCOUNT | __GFP_ZERO)

struct page *__alloc_pages(gfp_t gfp, unsigned int order, int preferred_nid, void *nodemask);
struct page *alloc_pages(gfp_t gfp, unsigned int order);
struct page *__folio_alloc(gfp_t gfp, unsigned int order, int preferred_nid, void *nodemask);
#define alloc_page(gfp) alloc_pages(gfp, 0)
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
void free_unref_page_list(struct list_head *list);
void free_unref_page(struct page *page, unsigned int order);
unsigned long get_zeroed_page(gfp_t gfp);
void __free_pages(struct page *page, unsigned int order);
void free_pages(unsigned long addr, unsigned int order);
#define free_page(addr) free_pages((unsigned long)(addr), 0)
/*
 * The zones' counters (include/linux/mmzone.h's enum zone_stat_item, vm_zone_stat[] of
 * mm/vmstat.c): of 6.1's, the free pages, its first, at its place (tools read the array by
 * its kallsyms address: BCC's drsnoop).  Kept by the page allocator under its lock.
 */
enum zone_stat_item { NR_FREE_PAGES, NR_VM_ZONE_STAT_ITEMS };
extern long vm_zone_stat[NR_VM_ZONE_STAT_ITEMS];

static inline unsigned long global_zone_page_state(enum zone_stat_item item)
{
	long x = READ_ONCE(vm_zone_stat[item]);

	return x < 0 ? 0 : x;
}
/* include/uapi/linux/sysinfo.h: sysinfo(2)'s answer */
struct sysinfo {
	long uptime;
	unsigned long loads[3];
	unsigned long totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	unsigned short procs, pad;
	unsigned long totalhigh, freehigh;
	unsigned int mem_unit;
	char _f[20 - 2 * sizeof(long) - sizeof(int)];
};
void si_meminfo(struct sysinfo *val);
/* virtually contiguous memory (mm/vmalloc.c) */
void vmalloc_init(void);
void *__vmalloc(unsigned long size, gfp_t gfp_mask);
void *vmalloc(unsigned long size);
void *vzalloc(unsigned long size);
void vfree(const void *addr);
void kvfree(const void *addr);
void *kvmalloc_node(size_t size, gfp_t flags, int node);
#define kvmalloc(size, flags)	kvmalloc_node(size, flags, -1)
#define kvzalloc(size, flags)	kvmalloc_node(size, (flags) | __GFP_ZERO, -1)
bool is_vmalloc_addr(const void *x);

/* ---- address spaces (include/linux/mm_types.h as 6.1 lays them out on x86-64) ---- */
struct vm_area_struct;
struct file;
struct task_struct;
struct pt_regs;
/* 6.1 keeps the VMAs in a maple tree; here mm_mt holds them in a list sorted by address
 * (vm_list), with the size and the first fields of 6.1's tree. */
/* what get_unmapped_area asks of vm_unmapped_area (include/linux/mm.h) */
#define VM_UNMAPPED_AREA_TOPDOWN 1
struct vm_unmapped_area_info {
	unsigned long flags;
	unsigned long length;
	unsigned long low_limit;
	unsigned long high_limit;
	unsigned long align_mask;
	unsigned long align_offset;
};

struct maple_tree {
	spinlock_t ma_lock;
	unsigned int ma_flags;
	struct list_head vmas;		/* (6.1: void *ma_root, then padding) */
};
/* arch/x86/include/asm/mmu.h */
typedef struct { u64 ctx_id; u8 pad[128]; } mm_context_t;
struct mm_rss_stat { long count[4]; };
enum { MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES, NR_MM_COUNTERS };
#define AT_VECTOR_SIZE 48

struct mm_struct {
	struct maple_tree mm_mt;
	unsigned long (*get_unmapped_area)(struct file *, unsigned long, unsigned long,
					   unsigned long, unsigned long);
	unsigned long mmap_base;
	unsigned long mmap_legacy_base;
	unsigned long mmap_compat_base;
	unsigned long mmap_compat_legacy_base;
	unsigned long task_size;
	u64 *pgd;
	int membarrier_state;
	int mm_users;			/* tasks sharing it (threads) */
	int mm_count;			/* references to the struct */
	long pgtables_bytes;
	int map_count;			/* VMAs */
	spinlock_t page_table_lock;
	union {				/* (6.1's rw_semaphore has an osq too: 40 bytes) */
		struct rw_semaphore mmap_lock;
		u8 __mmap_lock_size[40];
	};
	struct list_head mmlist;
	long futex_unique_id;
	unsigned long hiwater_rss, hiwater_vm;
	unsigned long total_vm, locked_vm;
	long pinned_vm;
	unsigned long data_vm, exec_vm, stack_vm, def_flags;
	unsigned int write_protect_seq;
	spinlock_t arg_lock;
	unsigned long start_code, end_code, start_data, end_data;
	unsigned long start_brk, brk, start_stack;
	unsigned long arg_start, arg_end, env_start, env_end;
	unsigned long saved_auxv[AT_VECTOR_SIZE];
	struct mm_rss_stat rss_stat;
	void *binfmt;
	mm_context_t context;
	unsigned long flags;
	spinlock_t ioctx_lock;
	void *ioctx_table;
	struct task_struct *owner;
	void *user_ns;
	struct file *exe_file;
	void *notifier_subscriptions;
	unsigned long numa_next_scan, numa_scan_offset;
	int numa_scan_seq;
	int tlb_flush_pending, tlb_flush_batched;
	struct { void *xol_area; } uprobes_state;
	long hugetlb_usage;
};
_Static_assert(offsetof(struct mm_struct, pgd) == 72, "mm_struct.pgd as 6.1's");
_Static_assert(offsetof(struct mm_struct, mm_users) == 84, "mm_struct.mm_users as 6.1's");
_Static_assert(offsetof(struct mm_struct, map_count) == 104, "mm_struct.map_count as 6.1's");
_Static_assert(offsetof(struct mm_struct, mmap_lock) == 112, "mm_struct.mmap_lock as 6.1's");
_Static_assert(offsetof(struct mm_struct, mmap_lock) + 40 == offsetof(struct mm_struct, mmlist), "mmap_lock's 40 bytes");
_Static_assert(offsetof(struct mm_struct, total_vm) == 192, "mm_struct.total_vm as 6.1's");
_Static_assert(offsetof(struct mm_struct, start_code) == 256, "mm_struct.start_code as 6.1's");
_Static_assert(offsetof(struct mm_struct, brk) == 296, "mm_struct.brk as 6.1's");
_Static_assert(offsetof(struct mm_struct, env_end) == 336, "mm_struct.env_end as 6.1's");
_Static_assert(offsetof(struct mm_struct, saved_auxv) == 344, "mm_struct.saved_auxv as 6.1's");
_Static_assert(offsetof(struct mm_struct, rss_stat) == 728, "mm_struct.rss_stat as 6.1's");
_Static_assert(offsetof(struct mm_struct, context) == 768, "mm_struct.context as 6.1's");
_Static_assert(offsetof(struct mm_struct, flags) == 904, "mm_struct.flags as 6.1's");
_Static_assert(offsetof(struct mm_struct, owner) == 928, "mm_struct.owner as 6.1's");
_Static_assert(offsetof(struct mm_struct, exe_file) == 944, "mm_struct.exe_file as 6.1's");
_Static_assert(offsetof(struct mm_struct, uprobes_state) == 992, "mm_struct.uprobes_state as 6.1's");
extern struct mm_struct init_mm;
/* include/linux/sched/coredump.h: the mm is gone (exit_mmap) or of no use to the OOM killer */
#define MMF_OOM_SKIP		21
/* mm->flags, past 6.1's MMF_* bits: the program uses the general registers only (the kernel's
 * own, built -mgeneral-regs-only): its FPU, SSE and FS base need no keeping (hostif.h) */
#define MMF_GENREGS_ONLY	30
/* ... and its VMAs model another address space (a session task's: its host process's): they
 * are bookkeeping only, no page of them is ever faulted in, zapped, copied or re-protected
 * (kernel/mmap.c), and the page tables hold only what session.c maps there itself */
#define MMF_HOST_VMAS		31
/* include/linux/mm.h: the mm's resident pages by kind (MM_ANONPAGES...) and page-table bytes */
static inline unsigned long get_mm_counter(struct mm_struct *mm, int member)
{
	long v = __atomic_load_n(&mm->rss_stat.count[member], __ATOMIC_RELAXED);

	return v < 0 ? 0 : v;
}
void mm_trace_rss_stat(struct mm_struct *mm, int member, long count);
static inline void add_mm_counter(struct mm_struct *mm, int member, long value)
{
	long count = __atomic_add_fetch(&mm->rss_stat.count[member], value, __ATOMIC_RELAXED);

	mm_trace_rss_stat(mm, member, count);
}
void sync_mm_rss(struct mm_struct *mm);
static inline unsigned long get_mm_rss(struct mm_struct *mm)
{
	return get_mm_counter(mm, MM_FILEPAGES) + get_mm_counter(mm, MM_ANONPAGES) +
	       get_mm_counter(mm, MM_SHMEMPAGES);
}
static inline unsigned long mm_pgtables_bytes(const struct mm_struct *mm)
{
	return __atomic_load_n(&mm->pgtables_bytes, __ATOMIC_RELAXED);
}
/* a reference to the struct (not to the address space: mm_users) */
static inline void mmgrab(struct mm_struct *mm)
{
	__atomic_add_fetch(&mm->mm_count, 1, __ATOMIC_RELAXED);
}
void mmdrop(struct mm_struct *mm);
void __mmdrop(struct mm_struct *mm);
/* a reference to the address space, unless its last user is gone (/proc readers of an mm they
 * only grabbed) */
static inline bool mmget_not_zero(struct mm_struct *mm)
{
	int users = __atomic_load_n(&mm->mm_users, __ATOMIC_RELAXED);

	while (users && !__atomic_compare_exchange_n(&mm->mm_users, &users, users + 1, false,
						     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		;
	return users != 0;
}
int set_mm_exe_file(struct mm_struct *mm, struct file *new_exe_file);
static inline bool mm_host_vmas(const struct mm_struct *mm)
{
	return mm && (mm->flags & (1UL << MMF_HOST_VMAS));
}

struct vm_fault;
struct vm_operations_struct {
	const char *name;
	int (*fault)(struct vm_fault *vmf);	/* fill vmf->page with the page at vmf->pgoff */
	void (*open)(struct vm_area_struct *vma);	/* a copy of the VMA was made (fork, split) */
	void (*close)(struct vm_area_struct *vma);	/* the VMA goes */
};
struct vm_area_struct {
	unsigned long vm_start, vm_end;
	struct mm_struct *vm_mm;
	u64 vm_page_prot;		/* the PTE bits of its pages */
	unsigned long vm_flags;
	union {	/* a file VMA's place among its file's mappings (mapping->i_mmap) */
		struct { u64 rb[3]; unsigned long rb_subtree_last; } shared;
		struct list_head i_mmap_link;	/* (a list stands in for 6.1's interval tree) */
	};
	struct list_head anon_vma_chain;
	void *anon_vma;
	const struct vm_operations_struct *vm_ops;
	unsigned long vm_pgoff;		/* file offset of vm_start, in pages */
	struct file *vm_file;
	void *vm_private_data;
	long swap_readahead_info;
	void *vm_policy;
	void *vm_userfaultfd_ctx;
	/* past 6.1's fields: the model's own */
	struct list_head vm_list;	/* in mm->mm_mt.vmas, by address */
};
_Static_assert(offsetof(struct vm_area_struct, vm_flags) == 32, "vm_area_struct as 6.1's");
_Static_assert(offsetof(struct vm_area_struct, anon_vma) == 88, "vm_area_struct as 6.1's");
_Static_assert(offsetof(struct vm_area_struct, vm_pgoff) == 104, "vm_area_struct as 6.1's");
_Static_assert(offsetof(struct vm_area_struct, vm_file) == 112, "vm_area_struct as 6.1's");
_Static_assert(offsetof(struct vm_area_struct, vm_list) == 152, "vm_area_struct: 6.1's 152 bytes first");

/* include/linux/mm.h */
#define VM_NONE		0x00000000UL
#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL
#define VM_SHARED	0x00000008UL
#define VM_MAYREAD	0x00000010UL
#define VM_MAYWRITE	0x00000020UL
#define VM_MAYEXEC	0x00000040UL
#define VM_MAYSHARE	0x00000080UL
#define VM_GROWSDOWN	0x00000100UL
#define VM_DENYWRITE	0x00000800UL
#define VM_LOCKED	0x00002000UL
#define VM_LOCKONFAULT	0x00080000UL	/* mlock2(MLOCK_ONFAULT): the pages locked as they fault in */
#define VM_LOCKED_MASK	(VM_LOCKED | VM_LOCKONFAULT)
#define VM_PFNMAP	0x00000400UL
#define VM_ACCOUNT	0x00100000UL
#define VM_NORESERVE	0x00200000UL
#define VM_DONTEXPAND	0x00040000UL
#define VM_IO		0x00004000UL
#define VM_MIXEDMAP	0x10000000UL
#define VM_SPECIAL	(VM_IO | VM_DONTEXPAND | VM_PFNMAP | VM_MIXEDMAP)
#define VM_DATA_DEFAULT_FLAGS	(VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC)
#define VM_STACK_FLAGS	(VM_GROWSDOWN | VM_DATA_DEFAULT_FLAGS | VM_ACCOUNT)

/* include/linux/mm.h: the fault's flags and result */
#define FAULT_FLAG_WRITE	0x01
#define FAULT_FLAG_REMOTE	0x80
#define FAULT_FLAG_USER		0x40
#define FAULT_FLAG_INSTRUCTION	0x100
#define VM_FAULT_OOM		0x000001
#define VM_FAULT_SIGBUS		0x000002
#define VM_FAULT_SIGSEGV	0x000040
#define VM_FAULT_ERROR		(VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV)
struct vm_fault {
	struct vm_area_struct *vma;
	unsigned int flags;
	unsigned long pgoff;
	unsigned long address;		/* page-aligned */
	u64 *pte;			/* its PTE, once allocated */
	u64 orig_pte;
	struct page *page;		/* from ->fault: a page holding the file's data, one reference */
	struct page *cow_page;		/* a private write's copy of it */
};

/* arch/x86/include/asm/trap_pf.h: the page fault's error code */
#define X86_PF_PROT	(1UL << 0)
#define X86_PF_WRITE	(1UL << 1)
#define X86_PF_USER	(1UL << 2)
#define X86_PF_INSTR	(1UL << 4)

/* PTE bits (arch/x86/include/asm/pgtable_types.h) */
#define _PAGE_PRESENT	0x001UL
#define _PAGE_RW	0x002UL
#define _PAGE_USER	0x004UL
#define _PAGE_ACCESSED	0x020UL
#define _PAGE_DIRTY	0x040UL
#define _PAGE_SPECIAL	(1UL << 9)	/* software: a page other address spaces map too (session.c) */
#define _PAGE_NX	(1UL << 63)
#define PTE_PFN_MASK	0x000ffffffffff000UL

struct task_struct;
struct pt_regs;
/* mm.c: page tables (lookup_pte: kernel.h) */
int __pud_alloc(struct mm_struct *mm, u64 *p4d, unsigned long address);
int __pmd_alloc(struct mm_struct *mm, u64 *pud, unsigned long address);
int __pte_alloc(struct mm_struct *mm, u64 *pmd);
/* mm/swap.c */
void lru_cache_add_inactive_or_unevictable(struct page *page, struct vm_area_struct *vma);
void flush_tlb_page(struct vm_area_struct *vma, unsigned long addr);
void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start, unsigned long end);
/* mmap.c */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
/* vma_lookup(): the VMA holding addr (include/linux/mm.h) */
static inline struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	return vma && vma->vm_start <= addr ? vma : NULL;
}
struct vm_area_struct *vm_area_alloc(struct mm_struct *mm);
void vm_area_free(struct vm_area_struct *vma);
int insert_vm_struct(struct mm_struct *mm, struct vm_area_struct *vma);
unsigned long do_mmap(struct file *file, unsigned long addr, unsigned long len, unsigned long prot,
		      unsigned long flags, unsigned long pgoff, unsigned long *populate);
unsigned long vm_mmap(struct file *file, unsigned long addr, unsigned long len, unsigned long prot,
		      unsigned long flag, unsigned long offset);
unsigned long vm_mmap_pgoff(struct file *file, unsigned long addr, unsigned long len,
			    unsigned long prot, unsigned long flag, unsigned long pgoff);
int __vm_munmap(unsigned long start, size_t len, bool downgrade);
int vm_munmap(unsigned long start, size_t len);
int vm_brk_flags(unsigned long addr, unsigned long request, unsigned long flags);
u64 vm_get_page_prot(unsigned long vm_flags);
void exit_mmap(struct mm_struct *mm);
int mm_hold_pool_file(struct mm_struct *mm, int region, struct file *file);
extern const struct vm_operations_struct host_file_vm_ops;
int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm);
int expand_stack_locked(struct vm_area_struct *vma, unsigned long address);
/* memory.c: a fault's mmap_lock (for reading) and VMA, the stack grown to addr if need be */
struct pt_regs;
struct vm_area_struct *lock_mm_and_find_vma(struct mm_struct *mm, unsigned long addr, struct pt_regs *regs);
/* traps.c: the fixup of a kernel instruction that may fault */
struct exception_table_entry;
const struct exception_table_entry *search_exception_tables(unsigned long addr);
/* gup.c: how get_user_pages*() and access_remote_vm() go to a page (include/linux/mm.h) */
#define FOLL_WRITE	0x01	/* the page will be written: writable first */
#define FOLL_TOUCH	0x02
#define FOLL_GET	0x04	/* a reference to each page for the caller */
#define FOLL_DUMP	0x08	/* a hole is an error, not a zero page */
#define FOLL_FORCE	0x10	/* past the VMA's protection, as far as VM_MAY* go (a tracer's) */
#define FOLL_REMOTE	0x2000	/* another task's mm */
#define FOLL_ANON	0x8000	/* anonymous memory only */
#define FOLL_LONGTERM	0x10000
#define FOLL_PIN	0x40000
long get_user_pages_remote(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
			   unsigned int gup_flags, struct page **pages, struct vm_area_struct **vmas, int *locked);
struct page *vm_normal_page(struct vm_area_struct *vma, unsigned long addr, u64 pte);
/* the shared zero page (memory.c): mapped read-only where anonymous memory is read before
 * it is written; no one counts its references (a kernel page no allocation made) */
extern u8 empty_zero_page[];
#define is_zero_page(page)	((page) == virt_to_page(empty_zero_page))
static inline unsigned long pte_pfn(u64 pte) { return (pte & PTE_PFN_MASK) >> 12; }
void put_gup_page(struct page *page);
/* memory.c */
int access_remote_vm(struct mm_struct *mm, unsigned long addr, void *buf, int len, unsigned int gup_flags);
int handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags,
		    struct pt_regs *regs);
void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);
struct address_space;
void unmap_mapping_range(struct address_space *mapping, loff_t const holebegin, loff_t const holelen,
			 int even_cows);
struct mmu_gather;
void unmap_vmas(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start_addr, unsigned long end_addr);
/* mmap.c */
int __split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr, int new_below);
struct vm_area_struct *find_vma_intersection(struct mm_struct *mm, unsigned long start, unsigned long end);
unsigned long get_unmapped_area(struct file *file, unsigned long addr, unsigned long len, unsigned long pgoff,
				unsigned long flags);
bool may_expand_vm(struct mm_struct *mm, unsigned long flags, unsigned long npages);
void vm_stat_account(struct mm_struct *mm, unsigned long flags, long npages);
int do_mas_munmap(struct mm_struct *mm, unsigned long start, size_t len);
struct vm_area_struct *vma_merge(struct mm_struct *mm, struct vm_area_struct *prev, unsigned long addr,
				 unsigned long end, unsigned long vm_flags, const struct vm_operations_struct *ops,
				 void *priv, unsigned long pgoff);
struct vm_area_struct *copy_vma(struct vm_area_struct **vmap, unsigned long addr, unsigned long len,
				unsigned long pgoff, bool *need_rmap_locks);

/* The VMA made [start, end) by splitting off what lies outside (mprotect, madvise). */
int split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr, int new_below);
/* a mapping of no file (include/linux/mm.h) */
static inline bool vma_is_anonymous(struct vm_area_struct *vma)
{
	return !vma->vm_ops;
}

/* mm/gup.c: fault [start, start + len) in now */
int __mm_populate(unsigned long start, unsigned long len, int ignore_errors);
/* mm/mlock.c */
bool can_do_mlock(void);
int mlock_future_check(struct mm_struct *mm, unsigned long flags, unsigned long len);
static inline int split_vma_range(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long start,
				  unsigned long end)
{
	int err;

	if (start != vma->vm_start && (err = split_vma(mm, vma, start, 1)))
		return err;
	if (end != vma->vm_end && (err = split_vma(mm, vma, end, 0)))
		return err;
	return 0;
}
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
void change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end);
static inline void get_page(struct page *page) { __atomic_add_fetch(&page->_refcount, 1, __ATOMIC_RELAXED); }
static inline int page_count(struct page *page) { return __atomic_load_n(&page->_refcount, __ATOMIC_RELAXED); }
#define MAX_MAP_COUNT	65530		/* sysctl_max_map_count */
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define offset_in_page(p) ((unsigned long)(p) & (PAGE_SIZE - 1))
/* include/uapi/asm-generic/mman-common.h, mman.h */
#define PROT_READ	0x1
#define PROT_WRITE	0x2
#define PROT_EXEC	0x4
#define MAP_SHARED	0x01
#define MAP_PRIVATE	0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE	0x0f
#define MAP_FIXED	0x10
#define MAP_ANONYMOUS	0x20
#define MAP_GROWSDOWN	0x0100
#define MAP_DENYWRITE	0x0800
#define MAP_EXECUTABLE	0x1000
#define MAP_LOCKED	0x2000
#define MAP_NORESERVE	0x4000
#define MAP_POPULATE	0x8000
#define MAP_NONBLOCK	0x10000
#define MAP_STACK	0x20000
#define MAP_FIXED_NOREPLACE 0x100000
#endif
