/*
 * Capability sets against a real libc, statically linked (tests/machine/test_caps.py; the
 * expected lines are what this binary printed on the reference Linux 6.1, run as root).  Each
 * case runs in a child of its own, so what it changes goes with it; a line is a call and its
 * result (a value or an errno's name) or the sets: capget's and /proc/self/status' Cap lines.
 * `captest show` prints the sets and exits: the cases exec it to see what exec gave.
 * The calls are the raw syscalls (libcs' set*id wrappers differ around threads).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

#define V1 0x19980330
#define V3 0x20080522

struct hdr { unsigned int version; int pid; };
struct data { unsigned int effective, permitted, inheritable; };

static long capget(struct hdr *h, struct data *d) { return syscall(SYS_capget, h, d); }
static long capset(struct hdr *h, struct data *d) { return syscall(SYS_capset, h, d); }
static long pr(long opt, long a, long b, long c, long d) { return syscall(SYS_prctl, opt, a, b, c, d); }

/* the caller's sets by capget (v3), then its status file's Cap lines */
static void sets(const char *when)
{
	struct hdr h = { V3, 0 };
	struct data d[2];
	char line[256];
	FILE *f;

	if (capget(&h, d) < 0) {
		printf("%s: capget %s\n", when, errname(errno));
		return;
	}
	printf("%s: eff %08x%08x prm %08x%08x inh %08x%08x\n", when, d[1].effective, d[0].effective,
	       d[1].permitted, d[0].permitted, d[1].inheritable, d[0].inheritable);
	f = fopen("/proc/self/status", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Cap", 3) == 0)
			printf("  %s", line);
	fclose(f);
}

/* set the sets (v3, the caller's own); the result as a line */
static void set3(const char *what, unsigned long long eff, unsigned long long prm, unsigned long long inh)
{
	struct hdr h = { V3, 0 };
	struct data d[2] = { { eff, prm, inh }, { eff >> 32, prm >> 32, inh >> 32 } };

	show(what, capset(&h, d));
}

/* the current sets, 64 bits each */
static void get3(unsigned long long *eff, unsigned long long *prm, unsigned long long *inh)
{
	struct hdr h = { V3, 0 };
	struct data d[2];

	capget(&h, d);
	*eff = d[0].effective | (unsigned long long)d[1].effective << 32;
	*prm = d[0].permitted | (unsigned long long)d[1].permitted << 32;
	*inh = d[0].inheritable | (unsigned long long)d[1].inheritable << 32;
}

/* exec this program's `show` */
static void exec_show(const char *when)
{
	char *argv[] = { "captest", "show", (char *)when, NULL };

	fflush(stdout);
	execv("/proc/self/exe", argv);
	printf("exec: %s\n", errname(errno));
	exit(1);
}

#define BIT(c) (1ULL << (c))
#define CAP_SETPCAP 8
#define CAP_NET_RAW 13
#define CAP_SYS_MODULE 16
#define CAP_SYS_ADMIN 21
#define CAP_CHOWN 0
#define ALL ((1ULL << 41) - 1)

static void c_get(void)
{
	struct hdr h = { V1, 0 };
	struct data d[2] = { { 0 } };

	sets("start");
	show("capget v1", capget(&h, d));
	printf("  v1 words: eff %08x next %08x\n", d[0].effective, d[1].effective);
	h.version = 0x12345678;
	show("capget bad version", capget(&h, d));
	printf("  version now %08x\n", h.version);
	h.version = 0x12345678;
	show("capget bad version, no data", capget(&h, NULL));
	h.version = V3;
	h.pid = -1;
	show("capget pid -1", capget(&h, d));
	h.pid = getpid();
	show("capget own pid", capget(&h, d));
	show("capget bad data", capget(&h, (struct data *)8));
}

static void c_set(void)
{
	unsigned long long eff, prm, inh;
	struct hdr h = { V3, getppid() };
	struct data d[2] = { { 0 } };

	show("capset another pid", capset(&h, d));
	h.pid = 0;
	h.version = 1;
	show("capset bad version", capset(&h, d));
	h.version = V3;
	show("capset bad data", capset(&h, (struct data *)8));
	get3(&eff, &prm, &inh);
	set3("capset effective past permitted", ALL, ALL & ~BIT(CAP_SYS_ADMIN), 0);
	set3("capset without SYS_ADMIN effective", ALL & ~BIT(CAP_SYS_ADMIN), ALL, 0);
	sets("now");
	set3("capset bits past the last cap", ~0ULL & ~BIT(CAP_SYS_ADMIN), ~0ULL, 0);
	sets("now");
	set3("capset drop SYS_ADMIN permitted", ALL & ~BIT(CAP_SYS_ADMIN), ALL & ~BIT(CAP_SYS_ADMIN), 0);
	set3("capset SYS_ADMIN back", ALL, ALL, 0);
	set3("capset inheritable NET_RAW", ALL & ~BIT(CAP_SYS_ADMIN), ALL & ~BIT(CAP_SYS_ADMIN), BIT(CAP_NET_RAW));
	set3("capset inheritable SYS_ADMIN (not permitted, SETPCAP)", 0, ALL & ~BIT(CAP_SYS_ADMIN),
	     BIT(CAP_NET_RAW) | BIT(CAP_SYS_ADMIN));
	sets("now");
	set3("capset without SETPCAP", 0, BIT(CAP_NET_RAW), BIT(CAP_NET_RAW) | BIT(CAP_SYS_ADMIN));
	set3("capset inheritable CHOWN (not permitted, no SETPCAP)", 0, BIT(CAP_NET_RAW),
	     BIT(CAP_NET_RAW) | BIT(CAP_SYS_ADMIN) | BIT(CAP_CHOWN));
	set3("capset inheritable down", 0, BIT(CAP_NET_RAW), BIT(CAP_NET_RAW));
	sets("now");
	h.version = V1;
	d[0] = (struct data){ 0, BIT(CAP_NET_RAW), BIT(CAP_NET_RAW) };
	show("capset v1", capset(&h, d));
	sets("now");
}

static void c_bset(void)
{
	show("CAPBSET_READ 0", pr(PR_CAPBSET_READ, 0, 0, 0, 0));
	show("CAPBSET_READ 40", pr(PR_CAPBSET_READ, 40, 0, 0, 0));
	show("CAPBSET_READ 41", pr(PR_CAPBSET_READ, 41, 0, 0, 0));
	show("CAPBSET_READ -1", pr(PR_CAPBSET_READ, -1, 0, 0, 0));
	show("CAPBSET_DROP 41", pr(PR_CAPBSET_DROP, 41, 0, 0, 0));
	show("CAPBSET_DROP SYS_MODULE", pr(PR_CAPBSET_DROP, CAP_SYS_MODULE, 0, 0, 0));
	show("CAPBSET_READ SYS_MODULE", pr(PR_CAPBSET_READ, CAP_SYS_MODULE, 0, 0, 0));
	sets("after the drop");
	exec_show("exec as root, SYS_MODULE out of the bounding set");
}

static void c_bset_unpriv(void)
{
	set3("capset without SETPCAP effective", ALL & ~BIT(CAP_SETPCAP), ALL, 0);
	show("CAPBSET_DROP without SETPCAP", pr(PR_CAPBSET_DROP, CAP_SYS_MODULE, 0, 0, 0));
	show("CAPBSET_DROP 41 without SETPCAP", pr(PR_CAPBSET_DROP, 41, 0, 0, 0));
}

static void c_ambient(void)
{
	show("AMBIENT IS_SET NET_RAW", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_RAW, 0, 0));
	show("AMBIENT RAISE NET_RAW (not inheritable)", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0));
	set3("capset inheritable NET_RAW, CHOWN", ALL, ALL, BIT(CAP_NET_RAW) | BIT(CAP_CHOWN));
	show("AMBIENT RAISE NET_RAW", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0));
	show("AMBIENT RAISE CHOWN", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0));
	show("AMBIENT IS_SET NET_RAW", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_RAW, 0, 0));
	show("AMBIENT RAISE 41", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, 41, 0, 0));
	show("AMBIENT RAISE arg4", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 1, 0));
	show("AMBIENT op 5", pr(PR_CAP_AMBIENT, 5, CAP_NET_RAW, 0, 0));
	show("AMBIENT CLEAR_ALL arg3", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 1, 0, 0));
	sets("ambient NET_RAW, CHOWN");
	show("AMBIENT LOWER CHOWN", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_CHOWN, 0, 0));
	set3("capset inheritable CHOWN only", ALL, ALL, BIT(CAP_CHOWN));
	show("AMBIENT IS_SET NET_RAW (no longer inheritable)", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_RAW, 0, 0));
	show("AMBIENT RAISE CHOWN", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0));
	show("AMBIENT CLEAR_ALL", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
	show("AMBIENT IS_SET CHOWN", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0));
	show("AMBIENT RAISE CHOWN", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0));
	/* kept across setresuid to 1000 with keepcaps? no: ambient goes with the uids; keep it
	 * through an exec as a non-root user instead: raise after the uid change */
	show("KEEPCAPS 1", pr(PR_SET_KEEPCAPS, 1, 0, 0, 0));
	show("setresuid 1000", syscall(SYS_setresuid, 1000, 1000, 1000));
	sets("uid 1000, keepcaps");
	show("AMBIENT IS_SET CHOWN after setresuid", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0));
	show("AMBIENT RAISE CHOWN", pr(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0));
	exec_show("exec as uid 1000 with ambient CHOWN");
}

