/* Stack trace maps (kernel/bpf/stackmap.c): BPF_MAP_TYPE_STACK_TRACE, a table of call chains
 * by id (the chain's hash, masked), filled by bpf_get_stackid() from a program and read by
 * id from the syscall.  Buckets are preallocated on a free list; an id whose bucket holds
 * another chain answers -EEXIST unless BPF_F_REUSE_STACKID.  A map made with
 * BPF_F_STACK_BUILD_ID holds, for each frame, a struct bpf_stack_build_id: for a user frame
 * the build id of the ELF file mapped there and the frame's offset in that file, else (a
 * kernel frame, a mapping of no file or of one whose first page has no build id note) the
 * address itself (BPF_STACK_BUILD_ID_IP).  bpf_get_stack() copies a chain into the program's
 * buffer instead; a perf event's program reads the chain its sample took (bpf_get_stackid_pe,
 * bpf_get_stack_pe). */
#include "../../include/bpf.h"
#include "../../include/perf_event.h"
#include "../../include/elf.h"
#include "../../include/mm.h"
#include "../../include/mmap_lock.h"
#include "../../include/pagemap.h"
#include "../../include/binfmts.h"

#define STACK_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_STACK_BUILD_ID)
#define BPF_F_SKIP_FIELD_MASK	0xffULL
#define BPF_F_USER_STACK	(1ULL << 8)
#define BPF_F_FAST_STACK_CMP	(1ULL << 9)
#define BPF_F_REUSE_STACKID	(1ULL << 10)
#define BPF_F_USER_BUILD_ID	(1ULL << 11)
#define BUILD_ID_SIZE_MAX	20
#define NT_GNU_BUILD_ID		3
#define sysctl_perf_event_max_stack PERF_MAX_STACK_DEPTH

struct stack_map_bucket {
	struct stack_map_bucket *next_free;
	u32 hash;
	u32 nr;
	u64 data[];
};

struct bpf_stack_map {
	struct bpf_map map;
	raw_spinlock_t freelist_lock;
	struct stack_map_bucket *freelist;
	u32 n_buckets;
	struct stack_map_bucket *buckets[];
};

/* one chain per cpu, taken with interrupts off */
static u64 bpf_callchain_entries[NR_CPUS][PERF_MAX_STACK_DEPTH + 1];

static struct stack_map_bucket *freelist_pop(struct bpf_stack_map *smap)
{
	unsigned long flags = _raw_spin_lock_irqsave(&smap->freelist_lock);
	struct stack_map_bucket *b = smap->freelist;

	if (b)
		smap->freelist = b->next_free;
	_raw_spin_unlock_irqrestore(&smap->freelist_lock, flags);
	return b;
}

static void freelist_push(struct bpf_stack_map *smap, struct stack_map_bucket *b)
{
	unsigned long flags = _raw_spin_lock_irqsave(&smap->freelist_lock);

	b->next_free = smap->freelist;
	smap->freelist = b;
	_raw_spin_unlock_irqrestore(&smap->freelist_lock, flags);
}

static u32 roundup_pow_of_two_u32(u32 n)
{
	u32 p = 1;

	while (p && p < n)
		p <<= 1;
	return p;
}

static inline bool stack_map_use_build_id(struct bpf_map *map)
{
	return map->map_flags & BPF_F_STACK_BUILD_ID;
}

/* a frame's bytes in the map's values */
static inline u32 stack_map_data_size(struct bpf_map *map)
{
	return stack_map_use_build_id(map) ? sizeof(struct bpf_stack_build_id) : sizeof(u64);
}

static notrace int stack_map_alloc_check(union bpf_attr *attr)
{
	u32 value_size = attr->value_size;

	if (attr->map_flags & ~STACK_CREATE_FLAG_MASK)
		return -EINVAL;
	if (attr->max_entries == 0 || attr->key_size != 4 || value_size < 8 || value_size % 8)
		return -EINVAL;
	if (attr->map_flags & BPF_F_STACK_BUILD_ID) {
		if (value_size % sizeof(struct bpf_stack_build_id) ||
		    value_size / sizeof(struct bpf_stack_build_id) > sysctl_perf_event_max_stack)
			return -EINVAL;
	} else if (value_size / 8 > sysctl_perf_event_max_stack) {
		return -EINVAL;
	}
	if (!roundup_pow_of_two_u32(attr->max_entries))
		return -E2BIG;
	return 0;
}

