/*
 * The ELF loader (fs/binfmt_elf.c): statically linked x86-64 programs, ET_EXEC at their
 * addresses or ET_DYN (static PIE) where mmap puts them; each PT_LOAD mapped private from
 * the file (its pages come in on fault), the bss zeroed and mapped anonymous; then the
 * initial stack: argc, argv, envp and the auxiliary vector.  A program that names an
 * interpreter (dynamically linked) needs a file system to find it: ENOENT, as on Linux
 * when the interpreter is missing.
 */
#include "../include/fs.h"
#include "../include/syscalls.h"
#include "../include/binfmts.h"
#include "../include/cred.h"
#include "../include/elf.h"
#include "../include/personality.h"
#include "../include/signal.h"

#define ELF_MIN_ALIGN		PAGE_SIZE
#define ELF_PAGESTART(v)	((v) & ~(unsigned long)(ELF_MIN_ALIGN - 1))
#define ELF_PAGEOFFSET(v)	((v) & (ELF_MIN_ALIGN - 1))
#define ELF_PAGEALIGN(v)	(((v) + ELF_MIN_ALIGN - 1) & ~(ELF_MIN_ALIGN - 1))
#define ELF_ET_DYN_BASE		(TASK_SIZE_MAX / 3 * 2)
#define BAD_ADDR(x)		((unsigned long)(x) >= TASK_SIZE_MAX)
#define ELF_PLATFORM		"x86_64"
#define CLOCKS_PER_SEC		100	/* USER_HZ */
#define STACK_ALLOC(sp, len)	((sp) -= (len))
#define STACK_ROUND(sp, items)	(((unsigned long)((sp) - (items))) & ~15UL)
#define ELIBBAD		80


/* lib/usercopy: zero user memory (through the fault path, as any user write) */
static unsigned long clear_user(void *to, unsigned long n)
{
	static const u8 zeros[256];

	while (n) {
		unsigned long k = min(n, sizeof(zeros));

		if (copy_to_user(to, zeros, k))
			return n;
		to = (u8 *)to + k;
		n -= k;
	}
	return 0;
}

static noinline Elf64_Phdr *load_elf_phdrs(const Elf64_Ehdr *elf_ex, struct file *file)
{
	unsigned int size = sizeof(Elf64_Phdr) * elf_ex->e_phnum;
	loff_t pos = elf_ex->e_phoff;
	Elf64_Phdr *phdata;

	if (elf_ex->e_phentsize != sizeof(Elf64_Phdr) || size == 0 || size > 65536 || size > ELF_MIN_ALIGN)
		return NULL;
	phdata = kmalloc(size, GFP_KERNEL);
	if (!phdata)
		return NULL;
	if (kernel_read(file, phdata, size, &pos) != size) {
		kfree(phdata);
		return NULL;
	}
	return phdata;
}

static inline int make_prot(u32 p_flags)
{
	return (p_flags & PF_R ? PROT_READ : 0) | (p_flags & PF_W ? PROT_WRITE : 0) |
		(p_flags & PF_X ? PROT_EXEC : 0);
}

static noinline unsigned long elf_map(struct file *file, unsigned long addr,
				      const Elf64_Phdr *eppnt, int prot, int type,
				      unsigned long total_size)
{
	unsigned long map_addr, size = eppnt->p_filesz + ELF_PAGEOFFSET(eppnt->p_vaddr);
	unsigned long off = eppnt->p_offset - ELF_PAGEOFFSET(eppnt->p_vaddr);

	addr = ELF_PAGESTART(addr);
	size = ELF_PAGEALIGN(size);
	if (!size)
		return addr;
	if (total_size) {	/* the whole image's room first, then what the first segment leaves */
		total_size = ELF_PAGEALIGN(total_size);
		map_addr = vm_mmap(file, addr, total_size, prot, type, off);
		if (!BAD_ADDR(map_addr))
			vm_munmap(map_addr + size, total_size - size);
	} else {
		map_addr = vm_mmap(file, addr, size, prot, type, off);
	}
	return map_addr;
}

static noinline int padzero(unsigned long elf_bss)
{
	unsigned long nbyte = ELF_PAGEOFFSET(elf_bss);

	if (nbyte && clear_user((void *)elf_bss, ELF_MIN_ALIGN - nbyte))
		return -EFAULT;
	return 0;
}

