/* Background node: a libuv-like loop doing a mix of syscalls. */
#include "libc.h"

int main(void)
{
	struct epoll_event events[16];
	int epfd = epoll_create1(0);
	char buf[256];

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
		if (random_u64() % 4 == 0) {
			fd = open("/srv/app/server.js", O_RDONLY, 0);
			if (fd >= 0) {
				read(fd, buf, sizeof(buf));
				close(fd);
			}
		}
	}
}
