/*
 * perfev MODE ...: drives perf_event_open(2) and the calls on its fds as perf stat does, and
 * prints what the kernel answered (tests/machine/test_perf.py).
 *
 *   perfev tp ID N          a tracepoint event (config ID) on itself around N getuid() calls
 *   perfev insns N PERIOD   instructions and branches (user, kernel) around N rounds of a loop
 *   perfev cs N             context switches of itself over N 1 ms sleeps (and task-clock)
 *   perfev group ID N       {sys_enter_getuid, context-switches} as a group, read with GROUP|ID
 *   perfev inherit ID N     an inherited event; a child makes the N calls
 *   perfev exec ID N        disabled + enable_on_exec on a forked child that execs getuid-loop N
 *   perfev cpu ID CPU N     a per-cpu event (pid -1) around N getuid() calls
 *   perfev ioctl ID N       ENABLE/DISABLE/RESET/ID/PERIOD/REFRESH/SET_OUTPUT on one event
 *   perfev errors ID        the errno of each invalid call
 *   perfev crash ID         opens events, an inherited one in a child too, then dies of SIGSEGV
 *   perfev filter RAW SWITCH N  SET_FILTER on raw_syscalls:sys_enter and sched:sched_switch
 */
#include "libc.h"
#include "../include/uapi/perf_event.h"

#define NR_perf_event_open 298
#define NR_ioctl 16

static long perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
	return syscall6(NR_perf_event_open, (long)attr, pid, cpu, group_fd, flags, 0);
}

static long ioctl(int fd, unsigned long cmd, unsigned long arg)
{
	return syscall6(NR_ioctl, fd, cmd, arg, 0, 0, 0);
}

static void attr_init(struct perf_event_attr *attr, unsigned int type, unsigned long config)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = type;
	attr->size = sizeof(*attr);
	attr->config = config;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
}

static int must_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd)
{
	long fd = perf_event_open(attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		printf("perf_event_open: %ld (%s)\n", fd, strerror(-fd));
		exit(1);
	}
	return fd;
}

/* value, enabled, running, id */
static void print_one(const char *what, int fd)
{
	unsigned long v[4] = { 0 };
	long n = read(fd, v, sizeof(v));

	printf("%s: read=%ld count=%lu enabled=%lu running=%lu id=%lu\n", what, n, v[0], v[1], v[2], v[3]);
}

static void getuids(long n)
{
	long i;

	for (i = 0; i < n; i++)
		getuid();
}

static int mode_tp(long id, long n)
{
	struct perf_event_attr attr;
	int fd;

	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	fd = must_open(&attr, 0, -1, -1);
	getuids(n);
	print_one("tp", fd);
	close(fd);
	return 0;
}

/*
 * cycles (the cpu PMU): a counting event, one sampling every `period` cycles (no ring buffer:
 * its overflows count in the kernel, the samples go nowhere), and cycles:u and cycles:k, over n
 * getuid calls and a user-mode loop of `spin` rounds
 */
static int mode_cycles(long n, long period, long spin)
{
	struct perf_event_attr attr;
	int count, sample, user, kernel;
	volatile long sink = 0;
	long i;

	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	count = must_open(&attr, 0, -1, -1);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.sample_period = period;
	sample = must_open(&attr, 0, -1, -1);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.exclude_kernel = 1;
	user = must_open(&attr, 0, -1, -1);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.exclude_user = 1;
	kernel = must_open(&attr, 0, -1, -1);
	getuids(n);
	for (i = 0; i < spin; i++)
		sink += i;
	print_one("cycles", count);
	print_one("sampling", sample);
	print_one("user", user);
	print_one("kernel", kernel);
	return 0;
}

/* n rounds of a loop of two instructions, one a branch (taken n - 1 times, not taken once),
 * then one rep stosb of 4 KiB: a single instruction however many rounds it makes */
static void spin_insns(long n)
{
	static char page[4096];
	char *to = page;
	long bytes = sizeof(page);

	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
	asm volatile("rep stosb" : "+D"(to), "+c"(bytes) : "a"(0) : "memory");
}

/*
 * instructions and branches (the cpu PMU): instructions:u, branches:u and instructions:k in a
 * group enabled around n rounds of spin_insns and 10 getuid calls, then a sampling instructions
 * event (every `period`) over the same
 */
