/* The kernel's identity (init/version.c): the banner printk logs at boot. */
#include "../include/kernel.h"

#define UTS_RELEASE	"6.1.0-tracefs-sim"
#define UTS_VERSION	"#1 SMP PREEMPT_DYNAMIC Debian 6.1.0"
#define LINUX_COMPILER	"gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40"

const char linux_banner[] = "Linux version " UTS_RELEASE " (" LINUX_COMPILER ") " UTS_VERSION "\n";
