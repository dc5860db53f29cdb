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

#include "children.h"
#include "report.h"

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

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

static long semget_(key_t key, int n, int flg) { return syscall(SYS_semget, key, n, flg); }
static long semctl_(int id, int num, int cmd, unsigned long arg) { return syscall(SYS_semctl, id, num, cmd, arg); }

/* one operation (IPC_NOWAIT and SEM_UNDO as flags) */
static long semop1(int id, int num, int op, int flg)
{
	struct sembuf sb = { .sem_num = num, .sem_op = op, .sem_flg = flg };

	return syscall(SYS_semop, id, &sb, 1);
}

static void show_all(const char *what, int id, int n)
{
	unsigned short v[8];

	if (semctl_(id, 0, GETALL, (unsigned long)v) < 0) {
		printf("%s: %s\n", what, errname(errno));
		return;
	}
	printf("%s:", what);
	for (int i = 0; i < n; i++)
		printf(" %d", v[i]);
	printf("\n");
}

static void sem_as_other_user(int id, key_t key)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct semid_ds ds;

		if (setgid(1000) || setuid(1000))
			_exit(1);
		ok("other user: semget asking for 0600", semget_(key, 0, 0600));
		ok("other user: semget asking for nothing", semget_(key, 0, 0));
		ok("other user: semop", semop1(id, 0, 1, 0));
		ok("other user: wait for zero", semop1(id, 0, 0, IPC_NOWAIT));
		ok("other user: GETVAL", semctl_(id, 0, GETVAL, 0));
		ok("other user: SETVAL", semctl_(id, 0, SETVAL, 1));
		ok("other user: IPC_STAT", semctl_(id, 0, IPC_STAT, (unsigned long)&ds));
		ok("other user: IPC_RMID", semctl_(id, 0, IPC_RMID, 0));
		_exit(0);
	}
	child_status(pid);
}

