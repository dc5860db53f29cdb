/*
 * What the static test programs that fork share (ipctest.c, mqtest.c): waiting for a child to
 * fall asleep in the call it was to make, through /proc/PID/stat with a generous bound, and
 * its exit status.
 */
#ifndef _CHILDREN_H
#define _CHILDREN_H
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* waits until the child sleeps (in the call it was to make): true, or false after 20 s */
static int wait_asleep(pid_t pid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (int i = 0; i < 20000; i++) {
		FILE *f = fopen(path, "r");
		char *p = NULL;

		if (f) {
			p = fgets(buf, sizeof(buf), f);
			fclose(f);
		}
		if (p && (p = strrchr(buf, ')')) && p[2] == 'S')
			return 1;
		usleep(1000);
	}
	return 0;
}

static int child_status(pid_t pid)
{
	int status;

	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
#endif
