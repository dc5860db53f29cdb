/* execve: replace the address space with an embedded user program. */
#include "../include/syscalls.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/perf_event.h"

struct user_program {
	const char *name;
	const u8 *image;	/* flat image loaded at load_addr */
	u64 image_size;
	u64 load_addr;
	u64 entry;
	u64 mem_size;		/* image + bss */
	u64 flags;		/* bit 0: started by the kernel itself (init) */
	u64 text_size;		/* the executable pages from load_addr; the rest is no-execute */
};
extern const struct user_program user_programs[];
extern const u64 nr_user_programs;

#define STACK_TOP 0x00007ffffffff000UL
#define STACK_PAGES 8
#define ARGS_MAX 1536	/* packed argv bytes (a kmalloc-2k object) */

static noinline const struct user_program *find_program(const char *filename)
{
	const char *base = kbasename(filename);
	u64 i;

	for (i = 0; i < nr_user_programs; i++)
		if (!strcmp(user_programs[i].name, base))
			return &user_programs[i];
	return NULL;
}

static noinline int load_image(struct mm_struct *mm, const struct user_program *prog)
{
	u64 va;

	for (va = 0; va < prog->mem_size; va += PAGE_SIZE) {
		u8 *page = alloc_page_zeroed();
		if (!page || map_user_page(mm, prog->load_addr + va, page, va < prog->text_size))
			return -ENOMEM;
		if (va < prog->image_size)
			memcpy(page, prog->image + va, min(PAGE_SIZE, prog->image_size - va));
		if (va < prog->text_size)
			host_code_page(page);
	}
	return 0;
}

/* argv strings at the stack top, then NULL-terminated argv[], argc at %rsp */
static noinline u64 setup_arg_pages(struct mm_struct *mm, const char *args, int argc, size_t args_len)
{
	u64 va, sp, strings, *vec;
	u8 *top;
	int i;

	for (va = STACK_TOP - STACK_PAGES * PAGE_SIZE; va < STACK_TOP; va += PAGE_SIZE) {
		void *page = alloc_page_zeroed();
		if (!page || map_user_page(mm, va, page, false))
			return 0;
	}
	top = user_page(mm, STACK_TOP - PAGE_SIZE);
	strings = STACK_TOP - ALIGN(args_len, 16);
	memcpy(top + (strings - (STACK_TOP - PAGE_SIZE)), args, args_len);
	sp = (strings - (argc + 2) * 8) & ~15UL;
	vec = (u64 *)(top + (sp - (STACK_TOP - PAGE_SIZE)));
	vec[0] = argc;
	for (i = 0, va = strings; i < argc; i++) {
		vec[1 + i] = va;
		va += strlen(args) + 1;
		args += strlen(args) + 1;
	}
	vec[1 + argc] = 0;
	return sp;
}

void __set_task_comm(struct task_struct *tsk, const char *buf, bool exec)
{
	trace_task_rename(tsk, buf);
	strscpy_pad(tsk->comm, buf, TASK_COMM_LEN);
}

/* args: argc NUL-terminated strings packed in kernel memory */
int do_execve_packed(const char *filename, const char *args, int argc, size_t args_len, struct pt_regs *regs)
{
	const struct user_program *prog = find_program(filename);
	struct task_struct *tsk = current;
	struct mm_struct *mm, *old;
	pid_t old_pid = tsk->pid;
	u64 sp;

	if (!prog)
		return -ENOENT;
	if (args_len > ARGS_MAX || argc > 64)
		return -E2BIG;
	if (unshare_files())
		return -ENOMEM;
	mm = mm_alloc();
	if (!mm)
		return -ENOMEM;
	if (load_image(mm, prog) || !(sp = setup_arg_pages(mm, args, argc, args_len))) {
		mmput(mm);
		return -ENOMEM;
	}
	old = tsk->mm;
	tsk->mm = mm;
	tsk->flags &= ~PF_KTHREAD;
	switch_mm(mm);
	if (old)
		mmput(old);
	do_close_on_exec(tsk->files);
	__set_task_comm(tsk, prog->name, true);
	perf_event_exec();
	memset(regs, 0, sizeof(*regs));
	regs->ip = prog->entry;
	regs->sp = sp;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->flags = X86_EFLAGS_IF | 0x2;
	trace_sched_process_exec(tsk, old_pid, filename);
	return 0;
}

/* From a kernel thread: becomes a user process when its fn returns. */
int kernel_execve(const char *filename, const char *const *argv, int argc, struct pt_regs *regs)
{
	char *buf = kmalloc(ARGS_MAX, GFP_KERNEL);
	size_t len = 0;
	int i, ret;

	if (!buf)
		return -ENOMEM;
	for (i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;
		if (len + l > ARGS_MAX) {
			kfree(buf);
			return -E2BIG;
		}
		memcpy(buf + len, argv[i], l);
		len += l;
	}
	ret = do_execve_packed(filename, buf, argc, len, regs);
	kfree(buf);
	return ret;
}

SYSCALL_DEFINE3(execve, const char *, filename, const char *const *, argv, const char *const *, envp)
{
	char *buf = kmalloc(ARGS_MAX, GFP_KERNEL);
	char path[256];
	size_t len = 0;
	int argc = 0;
	long ret;

	if (!buf)
		return -ENOMEM;
	ret = strncpy_from_user(path, filename, sizeof(path));
	if (ret < 0 || ret == sizeof(path)) {
		kfree(buf);
		return ret < 0 ? ret : -ENAMETOOLONG;
	}
	if (current->session) {	/* a host program: exec'd here when it was on the host */
		kfree(buf);
		return session_execve(path);
	}
	for (;;) {
		const char *uarg;
		long l;

		if (copy_from_user(&uarg, argv + argc, sizeof(uarg))) {
			ret = -EFAULT;
			goto out;
		}
		if (!uarg)
			break;
		if (argc >= 64) {
			ret = -E2BIG;
			goto out;
		}
		l = strncpy_from_user(buf + len, uarg, ARGS_MAX - len);
		if (l < 0 || len + l + 1 >= ARGS_MAX) {
			ret = l < 0 ? l : -E2BIG;
			goto out;
		}
		len += l + 1;
		argc++;
	}
	ret = do_execve_packed(path, buf, argc, len, current_pt_regs());
out:
	kfree(buf);
	return ret;
}
