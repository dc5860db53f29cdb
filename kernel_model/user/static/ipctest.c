/*
 * System V IPC against a real libc, statically linked: one behaviour per subcommand, each line
 * what it saw (tests/machine/test_ipc.py; the expected lines are what this binary printed on
 * the reference Linux 6.1).  The calls are the raw syscalls, as the kernel takes them (libcs
 * differ in the IPC_64 flag they add to the ctl commands).  A child that must be asleep in a
 * call before the parent acts is waited for through /proc/PID/stat, with a generous bound.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EIDRM: return "EIDRM";
	case ENOMSG: return "ENOMSG";
	case E2BIG: return "E2BIG";
	case EAGAIN: return "EAGAIN";
	case EINTR: return "EINTR";
	case EFAULT: return "EFAULT";
	case ERANGE: return "ERANGE";
	case EFBIG: return "EFBIG";
	case ENOSYS: return "ENOSYS";
	}
	return "other";
}

/* a call's result as a line: its value, or its errno by name */
static void show(const char *what, long ret)
{
	if (ret < 0)
		printf("%s: %s\n", what, errname(errno));
	else
		printf("%s: %ld\n", what, ret);
}

static void ok(const char *what, long ret)
{
	if (ret < 0)
		printf("%s: %s\n", what, errname(errno));
	else
		printf("%s: ok\n", what);
}

static long msgget_(key_t key, int flg) { return syscall(SYS_msgget, key, flg); }
static long msgsnd_(int id, const void *p, size_t n, int flg) { return syscall(SYS_msgsnd, id, p, n, flg); }
static long msgrcv_(int id, void *p, size_t n, long t, int flg) { return syscall(SYS_msgrcv, id, p, n, t, flg); }
static long msgctl_(int id, int cmd, void *buf) { return syscall(SYS_msgctl, id, cmd, buf); }

struct msg {
	long mtype;
	char mtext[8192];
};

static long send(int id, long type, const char *text, int flg)
{
	struct msg m = { .mtype = type };

	strcpy(m.mtext, text);
	return msgsnd_(id, &m, strlen(text), flg);
}

/* a receive as a line: the type and text, or the errno */
static void recv(const char *what, int id, size_t size, long type, int flg)
{
	struct msg m;
	long n = msgrcv_(id, &m, size, type, flg);

	if (n < 0)
		printf("%s: %s\n", what, errname(errno));
	else
		printf("%s: type=%ld text=%.*s\n", what, m.mtype, (int)n, m.mtext);
}

/* waits until the child sleeps (in the call it was to make): true, or false after 20 s */
static int wait_asleep(pid_t pid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (int i = 0; i < 20000; i++) {
		FILE *f = fopen(path, "r");
		char *p = NULL;

		if (f) {
			p = fgets(buf, sizeof(buf), f);
			fclose(f);
		}
		if (p && (p = strrchr(buf, ')')) && p[2] == 'S')
			return 1;
		usleep(1000);
	}
	return 0;
}

static int child_status(pid_t pid)
{
	int status;

	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* as another user: a child with uid and gid 1000 */
static void as_other_user(int id, key_t key)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct msqid_ds ds = { 0 };

		if (setgid(1000) || setuid(1000))
			_exit(1);
		ok("other user: msgget asking for 0600", msgget_(key, 0600));
		ok("other user: msgget asking for nothing", msgget_(key, 0));
		ok("other user: msgsnd", send(id, 1, "x", IPC_NOWAIT));
		recv("other user: msgrcv", id, 100, 0, IPC_NOWAIT);
		ok("other user: IPC_STAT", msgctl_(id, IPC_STAT, &ds));
		ok("other user: IPC_SET", msgctl_(id, IPC_SET, &ds));
		ok("other user: IPC_RMID", msgctl_(id, IPC_RMID, NULL));
		fflush(stdout);
		_exit(0);
	}
	child_status(pid);
}