static int sem_basics(void)
{
	key_t key = 0x5e3a;
	struct sembuf ops[501];
	struct semid_ds ds;
	struct seminfo info;
	struct timespec ts;
	unsigned short vals[3] = { 1, 2, 3 };
	long id, ret;
	pid_t pid;

	show("semget of a key not in use", semget_(key, 3, 0600));
	show("semget of 0 semaphores", semget_(IPC_PRIVATE, 0, 0600));
	show("semget of -1 semaphores", semget_(key, -1, IPC_CREAT | 0600));
	show("semget of 32001 semaphores", semget_(key, 32001, IPC_CREAT | 0600));
	id = semget_(key, 3, IPC_CREAT | 0600);
	printf("semget IPC_CREAT of 3: %s\n", id >= 0 ? "ok" : errname(errno));
	show("semget of 4 of it", semget_(key, 4, 0));
	printf("semget of 2 of it: same id %d\n", semget_(key, 2, 0) == id);
	printf("semget of 0 of it: same id %d\n", semget_(key, 0, 0) == id);
	show("semget IPC_CREAT|IPC_EXCL again", semget_(key, 3, IPC_CREAT | IPC_EXCL | 0600));

	memset(ops, 0, sizeof(ops));
	ok("semop of 0 operations", syscall(SYS_semop, id, ops, 0));
	ok("semop of 501 operations", syscall(SYS_semop, id, ops, 501));
	ok("semop of semaphore 3", semop1(id, 3, 1, 0));
	ok("semop id -1", semop1(-1, 0, 1, 0));
	ok("semop no such id", semop1(id + 1000, 0, 1, 0));
	ok("semop bad address", syscall(SYS_semop, id, (void *)8, 1));
	ok("semop -1 of 0 IPC_NOWAIT", semop1(id, 0, -1, IPC_NOWAIT));
	ok("semop wait for zero of 0", semop1(id, 0, 0, 0));
	ok("semop +32767", semop1(id, 0, 32767, 0));
	ok("semop +1 past SEMVMX", semop1(id, 0, 1, 0));
	ok("SETVAL 5", semctl_(id, 0, SETVAL, 5));
	show("GETVAL", semctl_(id, 0, GETVAL, 0));
	ok("SETVAL -1", semctl_(id, 0, SETVAL, -1));
	ok("SETVAL 32768", semctl_(id, 0, SETVAL, 32768));
	ok("SETVAL of semaphore 3", semctl_(id, 3, SETVAL, 1));
	ok("GETVAL of semaphore -1", semctl_(id, -1, GETVAL, 0));
	ok("SETALL 1 2 3", semctl_(id, 0, SETALL, (unsigned long)vals));
	show_all("GETALL", id, 3);
	ops[0] = (struct sembuf){ .sem_num = 0, .sem_op = -1 };
	ops[1] = (struct sembuf){ .sem_num = 1, .sem_op = 1 };
	ok("semop 0:-1 1:+1", syscall(SYS_semop, id, ops, 2));
	show_all("GETALL", id, 3);
	ops[0] = (struct sembuf){ .sem_num = 2, .sem_op = -1 };
	ops[1] = (struct sembuf){ .sem_num = 1, .sem_op = -4, .sem_flg = IPC_NOWAIT };
	ok("semop 2:-1 1:-4 IPC_NOWAIT", syscall(SYS_semop, id, ops, 2));
	show_all("GETALL (nothing done)", id, 3);
	ops[0] = (struct sembuf){ .sem_num = 2, .sem_op = 1 };
	ops[1] = (struct sembuf){ .sem_num = 2, .sem_op = -4 };
	ok("semop 2:+1 2:-4 (the same semaphore)", syscall(SYS_semop, id, ops, 2));
	show_all("GETALL", id, 3);
	printf("GETPID: ours %d\n", semctl_(id, 2, GETPID, 0) == getpid());
	show("GETNCNT", semctl_(id, 0, GETNCNT, 0));
	show("GETZCNT", semctl_(id, 0, GETZCNT, 0));
	ts = (struct timespec){ 0, 10000000 };
	ok("semtimedop -1 of 0 for 10 ms", syscall(SYS_semtimedop, id, &(struct sembuf){ 0, -1, 0 }, 1, &ts));
	ts = (struct timespec){ 0, 1000000000 };
	ok("semtimedop tv_nsec 1e9", syscall(SYS_semtimedop, id, &(struct sembuf){ 0, -1, 0 }, 1, &ts));

	memset(&ds, 0, sizeof(ds));
	ret = semctl_(id, 0, IPC_STAT, (unsigned long)&ds);
	printf("IPC_STAT: ret=%ld nsems=%lu mode=%o key=%#x otime>0=%d ctime>0=%d\n", ret,
	       (unsigned long)ds.sem_nsems, ds.sem_perm.mode, ds.sem_perm.__key, ds.sem_otime > 0, ds.sem_ctime > 0);
	ret = semctl_(0, 0, IPC_INFO, (unsigned long)&info);
	printf("IPC_INFO: ret>=0=%d semmap=%d semmni=%d semmns=%d semmnu=%d semmsl=%d semopm=%d semume=%d semusz=%d semvmx=%d semaem=%d\n",
	       ret >= 0, info.semmap, info.semmni, info.semmns, info.semmnu, info.semmsl, info.semopm, info.semume,
	       info.semusz, info.semvmx, info.semaem);
	ret = semctl_(0, 0, SEM_INFO, (unsigned long)&info);
	printf("SEM_INFO: ret>=0=%d arrays=%d semaphores=%d\n", ret >= 0, info.semusz, info.semaem);
	printf("SEM_STAT of its index: its id %d\n", semctl_(id & 0x7fff, 0, SEM_STAT, (unsigned long)&ds) == id);
	ok("semctl bad command", semctl_(id, 0, 99, 0));

	/* SEM_UNDO: a child's adjustments undone when it exits */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		ok("child: semop 0:+2 SEM_UNDO", semop1(id, 0, 2, SEM_UNDO));
		ok("child: semop 1:-1 SEM_UNDO", semop1(id, 1, -1, SEM_UNDO));
		show_all("child: GETALL", id, 3);
		_exit(0);
	}
	child_status(pid);
	show_all("GETALL after the child's exit", id, 3);
	ok("semop 0:+3 SEM_UNDO", semop1(id, 0, 3, SEM_UNDO));
	ok("SETVAL 0 1 (clears its adjustment)", semctl_(id, 0, SETVAL, 1));
	ok("semop 1:+1 SEM_UNDO", semop1(id, 1, 1, SEM_UNDO));
	ok("semop 0:-32768 SEM_UNDO", semop1(id, 0, -32768, SEM_UNDO | IPC_NOWAIT));
	ok("unshare CLONE_SYSVSEM (applies them)", syscall(SYS_unshare, 0x00040000));
	show_all("GETALL", id, 3);

	sem_as_other_user(id, key);
	semctl_(id, 0, IPC_STAT, (unsigned long)&ds);
	ds.sem_perm.mode = 0644;
	ok("IPC_SET mode 0644", semctl_(id, 0, IPC_SET, (unsigned long)&ds));
	sem_as_other_user(id, key);
	ok("IPC_RMID", semctl_(id, 0, IPC_RMID, 0));
	ok("semop on the removed array", semop1(id, 0, 1, 0));
	ok("GETVAL on the removed array", semctl_(id, 0, GETVAL, 0));
	return 0;
}

/* Sleeping semops: woken by a semop, by SETVAL, by IPC_RMID (EIDRM), by a signal (EINTR, even
 * with SA_RESTART: semop is never restarted) */
