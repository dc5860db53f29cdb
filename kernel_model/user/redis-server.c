/* Background redis-server: listens on 127.0.0.1:6379 and runs an event loop on epoll_wait
 * with the hz=10 timeout; each round it takes the connections that came (accept4, nonblocking)
 * and answers its clients' commands (PING, or any: +PONG / -ERR), a client's EOF closing it. */
#include "libc.h"

#define MAX_CLIENTS 16

static void serve(int *clients)
{
	char buf[256];
	int i;

	for (i = 0; i < MAX_CLIENTS; i++) {
		long n;

		if (clients[i] < 0)
			continue;
		n = read(clients[i], buf, sizeof(buf));
		if (n == -11)	/* EAGAIN: nothing yet */
			continue;
		if (n <= 0) {
			close(clients[i]);
			clients[i] = -1;
			continue;
		}
		if (n >= 4 && !strncmp(buf, "PING", 4))
			write(clients[i], "+PONG\r\n", 7);
		else
			write(clients[i], "-ERR unknown command\r\n", 22);
	}
}

int main(void)
{
	struct epoll_event events[64];
	int epfd = epoll_create1(0), lfd = tcp_listen(6379, 511), clients[MAX_CLIENTS], i;
	long loops = 0;

	if (epfd < 0)
		return 1;
	for (i = 0; i < MAX_CLIENTS; i++)
		clients[i] = -1;
	for (;;) {
		int fd;

		epoll_wait(epfd, events, 64, 100);
		while (lfd >= 0 && (fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
			for (i = 0; i < MAX_CLIENTS && clients[i] >= 0; i++)
				;
			if (i == MAX_CLIENTS)
				close(fd);
			else
				clients[i] = fd;
		}
		serve(clients);
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
