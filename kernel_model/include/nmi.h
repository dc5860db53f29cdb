/* NMI handlers (arch/x86/include/asm/nmi.h): a list of actions per NMI type, run by nmi_handle()
 * (kernel/nmi.c). */
#ifndef _NMI_H
#define _NMI_H
#include "kernel.h"

enum {
	NMI_LOCAL = 0,
	NMI_UNKNOWN,
	NMI_SERR,
	NMI_IO_CHECK,
	NMI_MAX
};

#define NMI_DONE	0
#define NMI_HANDLED	1

typedef int (*nmi_handler_t)(unsigned int, struct pt_regs *);

struct nmiaction {
	struct list_head list;
	nmi_handler_t handler;
	unsigned long flags;
	const char *name;
};

#define register_nmi_handler(t, fn, fg, n)				\
({									\
	static struct nmiaction fn##_na = {				\
		.list = LIST_HEAD_INIT(fn##_na.list),			\
		.handler = (fn),					\
		.name = (n),						\
		.flags = (fg),						\
	};								\
	__register_nmi_handler((t), &fn##_na);				\
})

int __register_nmi_handler(unsigned int type, struct nmiaction *action);
#endif
