/*
 * process_vm_readv/process_vm_writev against a real libc, statically linked: each line what a
 * call returned (tests/machine/test_process_vm.py; the expected lines are what this binary
 * printed on the reference Linux 6.1, run as root).  A forked child holds the memory read and
 * written; the parent's calls name it by pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static char target[8192] __attribute__((aligned(4096))) = "the child's first page";
static const char text[] = "read-only";

static long vm(int write, pid_t pid, struct iovec *l, unsigned long nl, struct iovec *r, unsigned long nr,
	       unsigned long flags)
{
	return syscall(write ? SYS_process_vm_writev : SYS_process_vm_readv, pid, l, nl, r, nr, flags);
}

int main(void)
{
	static struct iovec many[1025];
	int go[2], back[2];
	char a[8], b[32], status;
	pid_t child;

	strcpy(target + 4096, "and its second page");
	if (pipe(go) || pipe(back))
		return 1;
	fflush(stdout);
	child = fork();
	if (!child) {	/* the target: waits for the word, then says what the parent wrote */
		char c;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		c = !strcmp(target, "written by the parent") && !strcmp(target + 4096, "and its second page");
		if (write(back[1], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	{	/* across the page boundary, into two local buffers */
		struct iovec l[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
		struct iovec r[2] = { { target, 11 }, { target + 4096 - 4, 24 } };
		long n = vm(0, child, l, 2, r, 2, 0);

		show("readv two iovecs each side", n);
		for (int i = 0; i < 27; i++)	/* (the bytes between the strings are zeros) */
			b[i] = b[i] ? b[i] : '.';
		printf("read: %.8s|%.27s\n", a, b);
	}
	{	/* the second remote iovec unmapped: what the first moved */
		struct iovec l[1] = { { b, sizeof(b) } };
		struct iovec r[2] = { { target, 5 }, { (void *)0x1000, 8 } };

		show("readv, the second remote iovec unmapped", vm(0, child, l, 1, r, 2, 0));
		r[0].iov_base = (void *)0x1000;
		show("readv, only unmapped", vm(0, child, l, 1, r, 1, 0));
	}
	{
		struct iovec l[1] = { { b, sizeof(b) } };
		struct iovec r[1] = { { target, 4 } };

		show("readv with flags 1", vm(0, child, l, 1, r, 1, 1));
		show("readv of no such pid", vm(0, 0x3fffffff, l, 1, r, 1, 0));
		show("readv of its own memory", vm(0, getpid(), l, 1, r, 1, 0));
		l[0].iov_len = (size_t)-1;
		show("readv, a negative local length", vm(0, child, l, 1, r, 1, 0));
		l[0].iov_len = sizeof(b);
		r[0].iov_len = (size_t)-1;
		show("readv, a negative remote length", vm(0, child, l, 1, r, 1, 0));
		r[0].iov_len = 0;
		show("readv, a zero remote length", vm(0, child, l, 1, r, 1, 0));
		r[0].iov_len = 4;
		l[0].iov_base = (void *)0x1000;
		show("readv into an unmapped local buffer", vm(0, child, l, 1, r, 1, 0));
		l[0].iov_base = b;
		show("readv, 1025 remote iovecs", vm(0, child, l, 1, many, 1025, 0));
		show("readv, 1025 local iovecs", vm(0, child, many, 1025, r, 1, 0));
		show("readv, no local iovec", vm(0, child, l, 0, r, 1, 0));
		show("readv of a kernel thread (kthreadd)", vm(0, 2, l, 1, r, 1, 0));
	}
	{
		char msg[] = "written by the parent";
		struct iovec l[1] = { { msg, sizeof(msg) } };
		struct iovec r[1] = { { target, sizeof(msg) } };
		struct iovec ro[1] = { { (void *)text, 4 } };

		show("writev to the child", vm(1, child, l, 1, r, 1, 0));
		show("writev to its read-only data", vm(1, child, l, 1, ro, 1, 0));
	}
	if (write(go[1], "x", 1) != 1 || read(back[0], &status, 1) != 1)
		return 1;
	printf("the child saw the write: %s\n", status ? "yes" : "no");
	waitpid(child, NULL, 0);
	fflush(stdout);
	child = fork();
	if (!child) {	/* another user: no ptrace attach rights over the root parent */
		struct iovec l[1] = { { b, sizeof(b) } };
		struct iovec r[1] = { { target, 4 } };

		if (setuid(65534))
			_exit(1);
		show("readv of a root process as nobody", vm(0, getppid(), l, 1, r, 1, 0));
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	return 0;
}