static int mode_insns(long n, long period)
{
	struct perf_event_attr attr;
	int lead, branches, kernel, sample;

	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	lead = must_open(&attr, 0, -1, -1);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	attr.exclude_kernel = 1;
	branches = must_open(&attr, 0, -1, lead);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.exclude_user = 1;
	kernel = must_open(&attr, 0, -1, lead);
	ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	spin_insns(n);
	getuids(10);
	ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	print_one("instructions:u", lead);
	print_one("branches:u", branches);
	print_one("instructions:k", kernel);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.sample_period = period;
	sample = must_open(&attr, 0, -1, -1);
	spin_insns(n);
	getuids(10);
	print_one("sampling", sample);
	return 0;
}

static int mode_cs(long n)
{
	struct perf_event_attr attr;
	struct timespec ts = { 0, 1000000 };
	int cs, clk;
	long i;

	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	cs = must_open(&attr, 0, -1, -1);
	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	clk = must_open(&attr, 0, -1, -1);
	for (i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	print_one("cs", cs);
	print_one("task-clock", clk);
	return 0;
}

static int mode_group(long id, long n)
{
	struct perf_event_attr attr;
	struct timespec ts = { 0, 1000000 };
	unsigned long v[16] = { 0 };
	int leader, sib;
	long r;

	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	attr.disabled = 1;
	leader = must_open(&attr, 0, -1, -1);
	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	sib = must_open(&attr, 0, -1, leader);
	getuids(n);			/* the leader is off: the group does not count */
	nanosleep(&ts, NULL);
	ioctl(leader, PERF_EVENT_IOC_ENABLE, 0);
	getuids(n);
	nanosleep(&ts, NULL);
	r = read(sib, v, 8);
	printf("short read: %ld\n", r);
	r = read(sib, v, sizeof(v));
	printf("group: read=%ld nr=%lu enabled>0=%d leader=%lu id=%lu sibling=%lu id=%lu\n", r, v[0], v[1] > 0,
	       v[2], v[3], v[4], v[5]);
	if (ioctl(leader, PERF_EVENT_IOC_ID, (unsigned long)&v[10]) || ioctl(sib, PERF_EVENT_IOC_ID, (unsigned long)&v[11]))
		v[10] = v[11] = -1UL;
	printf("ids: leader=%ld sibling=%ld\n", (long)v[10], (long)v[11]);
	/* a group member cannot lead a group, nor join one elsewhere */
	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	printf("sibling as leader: %ld\n", perf_event_open(&attr, 0, -1, sib, 0));
	printf("leader on cpu 0: %ld\n", perf_event_open(&attr, -1, 0, leader, 0));
	attr.pinned = 1;
	printf("pinned sibling: %ld\n", perf_event_open(&attr, 0, -1, leader, 0));
	close(sib);
	close(leader);
	return 0;
}

static int mode_inherit(long id, long n)
{
	struct perf_event_attr attr;
	int fd, pid, status;

	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.inherit = 1;
	fd = must_open(&attr, 0, -1, -1);
	pid = fork();
	if (pid == 0) {
		getuids(n);
		exit(0);
	}
	wait4(pid, &status, 0, NULL);
	print_one("inherit", fd);
	attr.inherit = 0;
	attr.read_format |= PERF_FORMAT_GROUP;
	printf("non-inherit sibling: %ld\n", perf_event_open(&attr, 0, -1, fd, 0));
	return 0;
}

static int mode_exec(long id, long n)
{
	struct perf_event_attr attr;
	struct timespec ts = { 0, 20000000 };
	char count[24];
	int fd, pid, status;

	count[0] = 0;
	{
		/* N as text for getuid-loop's argv */
		char tmp[24];
		int i = 0, j = 0;
		long v = n;

		do { tmp[i++] = '0' + v % 10; v /= 10; } while (v);
		while (i)
			count[j++] = tmp[--i];
		count[j] = 0;
	}
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "getuid-loop", count, NULL };

		nanosleep(&ts, NULL);	/* the parent opens the event meanwhile */
		getuids(3);		/* before the exec: not counted */
		execve("getuid-loop", argv, NULL);
		exit(127);
	}
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.inherit = 1;
	fd = must_open(&attr, pid, -1, -1);
	wait4(pid, &status, 0, NULL);
	print_one("exec", fd);
	return 0;
}

