/*
 * Virtual memory areas (mm/mmap.c, mm/mprotect.c, mm/util.c): the list of an address
 * space's VMAs (6.1 keeps them in a maple tree; here a list sorted by address stands in),
 * mmap, munmap, mprotect, brk, the stack's growth, and their copy at fork.
 *
 * Addresses are not randomized (as with `setarch -R` or randomize_va_space=0): mmap's
 * top-down search starts at TASK_SIZE - 128 MiB, the brk right after the program's bss,
 * so a seeded run lays a program out the same way every time.
 */
#include "../include/fs.h"
#include "../include/mmap_lock.h"
#include "../include/cred.h"
#include "../include/tlb.h"
#include "../include/syscalls.h"
#include "../include/binfmts.h"
#include "../include/fs.h"
#include "../include/session.h"
#include "../include/uprobes.h"
#include "../include/perf_event.h"
#include "../include/security.h"
#include "../include/personality.h"
#include "../include/pkeys.h"
#include "../include/shmem_fs.h"
#include "../include/fs.h"

#define PROT_GROWSDOWN	0x01000000
#define PROT_GROWSUP	0x02000000
#define MMAP_GAP	(128UL << 20)	/* mmap_base(): TASK_SIZE less the stack's gap, at least 128 MiB */
#define stack_guard_gap	(256UL << 12)	/* 256 pages, as 6.1's default */

static void mm_release_pool_files(struct mm_struct *mm, u64 mask, bool all);

static struct kmem_cache *vm_area_cachep;

void __init vma_cache_init(void)
{
	vm_area_cachep = kmem_cache_create("vm_area_struct", sizeof(struct vm_area_struct), 0,
					   SLAB_PANIC | SLAB_ACCOUNT, NULL);
}

noinline struct vm_area_struct *vm_area_alloc(struct mm_struct *mm)
{
	struct vm_area_struct *vma = kmem_cache_zalloc(vm_area_cachep, GFP_KERNEL);

	if (vma) {
		vma->vm_mm = mm;
		INIT_LIST_HEAD(&vma->vm_list);
		INIT_LIST_HEAD(&vma->anon_vma_chain);
		INIT_LIST_HEAD(&vma->i_mmap_link);
	}
	return vma;
}

/* ---- a file's mappings (mapping->i_mmap: truncate finds the pages to unmap there) ---- */
/* a shared mapping that may be written counts in i_mmap_writable (F_SEAL_WRITE refuses
 * while there is one) */
static inline bool vma_is_shared_maywrite(struct vm_area_struct *vma)
{
	return (vma->vm_flags & (VM_SHARED | VM_MAYWRITE)) == (VM_SHARED | VM_MAYWRITE);
}

/* The file VMA among its file's mappings (a session task's are the host's: never unmapped
 * from here, so not listed) */
static void __vma_link_file(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file->f_mapping;

	mutex_lock(&mapping->i_mmap_rwsem);
	if (vma_is_shared_maywrite(vma))
		mapping->i_mmap_writable++;	/* mapping_allow_writable() */
	list_add_tail(&vma->i_mmap_link, &mapping->i_mmap);	/* vma_interval_tree_insert() */
	mutex_unlock(&mapping->i_mmap_rwsem);
}

/* Off its file's mappings, when it goes */
noinline void unlink_file_vma(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file->f_mapping;

	if (list_empty(&vma->i_mmap_link))
		return;	/* never listed (a session task's, or one whose mmap failed) */
	mutex_lock(&mapping->i_mmap_rwsem);
	if (vma_is_shared_maywrite(vma))
		mapping->i_mmap_writable--;	/* mapping_unmap_writable() */
	list_del_init(&vma->i_mmap_link);	/* vma_interval_tree_remove() */
	mutex_unlock(&mapping->i_mmap_rwsem);
}

noinline void vm_area_free(struct vm_area_struct *vma)
{
	if (vma->vm_ops && vma->vm_ops->close)	/* (remove_vma's) */
		vma->vm_ops->close(vma);
	if (vma->vm_file) {
		unlink_file_vma(vma);
		fput(vma->vm_file);
	}
	kmem_cache_free(vm_area_cachep, vma);
}

/* A copy of the VMA (a split's other part, fork's, mremap's), among the file's mappings when
 * the original is, and opened as its vm_ops ask (a SysV shm attach) */
static struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig)
{
	struct vm_area_struct *new = kmem_cache_zalloc(vm_area_cachep, GFP_KERNEL);

	if (new) {
		*new = *orig;
		INIT_LIST_HEAD(&new->vm_list);
		INIT_LIST_HEAD(&new->anon_vma_chain);
		INIT_LIST_HEAD(&new->i_mmap_link);
		if (new->vm_file) {
			get_file(new->vm_file);
			if (!list_empty(&orig->i_mmap_link))
				__vma_link_file(new);
		}
		if (new->vm_ops && new->vm_ops->open)
			new->vm_ops->open(new);
	}
	return new;
}

/* mm/mmap.c: protection_map[] for x86-64 (no execute-only, NX for what is not VM_EXEC) */
notrace noinline u64 vm_get_page_prot(unsigned long vm_flags)
{
	/* PROT_NONE: present for the kernel only (6.1: _PAGE_PROTNONE), so the data stays */
	u64 prot = _PAGE_PRESENT | _PAGE_ACCESSED;

	if (vm_flags & (VM_READ | VM_WRITE | VM_EXEC))
		prot |= _PAGE_USER;
	if ((vm_flags & (VM_WRITE | VM_SHARED)) == (VM_WRITE | VM_SHARED))
		prot |= _PAGE_RW;	/* private writable pages get _PAGE_RW when written (COW) */
	if (!(vm_flags & VM_EXEC))
		prot |= _PAGE_NX;
	return prot;
}

extern const struct vm_operations_struct file_vm_ops;

/* Does a write to the VMA's pages need a fault first (to track them dirty)?  6.1's tests: a
 * shared writable mapping with a page_mkwrite (none here), soft-dirty or uffd-wp tracking (not
 * built), a file whose pages are written back (file_vm_ops: no shared writable mapping of such
 * a file is made here, ENODEV in do_mmap; tmpfs's pages are never written back) */
noinline int vma_wants_writenotify(struct vm_area_struct *vma, u64 vm_page_prot)
{
	unsigned long vm_flags = vma->vm_flags;

	/* If it was private or non-writable, the write bit is already clear */
	if ((vm_flags & (VM_WRITE | VM_SHARED)) != (VM_WRITE | VM_SHARED))
		return 0;
	if (vm_page_prot != vm_get_page_prot(vm_flags))	/* vm_pgprot_modify() */
		return 0;
	return vma->vm_file && vma->vm_ops == &file_vm_ops;
}

