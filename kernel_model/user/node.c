/* Background node: a libuv-like loop doing a mix of syscalls; about twice a second it asks
 * redis (127.0.0.1:6379) for a PING over a new connection, and less often checks that sshd
 * (127.0.0.1:22) answers with its banner. */
#include "libc.h"

/* one request on a new connection: send, read the answer, hang up */
static void ask(unsigned short port, const char *req, size_t len)
{
	char buf[128];
	int fd = tcp_connect(port);

	if (fd < 0)
		return;
	if (len)
		write(fd, req, len);
	read(fd, buf, sizeof(buf));
	if (!len)	/* sshd speaks first: our banner after its */
		write(fd, "SSH-2.0-check\r\n", 15);
	close(fd);
}

int main(void)
{
	struct epoll_event events[16];
	int epfd = epoll_create1(0);
	char buf[256];
	long loops = 0;

	for (;;) {
		int fd;

		epoll_wait(epfd, events, 16, 50 + random_u64() % 250);
		getpid();
		fd = open("/proc/uptime", O_RDONLY, 0);
		if (fd >= 0) {
			read(fd, buf, sizeof(buf));
			close(fd);
		}
		fd = open("/dev/null", O_WRONLY, 0);
		if (fd >= 0) {
			write(fd, buf, 64);
			close(fd);
		}
		if (++loops % 3 == 0)	/* about twice a second */
			ask(6379, "PING\r\n", 6);
		if (loops % 32 == 0)
			ask(22, NULL, 0);
		if (random_u64() % 4 == 0) {
			fd = open("/srv/app/server.js", O_RDONLY, 0);
			if (fd >= 0) {
				read(fd, buf, sizeof(buf));
				close(fd);
			}
		}
	}
}
