/* A tiny libc for the emulated user programs: syscall wrappers, strings, printf. */
#ifndef _LIBC_H
#define _LIBC_H
typedef unsigned long size_t;
typedef long ssize_t;
#define NULL ((void *)0)
#define O_RDONLY 0
#define O_WRONLY 1
#define O_CREAT 0100
#define O_TRUNC 01000
struct timespec { long tv_sec; long tv_nsec; };
struct epoll_event { unsigned int events; unsigned long data; } __attribute__((packed));

long syscall6(long nr, long a, long b, long c, long d, long e, long f);
ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
int open(const char *path, int flags, int mode);
int close(int fd);
int getpid(void);
unsigned int getuid(void);
int fork(void);
int execve(const char *path, char *const argv[], char *const envp[]);
int wait4(int pid, int *status, int options, void *ru);
int nanosleep(const struct timespec *req, struct timespec *rem);
int epoll_create1(int flags);
int epoll_wait(int epfd, struct epoll_event *ev, int maxevents, int timeout);
long getrandom(void *buf, size_t len, unsigned int flags);

/* sockets: IPv4 on the loopback */
#define AF_INET 2
#define SOCK_STREAM 1
#define SOCK_NONBLOCK 04000
#define SOL_SOCKET 1
#define SO_REUSEADDR 2
#define INADDR_LOOPBACK_BE 0x0100007fu	/* 127.0.0.1, in network order */
struct sockaddr_in { unsigned short sin_family, sin_port; unsigned int sin_addr; char sin_zero[8]; };
static inline unsigned short htons(unsigned short x) { return (unsigned short)(x << 8 | x >> 8); }
int socket(int domain, int type, int protocol);
int bind(int fd, const struct sockaddr_in *addr, int len);
int listen(int fd, int backlog);
int accept4(int fd, struct sockaddr_in *addr, int *len, int flags);
int connect(int fd, const struct sockaddr_in *addr, int len);
int setsockopt(int fd, int level, int name, const void *val, int len);
/* a listening socket on 127.0.0.1:port (SO_REUSEADDR, nonblocking accept), or -errno */
int tcp_listen(unsigned short port, int backlog);
/* a socket connected to 127.0.0.1:port, or -errno */
int tcp_connect(unsigned short port);
void exit(int code) __attribute__((noreturn));

size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
void *memset(void *d, int c, size_t n);
void *memchr(const void *s, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
long atol(const char *s);
int printf(const char *fmt, ...);
int dprintf(int fd, const char *fmt, ...);
const char *strerror(int err);
unsigned long random_u64(void);
void msleep(long ms);
#endif