noinline void vma_set_page_prot(struct vm_area_struct *vma)
{
	unsigned long vm_flags = vma->vm_flags;
	u64 vm_page_prot = vm_get_page_prot(vm_flags);

	if (vma_wants_writenotify(vma, vm_page_prot)) {
		vm_flags &= ~VM_SHARED;
		vm_page_prot = vm_get_page_prot(vm_flags);
	}
	vma->vm_page_prot = vm_page_prot;
}

static inline struct vm_area_struct *vma_next(struct mm_struct *mm, struct vm_area_struct *vma)
{
	return vma->vm_list.next == &mm->mm_mt.vmas ? NULL :
		list_entry(vma->vm_list.next, struct vm_area_struct, vm_list);
}

static inline struct vm_area_struct *vma_prev(struct mm_struct *mm, struct vm_area_struct *vma)
{
	return vma->vm_list.prev == &mm->mm_mt.vmas ? NULL :
		list_entry(vma->vm_list.prev, struct vm_area_struct, vm_list);
}

/* The first VMA that ends above addr (it may start above it too). */
noinline struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;

	list_for_each_entry(vma, &mm->mm_mt.vmas, vm_list)
		if (vma->vm_end > addr)
			return vma;
	return NULL;
}

noinline struct vm_area_struct *find_vma_intersection(struct mm_struct *mm, unsigned long start,
						    unsigned long end)
{
	struct vm_area_struct *vma = find_vma(mm, start);

	return vma && vma->vm_start < end ? vma : NULL;
}

/* Into the sorted list; the caller checked that it overlaps none. */
noinline void vma_link(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vm_area_struct *next = find_vma(mm, vma->vm_start);

	list_add_tail(&vma->vm_list, next ? &next->vm_list : &mm->mm_mt.vmas);
	mm->map_count++;
}

static void vma_unlink(struct mm_struct *mm, struct vm_area_struct *vma)
{
	list_del_init(&vma->vm_list);
	mm->map_count--;
}

noinline int insert_vm_struct(struct mm_struct *mm, struct vm_area_struct *vma)
{
	if (find_vma_intersection(mm, vma->vm_start, vma->vm_end))
		return -ENOMEM;
	vma_link(mm, vma);
	mm->total_vm += (vma->vm_end - vma->vm_start) >> 12;
	return 0;
}

static bool vma_mergeable(struct vm_area_struct *vma, unsigned long vm_flags,
			  const struct vm_operations_struct *ops, void *priv, unsigned long pgoff)
{
	return vma->vm_flags == vm_flags && vma->vm_ops == ops && vma->vm_private_data == priv &&
		!vma->vm_file && (!ops || vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> 12) == pgoff);
}

/* mm/mmap.c: extend the VMA before [addr, end) over it when they are alike. */
noinline struct vm_area_struct *vma_merge(struct mm_struct *mm, struct vm_area_struct *prev,
					  unsigned long addr, unsigned long end, unsigned long vm_flags,
					  const struct vm_operations_struct *ops, void *priv,
					  unsigned long pgoff)
{
	struct vm_area_struct *next;

	if (!prev || prev->vm_end != addr || !vma_mergeable(prev, vm_flags, ops, priv, pgoff))
		return NULL;
	next = vma_next(mm, prev);
	prev->vm_end = end;
	if (next && next->vm_start == end && vma_mergeable(next, vm_flags, ops, priv,
							   pgoff + ((end - addr) >> 12))) {
		prev->vm_end = next->vm_end;
		vma_unlink(mm, next);
		vm_area_free(next);
	}
	return prev;
}

/* mremap's new VMA for [addr, addr+len) of vma's pages from pgoff (mm/mmap.c): the VMA before
 * the place extended over it where they are alike (maybe the source itself: *vmap then is
 * that one), else a copy of vma there; NULL: no memory, or the place is taken. */
noinline struct vm_area_struct *copy_vma(struct vm_area_struct **vmap, unsigned long addr, unsigned long len,
					 unsigned long pgoff, bool *need_rmap_locks)
{
	struct vm_area_struct *vma = *vmap, *new_vma, *prev;
	unsigned long vma_start = vma->vm_start;
	struct mm_struct *mm = vma->vm_mm;

	/* an anonymous VMA's offset follows its place (the model keeps no anon_vma: its pages
	 * are the page tables' alone, so it is as one never faulted) */
	if (!vma->vm_ops && !vma->vm_file)
		pgoff = addr >> PAGE_SHIFT;
	new_vma = find_vma(mm, addr);
	if (new_vma && new_vma->vm_start < addr + len)
		return NULL;
	prev = new_vma ? vma_prev(mm, new_vma) : (list_empty(&mm->mm_mt.vmas) ? NULL :
		list_entry(mm->mm_mt.vmas.prev, struct vm_area_struct, vm_list));
	new_vma = vma_merge(mm, prev, addr, addr + len, vma->vm_flags, vma->vm_ops, vma->vm_private_data, pgoff);
	if (new_vma) {
		if (vma_start >= new_vma->vm_start && vma_start < new_vma->vm_end)
			*vmap = new_vma;	/* the source was merged into it */
		*need_rmap_locks = new_vma->vm_pgoff <= (*vmap)->vm_pgoff;
		return new_vma;
	}
	new_vma = vm_area_dup(vma);	/* (holds the file too) */
	if (!new_vma)
		return NULL;
	new_vma->vm_start = addr;
	new_vma->vm_end = addr + len;
	new_vma->vm_pgoff = pgoff;
	vma_link(mm, new_vma);
	*need_rmap_locks = false;
	return new_vma;
}

/* Cut vma in two at addr (see __split_vma), unless the mm has as many VMAs as it may
 * (vm.max_map_count): mprotect's and madvise's splits */
noinline int split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr, int new_below)
{
	if (mm->map_count >= MAX_MAP_COUNT)
		return -ENOMEM;
	return __split_vma(mm, vma, addr, new_below);
}

/* Cut vma in two at addr; new_below: the new VMA is the lower part (munmap checks the VMA count
 * itself). */
noinline int __split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
			 int new_below)
{
	struct vm_area_struct *new;

	new = vm_area_dup(vma);
	if (!new)
		return -ENOMEM;
	if (new_below) {
		new->vm_end = addr;
		vma->vm_pgoff += (addr - vma->vm_start) >> 12;
		vma->vm_start = addr;
		list_add_tail(&new->vm_list, &vma->vm_list);
	} else {
		new->vm_start = addr;
		new->vm_pgoff += (addr - vma->vm_start) >> 12;
		vma->vm_end = addr;
		list_add(&new->vm_list, &vma->vm_list);
	}
	mm->map_count++;
	return 0;
}