static void c_keepcaps(void)
{
	show("GET_KEEPCAPS", pr(PR_GET_KEEPCAPS, 0, 0, 0, 0));
	show("SET_KEEPCAPS 2", pr(PR_SET_KEEPCAPS, 2, 0, 0, 0));
	show("SET_KEEPCAPS 1", pr(PR_SET_KEEPCAPS, 1, 0, 0, 0));
	show("GET_KEEPCAPS", pr(PR_GET_KEEPCAPS, 0, 0, 0, 0));
	show("GET_SECUREBITS", pr(PR_GET_SECUREBITS, 0, 0, 0, 0));
	show("setuid 1000", syscall(SYS_setuid, 1000));
	sets("uid 1000 with keepcaps");
	show("GET_KEEPCAPS", pr(PR_GET_KEEPCAPS, 0, 0, 0, 0));
	show("SET_SECUREBITS as uid 1000 (no SETPCAP effective)", pr(PR_SET_SECUREBITS, 0x10, 0, 0, 0));
	exec_show("exec as uid 1000 after keepcaps");
}

static void c_securebits(void)
{
	show("SET_SECUREBITS 0x100", pr(PR_SET_SECUREBITS, 0x100, 0, 0, 0));
	show("SET_SECUREBITS KEEP_CAPS|LOCKED", pr(PR_SET_SECUREBITS, 0x30, 0, 0, 0));
	show("GET_SECUREBITS", pr(PR_GET_SECUREBITS, 0, 0, 0, 0));
	show("SET_KEEPCAPS 0 (locked)", pr(PR_SET_KEEPCAPS, 0, 0, 0, 0));
	show("SET_SECUREBITS unlock", pr(PR_SET_SECUREBITS, 0x10, 0, 0, 0));
	show("SET_SECUREBITS NO_SETUID_FIXUP", pr(PR_SET_SECUREBITS, 0x34, 0, 0, 0));
	show("setresuid 1000", syscall(SYS_setresuid, 1000, 1000, 1000));
	sets("uid 1000, NO_SETUID_FIXUP");
	exec_show("exec as uid 1000, keepcaps cleared by exec");
}

