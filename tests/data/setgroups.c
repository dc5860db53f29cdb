/* setgroups(2), getgroups(2) and /proc/self/status's Groups line, as root and after the euid
 * leaves 0 (no CAP_SETGID); its output on the reference 6.1 is in test_progs.py */
#include <stdio.h>
#include <unistd.h>
#include <grp.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
static void status(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/self/status", "r");
	while (fgets(buf, sizeof buf, f))
		if (!strncmp(buf, "Groups:", 7))
			printf("[%.*s]\n", (int)strcspn(buf, "\n"), buf);
	fclose(f);
}
int main(void)
{
	gid_t gs[3] = { 30, 10, 20 }, got[4] = { 0 };
	long r;
	status();
	r = syscall(SYS_setgroups, 3, gs); printf("setgroups(3) = %ld %d\n", r, r ? errno : 0);
	r = syscall(SYS_getgroups, 0, NULL); printf("getgroups(0) = %ld\n", r);
	r = syscall(SYS_getgroups, 2, got); printf("getgroups(2) = %ld %d\n", r, r < 0 ? errno : 0);
	r = syscall(SYS_getgroups, 4, got); printf("getgroups(4) = %ld: %u %u %u\n", r, got[0], got[1], got[2]);
	status();
	r = syscall(SYS_setgroups, -1, gs); printf("setgroups(-1) = %ld %d\n", r, r ? errno : 0);
	r = syscall(SYS_setgroups, 70000, gs); printf("setgroups(70000) = %ld %d\n", r, r ? errno : 0);
	r = syscall(SYS_setgroups, 1, (void *)8); printf("setgroups(1, bad) = %ld %d\n", r, r ? errno : 0);
	r = syscall(SYS_setgroups, 0, NULL); printf("setgroups(0) = %ld %d\n", r, r ? errno : 0);
	status();
	r = syscall(SYS_setgroups, 1, gs); printf("setgroups(1) = %ld\n", r);
	r = syscall(SYS_setresuid, -1, 1000, -1); printf("setresuid = %ld\n", r);
	r = syscall(SYS_setgroups, 0, NULL); printf("setgroups(0) as 1000 = %ld %d\n", r, r ? errno : 0);
	r = syscall(SYS_getgroups, 4, got); printf("getgroups(4) = %ld: %u\n", r, got[0]);
	status();
	return 0;
}