static int mode_cpu(long id, long cpu, long n)
{
	struct perf_event_attr attr;
	int fd;

	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	fd = must_open(&attr, -1, cpu, -1);
	getuids(n);
	print_one("cpu", fd);
	return 0;
}

static int mode_ioctl(long id, long n)
{
	struct perf_event_attr attr;
	unsigned long v = 0, period = 1000;
	int fd, other;
	long r;

	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.disabled = 1;
	fd = must_open(&attr, 0, -1, -1);
	getuids(n);
	print_one("disabled", fd);
	printf("enable: %ld\n", ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	getuids(n);
	print_one("enabled", fd);
	printf("disable: %ld\n", ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	getuids(n);
	print_one("disabled again", fd);
	printf("reset: %ld\n", ioctl(fd, PERF_EVENT_IOC_RESET, 0));
	print_one("after reset", fd);
	r = ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&v);
	printf("id: %ld %lu\n", r, v);
	printf("period of a counting event: %ld\n", ioctl(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period));
	printf("refresh of a counting event: %ld\n", ioctl(fd, PERF_EVENT_IOC_REFRESH, 1));
	printf("unknown ioctl: %ld\n", ioctl(fd, 0x2499, 0));
	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	other = must_open(&attr, 0, -1, -1);
	printf("set_output to an unmapped event: %ld\n", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, other));
	printf("set_output -1: %ld\n", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, -1));
	printf("set_output to a non-perf fd: %ld\n", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, 1));
	printf("ioctl on stdout: %ld\n", ioctl(1, PERF_EVENT_IOC_ENABLE, 0));
	close(other);
	close(fd);
	return 0;
}

static void try(const char *what, struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
	long r = perf_event_open(attr, pid, cpu, group_fd, flags);

	printf("%s: %ld\n", what, r);
	if (r >= 0)
		close(r);
}

