/*
 * The HPET (arch/x86/kernel/hpet.c) and the legacy timer interrupt
 * (arch/x86/kernel/time.c): its first comparator is the global clock event
 * device, in one-shot mode the tick broadcast device; its interrupt is IRQ 0,
 * "timer", an edge-triggered line the IO-APIC sends to cpu 0.
 */
#include "../include/kernel.h"
#include "../include/clockchips.h"

struct hostif_hpet hpet_regs __section(".data") = { .deadline = KTIME_MAX };
struct clock_event_device *global_clock_event;

static int hpet_clkevt_set_next_event(u64 expires, struct clock_event_device *evt)
{
	WRITE_ONCE(hpet_regs.deadline, expires);
	return 0;
}

static struct clock_event_device hpet_clockevent = {
	.name = "hpet",
	.features = CLOCK_EVT_FEAT_ONESHOT,
	.set_next_event = hpet_clkevt_set_next_event,
	.next_event = KTIME_MAX,
};

static irqreturn_t timer_interrupt(int irq, void *dev_id)
{
	global_clock_event->event_handler(global_clock_event);
	return IRQ_HANDLED;
}

void __init hpet_time_init(void)
{
	global_clock_event = &hpet_clockevent;
	tick_install_broadcast_device(&hpet_clockevent);
	irq_set_handler(0, handle_edge_irq, "edge");
	hpet_regs.cpu = 0;
	hpet_regs.vector = lapic_assign_legacy_vector(0, 0);
	request_irq(0, timer_interrupt, IRQF_NOBALANCING | IRQF_IRQPOLL | IRQF_TIMER, "timer", NULL);
}