static noinline unsigned long elf_load(struct file *file, unsigned long addr,
				       const Elf64_Phdr *eppnt, int prot, int type,
				       unsigned long total_size)
{
	unsigned long zero_start, zero_end, map_addr;

	if (eppnt->p_filesz) {
		map_addr = elf_map(file, addr, eppnt, prot, type, total_size);
		if (BAD_ADDR(map_addr))
			return map_addr;
		zero_start = map_addr + ELF_PAGEOFFSET(eppnt->p_vaddr) + eppnt->p_filesz;
		zero_end = map_addr + ELF_PAGEOFFSET(eppnt->p_vaddr) + eppnt->p_memsz;
		if (eppnt->p_memsz > eppnt->p_filesz)
			padzero(zero_start);	/* the end of the last file page */
	} else {
		map_addr = zero_start = ELF_PAGESTART(addr);
		zero_end = zero_start + ELF_PAGEOFFSET(eppnt->p_vaddr) + eppnt->p_memsz;
	}
	if (eppnt->p_memsz > eppnt->p_filesz) {
		int error;

		zero_start = ELF_PAGEALIGN(zero_start);
		zero_end = ELF_PAGEALIGN(zero_end);
		error = vm_brk_flags(zero_start, zero_end - zero_start, prot & PROT_EXEC ? VM_EXEC : 0);
		if (error)
			map_addr = error;
	}
	return map_addr;
}

static unsigned long total_mapping_size(const Elf64_Phdr *phdr, int nr)
{
	int i, first = -1, last = -1;

	for (i = 0; i < nr; i++)
		if (phdr[i].p_type == PT_LOAD) {
			last = i;
			if (first == -1)
				first = i;
		}
	if (first == -1)
		return 0;
	return phdr[last].p_vaddr + phdr[last].p_memsz - ELF_PAGESTART(phdr[first].p_vaddr);
}

static unsigned long maximum_alignment(const Elf64_Phdr *phdr, int nr)
{
	unsigned long alignment = 0;
	int i;

	for (i = 0; i < nr; i++)
		if (phdr[i].p_type == PT_LOAD && phdr[i].p_align &&
		    !(phdr[i].p_align & (phdr[i].p_align - 1)) && phdr[i].p_align > alignment)
			alignment = phdr[i].p_align;
	return ELF_PAGEALIGN(alignment);
}

/* CPUID.1:EDX, what AT_HWCAP carries on x86 */
static u32 elf_hwcap(void)
{
	u32 a = 1, b, c = 0, d;

	asm volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return d;
}

static notrace noinline int create_elf_tables(struct linux_binprm *bprm, const Elf64_Ehdr *exec,
				      unsigned long interp_load_addr, unsigned long e_entry,
				      unsigned long phdr_addr)
{
	struct mm_struct *mm = current->mm;
	unsigned long p = bprm->p & ~15UL;	/* arch_align_stack(), not randomized */
	unsigned long *sp, *elf_info, u_platform, u_rand_bytes;
	int argc = bprm->argc, envc = bprm->envc, items, ei_index;
	u8 k_rand_bytes[16];
	u64 r;

	u_platform = STACK_ALLOC(p, sizeof(ELF_PLATFORM));
	if (copy_to_user((void *)u_platform, ELF_PLATFORM, sizeof(ELF_PLATFORM)))
		return -EFAULT;
	r = get_random_u64();
	memcpy(k_rand_bytes, &r, 8);
	r = get_random_u64();
	memcpy(k_rand_bytes + 8, &r, 8);
	u_rand_bytes = STACK_ALLOC(p, sizeof(k_rand_bytes));
	if (copy_to_user((void *)u_rand_bytes, k_rand_bytes, sizeof(k_rand_bytes)))
		return -EFAULT;

	elf_info = mm->saved_auxv;
#define NEW_AUX_ENT(id, val) do { *elf_info++ = id; *elf_info++ = val; } while (0)
	NEW_AUX_ENT(AT_MINSIGSTKSZ, get_sigframe_size());	/* ARCH_DLINFO, no vDSO */
	NEW_AUX_ENT(AT_HWCAP, elf_hwcap());
	NEW_AUX_ENT(AT_PAGESZ, PAGE_SIZE);
	NEW_AUX_ENT(AT_CLKTCK, CLOCKS_PER_SEC);
	NEW_AUX_ENT(AT_PHDR, phdr_addr);
	NEW_AUX_ENT(AT_PHENT, sizeof(Elf64_Phdr));
	NEW_AUX_ENT(AT_PHNUM, exec->e_phnum);
	NEW_AUX_ENT(AT_BASE, interp_load_addr);
	NEW_AUX_ENT(AT_FLAGS, 0);
	NEW_AUX_ENT(AT_ENTRY, e_entry);
	NEW_AUX_ENT(AT_UID, current_cred()->uid);
	NEW_AUX_ENT(AT_EUID, current_cred()->euid);
	NEW_AUX_ENT(AT_GID, current_cred()->gid);
	NEW_AUX_ENT(AT_EGID, current_cred()->egid);
	NEW_AUX_ENT(AT_SECURE, 0);
	NEW_AUX_ENT(AT_RANDOM, u_rand_bytes);
	NEW_AUX_ENT(AT_HWCAP2, 0);
	NEW_AUX_ENT(AT_EXECFN, bprm->exec);
	NEW_AUX_ENT(AT_PLATFORM, u_platform);
#undef NEW_AUX_ENT
	memset(elf_info, 0, (char *)mm->saved_auxv + sizeof(mm->saved_auxv) - (char *)elf_info);
	elf_info += 2;	/* AT_NULL */
	ei_index = elf_info - mm->saved_auxv;
	sp = (unsigned long *)p - ei_index;
	items = (argc + 1) + (envc + 1) + 1;
	bprm->p = STACK_ROUND(sp, items);
	sp = (unsigned long *)bprm->p;
	if (copy_to_user(sp++, &(unsigned long){ argc }, 8))
		return -EFAULT;
	p = mm->arg_end = mm->arg_start;
	while (argc-- > 0) {
		char c;

		if (copy_to_user(sp++, &p, 8))
			return -EFAULT;
		do {	/* strnlen_user() */
			if (copy_from_user(&c, (void *)p++, 1))
				return -EFAULT;
		} while (c);
	}
	if (copy_to_user(sp++, &(unsigned long){ 0 }, 8))
		return -EFAULT;
	mm->arg_end = mm->env_start = p;
	while (envc-- > 0) {
		char c;

		if (copy_to_user(sp++, &p, 8))
			return -EFAULT;
		do {
			if (copy_from_user(&c, (void *)p++, 1))
				return -EFAULT;
		} while (c);
	}
	if (copy_to_user(sp++, &(unsigned long){ 0 }, 8))
		return -EFAULT;
	mm->env_end = p;
	if (copy_to_user(sp, mm->saved_auxv, ei_index * sizeof(unsigned long)))
		return -EFAULT;
	return 0;
}

