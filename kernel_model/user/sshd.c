/* Background sshd: listens on 127.0.0.1:22; now and then it takes the connections that came
 * (a monitor's: it sends its banner, reads the client's and hangs up) and rereads its config
 * and the user database.  It makes no getuid() call, so that the docs' getuid demos count
 * only the program they run. */
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

#define BANNER "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n"

int main(void)
{
	int lfd = tcp_listen(22, 128);

	for (;;) {
		int fd;

		while (lfd >= 0 && (fd = accept4(lfd, NULL, NULL, 0)) >= 0) {
			char line[128];

			write(fd, BANNER, sizeof(BANNER) - 1);
			read(fd, line, sizeof(line));
			close(fd);
		}
		slurp("/etc/ssh/sshd_config");
		slurp("/etc/passwd");
		msleep(300 + random_u64() % 700);
	}
}