static int msg_basics(void)
{
	key_t key = 0x1c0ffee;
	struct msqid_ds ds;
	struct msginfo info;
	struct msg m;
	long id, id2, priv, ret;

	show("msgget of a key not in use", msgget_(key, 0600));
	id = msgget_(key, IPC_CREAT | 0600);
	printf("msgget IPC_CREAT: %s\n", id >= 0 ? "ok" : errname(errno));
	show("msgget IPC_CREAT|IPC_EXCL again", msgget_(key, IPC_CREAT | IPC_EXCL | 0600));
	printf("msgget again: same id %d\n", msgget_(key, 0) == id);
	priv = msgget_(IPC_PRIVATE, 0600);
	printf("msgget IPC_PRIVATE: new id %d\n", priv >= 0 && priv != id);
	printf("msgget IPC_PRIVATE again: new id %d\n", msgget_(IPC_PRIVATE, 0600) != priv);

	ok("msgsnd type 0", send(id, 0, "x", 0));
	ok("msgsnd 8193 bytes", msgsnd_(id, &m, 8193, 0));
	ok("msgsnd id -1", send(-1, 1, "x", 0));
	ok("msgsnd no such id", send(id + 1000, 1, "x", 0));
	ok("msgsnd bad address", msgsnd_(id, (void *)8, 4, 0));
	recv("msgrcv id -1", -1, 100, 0, 0);
	recv("msgrcv empty IPC_NOWAIT", id, 100, 0, IPC_NOWAIT);
	recv("msgrcv MSG_COPY without IPC_NOWAIT", id, 100, 0, MSG_COPY);

	ok("msgsnd type 3", send(id, 3, "three", 0));
	ok("msgsnd type 1", send(id, 1, "one", 0));
	ok("msgsnd type 2", send(id, 2, "two", 0));
	ok("msgsnd type 5", send(id, 5, "five", 0));
	ok("msgsnd type 1 again", send(id, 1, "uno", 0));
	memset(&ds, 0, sizeof(ds));
	ret = msgctl_(id, IPC_STAT, &ds);
	printf("IPC_STAT: ret=%ld qnum=%lu cbytes=%lu qbytes=%lu mode=%o key=%#x lspid=%d lrpid=%d stime>0=%d\n",
	       ret, (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes, (unsigned long)ds.msg_qbytes,
	       ds.msg_perm.mode, ds.msg_perm.__key, ds.msg_lspid == getpid(), ds.msg_lrpid, ds.msg_stime > 0);
	recv("msgrcv MSG_COPY 1", id, 100, 1, MSG_COPY | IPC_NOWAIT);
	recv("msgrcv MSG_COPY 9", id, 100, 9, MSG_COPY | IPC_NOWAIT);
	recv("msgrcv type -2", id, 100, -2, 0);
	recv("msgrcv type 5", id, 100, 5, 0);
	recv("msgrcv type 3 MSG_EXCEPT", id, 100, 3, MSG_EXCEPT);
	recv("msgrcv type 4 IPC_NOWAIT", id, 100, 4, IPC_NOWAIT);
	recv("msgrcv type 0", id, 100, 0, 0);
	recv("msgrcv type -100", id, 100, -100, 0);
	ok("msgsnd 11 bytes", send(id, 7, "hello world", 0));
	recv("msgrcv into 5 bytes", id, 5, 0, 0);
	recv("msgrcv into 5 bytes MSG_NOERROR", id, 5, 0, MSG_NOERROR);
	memset(&ds, 0, sizeof(ds));
	msgctl_(id, IPC_STAT, &ds);
	printf("IPC_STAT: qnum=%lu cbytes=%lu lrpid=%d rtime>0=%d\n", (unsigned long)ds.msg_qnum,
	       (unsigned long)ds.__msg_cbytes, ds.msg_lrpid == getpid(), ds.msg_rtime > 0);

	ok("msgsnd for MSG_INFO", send(id, 1, "abcd", 0));
	memset(&info, 0, sizeof(info));
	ret = msgctl_(0, IPC_INFO, &info);
	printf("IPC_INFO: ret>=0=%d msgpool=%d msgmap=%d msgmax=%d msgmnb=%d msgmni=%d msgssz=%d msgtql=%d msgseg=%u\n",
	       ret >= 0, info.msgpool, info.msgmap, info.msgmax, info.msgmnb, info.msgmni, info.msgssz,
	       info.msgtql, info.msgseg);
	memset(&info, 0, sizeof(info));
	ret = msgctl_(0, MSG_INFO, &info);
	printf("MSG_INFO: ret>=0=%d queues=%d messages=%d bytes=%d\n", ret >= 0, info.msgpool, info.msgmap,
	       info.msgtql);
	ret = msgctl_(id & 0x7fff, MSG_STAT, &ds);
	printf("MSG_STAT of its index: its id %d\n", ret == id);
	ok("msgctl bad command", msgctl_(id, 99, &ds));
	ok("msgctl IPC_STAT bad address", msgctl_(id, IPC_STAT, (void *)8));

	as_other_user(id, key);
	msgctl_(id, IPC_STAT, &ds);
	ds.msg_perm.mode = 0666;
	ds.msg_qbytes = 100;
	ok("IPC_SET mode 0666 qbytes 100", msgctl_(id, IPC_SET, &ds));
	memset(&ds, 0, sizeof(ds));
	msgctl_(id, IPC_STAT, &ds);
	printf("IPC_STAT: mode=%o qbytes=%lu ctime>0=%d\n", ds.msg_perm.mode, (unsigned long)ds.msg_qbytes,
	       ds.msg_ctime > 0);
	m.mtype = 1;
	ok("msgsnd past qbytes IPC_NOWAIT", msgsnd_(id, &m, 100, IPC_NOWAIT));
	as_other_user(id, key);
	ok("IPC_RMID", msgctl_(id, IPC_RMID, NULL));
	ok("msgsnd to the removed queue", send(id, 1, "x", 0));
	id2 = msgget_(key, IPC_CREAT | 0600);
	printf("msgget of the key again: a new id %d, the same index %d\n", id2 != id,
	       (id2 & 0x7fff) == (id & 0x7fff));
	msgctl_(id2, IPC_RMID, NULL);
	msgctl_(priv, IPC_RMID, NULL);
	return 0;
}

static void on_usr1(int sig)
{
}

/* Sleeping calls: a receiver woken by a send, a sender by a receive, sleepers by IPC_RMID
 * (EIDRM) and by a signal with a handler (EINTR).  The parent prints what it did once the child
 * has exited, so that the lines come in one order. */
static int msg_blocking(void)
{
	int id = msgget_(IPC_PRIVATE, 0600), fds[2];
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct msg m = { .mtype = 1 };
	long r1, r2, r3, n;
	pid_t pid;
	char c;

	pid = fork();
	if (pid == 0) {
		recv("child: msgrcv woken by a send", id, 100, 2, 0);
		_exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	r1 = send(id, 1, "not this one", 0);
	r2 = send(id, 2, "for the child", 0);
	child_status(pid);
	ok("msgsnd type 1", r1);
	ok("msgsnd type 2", r2);
	recv("msgrcv the type 1 left", id, 100, 0, 0);

	ok("msgsnd 8192 bytes", msgsnd_(id, &m, 8192, 0));
	ok("msgsnd 8192 bytes again", msgsnd_(id, &m, 8192, 0));
	ok("msgsnd to a full queue IPC_NOWAIT", msgsnd_(id, &m, 1, IPC_NOWAIT));
	pid = fork();
	if (pid == 0) {
		ok("child: msgsnd woken by a receive", send(id, 3, "in", 0));
		_exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	n = msgrcv_(id, &m, sizeof(m.mtext), 1, 0);
	child_status(pid);
	printf("msgrcv: %ld bytes\n", n);
	recv("msgrcv the child's", id, 100, 3, 0);

	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid == 0) {
		sigaction(SIGUSR1, &sa, NULL);
		recv("child: msgrcv with a signal", id, 100, 9, 0);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		recv("child: msgrcv with IPC_RMID", id, 100, 9, 0);
		_exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	kill(pid, SIGUSR1);
	if (read(fds[0], &c, 1) != 1)
		return 1;
	printf("child asleep again: %d\n", wait_asleep(pid));
	r3 = msgctl_(id, IPC_RMID, NULL);
	child_status(pid);
	ok("IPC_RMID", r3);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "msg"))
		return msg_basics();
	if (argc == 2 && !strcmp(argv[1], "msgblock"))
		return msg_blocking();
	fprintf(stderr, "usage: ipctest msg|msgblock\n");
	return 2;
}
