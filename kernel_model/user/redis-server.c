/* Background redis-server: an event loop on epoll_wait with the hz=10 timeout. */
#include "libc.h"

int main(void)
{
	struct epoll_event events[64];
	int epfd = epoll_create1(0);
	long loops = 0;

	if (epfd < 0)
		return 1;
	for (;;) {
		epoll_wait(epfd, events, 64, 100);
		if (++loops % 10 == 0) {	/* serverCron work */
			int fd = open("/proc/loadavg", O_RDONLY, 0);
			char buf[128];
			if (fd >= 0) {
				read(fd, buf, sizeof(buf));
				close(fd);
			}
			getpid();
		}
	}
}