/* ---- where a new mapping goes ---- */
/* top down: the highest gap below high_limit that fits (this kernel's only placement) */
static unsigned long unmapped_area_topdown(struct vm_unmapped_area_info *info)
{
	struct mm_struct *mm = current->mm;
	unsigned long gap_end = info->high_limit, low = info->low_limit, length = info->length;
	struct vm_area_struct *vma;

	list_for_each_entry_reverse(vma, &mm->mm_mt.vmas, vm_list) {
		if (vma->vm_start >= gap_end)
			continue;
		if (vma->vm_end <= gap_end && gap_end - vma->vm_end >= length)
			return gap_end - length;
		gap_end = vma->vm_start;
		if (vma->vm_flags & VM_GROWSDOWN)	/* the stack keeps its guard gap */
			gap_end = gap_end > stack_guard_gap ? gap_end - stack_guard_gap : 0;
		if (gap_end < low + length)
			return -ENOMEM;
	}
	return gap_end >= low + length ? gap_end - length : -ENOMEM;
}

noinline unsigned long vm_unmapped_area(struct vm_unmapped_area_info *info)
{
	unsigned long addr = unmapped_area_topdown(info);

	trace_vm_unmapped_area(addr, info);
	return addr;
}

noinline unsigned long arch_get_unmapped_area_topdown(struct file *filp, unsigned long addr,
						      unsigned long len, unsigned long pgoff,
						      unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_unmapped_area_info info;

	if (len > TASK_SIZE_MAX)
		return -ENOMEM;
	if (flags & MAP_FIXED)
		return addr;
	if (addr) {	/* a hint: taken when free */
		addr = PAGE_ALIGN(addr);
		if (TASK_SIZE_MAX - len >= addr && !find_vma_intersection(mm, addr, addr + len))
			return addr;
	}
	info.flags = VM_UNMAPPED_AREA_TOPDOWN;
	info.length = len;
	info.low_limit = PAGE_SIZE;
	info.high_limit = mm->mmap_base;
	info.align_mask = 0;
	info.align_offset = 0;
	return vm_unmapped_area(&info);
}

noinline unsigned long get_unmapped_area(struct file *file, unsigned long addr, unsigned long len,
					 unsigned long pgoff, unsigned long flags)
{
	unsigned long ret;
	int error;

	if (len > TASK_SIZE_MAX)
		return -ENOMEM;
	ret = arch_get_unmapped_area_topdown(file, addr, len, pgoff, flags);
	if (IS_ERR((void *)ret))
		return ret;
	if (ret > TASK_SIZE_MAX - len)
		return -ENOMEM;
	if (offset_in_page(ret))
		return -EINVAL;
	error = security_mmap_addr(ret);
	return error ? error : ret;
}

/* An address space's counts of mapped pages by kind (VmExe, VmStk, VmData): npages more. */
noinline void vm_stat_account(struct mm_struct *mm, unsigned long flags, long npages)
{
	mm->total_vm += npages;
	if ((flags & (VM_WRITE | VM_EXEC | VM_GROWSDOWN)) == VM_EXEC)	/* is_exec_mapping */
		mm->exec_vm += npages;
	else if (flags & VM_GROWSDOWN)					/* is_stack_mapping */
		mm->stack_vm += npages;
	else if ((flags & (VM_WRITE | VM_SHARED | VM_GROWSDOWN)) == VM_WRITE)	/* is_data_mapping */
		mm->data_vm += npages;
}

/* ---- unmapping ---- */
noinline void unmap_region(struct mm_struct *mm, struct vm_area_struct *vma,
			   unsigned long start, unsigned long end)
{
	struct mmu_gather tlb;

	if (mm_host_vmas(mm))	/* (a host's VMA has no pages here) */
		return;
	tlb_gather_mmu(&tlb, mm);
	unmap_vmas(&tlb, vma, start, end);
	tlb_finish_mmu(&tlb);	/* (no free_pgtables: the tables stay until exit) */
}

/* Remove [start, start+len) from the address space. */
noinline int do_mas_align_munmap(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct *vma = find_vma(mm, start), *next;
	int err;

	if (!vma || vma->vm_start >= end)
		return 0;
	if (start > vma->vm_start) {
		if (end < vma->vm_end && mm->map_count >= MAX_MAP_COUNT)
			return -ENOMEM;
		err = __split_vma(mm, vma, start, 0);
		if (err)
			return err;
		vma = vma_next(mm, vma);
	}
	for (; vma && vma->vm_start < end; vma = next) {
		next = vma_next(mm, vma);
		if (vma->vm_end > end) {
			err = __split_vma(mm, vma, end, 1);
			if (err)
				return err;
			next = vma;
			vma = vma_prev(mm, vma);
		}
		unmap_region(mm, vma, vma->vm_start, vma->vm_end);
		mm->total_vm -= (vma->vm_end - vma->vm_start) >> 12;
		if (vma->vm_flags & VM_LOCKED)
			mm->locked_vm -= (vma->vm_end - vma->vm_start) >> 12;
		vma_unlink(mm, vma);
		vm_area_free(vma);
	}
	return 0;
}

noinline int do_mas_munmap(struct mm_struct *mm, unsigned long start, size_t len)
{
	unsigned long end;

	if (offset_in_page(start) || start > TASK_SIZE_MAX || len > TASK_SIZE_MAX - start)
		return -EINVAL;
	end = start + PAGE_ALIGN(len);
	if (end == start)
		return -EINVAL;
	return do_mas_align_munmap(mm, start, end);
}

noinline int __vm_munmap(unsigned long start, size_t len, bool downgrade)
{
	struct mm_struct *mm = current->mm;
	int ret;

	mmap_write_lock(mm);
	ret = do_mas_munmap(mm, start, len);
	mmap_write_unlock(mm);
	return ret;
}

noinline int vm_munmap(unsigned long start, size_t len)
{
	return __vm_munmap(start, len, false);
}

SYSCALL_DEFINE2(munmap, unsigned long, addr, size_t, len)
{
	if (current->session) {
		/* what was a perf buffer's mapping goes here (perf_mmap_close) */
		u64 regions = current->session->perf_unmap;

		current->session->perf_unmap = 0;
		mm_release_pool_files(current->mm, regions, false);
		for (; regions; regions &= regions - 1)
			perf_pool_unmapped(__builtin_ctzll(regions));
	}
	return __vm_munmap(addr, len, true);
}

/* ---- mapping ---- */
static unsigned long __mmap_region(struct file *file, const struct vm_operations_struct *ops,
				   void *priv, unsigned long addr, unsigned long len,
				   unsigned long vm_flags, unsigned long pgoff);

