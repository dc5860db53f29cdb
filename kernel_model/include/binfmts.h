/* Executing a program (include/linux/binfmts.h): what exec knows of it while it loads. */
#ifndef _BINFMTS_H
#define _BINFMTS_H
#include "kernel.h"

#define BINPRM_BUF_SIZE 256
#define MAX_ARG_STRLEN	(PAGE_SIZE * 32)
#define MAX_ARG_STRINGS	0x7FFFFFFF
#define STACK_TOP	0x00007ffffffff000UL	/* TASK_SIZE_LOW; no randomization */

/* An executable image the kernel holds (kernel_model/user/, embedded at build): the file
 * exec reads and maps until the VFS gives files. */
struct user_program {
	const char *name;
	const u8 *image;	/* the ELF file */
	u64 image_size;
	u64 flags;		/* bit 0: started by the kernel itself (init); bit 1: the
				 * kernel's own, built for the general registers only */
};

struct linux_binprm {
	struct vm_area_struct *vma;	/* the new stack */
	unsigned long vma_pages;
	struct mm_struct *mm;
	unsigned long p;		/* current top of the new stack's contents */
	int argc, envc;
	const char *filename;		/* the name exec was given */
	char *fdpath;			/* ... /dev/fd/N[/NAME] for one relative to a directory fd */
	unsigned long exec;		/* where that name is on the new stack (AT_EXECFN) */
	struct file *file;		/* the program: a held image or the VFS's */
	struct cred *cred;		/* the credentials it will run with (prepare_bprm_creds) */
	char buf[BINPRM_BUF_SIZE];	/* the file's first bytes */
	char interp[128];		/* the interpreter a dynamically linked one names */
};

int begin_new_exec(struct linux_binprm *bprm);
void setup_new_exec(struct linux_binprm *bprm);
int setup_arg_pages(struct linux_binprm *bprm, unsigned long stack_top, int executable_stack);
void finalize_exec(struct linux_binprm *bprm);
int load_elf_binary(struct linux_binprm *bprm);
const struct user_program *user_program_of(struct file *file);
#endif