noinline void start_thread(struct pt_regs *regs, unsigned long new_ip, unsigned long new_sp)
{
	current->thread.fsbase = 0;
	asm volatile("wrmsr" : : "c"(0xc0000100), "a"(0), "d"(0));
	memset(regs, 0, sizeof(*regs));
	regs->ip = new_ip;
	regs->sp = new_sp;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->flags = X86_EFLAGS_IF | 0x2;
}

noinline int load_elf_binary(struct linux_binprm *bprm)
{
	const Elf64_Ehdr *elf_ex = (const Elf64_Ehdr *)bprm->buf;
	unsigned long load_bias = 0, phdr_addr = 0, elf_brk = 0, e_entry, error;
	unsigned long start_code = ~0UL, end_code = 0, start_data = 0, end_data = 0;
	Elf64_Phdr *elf_phdata, *elf_ppnt;
	int first_pt_load = 1, i, retval = -ENOEXEC;
	struct mm_struct *mm;

	if (memcmp(elf_ex->e_ident, ELFMAG, SELFMAG) != 0)
		return -ENOEXEC;
	if (elf_ex->e_type != ET_EXEC && elf_ex->e_type != ET_DYN)
		return -ENOEXEC;
	if (elf_ex->e_machine != EM_X86_64 || elf_ex->e_ident[4] != ELFCLASS64)
		return -ENOEXEC;
	elf_phdata = load_elf_phdrs(elf_ex, bprm->file);
	if (!elf_phdata)
		return -ENOEXEC;
	for (i = 0; i < elf_ex->e_phnum; i++)
		if (elf_phdata[i].p_type == PT_INTERP) {
			/* a dynamically linked program: this kernel does not load interpreters;
			 * the caller may say which one it named (bprm->interp) */
			loff_t pos = elf_phdata[i].p_offset;
			size_t n = min((size_t)elf_phdata[i].p_filesz, sizeof(bprm->interp) - 1);
			ssize_t got = kernel_read(bprm->file, bprm->interp, n, &pos);

			bprm->interp[got > 0 ? got : 0] = 0;
			retval = -ENOEXEC;
			goto out_free_ph;
		}

	retval = begin_new_exec(bprm);
	if (retval)
		goto out_free_ph;
	set_personality_64bit();	/* SET_PERSONALITY2 (elf_read_implies_exec(): never, 64-bit) */
	setup_new_exec(bprm);
	retval = setup_arg_pages(bprm, STACK_TOP, 0);
	if (retval < 0)
		goto out_free_dentry;

	for (i = 0, elf_ppnt = elf_phdata; i < elf_ex->e_phnum; i++, elf_ppnt++) {
		unsigned long k, vaddr, total_size = 0, alignment;
		int elf_prot, elf_flags;

		if (elf_ppnt->p_type != PT_LOAD)
			continue;
		elf_prot = make_prot(elf_ppnt->p_flags);
		elf_flags = MAP_PRIVATE;
		vaddr = elf_ppnt->p_vaddr;
		if (!first_pt_load) {
			elf_flags |= MAP_FIXED;
		} else if (elf_ex->e_type == ET_EXEC) {
			elf_flags |= MAP_FIXED_NOREPLACE;
		} else {
			total_size = total_mapping_size(elf_phdata, elf_ex->e_phnum);
			if (!total_size) {
				retval = -EINVAL;
				goto out_free_dentry;
			}
			alignment = maximum_alignment(elf_phdata, elf_ex->e_phnum);
			if (alignment > ELF_MIN_ALIGN) {
				load_bias = elf_load(bprm->file, 0, elf_ppnt, elf_prot, elf_flags, total_size);
				if (BAD_ADDR(load_bias)) {
					retval = IS_ERR((void *)load_bias) ? PTR_ERR((void *)load_bias) : -EINVAL;
					goto out_free_dentry;
				}
				vm_munmap(load_bias, total_size);
				load_bias &= ~(alignment - 1);
				elf_flags |= MAP_FIXED_NOREPLACE;
			} else {
				load_bias = 0;
			}
			load_bias = ELF_PAGESTART(load_bias - vaddr);
		}
		error = elf_load(bprm->file, load_bias + vaddr, elf_ppnt, elf_prot, elf_flags, total_size);
		if (BAD_ADDR(error)) {
			retval = IS_ERR((void *)error) ? PTR_ERR((void *)error) : -EINVAL;
			goto out_free_dentry;
		}
		if (first_pt_load) {
			first_pt_load = 0;
			if (elf_ex->e_type == ET_DYN)
				load_bias += error - ELF_PAGESTART(load_bias + vaddr);
		}
		if (elf_ppnt->p_offset <= elf_ex->e_phoff &&
		    elf_ex->e_phoff < elf_ppnt->p_offset + elf_ppnt->p_filesz)
			phdr_addr = elf_ex->e_phoff - elf_ppnt->p_offset + elf_ppnt->p_vaddr;
		k = elf_ppnt->p_vaddr;
		if ((elf_ppnt->p_flags & PF_X) && k < start_code)
			start_code = k;
		if (start_data < k)
			start_data = k;
		if (BAD_ADDR(k) || elf_ppnt->p_filesz > elf_ppnt->p_memsz ||
		    elf_ppnt->p_memsz > TASK_SIZE_MAX || TASK_SIZE_MAX - elf_ppnt->p_memsz < k) {
			retval = -EINVAL;
			goto out_free_dentry;
		}
		k = elf_ppnt->p_vaddr + elf_ppnt->p_filesz;
		if ((elf_ppnt->p_flags & PF_X) && end_code < k)
			end_code = k;
		if (end_data < k)
			end_data = k;
		k = elf_ppnt->p_vaddr + elf_ppnt->p_memsz;
		if (k > elf_brk)
			elf_brk = k;
	}
	e_entry = elf_ex->e_entry + load_bias;
	phdr_addr += phdr_addr ? load_bias : 0;
	elf_brk += load_bias;
	start_code += load_bias;
	end_code += load_bias;
	start_data += load_bias;
	end_data += load_bias;
	if (BAD_ADDR(e_entry)) {
		retval = -EINVAL;
		goto out_free_dentry;
	}
	kfree(elf_phdata);

	retval = create_elf_tables(bprm, elf_ex, 0, e_entry, phdr_addr);
	if (retval < 0)
		goto out;
	mm = current->mm;
	mm->end_code = end_code;
	mm->start_code = start_code;
	mm->start_data = start_data;
	mm->end_data = end_data;
	mm->start_stack = bprm->p;
	if (elf_ex->e_type == ET_DYN)	/* a static PIE's brk is out of the mmap area */
		elf_brk = ELF_ET_DYN_BASE;
	mm->start_brk = mm->brk = ELF_PAGEALIGN(elf_brk);
	set_mm_exe_file(mm, bprm->file);
	if (user_program_of(bprm->file) && user_program_of(bprm->file)->flags & 2)
		mm->flags |= 1UL << MMF_GENREGS_ONLY;
	this_cpu()->h.user_state = !(mm->flags & (1UL << MMF_GENREGS_ONLY));
	finalize_exec(bprm);
	start_thread(current_pt_regs(), e_entry, bprm->p);
	return 0;

out_free_dentry:
out_free_ph:
	kfree(elf_phdata);
out:
	/* past begin_new_exec the old program is gone: the task dies (SIGSEGV, as Linux) */
	if (retval && !bprm->mm)
		do_group_exit(11);
	return retval;
}
