/*
 * Interrupt descriptors and their handlers (kernel/irq/irqdesc.c, manage.c,
 * chip.c, handle.c): one irq_desc per interrupt line, with its flow handler
 * and the actions request_irq() added; every action's handler runs between
 * irq:irq_handler_entry and irq_handler_exit.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define IRQS_INPROGRESS 0x01	/* the handlers run (istate) */

struct irq_desc irq_desc[NR_IRQS];

noinline struct irq_desc *irq_to_desc(unsigned int irq)
{
	return irq < NR_IRQS ? &irq_desc[irq] : NULL;
}

notrace void irq_set_handler(unsigned int irq, irq_flow_handler_t handle, const char *name)
{
	struct irq_desc *desc = irq_to_desc(irq);

	if (!desc)
		return;
	desc->irq = irq;
	desc->handle_irq = handle;
	desc->name = name;
}

notrace int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags, const char *name, void *dev)
{
	struct irq_desc *desc = irq_to_desc(irq);
	struct irqaction *action, **p;
	unsigned long irqflags;

	if (!desc || !desc->handle_irq || !handler)
		return -EINVAL;
	action = kzalloc(sizeof(*action), GFP_KERNEL);
	if (!action)
		return -ENOMEM;
	action->handler = handler;
	action->flags = flags;
	action->name = name;
	action->dev_id = dev;
	action->irq = irq;
	raw_spin_lock_irqsave(&desc->lock, irqflags);
	for (p = &desc->action; *p; p = &(*p)->next)
		;
	*p = action;
	raw_spin_unlock_irqrestore(&desc->lock, irqflags);
	return 0;
}

irqreturn_t __handle_irq_event_percpu(struct irq_desc *desc)
{
	irqreturn_t retval = IRQ_NONE;
	unsigned int irq = desc->irq;
	struct irqaction *action;

	for (action = desc->action; action; action = action->next) {
		irqreturn_t res;

		trace_irq_handler_entry(irq, action);
		res = action->handler(irq, action->dev_id);
		trace_irq_handler_exit(irq, action, res);
		retval |= res;
	}
	return retval;
}

noinline irqreturn_t handle_irq_event_percpu(struct irq_desc *desc)
{
	return __handle_irq_event_percpu(desc);
}

/* desc->lock held: dropped while the handlers run */
noinline irqreturn_t handle_irq_event(struct irq_desc *desc)
{
	irqreturn_t ret;

	desc->istate |= IRQS_INPROGRESS;
	raw_spin_unlock(&desc->lock);
	ret = handle_irq_event_percpu(desc);
	raw_spin_lock(&desc->lock);
	desc->istate &= ~IRQS_INPROGRESS;
	return ret;
}

/* An edge-triggered line (the IO-APIC's ISA interrupts): the edge is taken, then handled. */
void handle_edge_irq(struct irq_desc *desc)
{
	raw_spin_lock(&desc->lock);
	desc->kstat_irqs[smp_processor_id()]++;
	if (!desc->action || (desc->istate & IRQS_INPROGRESS)) {
		raw_spin_unlock(&desc->lock);
		return;
	}
	handle_irq_event(desc);
	raw_spin_unlock(&desc->lock);
}

notrace void generic_handle_irq_desc(struct irq_desc *desc)
{
	desc->handle_irq(desc);
}
