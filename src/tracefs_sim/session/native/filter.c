/*
 * The seccomp filter every process of a session runs under (it follows fork, clone and exec
 * by itself and can never be removed).
 *
 * x86-64 calls that would reach the host kernel's tracing go to the supervisor, which serves
 * or refuses them (answer.c); when the session is mirrored, every other x86-64 call goes to it
 * too (mirror.c).  The other ABIs a 64-bit process can enter through (int 0x80's
 * i386 table, the x32 bit) get no supervisor: those calls are refused in the filter itself
 * with ENOSYS, the answer of a kernel built without them, and everything else runs.
 *
 * blktrace's ioctls on a block device (BLKTRACESETUP/START/STOP/TEARDOWN, in every ABI) are
 * refused in the filter with ENOTTY, the answer of a kernel built without blktrace: the
 * devices are the host's, the emulated kernel has no blktrace, and the host's must not be set
 * up.  (Its sysfs files, /sys/block/DEV/trace/, are covered in the namespace.)  Only the low
 * 16 bits of the command are compared (type 0x12, numbers 115-118): the kernel takes the
 * command as an unsigned int and matches it whole, so this covers every size and direction a
 * caller could encode, and no other block ioctl.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session.h"

#define X32_SYSCALL_BIT 0x40000000u

/* The x86-64 calls the supervisor answers (answer.c). */
static const unsigned int answered_x64[] = {
	__NR_mount, __NR_umount2, __NR_fsopen, __NR_perf_event_open, __NR_bpf,
	__NR_init_module, __NR_finit_module, __NR_delete_module, __NR_syslog,
};
/* The same calls in the i386 table (arch/x86/entry/syscalls/syscall_32.tbl). */
static const unsigned int refused_i386[] = { 21, 430, 336, 357, 128, 350, 129, 103 };

/* ioctl(2) in each table: x86-64's (also x32's common entry), x32's own, i386's */
#define NR_IOCTL_X32 514
#define NR_IOCTL_I386 54
/* blktrace's commands, _IO(0x12, 115..118) but for their size and direction bits */
#define BLKTRACE_CMD_FIRST 0x1273u
#define BLKTRACE_CMD_LAST 0x1276u

/* A classic BPF program built with forward jumps to labels, resolved at the end. */
enum label { L_NOTIFY, L_ENOSYS, L_ENOTTY, L_ALLOW, L_X64_OTHER, L_X32, L_X32_IOCTL, L_NOT_X64, NR_LABELS };
struct prog {
	struct sock_filter insn[96];
	int jump_to[96];	/* label of a conditional jump's true branch, or -1 */
	int at[NR_LABELS];
	unsigned int n;
};

static void emit(struct prog *p, struct sock_filter f, int label)
{
	p->jump_to[p->n] = label;
	p->insn[p->n++] = f;
}

static void place(struct prog *p, enum label l)
{
	p->at[l] = p->n;
}

#define STMT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define LOAD(field) STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RETURN(action) STMT(BPF_RET | BPF_K, (action))
#define GOTO STMT(BPF_JMP | BPF_JA, 0)	/* to the label given to emit() */
/* if (A op k) goto the label given to emit(), else on; jt/jf given: relative jumps */
#define JUMP_IF(op, k) ((struct sock_filter)BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), 0, 0))
#define SKIP_UNLESS_EQ(k) ((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 1, 0))
#define SKIP_UNLESS_GE(k) ((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), 1, 0))

static void jump_if_any(struct prog *p, const unsigned int *nrs, size_t count, enum label l)
{
	for (size_t i = 0; i < count; i++)
		emit(p, JUMP_IF(BPF_JEQ, nrs[i]), l);
}

/* The ioctl's command (args[1]'s low word: x86 is little-endian) in blktrace's range: ENOTTY;
 * else on to `other`. */
static void refuse_blktrace_ioctl(struct prog *p, enum label other)
{
	emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])), -1);
	emit(p, STMT(BPF_ALU | BPF_AND | BPF_K, 0xffff), -1);
	emit(p, SKIP_UNLESS_GE(BLKTRACE_CMD_FIRST), -1);
	emit(p, GOTO, other);
	emit(p, JUMP_IF(BPF_JGT, BLKTRACE_CMD_LAST), other);
	emit(p, GOTO, L_ENOTTY);
}

static void resolve(struct prog *p)
{
	for (unsigned int pc = 0; pc < p->n; pc++) {
		unsigned int offset;

		if (p->jump_to[pc] < 0)
			continue;
		offset = p->at[p->jump_to[pc]] - (pc + 1);
		if (p->insn[pc].code == (BPF_JMP | BPF_JA))
			p->insn[pc].k = offset;	/* `ja` takes its offset in k */
		else
			p->insn[pc].jt = offset;
	}
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int install_session_filter(bool notify_all)
{
	struct prog p = { .n = 0 };
	struct sock_fprog fprog;
	int fd;

	emit(&p, LOAD(arch), -1);
	emit(&p, SKIP_UNLESS_EQ(AUDIT_ARCH_X86_64), -1);
	emit(&p, GOTO, L_NOT_X64);
	emit(&p, LOAD(nr), -1);
	emit(&p, JUMP_IF(BPF_JSET, X32_SYSCALL_BIT), L_X32);
	jump_if_any(&p, answered_x64, COUNT(answered_x64), L_NOTIFY);
	emit(&p, SKIP_UNLESS_EQ(__NR_ioctl), -1);
	emit(&p, GOTO, L_X64_OTHER);
	refuse_blktrace_ioctl(&p, L_X64_OTHER);
	place(&p, L_X64_OTHER);
	emit(&p, RETURN(notify_all ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW), -1);
	place(&p, L_NOTIFY);
	emit(&p, RETURN(SECCOMP_RET_USER_NOTIF), -1);
	place(&p, L_X32);
	emit(&p, STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_SYSCALL_BIT), -1);
	jump_if_any(&p, answered_x64, COUNT(answered_x64), L_ENOSYS);
	emit(&p, JUMP_IF(BPF_JEQ, __NR_ioctl), L_X32_IOCTL);
	emit(&p, SKIP_UNLESS_EQ(NR_IOCTL_X32), -1);
	emit(&p, GOTO, L_ALLOW);
	place(&p, L_X32_IOCTL);
	refuse_blktrace_ioctl(&p, L_ALLOW);
	place(&p, L_NOT_X64);
	emit(&p, SKIP_UNLESS_EQ(AUDIT_ARCH_I386), -1);
	emit(&p, GOTO, L_ALLOW);
	emit(&p, LOAD(nr), -1);
	jump_if_any(&p, refused_i386, COUNT(refused_i386), L_ENOSYS);
	emit(&p, SKIP_UNLESS_EQ(NR_IOCTL_I386), -1);
	emit(&p, GOTO, L_ALLOW);
	refuse_blktrace_ioctl(&p, L_ALLOW);
	place(&p, L_ALLOW);
	emit(&p, RETURN(SECCOMP_RET_ALLOW), -1);
	place(&p, L_ENOSYS);
	emit(&p, RETURN(SECCOMP_RET_ERRNO | ENOSYS), -1);
	place(&p, L_ENOTTY);
	emit(&p, RETURN(SECCOMP_RET_ERRNO | ENOTTY), -1);
	resolve(&p);

	fprog.len = p.n;
	fprog.filter = p.insn;
	fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &fprog);
	if (fd < 0 && errno == EINVAL)	/* before Linux 5.19: no killable wait */
		fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
	return fd;
}
