/* pid 1: starts the background services of the "default" workload, reaps children. */
#include "libc.h"

static void spawn(const char *prog)
{
	char *argv[] = { (char *)prog, NULL };

	if (fork() == 0) {
		execve(prog, argv, NULL);
		exit(127);
	}
}

int main(int argc, char **argv)
{
	int status;

	if (argc > 1 && !strcmp(argv[1], "default")) {
		spawn("/usr/sbin/sshd");
		spawn("/usr/bin/redis-server");
		spawn("/usr/bin/node");
		spawn("/usr/sbin/cron");
		spawn("/usr/sbin/diskwriter");
	}
	for (;;)
		if (wait4(-1, &status, 0, NULL) < 0)
			msleep(60000);
}