noinline unsigned long mmap_region(struct file *file, unsigned long addr, unsigned long len,
				   unsigned long vm_flags, unsigned long pgoff)
{
	return __mmap_region(file, NULL, NULL, addr, len, vm_flags, pgoff);
}

#define RLIMIT_DATA	2
#define RLIMIT_AS	9

/* The pages of the VMAs in [addr, end) (6.1's count_vma_pages_range: what a MAP_FIXED
 * mapping replaces) */
static noinline unsigned long count_vma_pages_range(struct mm_struct *mm, unsigned long addr, unsigned long end)
{
	struct vm_area_struct *vma;
	unsigned long nr_pages = 0;

	list_for_each_entry(vma, &mm->mm_mt.vmas, vm_list)
		if (vma->vm_start < end && vma->vm_end > addr)
			nr_pages += (min(end, vma->vm_end) - max(addr, vma->vm_start)) >> PAGE_SHIFT;
	return nr_pages;
}

static bool data_rlimit_warned;

/* May len more be locked (MAP_LOCKED, mlockall(MCL_FUTURE)): within RLIMIT_MEMLOCK, or CAP_IPC_LOCK */
noinline int mlock_future_check(struct mm_struct *mm, unsigned long flags, unsigned long len)
{
	unsigned long locked, lock_limit;

	if (flags & VM_LOCKED) {	/* MAP_LOCKED, or mlockall(MCL_FUTURE) */
		locked = (len >> PAGE_SHIFT) + mm->locked_vm;
		lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		if (locked > lock_limit && !capable(CAP_IPC_LOCK))
			return -EAGAIN;
	}
	return 0;
}

/* Within RLIMIT_AS, and RLIMIT_DATA for a private writable mapping? */
noinline bool may_expand_vm(struct mm_struct *mm, unsigned long flags, unsigned long npages)
{
	if (mm->total_vm + npages > rlimit(RLIMIT_AS) >> PAGE_SHIFT)
		return false;
	if ((flags & (VM_WRITE | VM_SHARED | VM_GROWSDOWN)) == VM_WRITE &&	/* is_data_mapping */
	    mm->data_vm + npages > rlimit(RLIMIT_DATA) >> PAGE_SHIFT) {
		/* Valgrind's workaround: a soft limit of 0 lets the hard one count */
		if (rlimit(RLIMIT_DATA) == 0 && mm->data_vm + npages <= rlimit_max(RLIMIT_DATA) >> PAGE_SHIFT)
			return true;
		if (!data_rlimit_warned) {	/* pr_warn_once(); no ignore_rlimit_data boot option */
			data_rlimit_warned = true;
			pr_warn("%s (%d): VmData %lu exceed data ulimit %lu. Update limits or use boot option ignore_rlimit_data.\n",
				current->comm, current->pid, (mm->data_vm + npages) << PAGE_SHIFT, rlimit(RLIMIT_DATA));
		}
		return false;
	}
	return true;
}

/* The file's ->mmap sets the new VMA up (call_mmap), then mapping_map_writable(): no new
 * shared writable mapping of a file sealed against writes (->mmap may have made it read-only
 * for good) */
static int call_mmap_file(struct vm_area_struct *vma)
{
	struct file *file = vma->vm_file;
	struct address_space *mapping = file->f_mapping;
	int error = file->f_op->mmap ? file->f_op->mmap(file, vma) : 0;

	if (!error && vma_is_shared_maywrite(vma)) {
		mutex_lock(&mapping->i_mmap_rwsem);
		if (mapping->i_mmap_writable < 0)
			error = -EPERM;
		mutex_unlock(&mapping->i_mmap_rwsem);
	}
	return error;
}

static notrace unsigned long __mmap_region(struct file *file, const struct vm_operations_struct *ops,
				   void *priv, unsigned long addr, unsigned long len,
				   unsigned long vm_flags, unsigned long pgoff)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma, *prev;

	/* Check against address space limit. */
	if (!may_expand_vm(mm, vm_flags, len >> PAGE_SHIFT)) {
		unsigned long nr_pages = count_vma_pages_range(mm, addr, addr + len);

		if (!may_expand_vm(mm, vm_flags, (len >> PAGE_SHIFT) - nr_pages))
			return -ENOMEM;
	}

	/* what is there goes (MAP_FIXED, or a place get_unmapped_area found free) */
	if (do_mas_munmap(mm, addr, len))
		return -ENOMEM;
	vma = find_vma(mm, addr);
	prev = vma ? vma_prev(mm, vma) : (list_empty(&mm->mm_mt.vmas) ? NULL :
		list_entry(mm->mm_mt.vmas.prev, struct vm_area_struct, vm_list));
	if (!file && !(vm_flags & VM_SHARED) &&
	    (vma = vma_merge(mm, prev, addr, addr + len, vm_flags, ops, priv, pgoff)))
		goto out;
	if (mm->map_count >= MAX_MAP_COUNT)
		return -ENOMEM;
	vma = vm_area_alloc(mm);
	if (!vma)
		return -ENOMEM;
	vma->vm_start = addr;
	vma->vm_end = addr + len;
	vma->vm_flags = vm_flags;
	vma->vm_pgoff = pgoff;
	vma->vm_ops = ops;
	vma->vm_private_data = priv;
	if (file) {
		vma->vm_file = get_file(file);
		if (!mm_host_vmas(mm)) {
			int error = call_mmap_file(vma);

			if (error) {
				vm_area_free(vma);
				return error;
			}
		}
	} else if ((vm_flags & VM_SHARED) && !mm_host_vmas(mm)) {
		int error = shmem_zero_setup(vma);	/* shared anonymous memory: a tmpfs file's */

		if (error) {
			vm_area_free(vma);
			return error;
		}
	}
	if (vma->vm_file && !mm_host_vmas(mm))
		__vma_link_file(vma);
	vma_set_page_prot(vma);
	vma_link(mm, vma);
	if (file)	/* perf's MMAP2: VM_READ/WRITE/EXEC are PROT_'s bits */
		perf_event_mmap(file, addr, len, pgoff, vm_flags & (VM_READ | VM_WRITE | VM_EXEC),
				vm_flags & VM_SHARED ? MAP_SHARED : MAP_PRIVATE);
out:
	vm_stat_account(mm, vm_flags, len >> 12);
	if (vm_flags & VM_LOCKED)
		mm->locked_vm += len >> PAGE_SHIFT;
	return addr;
}

static unsigned long calc_vm_prot_bits(unsigned long prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
		(prot & PROT_EXEC ? VM_EXEC : 0);
}