static void stack_map_free(struct bpf_map *map)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	struct stack_map_bucket *b;
	u32 i;

	for (i = 0; i < smap->n_buckets; i++)
		if (smap->buckets[i])
			kfree(smap->buckets[i]);
	while ((b = smap->freelist)) {
		smap->freelist = b->next_free;
		kfree(b);
	}
	kfree(smap);
}

/* the table of n_buckets, and max_entries buckets on the free list (prealloc_elems_and_freelist) */
static struct bpf_map *stack_map_alloc(union bpf_attr *attr)
{
	u32 n_buckets = roundup_pow_of_two_u32(attr->max_entries), i;
	u64 cost = sizeof(struct bpf_stack_map) + (u64)n_buckets * sizeof(void *);
	struct bpf_stack_map *smap;

	if (cost > (PAGE_SIZE << (MAX_ORDER - 1)))
		return (void *)(long)-ENOMEM;
	smap = kzalloc(cost, GFP_KERNEL);
	if (!smap)
		return (void *)(long)-ENOMEM;
	bpf_map_init_from_attr(&smap->map, attr);
	smap->n_buckets = n_buckets;
	for (i = 0; i < attr->max_entries; i++) {
		struct stack_map_bucket *b = kmalloc(sizeof(*b) + attr->value_size, GFP_KERNEL);

		if (!b) {
			stack_map_free(&smap->map);
			return (void *)(long)-ENOMEM;
		}
		b->next_free = smap->freelist;
		smap->freelist = b;
	}
	return &smap->map;
}

/* ---- build ids (lib/buildid.c of 6.1) ---- */

/* parse_build_id_buf(): the GNU build id note among the notes at note_start */
static notrace int parse_build_id_buf(unsigned char *build_id, const void *note_start, u32 note_size)
{
	static const char note_name[] = "GNU";
	const u64 note_name_sz = sizeof(note_name);
	u64 note_off = 0, new_off, name_sz, desc_sz;

	while (note_off + sizeof(Elf32_Nhdr) < note_size) {
		const Elf32_Nhdr *nhdr = note_start + note_off;

		name_sz = READ_ONCE(nhdr->n_namesz);
		desc_sz = READ_ONCE(nhdr->n_descsz);
		new_off = note_off + sizeof(Elf32_Nhdr) + ALIGN(name_sz, 4) + ALIGN(desc_sz, 4);
		if (new_off > note_size)
			break;
		if (nhdr->n_type == NT_GNU_BUILD_ID && name_sz == note_name_sz &&
		    memcmp(nhdr + 1, note_name, note_name_sz) == 0 && desc_sz > 0 && desc_sz <= BUILD_ID_SIZE_MAX) {
			const char *data = note_start + note_off + sizeof(Elf32_Nhdr) + ALIGN(note_name_sz, 4);

			memcpy(build_id, data, desc_sz);
			memset(build_id + desc_sz, 0, BUILD_ID_SIZE_MAX - desc_sz);
			return 0;
		}
		note_off = new_off;
	}
	return -EINVAL;
}

/* parse_build_id(): only a note within the first page (its first len bytes: past a file's end
 * 6.1's page is zeros, where no note is) */
static notrace int parse_build_id(const void *page_addr, u64 len, unsigned char *build_id, u64 note_off,
				  u64 note_size)
{
	if (note_off + note_size < note_off || note_off + note_size > len)
		return -EINVAL;
	return parse_build_id_buf(build_id, page_addr + note_off, note_size);
}

/* get_build_id_32/64() of 6.1, in one: the program headers right after the ELF header, within
 * the page, the first PT_NOTE one with the note */
static notrace int get_build_id(const void *page_addr, u64 len, unsigned char *build_id, bool elf64)
{
	const Elf32_Ehdr *e32 = page_addr;
	const Elf64_Ehdr *e64 = page_addr;
	u64 ehdr_size = elf64 ? sizeof(*e64) : sizeof(*e32), phdr_size = elf64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	u64 phoff = elf64 ? e64->e_phoff : e32->e_phoff;
	u32 i, phnum = elf64 ? READ_ONCE(e64->e_phnum) : READ_ONCE(e32->e_phnum);

	if (phoff != ehdr_size || phnum > (len - ehdr_size) / phdr_size)
		return -EINVAL;
	for (i = 0; i < phnum; ++i) {
		const void *phdr = page_addr + ehdr_size + i * phdr_size;
		const Elf64_Phdr *p64 = phdr;
		const Elf32_Phdr *p32 = phdr;

		if ((elf64 ? p64->p_type : p32->p_type) == PT_NOTE &&
		    !parse_build_id(page_addr, len, build_id, elf64 ? p64->p_offset : p32->p_offset,
				    elf64 ? p64->p_filesz : p32->p_filesz))
			return 0;
	}
	return -EINVAL;
}

