/*
 * How the static test programs print a call's result (ipctest.c, mqtest.c, shmtest.c,
 * captest.c): a line "what: value", "what: ok" or "what: ERRNO" with the errno by its name,
 * so that one program's lines on the reference 6.1 and on the model can be compared as text.
 */
#ifndef _REPORT_H
#define _REPORT_H
#include <errno.h>
#include <stdio.h>

static inline const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case ENOMSG: return "ENOMSG";
	case EIDRM: return "EIDRM";
	case ENOTSOCK: return "ENOTSOCK";
	case EMSGSIZE: return "EMSGSIZE";
	case ETIMEDOUT: return "ETIMEDOUT";
	}
	return "other";
}

/* a call's result: its value, or its errno by name */
static inline void show(const char *what, long ret)
{
	if (ret < 0)
		printf("%s: %s\n", what, errname(errno));
	else
		printf("%s: %ld\n", what, ret);
}

/* a call's success as "ok", or its errno by name */
static inline void ok(const char *what, long ret)
{
	if (ret < 0)
		printf("%s: %s\n", what, errname(errno));
	else
		printf("%s: ok\n", what);
}
#endif
