/* clone(2) with and without CLONE_FILES|CLONE_FS (tests/machine/test_progs.py): the child opens
 * a file and changes directory; the parent says whether it sees the fd and the cwd. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int fd = -1;
static char stack[65536];

static int child(void *arg)
{
	fd = open("/etc/hostname", O_RDONLY);	/* (CLONE_VM: the parent reads the number) */
	return chdir("/etc") ? 1 : 0;
}

static void run(const char *name, int flags)
{
	char cwd[256];
	int status;
	pid_t pid;

	chdir("/");
	fd = -1;
	pid = clone(child, stack + sizeof(stack), CLONE_VM | SIGCHLD | flags, NULL);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		exit(2);
	printf("%s: child's fd %s here, cwd %s\n", name, fcntl(fd, F_GETFD) == 0 ? "open" : "closed",
	       getcwd(cwd, sizeof(cwd)));
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	run("shared", CLONE_FILES | CLONE_FS);
	run("copied", 0);
	return 0;
}
