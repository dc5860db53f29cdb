/* Background sshd: rereads its config and the user database now and then.  It makes no
 * getuid() call, so that the docs' getuid demos count only the program they run. */
#include "libc.h"

static void slurp(const char *path)
{
	char buf[512];
	int fd = open(path, O_RDONLY, 0);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

int main(void)
{
	for (;;) {
		slurp("/etc/ssh/sshd_config");
		slurp("/etc/passwd");
		msleep(300 + random_u64() % 700);
	}
}