/*
 * The file's first page if it is in memory, and how much of it is the file's (6.1's
 * find_get_page() of index 0: the page cache only, never a read that may sleep): a cached
 * page up to date, or the image of a program the kernel holds, whose blob is its memory as a
 * tmpfs file's pages are (kernel/exec.c; this kernel's mappings of files read their pages
 * through the file, without a page cache: kernel/mmap.c's filemap_fault).
 */
static notrace const void *build_id_first_page(struct file *file, u64 *len)
{
	const struct user_program *prog = user_program_of(file);
	void **slot;
	void *page;

	if (prog) {
		*len = min((u64)PAGE_SIZE, prog->image_size);
		return prog->image;
	}
	if (!file->f_mapping)
		return NULL;
	slot = mapping_slot(file->f_mapping, 0, false);
	page = slot ? *slot : NULL;
	if (!page || !PageUptodate(page))
		return NULL;
	*len = PAGE_SIZE;
	return page;
}

/* build_id_parse(): the build id of the ELF file the vma maps, from its first page in memory
 * (not there: -EFAULT; no note in it: -EINVAL) */
static notrace int build_id_parse(struct vm_area_struct *vma, unsigned char *build_id)
{
	const Elf32_Ehdr *ehdr;
	u64 len = 0;

	if (!vma->vm_file)
		return -EINVAL;
	ehdr = build_id_first_page(vma->vm_file, &len);
	if (!ehdr)
		return -EFAULT;
	if (len < sizeof(Elf64_Ehdr) || memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0)
		return -EINVAL;
	if (ehdr->e_type != ET_EXEC && ehdr->e_type != ET_DYN)
		return -EINVAL;
	if (ehdr->e_ident[EI_CLASS] != ELFCLASS32 && ehdr->e_ident[EI_CLASS] != ELFCLASS64)
		return -EINVAL;
	return get_build_id(ehdr, len, build_id, ehdr->e_ident[EI_CLASS] == ELFCLASS64);
}

static inline bool range_in_vma(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	return vma && vma->vm_start <= start && end <= vma->vm_end;
}

/* stack_map_get_build_id_offset(): each user frame as the build id of the file mapped there and
 * its offset in it; a frame no build id is found for, or every frame of a kernel chain (or when
 * the address space cannot be looked at now), as its address */
static noinline void stack_map_get_build_id_offset(struct bpf_stack_build_id *id_offs, u64 *ips, u32 trace_nr,
						   bool user)
{
	struct vm_area_struct *vma, *prev_vma = NULL;
	const unsigned char *prev_build_id = NULL;
	struct mm_struct *mm = current ? current->mm : NULL;
	u32 i;

	if (!user || !mm || !mmap_read_trylock(mm))
		goto fallback;
	for (i = 0; i < trace_nr; i++) {
		if (range_in_vma(prev_vma, ips[i], ips[i])) {
			vma = prev_vma;
			memcpy(id_offs[i].build_id, prev_build_id, BUILD_ID_SIZE_MAX);
			goto build_id_valid;
		}
		vma = find_vma(mm, ips[i]);
		if (!vma || build_id_parse(vma, id_offs[i].build_id)) {	/* (6.1's find_vma: maybe after the address) */
			/* per entry fall back to ips */
			id_offs[i].status = BPF_STACK_BUILD_ID_IP;
			id_offs[i].ip = ips[i];
			memset(id_offs[i].build_id, 0, BUILD_ID_SIZE_MAX);
			continue;
		}
build_id_valid:
		id_offs[i].offset = (vma->vm_pgoff << PAGE_SHIFT) + ips[i] - vma->vm_start;
		id_offs[i].status = BPF_STACK_BUILD_ID_VALID;
		prev_vma = vma;
		prev_build_id = id_offs[i].build_id;
	}
	mmap_read_unlock(mm);
	return;
fallback:
	for (i = 0; i < trace_nr; i++) {
		id_offs[i].status = BPF_STACK_BUILD_ID_IP;
		id_offs[i].ip = ips[i];
		memset(id_offs[i].build_id, 0, BUILD_ID_SIZE_MAX);
	}
}

