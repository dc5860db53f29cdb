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
void exit(int code) __attribute__((noreturn));

size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
long atol(const char *s);
int printf(const char *fmt, ...);
int dprintf(int fd, const char *fmt, ...);
const char *strerror(int err);
unsigned long random_u64(void);
void msleep(long ms);
#endif
