/* Boot: start_kernel on cpu 0, start_secondary on the others, then init. */
#include "../include/kernel.h"
#include "../include/pid.h"
#include "../include/signal.h"
#include "../include/net.h"
#include "../include/session.h"
#include "../include/perf_event.h"
#include "../include/cred.h"
#include "../include/ipc.h"

struct boot_params boot_params __section(".data");
struct host_requests host_requests __section(".data");
struct percpu cpu_data[NR_CPUS];
u64 idle_stacks[NR_CPUS][THREAD_SIZE / 8] __aligned(THREAD_SIZE);
int nr_cpu_ids = 1;
struct task_struct *init_task_p;

/* GDT: the selectors of arch/x86/include/asm/segment.h */
u64 gdt_page[16] __aligned(4096) = {
	[2] = 0x00af9b000000ffffUL,	/* __KERNEL_CS 0x10 */
	[3] = 0x00cf93000000ffffUL,	/* __KERNEL_DS 0x18 */
	[4] = 0x00cffb000000ffffUL,	/* __USER32_CS 0x23 */
	[5] = 0x00cff3000000ffffUL,	/* __USER_DS 0x2b */
	[6] = 0x00affb000000ffffUL,	/* __USER_CS 0x33 */
};

void random_init(void);
void nvme_init(void);
int acpi_cpufreq_init(void);

static int kernel_init(void *unused)
{
	struct pt_regs *regs = (struct pt_regs *)((char *)current->stack + THREAD_SIZE) - 1;
	static const char *const argv_default[] = { "init", "default", NULL };
	static const char *const argv_none[] = { "init", "none", NULL };
	struct file *console;

	init_task_p = current;
	kthreads_init();
	acpi_cpufreq_init();	/* a device initcall: the cpus' frequency driver */
	nvme_init();	/* the disk, before the mounts: one is on it */
	vfs_mount_init();
	if (unshare_files())
		panic("No fd table for init");
	console = filp_open("/dev/null", 2, 0);
	if (IS_ERR(console))
		panic("No /dev/null for init's console");
	init_dup(console);
	init_dup(console);
	init_dup(console);
	fput(console);
	if (kernel_execve("/sbin/init", boot_params.workload == WORKLOAD_DEFAULT ? argv_default : argv_none, regs, NULL))
		panic("No working init found");
	host_doorbell(PORT_READY, 1);	/* init is exec'd: returning to its user mode */
	return 0;
}

noinline void rest_init(void)
{
	struct task_struct *kthreadd_p;

	kernel_thread(kernel_init, NULL, "swapper/0", 0);	/* pid 1 */
	kthreadd_p = find_task_by_pid(kernel_thread(kthreadd, NULL, "kthreadd", -1));
	kthreadd_task = kthreadd_p;
}

void futex_init(void);
void blk_ioc_init(void);
void task_iter_init(void);
void kcmp_cookies_init(void);

void __init start_kernel(void)
{
	int cpu;

	nr_cpu_ids = boot_params.nr_cpus;
	if (nr_cpu_ids < 1 || nr_cpu_ids > NR_CPUS)
		nr_cpu_ids = 1;
	mem_init();
	printk_init();
	cred_init();
	pid_idr_init();
	fork_init();
	signals_init();
	init_posix_timers();
	futex_init();
	vfs_caches_init();
	blk_ioc_init();
	perf_event_init();
	random_init();
	kcmp_cookies_init();	/* an arch initcall: kcmp(2)'s random cookies */
	session_init();
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		sched_init_idle(cpu);
	init_IRQ();
	rcu_init();
	init_timers();
	workqueue_init_early();
	net_ns_init();
	sock_init();
	init_mqueue_fs();
	task_iter_init();
	rest_init();
	host_doorbell(PORT_READY, 0);	/* secondary cpus may start */
	cpu_startup_entry();
}

notrace void start_secondary(void)
{
	cpu_startup_entry();
}