static unsigned long __do_mmap(struct file *file, const struct vm_operations_struct *ops, void *priv,
			       unsigned long addr, unsigned long len, unsigned long prot,
			       unsigned long flags, unsigned long pgoff, unsigned long *populate);

noinline unsigned long do_mmap(struct file *file, unsigned long addr, unsigned long len,
			       unsigned long prot, unsigned long flags, unsigned long pgoff,
			       unsigned long *populate)
{
	return __do_mmap(file, NULL, NULL, addr, len, prot, flags, pgoff, populate);
}

/* filemap_fault() without a page cache: the file's page at vmf->pgoff read by the file's
 * read_iter (as a mapping's read_folio reads it: a page-in is no read of the task's, which
 * /proc/PID/io would count), past its end zero-filled (a page wholly past it: SIGBUS).  Each
 * fault reads its own copy, so a shared mapping of a file is read-only here. */
static int filemap_fault(struct vm_fault *vmf)
{
	struct file *file = vmf->vma->vm_file;
	struct kiocb kiocb;
	struct iov_iter iter;
	struct kvec iov;
	struct page *page;
	ssize_t n;

	page = alloc_page(GFP_HIGHUSER_MOVABLE);
	if (!page)
		return VM_FAULT_OOM;
	iov = (struct kvec){ .iov_base = page_address(page), .iov_len = PAGE_SIZE };
	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = (loff_t)vmf->pgoff << 12;
	iov_iter_kvec(&iter, READ, &iov, 1, PAGE_SIZE);
	n = file->f_op->read_iter ? file->f_op->read_iter(&kiocb, &iter) : -EINVAL;
	if (n <= 0) {
		free_page(page);
		return VM_FAULT_SIGBUS;
	}
	memset((u8 *)page_address(page) + n, 0, PAGE_SIZE - n);
	if (!(vmf->vma->vm_flags & (VM_WRITE | VM_MAYSHARE)))	/* uprobe_mmap(): valid_vma() */
		uprobe_page_in(file, (u64)vmf->pgoff << 12, page_address(page));
	vmf->page = page;
	return 0;
}

const struct vm_operations_struct file_vm_ops = {
	.name = "file",
	.fault = filemap_fault,
};

/* A file mapping of a host process (mm_host_vmas): no pages here, so no fault */
const struct vm_operations_struct host_file_vm_ops = {
	.name = "host file",
};

/* The file a VMA maps with its pages read from it (NULL: none). */
notrace struct file *vma_mapped_file(struct vm_area_struct *vma)
{
	return vma->vm_ops == &file_vm_ops ? vma->vm_file : NULL;
}

static unsigned long __do_mmap(struct file *file, const struct vm_operations_struct *ops, void *priv,
			       unsigned long addr, unsigned long len, unsigned long prot,
			       unsigned long flags, unsigned long pgoff, unsigned long *populate)
{
	struct mm_struct *mm = current->mm;
	unsigned long vm_flags;

	*populate = 0;
	if (!len)
		return -EINVAL;
	/* Does the application expect PROT_READ to imply PROT_EXEC?  (Not from a noexec mount.) */
	if ((prot & PROT_READ) && (current->personality & READ_IMPLIES_EXEC))
		if (!(file && path_noexec(&file->f_path)))
			prot |= PROT_EXEC;
	if (!(flags & MAP_FIXED))
		addr = addr < PAGE_SIZE * 16 ? 0 : addr;	/* round_hint_to_min() */
	len = PAGE_ALIGN(len);
	if (!len)
		return -ENOMEM;
	if ((pgoff + (len >> 12)) < pgoff)
		return -EOVERFLOW;
	if (mm->map_count > MAX_MAP_COUNT)
		return -ENOMEM;
	addr = get_unmapped_area(file, addr, len, pgoff, flags);
	if (IS_ERR((void *)addr))
		return addr;
	if (flags & MAP_FIXED_NOREPLACE && find_vma_intersection(mm, addr, addr + len))
		return -EEXIST;
	vm_flags = calc_vm_prot_bits(prot) | mm->def_flags | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	if (flags & MAP_GROWSDOWN)
		vm_flags |= VM_GROWSDOWN;
	if (flags & MAP_LOCKED) {
		if (!can_do_mlock())
			return -EPERM;
		vm_flags |= VM_LOCKED;
	}
	if (mlock_future_check(mm, vm_flags, len))
		return -EAGAIN;
	if (file) {
		/* a regular file's pages come from reads of it (file_vm_ops); other files have
		 * no ->mmap here, but a host process's mapping is bookkeeping only: the host made
		 * it, whatever the file */
		bool host = mm_host_vmas(mm);

		bool shared_pages = host || file->f_op->mmap;	/* tmpfs's: its page cache mapped */

		if (!host && !file->f_op->mmap &&
		    (!S_ISREG(file->f_inode->i_mode) || !file->f_op->read_iter))
			return -ENODEV;
		if (!(file->f_mode & FMODE_READ))
			return -EACCES;
		if ((flags & MAP_TYPE) != MAP_PRIVATE) {
			if ((prot & PROT_WRITE) && !(file->f_mode & FMODE_WRITE))
				return -EACCES;
			if ((prot & PROT_WRITE) && !shared_pages)
				return -ENODEV;	/* no page cache to write back through yet */
			if (!shared_pages || !(file->f_mode & FMODE_WRITE))
				vm_flags &= ~VM_MAYWRITE;	/* (as for a file not open for writing) */
		}
		ops = host ? &host_file_vm_ops : &file_vm_ops;
	}
	switch (flags & MAP_TYPE) {
	case MAP_SHARED:
	case MAP_SHARED_VALIDATE:
		if (vm_flags & VM_GROWSDOWN)
			return -EINVAL;
		vm_flags |= VM_SHARED | VM_MAYSHARE;
		if (file)
			break;
		pgoff = 0;	/* anonymous: the offset in its tmpfs file (shmem_zero_setup) */
		break;
	case MAP_PRIVATE:
		if (file && path_noexec(&file->f_path)) {
			if (vm_flags & VM_EXEC)
				return -EPERM;
			vm_flags &= ~VM_MAYEXEC;
		}
		if (!ops)	/* anonymous */
			pgoff = addr >> 12;
		break;
	default:
		return -EINVAL;
	}
	if (flags & MAP_NORESERVE)
		vm_flags |= VM_NORESERVE;
	addr = __mmap_region(file, ops, priv, addr, len, vm_flags, pgoff);
	if (!IS_ERR((void *)addr) && (((flags & (MAP_POPULATE | MAP_NONBLOCK)) == MAP_POPULATE) ||
				       (vm_flags & VM_LOCKED_MASK) == VM_LOCKED))
		*populate = len;
	return addr;
}

