/* The kernel's identity (init/version.c, kernel/utsname.c): the boot banner printk logs,
 * and the format of /proc/version with the names uname reports. */
#include "../include/kernel.h"
#include "../include/nsproxy.h"

#define UTS_SYSNAME	"Linux"
#define UTS_RELEASE	"6.1.0-tracefs-sim"
#define UTS_VERSION	"#1 SMP PREEMPT_DYNAMIC Debian 6.1.0"
#define UTS_MACHINE	"x86_64"
#define LINUX_COMPILE_BY	"root"
#define LINUX_COMPILE_HOST	"tracefs-sim"
#define LINUX_COMPILER	"gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40"

struct uts_namespace init_uts_ns = {
	.name = {
		.sysname = UTS_SYSNAME,
		.nodename = "tracefs-sim",
		.release = UTS_RELEASE,
		.version = UTS_VERSION,
		.machine = UTS_MACHINE,
		.domainname = "(none)",
	},
	.ns = { .ops = &utsns_operations, .inum = PROC_UTS_INIT_INO, .count = 2 },
};

const char linux_banner[] = "Linux version " UTS_RELEASE " (" LINUX_COMPILE_BY "@" LINUX_COMPILE_HOST ") ("
			   LINUX_COMPILER ") " UTS_VERSION "\n";

/* sysname, release, version */
const char linux_proc_banner[] = "%s version %s (" LINUX_COMPILE_BY "@" LINUX_COMPILE_HOST ") (" LINUX_COMPILER ") %s\n";