static int sem_blocking(void)
{
	int id = semget_(IPC_PRIVATE, 2, 0600), fds[2];
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	long r1, r2, r3, r4;
	pid_t pid;
	char c;

	pid = fork();
	if (pid == 0) {
		ok("child: semop 0:-2 woken by semops", semop1(id, 0, -2, 0));
		_exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	r1 = semctl_(id, 0, GETNCNT, 0);
	r2 = semop1(id, 0, 1, 0);
	r3 = semctl_(id, 0, GETNCNT, 0);
	r4 = semop1(id, 0, 1, 0);
	child_status(pid);
	show("GETNCNT", r1);
	ok("semop 0:+1", r2);
	show("GETNCNT still", r3);
	ok("semop 0:+1", r4);
	show_all("GETALL", id, 2);

	ok("SETVAL 1 1", semctl_(id, 1, SETVAL, 1));
	pid = fork();
	if (pid == 0) {
		ok("child: wait for zero woken by SETVAL", semop1(id, 1, 0, 0));
		_exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	r1 = semctl_(id, 1, GETZCNT, 0);
	r2 = semctl_(id, 1, SETVAL, 0);
	child_status(pid);
	show("GETZCNT", r1);
	ok("SETVAL 1 0", r2);

	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid == 0) {
		sigaction(SIGUSR1, &sa, NULL);
		ok("child: semop with a signal", semop1(id, 0, -1, 0));
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		ok("child: semop with IPC_RMID", semop1(id, 0, -1, 0));
		_exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	kill(pid, SIGUSR1);
	if (read(fds[0], &c, 1) != 1)
		return 1;
	printf("child asleep again: %d\n", wait_asleep(pid));
	r1 = semctl_(id, 0, IPC_RMID, 0);
	child_status(pid);
	ok("IPC_RMID", r1);
	return 0;
}

/* /proc/sysvipc/msg and sem: the header, and each line with the pids and times as flags */
static int sysvipc_proc(void)
{
	int mid = msgget_(0x7777, IPC_CREAT | 0640), sid = semget_(0x8888, 4, IPC_CREAT | 0604);
	char line[512];
	FILE *f;

	send(mid, 1, "twelve bytes", 0);
	semop1(sid, 2, 1, 0);
	f = fopen("/proc/sysvipc/msg", "r");
	if (!f)
		return 1;
	if (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	while (fgets(line, sizeof(line), f)) {
		long key, id, cbytes, qnum, lspid, lrpid, uid, gid, cuid, cgid, st, rt, ct;
		unsigned int mode;

		if (sscanf(line, "%ld %ld %o %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", &key, &id, &mode, &cbytes,
			   &qnum, &lspid, &lrpid, &uid, &gid, &cuid, &cgid, &st, &rt, &ct) == 14 && id == mid)
			printf("msg: key=%ld ours=%d mode=%o cbytes=%ld qnum=%ld lspid ours=%d lrpid=%ld ids=%ld %ld %ld %ld stime>0=%d rtime=%ld ctime>0=%d width=%zu\n",
			       key, id == mid, mode, cbytes, qnum, lspid == getpid(), lrpid, uid, gid, cuid, cgid, st > 0,
			       rt, ct > 0, strlen(line));
	}
	fclose(f);
	f = fopen("/proc/sysvipc/sem", "r");
	if (!f)
		return 1;
	if (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	while (fgets(line, sizeof(line), f)) {
		long key, id, nsems, uid, gid, cuid, cgid, ot, ct;
		unsigned int mode;

		if (sscanf(line, "%ld %ld %o %ld %ld %ld %ld %ld %ld %ld", &key, &id, &mode, &nsems, &uid, &gid, &cuid,
			   &cgid, &ot, &ct) == 10 && id == sid)
			printf("sem: key=%ld ours=%d mode=%o nsems=%ld ids=%ld %ld %ld %ld otime>0=%d ctime>0=%d width=%zu\n",
			       key, id == sid, mode, nsems, uid, gid, cuid, cgid, ot > 0, ct > 0, strlen(line));
	}
	fclose(f);
	msgctl_(mid, IPC_RMID, NULL);
	semctl_(sid, 0, IPC_RMID, 0);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "msg"))
		return msg_basics();
	if (argc == 2 && !strcmp(argv[1], "msgblock"))
		return msg_blocking();
	if (argc == 2 && !strcmp(argv[1], "sem"))
		return sem_basics();
	if (argc == 2 && !strcmp(argv[1], "semblock"))
		return sem_blocking();
	if (argc == 2 && !strcmp(argv[1], "proc"))
		return sysvipc_proc();
	fprintf(stderr, "usage: ipctest msg|msgblock|sem|semblock|proc\n");
	return 2;
}
