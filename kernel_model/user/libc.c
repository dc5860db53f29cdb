#include "libc.h"
#include <stdarg.h>

long syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 asm("r10") = d;
	register long r8 asm("r8") = e;
	register long r9 asm("r9") = f;

	asm volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
		     : "rcx", "r11", "memory");
	return ret;
}

ssize_t read(int fd, void *buf, size_t n) { return syscall6(0, fd, (long)buf, n, 0, 0, 0); }
ssize_t write(int fd, const void *buf, size_t n) { return syscall6(1, fd, (long)buf, n, 0, 0, 0); }
int open(const char *path, int flags, int mode) { return syscall6(2, (long)path, flags, mode, 0, 0, 0); }
int close(int fd) { return syscall6(3, fd, 0, 0, 0, 0, 0); }
int nanosleep(const struct timespec *req, struct timespec *rem) { return syscall6(35, (long)req, (long)rem, 0, 0, 0, 0); }
int getpid(void) { return syscall6(39, 0, 0, 0, 0, 0, 0); }
int fork(void) { return syscall6(56, 17 /* SIGCHLD */, 0, 0, 0, 0, 0); }
int execve(const char *path, char *const argv[], char *const envp[]) { return syscall6(59, (long)path, (long)argv, (long)envp, 0, 0, 0); }
int wait4(int pid, int *status, int options, void *ru) { return syscall6(61, pid, (long)status, options, (long)ru, 0, 0); }
unsigned int getuid(void) { return syscall6(102, 0, 0, 0, 0, 0, 0); }
int epoll_create1(int flags) { return syscall6(291, flags, 0, 0, 0, 0, 0); }
int epoll_wait(int epfd, struct epoll_event *ev, int maxevents, int timeout) { return syscall6(232, epfd, (long)ev, maxevents, timeout, 0, 0); }
long getrandom(void *buf, size_t len, unsigned int flags) { return syscall6(318, (long)buf, len, flags, 0, 0, 0); }
int socket(int domain, int type, int protocol) { return syscall6(41, domain, type, protocol, 0, 0, 0); }
int connect(int fd, const struct sockaddr_in *addr, int len) { return syscall6(42, fd, (long)addr, len, 0, 0, 0); }
int bind(int fd, const struct sockaddr_in *addr, int len) { return syscall6(49, fd, (long)addr, len, 0, 0, 0); }
int listen(int fd, int backlog) { return syscall6(50, fd, backlog, 0, 0, 0, 0); }
int setsockopt(int fd, int level, int name, const void *val, int len) { return syscall6(54, fd, level, name, (long)val, len, 0); }
int accept4(int fd, struct sockaddr_in *addr, int *len, int flags) { return syscall6(288, fd, (long)addr, (long)len, flags, 0, 0); }
void exit(int code) { for (;;) syscall6(231, code, 0, 0, 0, 0, 0); }

size_t strlen(const char *s) { size_t n = 0; while (s[n]) n++; return n; }
int strcmp(const char *a, const char *b) { while (*a && *a == *b) a++, b++; return (unsigned char)*a - (unsigned char)*b; }
int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++)
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	return 0;
}
void *memset(void *d, int c, size_t n) { char *p = d; while (n--) *p++ = c; return d; }
void *memchr(const void *s, int c, size_t n)
{
	const char *p = s;

	for (; n; n--, p++)
		if (*p == (char)c)
			return (void *)p;
	return NULL;
}
void *memcpy(void *d, const void *s, size_t n) { char *p = d; const char *q = s; while (n--) *p++ = *q++; return d; }
long atol(const char *s)
{
	long v = 0, neg = 0;
	if (*s == '-')
		neg = 1, s++;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return neg ? -v : v;
}

static const char *const errnames[] = {
	[1] = "Operation not permitted", [2] = "No such file or directory", [6] = "No such device or address",
	[9] = "Bad file descriptor", [17] = "File exists", [20] = "Not a directory", [28] = "No space left on device",
	[39] = "Directory not empty", [40] = "Too many levels of symbolic links",
	[12] = "Cannot allocate memory", [13] = "Permission denied", [14] = "Bad address",
	[21] = "Is a directory", [22] = "Invalid argument", [24] = "Too many open files",
	[30] = "Read-only file system", [36] = "File name too long", [38] = "Function not implemented",
};
const char *strerror(int err)
{
	if (err > 0 && err < (int)(sizeof(errnames) / sizeof(errnames[0])) && errnames[err])
		return errnames[err];
	return "Unknown error";
}

static int vdprintf(int fd, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n = 0;

	for (; *fmt && n < sizeof(buf) - 24; fmt++) {
		if (*fmt != '%') {
			buf[n++] = *fmt;
			continue;
		}
		fmt++;
		int lng = 0;
		while (*fmt == 'l')
			lng = 1, fmt++;
		if (*fmt == 's') {
			const char *s = va_arg(ap, const char *);
			while (*s && n < sizeof(buf) - 1)
				buf[n++] = *s++;
		} else if (*fmt == 'd' || *fmt == 'u') {
			long v = lng ? va_arg(ap, long) : (*fmt == 'd' ? va_arg(ap, int) : (long)va_arg(ap, unsigned int));
			char tmp[24];
			int k = 0;
			unsigned long u = v < 0 && *fmt == 'd' ? -v : v;
			if (v < 0 && *fmt == 'd')
				buf[n++] = '-';
			do tmp[k++] = '0' + u % 10; while (u /= 10);
			while (k)
				buf[n++] = tmp[--k];
		} else if (*fmt == 'c') {
			buf[n++] = (char)va_arg(ap, int);
		} else {
			buf[n++] = *fmt;
		}
	}
	return write(fd, buf, n);
}

int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vdprintf(1, fmt, ap);
	va_end(ap);
	return r;
}

int dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vdprintf(fd, fmt, ap);
	va_end(ap);
	return r;
}

unsigned long random_u64(void)
{
	unsigned long v = 0;
	getrandom(&v, sizeof(v), 0);
	return v;
}

void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int tcp_listen(unsigned short port, int backlog)
{
	struct sockaddr_in sin = { AF_INET, htons(port), INADDR_LOOPBACK_BE, { 0 } };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), err;

	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	err = bind(fd, &sin, sizeof(sin));
	if (!err)
		err = listen(fd, backlog);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int tcp_connect(unsigned short port)
{
	struct sockaddr_in sin = { AF_INET, htons(port), INADDR_LOOPBACK_BE, { 0 } };
	int fd = socket(AF_INET, SOCK_STREAM, 0), err;

	if (fd < 0)
		return fd;
	err = connect(fd, &sin, sizeof(sin));
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