/* __bpf_get_stackid(): the id of the chain ips[skip..nr), as deep as the map's values hold */
static noinline long __bpf_get_stackid(struct bpf_map *map, u64 *ips, u32 nr, u64 flags)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	struct stack_map_bucket *bucket, *new_bucket, *old_bucket;
	u32 skip = flags & BPF_F_SKIP_FIELD_MASK, hash, id, trace_nr, trace_len, max_depth;
	bool user = flags & BPF_F_USER_STACK;
	bool hash_matches;

	if (nr <= skip)
		return -EFAULT;	/* skipping more than usable stack trace */
	max_depth = map->value_size / stack_map_data_size(map) + skip;
	if (max_depth > sysctl_perf_event_max_stack)
		max_depth = sysctl_perf_event_max_stack;
	trace_nr = min(nr - skip, max_depth - skip);
	trace_len = trace_nr * sizeof(u64);
	ips += skip;
	hash = jhash(ips, trace_len, 0);
	id = hash & (smap->n_buckets - 1);
	bucket = READ_ONCE(smap->buckets[id]);
	hash_matches = bucket && bucket->hash == hash;
	if (hash_matches && (flags & BPF_F_FAST_STACK_CMP))
		return id;
	if (stack_map_use_build_id(map)) {
		/* for build_id+offset, pop a bucket before slow cmp */
		new_bucket = freelist_pop(smap);
		if (unlikely(!new_bucket))
			return -ENOMEM;
		new_bucket->nr = trace_nr;
		stack_map_get_build_id_offset((struct bpf_stack_build_id *)new_bucket->data, ips, trace_nr, user);
		trace_len = trace_nr * sizeof(struct bpf_stack_build_id);
		if (hash_matches && bucket->nr == trace_nr && memcmp(bucket->data, new_bucket->data, trace_len) == 0) {
			freelist_push(smap, new_bucket);
			return id;
		}
		if (bucket && !(flags & BPF_F_REUSE_STACKID)) {
			freelist_push(smap, new_bucket);
			return -EEXIST;
		}
	} else {
		if (hash_matches && bucket->nr == trace_nr && memcmp(bucket->data, ips, trace_len) == 0)
			return id;
		if (bucket && !(flags & BPF_F_REUSE_STACKID))
			return -EEXIST;
		new_bucket = freelist_pop(smap);
		if (unlikely(!new_bucket))
			return -ENOMEM;
		memcpy(new_bucket->data, ips, trace_len);
	}
	new_bucket->hash = hash;
	new_bucket->nr = trace_nr;
	old_bucket = __atomic_exchange_n(&smap->buckets[id], new_bucket, __ATOMIC_ACQ_REL);
	if (old_bucket)
		freelist_push(smap, old_bucket);
	return id;
}

/* bpf_get_stackid() on the registers: the kernel's chain, or the user's (BPF_F_USER_STACK) */
notrace long bpf_get_stackid_regs(struct pt_regs *regs, struct bpf_map *map, u64 flags)
{
	u32 max_depth = map->value_size / stack_map_data_size(map), skip = flags & BPF_F_SKIP_FIELD_MASK;
	bool user = flags & BPF_F_USER_STACK;
	unsigned long irqflags;
	long ret;
	int nr;

	if (unlikely(flags & ~(BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP |
			       BPF_F_REUSE_STACKID)))
		return -EINVAL;
	max_depth += skip;
	if (max_depth > sysctl_perf_event_max_stack)
		max_depth = sysctl_perf_event_max_stack;
	irqflags = arch_local_irq_save();
	nr = get_perf_callchain(bpf_callchain_entries[smp_processor_id()], regs, !user, user, max_depth, false);
	ret = __bpf_get_stackid(map, bpf_callchain_entries[smp_processor_id()], nr, flags);
	arch_local_irq_restore(irqflags);
	return ret;
}

/* the helper (BPF_FUNC_get_stackid) of a kprobe program, whose context is the registers */
BPF_CALL_x(bpf_get_stackid)
{
	return bpf_get_stackid_regs((struct pt_regs *)r1, (struct bpf_map *)r2, r3);
}
const struct bpf_func_proto bpf_get_stackid_proto = {
	.func = bpf_get_stackid,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
};

/* count_kernel_ip(): the entries of a sample's chain before its user part (PERF_CONTEXT_USER):
 * the kernel's, its context mark included */
