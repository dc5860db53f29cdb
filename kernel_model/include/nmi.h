/* NMI handlers (arch/x86/include/asm/nmi.h): a list of actions per NMI type, run by nmi_handle()
 * (kernel/nmi.c). */
#ifndef _NMI_H
#define _NMI_H
#include "kernel.h"

/* the NMI types: the machine raises local NMIs only (its PMU's), no SERR / IO_CHECK / unknown */
enum {
	NMI_LOCAL = 0,
	NMI_MAX
};

/* a handler returns how many of the NMI's events it handled */
typedef int (*nmi_handler_t)(unsigned int, struct pt_regs *);

struct nmiaction {
	struct list_head list;
	nmi_handler_t handler;
	const char *name;
};

/* 6.1's signature; fg (NMI_FLAG_FIRST: first on the list) has no use with one handler */
#define register_nmi_handler(t, fn, fg, n)				\
({									\
	static struct nmiaction fn##_na = {				\
		.list = LIST_HEAD_INIT(fn##_na.list),			\
		.handler = (fn),					\
		.name = (n),						\
	};								\
	(void)(fg);							\
	__register_nmi_handler((t), &fn##_na);				\
})

int __register_nmi_handler(unsigned int type, struct nmiaction *action);
#endif
