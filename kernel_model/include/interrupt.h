/* Interrupts: softirq vectors, irq descriptors and their actions
 * (include/linux/interrupt.h, irqdesc.h, irqreturn.h). */
#ifndef _INTERRUPT_H
#define _INTERRUPT_H
#include "types.h"
#include "spinlock.h"
#include "hostif.h"

/* softirq vectors, Linux's numbering (the softirq events print it) */
enum {
	HI_SOFTIRQ = 0,
	TIMER_SOFTIRQ,
	NET_TX_SOFTIRQ,
	NET_RX_SOFTIRQ,
	BLOCK_SOFTIRQ,
	IRQ_POLL_SOFTIRQ,
	TASKLET_SOFTIRQ,
	SCHED_SOFTIRQ,
	HRTIMER_SOFTIRQ,
	RCU_SOFTIRQ,
	NR_SOFTIRQS
};

struct softirq_action {
	void (*action)(struct softirq_action *);
};

void open_softirq(int nr, void (*action)(struct softirq_action *));
void raise_softirq(unsigned int nr);
void raise_softirq_irqoff(unsigned int nr);
void __raise_softirq_irqoff(unsigned int nr);
void irq_enter_rcu(void);
void irq_exit_rcu(void);
/* the hardirq count alone, for handlers with nothing traceable (DEFINE_IDTENTRY_SYSVEC_SIMPLE) */
#define __irq_enter_raw()	preempt_count_add(HARDIRQ_OFFSET)
#define __irq_exit_raw()	preempt_count_add(-HARDIRQ_OFFSET)
void softirq_init(void);
/* include/linux/bottom_half.h: disabling is a count; enabling runs what was raised meanwhile */
#define SOFTIRQ_DISABLE_OFFSET	0x200	/* 2 * SOFTIRQ_OFFSET */
void __local_bh_enable_ip(unsigned long ip, unsigned int cnt);
static __always_inline void local_bh_disable(void)
{
	preempt_count_add(SOFTIRQ_DISABLE_OFFSET);
}

static __always_inline void local_bh_enable(void)
{
	__local_bh_enable_ip((unsigned long)__builtin_return_address(0), SOFTIRQ_DISABLE_OFFSET);
}

typedef enum irqreturn { IRQ_NONE = 0, IRQ_HANDLED = 1, IRQ_WAKE_THREAD = 2 } irqreturn_t;
typedef irqreturn_t (*irq_handler_t)(int irq, void *dev_id);

/* request_irq() flags */
#define IRQF_NOBALANCING	0x00000800
#define IRQF_IRQPOLL		0x00001000
#define IRQF_TIMER		(0x00000200 | IRQF_NO_SUSPEND | IRQF_NO_THREAD)
#define IRQF_NO_SUSPEND		0x00004000
#define IRQF_NO_THREAD		0x00010000

struct irqaction {
	irq_handler_t handler;
	void *dev_id;
	struct irqaction *next;
	unsigned int irq;
	unsigned int flags;
	const char *name;
};

struct irq_desc;
typedef void (*irq_flow_handler_t)(struct irq_desc *desc);

struct irq_desc {
	unsigned int irq;
	irq_flow_handler_t handle_irq;	/* the flow handler: handle_edge_irq, ... */
	struct irqaction *action;	/* the handlers request_irq() added, in order */
	raw_spinlock_t lock;
	unsigned int istate;		/* IRQS_INPROGRESS while handlers run */
	unsigned long kstat_irqs[NR_CPUS];	/* per cpu, as /proc/interrupts counts them */
	const char *name;		/* the flow's name ("edge") */
};

#define NR_IRQS_LEGACY 16
#define NR_IRQS 32
extern struct irq_desc irq_desc[NR_IRQS];
struct irq_desc *irq_to_desc(unsigned int irq);
int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags, const char *name, void *dev);
void irq_set_handler(unsigned int irq, irq_flow_handler_t handle, const char *name);
void handle_edge_irq(struct irq_desc *desc);
void generic_handle_irq_desc(struct irq_desc *desc);
unsigned int lapic_assign_legacy_vector(unsigned int irq, int cpu);
unsigned int assign_irq_vector(unsigned int irq, int cpu);
#endif