static inline u64 count_kernel_ip(const u64 *chain)
{
	u64 nr_kernel = 0;

	while (nr_kernel < chain[0] && chain[1 + nr_kernel] != PERF_CONTEXT_USER)
		nr_kernel++;
	return nr_kernel;
}

/* a perf event's program: the chain its sample took (the event samples PERF_SAMPLE_CALLCHAIN:
 * bpf_overflow_handler took it before the program ran), its kernel part or (BPF_F_USER_STACK)
 * its user part, each from its context mark on as 6.1; else the registers' */
BPF_CALL_x(bpf_get_stackid_pe)
{
	struct bpf_perf_event_data_kern *ctx = (void *)r1;
	struct bpf_map *map = (struct bpf_map *)r2;
	u64 flags = r3, nr_kernel, *chain;

	if (!(ctx->event->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
		return bpf_get_stackid_regs(ctx->regs, map, flags);
	if (unlikely(flags & ~(BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP |
			       BPF_F_REUSE_STACKID)))
		return -EINVAL;
	chain = ctx->data->callchain;
	if (unlikely(!chain))
		return -EFAULT;
	nr_kernel = count_kernel_ip(chain);
	if (!(flags & BPF_F_USER_STACK))
		return __bpf_get_stackid(map, chain + 1, nr_kernel, flags);
	/* user: skip the kernel's part */
	if ((flags & BPF_F_SKIP_FIELD_MASK) + nr_kernel > BPF_F_SKIP_FIELD_MASK)
		return -EFAULT;
	flags += nr_kernel;
	return __bpf_get_stackid(map, chain + 1, chain[0], flags);
}
const struct bpf_func_proto bpf_get_stackid_proto_pe = {
	.func = bpf_get_stackid_pe,
	.gpl_only = false,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
};

/* __bpf_get_stack(): the chain (trace_in: a sample's, nr_in entries; else the registers') into
 * buf, as u64 addresses or (BPF_F_USER_BUILD_ID, a user chain) struct bpf_stack_build_id
 * entries; the bytes written, the rest zeroed; an error: all of it zeroed */
static noinline long __bpf_get_stack(struct pt_regs *regs, u64 *trace_in, u32 nr_in, void *buf, u32 size,
				     u64 flags)
{
	u32 trace_nr, copy_len, elem_size, num_elem, max_depth, skip = flags & BPF_F_SKIP_FIELD_MASK;
	bool user_build_id = flags & BPF_F_USER_BUILD_ID, user = flags & BPF_F_USER_STACK, kernel = !user;
	unsigned long irqflags = 0;
	long err = -EINVAL;
	u64 *ips;
	u32 nr;

	if (unlikely(flags & ~(BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_USER_BUILD_ID)))
		goto clear;
	if (kernel && user_build_id)
		goto clear;
	elem_size = (user && user_build_id) ? sizeof(struct bpf_stack_build_id) : sizeof(u64);
	if (unlikely(size % elem_size))
		goto clear;
	num_elem = size / elem_size;
	max_depth = num_elem + skip;
	if (sysctl_perf_event_max_stack < max_depth)
		max_depth = sysctl_perf_event_max_stack;
	if (trace_in) {
		ips = trace_in;
		nr = nr_in;
	} else {
		irqflags = arch_local_irq_save();
		ips = bpf_callchain_entries[smp_processor_id()];
		nr = get_perf_callchain(ips, regs, kernel, user, max_depth, false);
	}
	if (nr < skip) {
		if (!trace_in)
			arch_local_irq_restore(irqflags);
		err = -EFAULT;
		goto clear;
	}
	trace_nr = nr - skip;
	trace_nr = trace_nr <= num_elem ? trace_nr : num_elem;
	copy_len = trace_nr * elem_size;
	ips += skip;
	if (user && user_build_id)
		stack_map_get_build_id_offset(buf, ips, trace_nr, user);
	else
		memcpy(buf, ips, copy_len);
	if (!trace_in)
		arch_local_irq_restore(irqflags);
	if (size > copy_len)
		memset(buf + copy_len, 0, size - copy_len);
	return copy_len;
clear:
	memset(buf, 0, size);
	return err;
}

/* bpf_get_stack() of a kprobe program: its context the registers */
BPF_CALL_x(bpf_get_stack)
{
	return __bpf_get_stack((struct pt_regs *)r1, NULL, 0, (void *)r2, r3, r4);
}
const struct bpf_func_proto bpf_get_stack_proto = {
	.func = bpf_get_stack,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

/* bpf_get_stack() on given registers (a tracepoint's, a raw tracepoint's caller's) */
notrace long bpf_get_stack_regs(struct pt_regs *regs, void *buf, u32 size, u64 flags)
{
	return __bpf_get_stack(regs, NULL, 0, buf, size, flags);
}

/* a perf event's program: the sample's chain, as bpf_get_stackid_pe */
BPF_CALL_x(bpf_get_stack_pe)
{
	struct bpf_perf_event_data_kern *ctx = (void *)r1;
	void *buf = (void *)r2;
	u32 size = r3;
	u64 flags = r4, nr_kernel, *chain;
	long err = -EINVAL;

	if (!(ctx->event->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
		return __bpf_get_stack(ctx->regs, NULL, 0, buf, size, flags);
	if (unlikely(flags & ~(BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_USER_BUILD_ID)))
		goto clear;
	err = -EFAULT;
	chain = ctx->data->callchain;
	if (unlikely(!chain))
		goto clear;
	nr_kernel = count_kernel_ip(chain);
	if (!(flags & BPF_F_USER_STACK))
		return __bpf_get_stack(ctx->regs, chain + 1, nr_kernel, buf, size, flags);
	if ((flags & BPF_F_SKIP_FIELD_MASK) + nr_kernel > BPF_F_SKIP_FIELD_MASK)
		goto clear;
	return __bpf_get_stack(ctx->regs, chain + 1, chain[0], buf, size, flags + nr_kernel);
clear:
	memset(buf, 0, size);
	return err;
}
const struct bpf_func_proto bpf_get_stack_proto_pe = {
	.func = bpf_get_stack_pe,
	.gpl_only = true,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

/* bpf_stackmap_copy(): the syscall's lookup, the chain and zeros after it */
int bpf_stackmap_copy(struct bpf_map *map, void *key, void *value)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	struct stack_map_bucket *bucket, *old_bucket;
	u32 id = *(u32 *)key, trace_len;

	if (unlikely(id >= smap->n_buckets))
		return -ENOENT;
	bucket = __atomic_exchange_n(&smap->buckets[id], NULL, __ATOMIC_ACQ_REL);
	if (!bucket)
		return -ENOENT;
	trace_len = bucket->nr * stack_map_data_size(map);
	memcpy(value, bucket->data, trace_len);
	memset((char *)value + trace_len, 0, map->value_size - trace_len);
	old_bucket = __atomic_exchange_n(&smap->buckets[id], bucket, __ATOMIC_ACQ_REL);
	if (old_bucket)
		freelist_push(smap, old_bucket);
	return 0;
}

/* a program cannot look up a stack map (the verifier allows it only get_stackid) */
static void *stack_map_lookup_elem(struct bpf_map *map, void *key)
{
	return NULL;
}

static int stack_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	u32 id;

	if (!key) {
		id = 0;
	} else {
		id = *(u32 *)key;
		if (id >= smap->n_buckets || !smap->buckets[id])
			id = 0;
		else
			id++;
	}
	while (id < smap->n_buckets && !smap->buckets[id])
		id++;
	if (id >= smap->n_buckets)
		return -ENOENT;
	*(u32 *)next_key = id;
	return 0;
}

static long stack_map_update_elem(struct bpf_map *map, void *key, void *value, u64 map_flags)
{
	return -EINVAL;
}

static long stack_map_delete_elem(struct bpf_map *map, void *key)
{
	struct bpf_stack_map *smap = container_of(map, struct bpf_stack_map, map);
	struct stack_map_bucket *old_bucket;
	u32 id = *(u32 *)key;

	if (unlikely(id >= smap->n_buckets))
		return -E2BIG;
	old_bucket = __atomic_exchange_n(&smap->buckets[id], NULL, __ATOMIC_ACQ_REL);
	if (!old_bucket)
		return -ENOENT;
	freelist_push(smap, old_bucket);
	return 0;
}

const struct bpf_map_ops stack_trace_map_ops = {
	.map_alloc_check = stack_map_alloc_check,
	.map_alloc = stack_map_alloc,
	.map_free = stack_map_free,
	.map_get_next_key = stack_map_get_next_key,
	.map_lookup_elem = stack_map_lookup_elem,
	.map_update_elem = stack_map_update_elem,
	.map_delete_elem = stack_map_delete_elem,
	.map_check_btf = map_check_no_btf,
};
