/* Background cron: runs its job every second, in a child it waits for, and logs each run
 * through /dev/kmsg, as a syslog-less small server's cron does. */
#include "libc.h"

#define LOG_CRON_INFO "<78>"	/* facility cron (9) * 8 + level info (6) */

int main(void)
{
	char *argv[] = { "true", NULL };
	int kmsg = open("/dev/kmsg", O_WRONLY, 0);

	for (;;) {
		int status, pid;

		msleep(1000);
		pid = fork();
		if (pid == 0) {
			execve("/bin/true", argv, NULL);
			exit(127);
		}
		if (kmsg >= 0)
			dprintf(kmsg, LOG_CRON_INFO "CRON[%d]: (root) CMD (true)\n", pid);
		if (pid > 0)
			wait4(pid, &status, 0, NULL);
	}
}