/* mm/gup.c: fault the range's pages in now (MAP_POPULATE, shared anonymous memory, mlock):
 * VMA by VMA, passing over I/O mappings and those locked on fault; one that cannot be read
 * (PROT_NONE: check_vma_flags without FOLL_FORCE) or whose fault fails is EFAULT (ENOMEM for
 * no memory), or passed over with ignore_errors.  A session task's pages are the host's: its
 * VMAs are checked, not faulted. */
noinline int __mm_populate(unsigned long start, unsigned long len, int ignore_errors)
{
	struct mm_struct *mm = current->mm;
	unsigned long addr, end = start + len;
	struct vm_area_struct *vma;
	int fault;

	for (addr = start; addr < end; addr += PAGE_SIZE) {
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start >= end)
			break;
		if (addr < vma->vm_start)
			addr = vma->vm_start;
		if ((vma->vm_flags & (VM_IO | VM_PFNMAP | VM_LOCKONFAULT)) ||
		    (!(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)) && ignore_errors)) {
			addr = vma->vm_end - PAGE_SIZE;	/* the next VMA */
			continue;
		}
		if (!(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
			return -EFAULT;
		if (mm_host_vmas(mm)) {	/* a session task's: the checks only, the host faulted them */
			addr = vma->vm_end - PAGE_SIZE;
			continue;
		}
		{
			u64 *pte = lookup_pte(mm, addr, false);

			if (pte && (*pte & _PAGE_PRESENT))
				continue;
		}
		fault = handle_mm_fault(vma, addr, (vma->vm_flags & VM_WRITE) ? FAULT_FLAG_WRITE : 0, NULL);
		if (!(fault & VM_FAULT_ERROR))
			continue;
		if (ignore_errors) {
			addr = vma->vm_end - PAGE_SIZE;
			continue;
		}
		return fault & VM_FAULT_OOM ? -ENOMEM : -EFAULT;
	}
	return 0;
}

noinline unsigned long vm_mmap_pgoff(struct file *file, unsigned long addr, unsigned long len,
				     unsigned long prot, unsigned long flag, unsigned long pgoff)
{
	struct mm_struct *mm = current->mm;
	unsigned long ret, populate;

	ret = security_mmap_file(file, prot, flag);
	if (ret)
		return ret;
	mmap_write_lock(mm);
	ret = do_mmap(file, addr, len, prot, flag, pgoff, &populate);
	if (populate && !IS_ERR((void *)ret) && !mm_host_vmas(mm))
		__mm_populate(ret, populate, 1);
	mmap_write_unlock(mm);
	return ret;
}

/* vm_mmap_pgoff() with a byte offset, page-aligned and not wrapping (the ELF loader's) */
noinline unsigned long vm_mmap(struct file *file, unsigned long addr, unsigned long len, unsigned long prot,
			       unsigned long flag, unsigned long offset)
{
	if (unlikely(offset + PAGE_ALIGN(len) < offset))
		return -EINVAL;
	if (unlikely(offset & ~PAGE_MASK))
		return -EINVAL;
	return vm_mmap_pgoff(file, addr, len, prot, flag, offset >> PAGE_SHIFT);
}

noinline unsigned long ksys_mmap_pgoff(unsigned long addr, unsigned long len, unsigned long prot,
				       unsigned long flags, unsigned long fd, unsigned long pgoff)
{
	struct file *file = NULL;
	unsigned long ret;

	if (!(flags & MAP_ANONYMOUS)) {
		file = fget(fd);
		if (!file)
			return -EBADF;
	}
	ret = vm_mmap_pgoff(file, addr, len, prot, flags, pgoff);
	if (file)
		fput(file);
	return ret;
}

/*
 * A session process's served mmap(2) of a file with mmap_shared (a perf event): what it maps is
 * made in a region of the machine's perf pool, which the served call's reply names; the
 * supervisor gives the process that region's memory file in place of the fd and the host makes
 * the mapping (session/native/serve.c), so the process maps the very pages the kernel writes.
 */
static long session_mmap_shared(unsigned long len, unsigned long prot, unsigned long flags, unsigned long fd,
				unsigned long off)
{
	struct file *file;
	long region;

	if (!session_remote_uaccess(current))
		return -ENOSYS;
	if ((off & ~PAGE_MASK) || !len)
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (!len)
		return -ENOMEM;
	file = fget(fd);
	if (!file)
		return -EBADF;
	if (!file->f_op || !file->f_op->mmap_shared)
		region = -ENODEV;
	else
		region = file->f_op->mmap_shared(file, len, prot, flags, off >> 12);
	fput(file);
	if (region < 0)
		return region;
	session_serve_region(current, region);
	return 0;
}

SYSCALL_DEFINE6(mmap, unsigned long, addr, unsigned long, len, unsigned long, prot,
		unsigned long, flags, unsigned long, fd, unsigned long, off)
{
	if (session_remote_uaccess(current))	/* served: a perf buffer */
		return session_mmap_shared(len, prot, flags, fd, off);
	if (off & ~PAGE_MASK)
		return -EINVAL;
	return ksys_mmap_pgoff(addr, len, prot, flags, fd, off >> 12);
}

/* ---- mprotect ---- */
noinline int mprotect_fixup(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long start,
			    unsigned long end, unsigned long newflags)
{
	int err;

	if (newflags == vma->vm_flags)
		return 0;
	if ((err = split_vma_range(mm, vma, start, end)))
		return err;
	vma->vm_flags = newflags;
	vma_set_page_prot(vma);
	if (!mm_host_vmas(mm))
		change_protection(vma, start, end);
	return 0;
}

noinline int do_mprotect_pkey(unsigned long start, size_t len, unsigned long prot, int pkey)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma, *next;
	unsigned long end, nstart, newflags, reqprot = prot;
	const bool rier = (current->personality & READ_IMPLIES_EXEC) && (prot & PROT_READ);
	int err = 0;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	len = PAGE_ALIGN(len);
	end = start + len;
	if (end <= start)
		return -ENOMEM;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	mmap_write_lock(mm);
	/* a key userspace did not allocate may not be used */
	if (pkey != -1 && !mm_pkey_is_allocated(mm, pkey)) {
		err = -EINVAL;
		goto out;
	}
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start > start) {
		err = -ENOMEM;
		goto out;
	}
	for (nstart = start; nstart < end; vma = next) {
		unsigned long tmp = min(vma->vm_end, end);

		/* Does the application expect PROT_READ to imply PROT_EXEC? */
		if (rier && (vma->vm_flags & VM_MAYEXEC))
			prot |= PROT_EXEC;
		newflags = calc_vm_prot_bits(prot) | (vma->vm_flags & ~(VM_READ | VM_WRITE | VM_EXEC));
		if ((newflags & ~(newflags >> 4)) & (VM_READ | VM_WRITE | VM_EXEC)) {
			err = -EACCES;	/* beyond VM_MAY* */
			break;
		}
		err = security_file_mprotect(vma, reqprot, prot);
		if (err)
			break;
		next = vma_next(mm, vma);
		err = mprotect_fixup(mm, vma, nstart, tmp, newflags);
		if (err)
			break;
		nstart = tmp;
		if (nstart >= end)
			break;
		if (!next || next->vm_start != nstart) {
			err = -ENOMEM;
			break;
		}
	}