static int mode_errors(long id)
{
	struct { struct perf_event_attr attr; unsigned char tail[16]; } big;
	struct perf_event_attr attr;

	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	try("valid", &attr, 0, -1, -1, 0);
	try("bad flags", &attr, 0, -1, -1, 1UL << 4);
	attr.size = 32;
	try("size 32", &attr, 0, -1, -1, 0);
	printf("size written back: %u\n", attr.size);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.size = 0;
	try("size 0 (VER0)", &attr, 0, -1, -1, 0);
	memset(&big, 0, sizeof(big));
	attr_init(&big.attr, PERF_TYPE_TRACEPOINT, id);
	big.attr.size = sizeof(big);
	try("size 144, zero tail", &big.attr, 0, -1, -1, 0);
	big.tail[3] = 1;
	try("size 144, tail set", &big.attr, 0, -1, -1, 0);
	printf("size written back: %u\n", big.attr.size);
	attr_init(&attr, 99, 0);
	try("type 99", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	try("hardware cycles", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	try("hardware instructions", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX);
	try("hardware config 10", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_HW_CACHE, 0);
	try("hw cache L1D read access", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_RAW, 0x3c);
	try("raw 0x3c", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_RAW, 0xc0);
	try("raw 0xc0", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES);
	try("hardware branch misses", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_RAW, 0xc5);
	try("raw 0xc5", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_RAW, 0x1c0);
	try("raw 0xc0 umask 1", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_RAW, 0x3c | (1UL << 24));
	try("raw 0x3c cmask 1", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.precise_ip = 1;
	try("cycles precise_ip 1", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	attr.sample_max_stack = 128;
	try("callchain deeper than perf_event_max_stack", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_MAX);
	try("software config 12", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, 0xfffff);
	try("tracepoint id 0xfffff", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.sample_type = PERF_SAMPLE_MAX;
	try("sample_type bit 25", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.read_format = PERF_FORMAT_MAX;
	try("read_format bit 5", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.__reserved_1 = 1;
	try("reserved bit", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.inherit_thread = 1;
	try("inherit_thread without inherit", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.remove_on_exec = 1;
	attr.enable_on_exec = 1;
	try("remove_on_exec and enable_on_exec", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.freq = 1;
	attr.sample_freq = 100001;
	try("freq above the max rate", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.sample_period = 1UL << 63;
	try("period bit 63", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.inherit = 1;
	attr.sample_type = PERF_SAMPLE_READ;
	try("inherit with SAMPLE_READ", &attr, 0, -1, -1, 0);
	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	try("pid -1 cpu -1", &attr, -1, -1, -1, 0);
	try("cpu 64", &attr, 0, 64, -1, 0);
	try("pid 99999", &attr, 99999, -1, -1, 0);
	try("group fd 1 (not perf)", &attr, 0, -1, 1, 0);
	try("group fd 15 (closed)", &attr, 0, -1, 15, 0);
	try("cgroup with pid -1", &attr, -1, 0, -1, PERF_FLAG_PID_CGROUP);
	return 0;
}

static int mode_filter(long raw_id, long switch_id, long n)
{
	struct perf_event_attr attr;
	struct timespec ts = { 0, 1000000 };
	int raw, sw, cs;
	long i;

	attr_init(&attr, PERF_TYPE_TRACEPOINT, raw_id);
	attr.disabled = 1;
	raw = must_open(&attr, 0, -1, -1);
	printf("filter: %ld\n", ioctl(raw, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"id == 102 || (id == 39 && !(common_pid < 0))"));
	printf("second filter: %ld\n", ioctl(raw, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"id == 1"));
	attr_init(&attr, PERF_TYPE_TRACEPOINT, switch_id);
	attr.disabled = 1;
	sw = must_open(&attr, -1, 0, -1);
	printf("glob filter: %ld\n", ioctl(sw, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"prev_comm ~ \"perf*\" && next_pid != 0x7fffffff"));
	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	cs = must_open(&attr, 0, -1, -1);
	printf("software event: %ld\n", ioctl(cs, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"id == 1"));
	printf("fd not open: %ld\n", ioctl(cs + 1, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"nosuch == 1"));
	attr_init(&attr, PERF_TYPE_TRACEPOINT, raw_id);
	i = must_open(&attr, 0, -1, -1);
	printf("unknown field: %ld\n", ioctl(i, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"nosuch == 1"));
	printf("string op on a number: %ld\n", ioctl(i, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"id ~ 1"));
	printf("unbalanced: %ld\n", ioctl(i, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"(id == 1"));
	printf("bad pointer: %ld\n", ioctl(i, PERF_EVENT_IOC_SET_FILTER, 8));
	ioctl(raw, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(sw, PERF_EVENT_IOC_ENABLE, 0);
	getuids(n);
	for (i = 0; i < n; i++) {
		getpid();
		nanosleep(&ts, NULL);
	}
	ioctl(raw, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(sw, PERF_EVENT_IOC_DISABLE, 0);
	print_one("raw", raw);
	print_one("switch", sw);
	return 0;
}

static int mode_crash(long id)
{
	struct perf_event_attr attr;
	struct timespec ts = { 0, 5000000 };

	attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.inherit = 1;
	must_open(&attr, 0, -1, -1);
	attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	attr.inherit = 1;
	must_open(&attr, 0, -1, -1);
	if (fork() == 0) {
		nanosleep(&ts, NULL);
		exit(0);
	}
	getuids(2);
	{
		volatile int *null = (volatile int *)random_u64();

		null = (volatile int *)((unsigned long)null & 0xff0);
		*null = 1;	/* page 0: dies here, its child still asleep */
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "tp"))
		return mode_tp(atol(argv[2]), atol(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "cycles"))
		return mode_cycles(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc >= 4 && !strcmp(argv[1], "insns"))
		return mode_insns(atol(argv[2]), atol(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "cs"))
		return mode_cs(atol(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "group"))
		return mode_group(atol(argv[2]), atol(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "inherit"))
		return mode_inherit(atol(argv[2]), atol(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "exec"))
		return mode_exec(atol(argv[2]), atol(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "cpu"))
		return mode_cpu(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc >= 4 && !strcmp(argv[1], "ioctl"))
		return mode_ioctl(atol(argv[2]), atol(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "filter"))
		return mode_filter(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc >= 3 && !strcmp(argv[1], "crash"))
		return mode_crash(atol(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "errors"))
		return mode_errors(atol(argv[2]));
	dprintf(2, "usage: perfev tp|cycles|insns|cs|group|inherit|exec|cpu|ioctl|errors|crash|filter ...\n");
	return 2;
}