static void c_setuid(void)
{
	show("setuid 1000", syscall(SYS_setuid, 1000));
	sets("uid 1000");
	show("setuid 0", syscall(SYS_setuid, 0));
	exec_show("exec as uid 1000");
}

static void c_seteuid(void)
{
	show("setreuid -1 1000", syscall(SYS_setreuid, -1, 1000));
	sets("euid 1000");
	show("setreuid -1 0", syscall(SYS_setreuid, -1, 0));
	sets("euid 0 again");
	show("setfsuid 1000", syscall(SYS_setfsuid, 1000));
	sets("fsuid 1000");
	show("setfsuid 0", syscall(SYS_setfsuid, 0));
	sets("fsuid 0 again");
	show("setreuid -1 1000", syscall(SYS_setreuid, -1, 1000));
	exec_show("exec with uid 0, euid 1000");
}

static void c_exec_root(void)
{
	set3("capset inheritable NET_RAW, effective less", BIT(CAP_CHOWN), ALL & ~BIT(CAP_SYS_ADMIN), BIT(CAP_NET_RAW));
	exec_show("exec as root");
}

static void run(const char *name, void (*fn)(void))
{
	int status;
	pid_t pid;

	printf("== %s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "show") == 0) {
		sets(argc > 2 ? argv[2] : "show");
		return 0;
	}
	run("get", c_get);
	run("set", c_set);
	run("bset", c_bset);
	run("bset_unpriv", c_bset_unpriv);
	run("ambient", c_ambient);
	run("keepcaps", c_keepcaps);
	run("securebits", c_securebits);
	run("setuid", c_setuid);
	run("seteuid", c_seteuid);
	run("exec_root", c_exec_root);
	return 0;
}