out:
	mmap_write_unlock(mm);
	return err;
}

SYSCALL_DEFINE3(mprotect, unsigned long, start, size_t, len, unsigned long, prot)
{
	return do_mprotect_pkey(start, len, prot, -1);
}

/* ---- memory protection keys (mm/mprotect.c), on a cpu without them (see pkeys.h) ---- */
SYSCALL_DEFINE4(pkey_mprotect, unsigned long, start, size_t, len, unsigned long, prot, int, pkey)
{
	return do_mprotect_pkey(start, len, prot, pkey);
}

SYSCALL_DEFINE2(pkey_alloc, unsigned long, flags, unsigned long, init_val)
{
	int pkey;

	if (flags)
		return -EINVAL;	/* no flags yet */
	if (init_val & ~PKEY_ACCESS_MASK)
		return -EINVAL;
	mmap_write_lock(current->mm);
	pkey = mm_pkey_alloc(current->mm);
	mmap_write_unlock(current->mm);
	/* (a key got would next have its rights set in PKRU: arch_set_user_pkey_access()) */
	return pkey == -1 ? -ENOSPC : pkey;
}

SYSCALL_DEFINE1(pkey_free, int, pkey)
{
	int ret;

	mmap_write_lock(current->mm);
	ret = mm_pkey_free(current->mm, pkey);
	mmap_write_unlock(current->mm);
	return ret;
}

/* ---- brk ---- */
noinline int do_brk_flags(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
			  unsigned long len, unsigned long flags)
{
	flags |= VM_DATA_DEFAULT_FLAGS | VM_ACCOUNT | mm->def_flags;
	if (mm->map_count > MAX_MAP_COUNT)
		return -ENOMEM;
	if (vma && vma->vm_end == addr && vma_mergeable(vma, flags, NULL, NULL, 0)) {
		vma->vm_end = addr + len;	/* the brk grows in place */
	} else {
		vma = vm_area_alloc(mm);
		if (!vma)
			return -ENOMEM;
		vma->vm_start = addr;
		vma->vm_end = addr + len;
		vma->vm_pgoff = addr >> 12;
		vma->vm_flags = flags;
		vma_set_page_prot(vma);
		vma_link(mm, vma);
	}
	mm->total_vm += len >> 12;
	mm->data_vm += len >> 12;
	if (flags & VM_LOCKED)
		mm->locked_vm += len >> 12;
	return 0;
}

/* May the heap (or a brk-like mapping) take [addr, addr + len)?  get_unmapped_area's checks of
 * a fixed range (under TASK_SIZE, the LSM's mmap_min_addr), and RLIMIT_MEMLOCK after
 * mlockall(MCL_FUTURE) */
noinline int check_brk_limits(unsigned long addr, unsigned long len)
{
	unsigned long mapped_addr;

	mapped_addr = get_unmapped_area(NULL, addr, len, 0, MAP_FIXED);
	if (IS_ERR((void *)mapped_addr))
		return mapped_addr;
	return mlock_future_check(current->mm, current->mm->def_flags, len);
}

/* An anonymous mapping at addr (ELF bss, brk) */
noinline int vm_brk_flags(unsigned long addr, unsigned long request, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	unsigned long len = PAGE_ALIGN(request);
	struct vm_area_struct *prev;
	int ret;

	if (len < request)
		return -ENOMEM;
	if (!len)
		return 0;
	mmap_write_lock(mm);
	ret = check_brk_limits(addr, len);
	if (!ret)
		ret = do_mas_munmap(mm, addr, len);
	if (!ret) {
		prev = find_vma(mm, addr);
		prev = prev ? vma_prev(mm, prev) : (list_empty(&mm->mm_mt.vmas) ? NULL :
			list_entry(mm->mm_mt.vmas.prev, struct vm_area_struct, vm_list));
		ret = do_brk_flags(mm, prev, addr, len, flags);
	}
	mmap_write_unlock(mm);
	return ret;
}

/* include/linux/mm.h: the heap from start to new and the data segment within the limit */
static inline int check_data_rlimit(unsigned long rlim, unsigned long new, unsigned long start,
				    unsigned long end_data, unsigned long start_data)
{
	if (rlim < RLIM_INFINITY && (new - start) + (end_data - start_data) > rlim)
		return -ENOSPC;
	return 0;
}

SYSCALL_DEFINE1(brk, unsigned long, brk)
{
	struct mm_struct *mm = current->mm;
	unsigned long newbrk, oldbrk, origbrk;
	struct vm_area_struct *next, *brkvma;

	mmap_write_lock(mm);
	origbrk = mm->brk;
	if (brk < mm->start_brk)
		goto out;
	/* RLIMIT_DATA before the page rounding, which could let the heap past an unaligned limit */
	if (check_data_rlimit(rlimit(RLIMIT_DATA), brk, mm->start_brk, mm->end_data, mm->start_data))
		goto out;
	newbrk = PAGE_ALIGN(brk);
	oldbrk = PAGE_ALIGN(mm->brk);
	if (oldbrk == newbrk) {
		mm->brk = brk;
		goto out;
	}
	if (brk <= mm->brk) {	/* shrink */
		mm->brk = brk;
		if (do_mas_align_munmap(mm, newbrk, oldbrk))
			mm->brk = origbrk;
		goto out;
	}
	if (check_brk_limits(oldbrk, newbrk - oldbrk))
		goto out;
	next = find_vma(mm, oldbrk);
	if (next && newbrk + PAGE_SIZE > next->vm_start -
	    ((next->vm_flags & VM_GROWSDOWN) ? stack_guard_gap : 0))
		goto out;
	/* mas_prev(&mas, mm->start_brk): the heap's VMA; the first brk makes its own, as 6.1's
	 * (the bss before it stays a VMA of its own) */
	brkvma = find_vma_intersection(mm, mm->start_brk, oldbrk);
	if (do_brk_flags(mm, brkvma, oldbrk, newbrk - oldbrk, 0) < 0)
		goto out;
	mm->brk = brk;
	/* mlockall(MCL_FUTURE): the heap's new pages are faulted in */
	if ((mm->def_flags & VM_LOCKED) && !mm_host_vmas(mm))
		__mm_populate(oldbrk, newbrk - oldbrk, 1);
out:
	brk = mm->brk;
	mmap_write_unlock(mm);
	return brk;
}

/* ---- the stack (grown with the mmap_lock held for writing: lock_mm_and_find_vma, exec) ---- */
noinline int expand_downwards(struct vm_area_struct *vma, unsigned long address)
{
	struct vm_area_struct *prev;
	unsigned long grow;

	address &= PAGE_MASK;
	if (!(vma->vm_flags & VM_GROWSDOWN) || address >= vma->vm_start)
		return address >= vma->vm_start ? 0 : -EFAULT;
	prev = vma_prev(vma->vm_mm, vma);
	if (prev && prev->vm_end + stack_guard_gap > address && (prev->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return -ENOMEM;
	grow = (vma->vm_start - address) >> 12;
	if (vma->vm_end - address > rlimit(RLIMIT_STACK))	/* acct_stack_growth's limit */
		return -ENOMEM;
	vma->vm_start = address;
	vma->vm_pgoff -= grow;
	vm_stat_account(vma->vm_mm, vma->vm_flags, grow);	/* acct_stack_growth */
	return 0;
}

noinline int expand_stack_locked(struct vm_area_struct *vma, unsigned long address)
{
	if (unlikely(!(vma->vm_flags & VM_GROWSDOWN)))
		return -EINVAL;
	return expand_downwards(vma, address);
}

/*
 * The files a session process's served mappings of a BPF map hold (kernel/bpf/syscall.c), as a
 * VMA's vm_file holds its file on 6.1: the mapping keeps the map after its fd is closed, until
 * the process unmaps it (munmap: the perf pool regions the supervisor saw the range map), execs
 * or exits (exit_mmap); a fork's child holds its own (dup_mmap).  The host makes the mapping, so
 * no VMA here has its address: an entry per mapping, by address space and region.
 */
struct pool_file_map {
	struct list_head list;
	struct mm_struct *mm;
	int region;
	struct file *file;
};
static LIST_HEAD(pool_file_maps);
static spinlock_t pool_file_maps_lock;

/* the mapping of region the process of mm made holds file (a reference of its own) */
notrace int mm_hold_pool_file(struct mm_struct *mm, int region, struct file *file)
{
	struct pool_file_map *m = kmalloc(sizeof(*m), GFP_KERNEL);
	unsigned long flags;

	if (!m)
		return -ENOMEM;
	m->mm = mm;
	m->region = region;
	m->file = get_file(file);
	spin_lock_irqsave(&pool_file_maps_lock, flags);
	list_add_tail(&m->list, &pool_file_maps);
	spin_unlock_irqrestore(&pool_file_maps_lock, flags);
	return 0;
}

/* mm's mappings go: one of each region in the mask (munmap), or all (mask ~0: exit_mmap);
 * their files are let go of once off the list (a release may take locks) */
static notrace void mm_release_pool_files(struct mm_struct *mm, u64 mask, bool all)
{
	struct pool_file_map *m, *n;
	LIST_HEAD(gone);
	unsigned long flags;

	spin_lock_irqsave(&pool_file_maps_lock, flags);
	list_for_each_entry_safe(m, n, &pool_file_maps, list) {
		if (m->mm != mm || m->region >= 64 || !(all || (mask >> m->region & 1)))
			continue;
		mask &= ~(1ULL << m->region);
		list_move(&m->list, &gone);
	}
	spin_unlock_irqrestore(&pool_file_maps_lock, flags);
	list_for_each_entry_safe(m, n, &gone, list) {
		fput(m->file);
		kfree(m);
	}
}

/* a fork's child (mm) maps what its parent (oldmm) did: its own references */
static notrace void mm_dup_pool_files(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct pool_file_map *m, *c;
	LIST_HEAD(copies);
	unsigned long flags;

	spin_lock_irqsave(&pool_file_maps_lock, flags);
	list_for_each_entry(m, &pool_file_maps, list) {
		if (m->mm != oldmm || !(c = kmalloc(sizeof(*c), GFP_ATOMIC)))
			continue;
		c->mm = mm;
		c->region = m->region;
		c->file = get_file(m->file);
		list_add_tail(&c->list, &copies);
	}
	list_splice_tail_init(&copies, &pool_file_maps);
	spin_unlock_irqrestore(&pool_file_maps_lock, flags);
}

/* ---- fork and exit ---- */
noinline int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct vm_area_struct *mpnt, *tmp;
	int ret = 0;

	mmap_write_lock(oldmm);
	mm->exe_file = get_mm_exe_file(oldmm);	/* dup_mm_exe_file() */
	mm->total_vm = oldmm->total_vm;
	mm->data_vm = oldmm->data_vm;
	mm->exec_vm = oldmm->exec_vm;
	mm->stack_vm = oldmm->stack_vm;
	mm_dup_pool_files(mm, oldmm);
	list_for_each_entry(mpnt, &oldmm->mm_mt.vmas, vm_list) {
		if (mpnt->vm_flags & 0x00020000UL /* VM_DONTCOPY: madvise(MADV_DONTFORK) */) {
			vm_stat_account(mm, mpnt->vm_flags, -(long)((mpnt->vm_end - mpnt->vm_start) >> 12));
			continue;
		}
		tmp = vm_area_dup(mpnt);
		if (!tmp) {
			ret = -ENOMEM;
			break;
		}
		tmp->vm_mm = mm;
		tmp->vm_flags &= ~VM_LOCKED_MASK;	/* locks are not inherited by fork */
		list_add_tail(&tmp->vm_list, &mm->mm_mt.vmas);
		mm->map_count++;
		if ((mpnt->vm_flags & 0x02000000UL /* VM_WIPEONFORK: the child's starts empty */) ||
		    mm_host_vmas(oldmm))
			continue;
		ret = copy_page_range(tmp, mpnt);
		if (ret)
			break;
	}
	mmap_write_unlock(oldmm);
	return ret;
}

/* The VMAs of an address space that is going (the pages go with its page tables). */
noinline void exit_mmap(struct mm_struct *mm)
{
	struct vm_area_struct *vma, *n;

	list_for_each_entry_safe(vma, n, &mm->mm_mt.vmas, vm_list) {
		list_del_init(&vma->vm_list);
		vm_area_free(vma);
	}
	mm_release_pool_files(mm, 0, true);
	mm->map_count = 0;
	trace_exit_mmap(mm);
}
