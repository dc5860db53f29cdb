/*
 * Tick broadcast in one-shot mode (kernel/time/tick-broadcast.c): the cpus
 * idle in a state that stops their local APIC timer (CLOCK_EVT_FEAT_C3STOP,
 * as intel_idle's deep C-states do), so on the way in each hands its next
 * event to the broadcast device, the HPET.  When that fires (its interrupt,
 * IRQ 0 "timer", goes to cpu 0), tick_handle_oneshot_broadcast() runs the
 * local handler for this cpu and sends the local timer vector to the others
 * whose event is due, then programs the HPET for the earliest one left.
 */
#include "../include/kernel.h"
#include "../include/clockchips.h"
#include "../include/bitops.h"

static raw_spinlock_t tick_broadcast_lock;
static struct clock_event_device *tick_broadcast_device;
static unsigned long tick_broadcast_oneshot_mask;	/* cpus whose local timer is stopped */
static unsigned long tick_broadcast_pending_mask;	/* cpus woken by the broadcast, not yet back */

noinline int clockevents_program_event(struct clock_event_device *dev, u64 expires)
{
	dev->next_event = expires;
	return dev->set_next_event(expires, dev);
}

static noinline void tick_broadcast_set_event(struct clock_event_device *bc, int cpu, u64 expires)
{
	clockevents_program_event(bc, expires);
}

/* The due cpus' local handlers: this cpu's by the caller (true), the others' by IPI. */
static noinline bool tick_do_broadcast(unsigned long mask)
{
	int cpu = smp_processor_id();
	bool local = mask & (1UL << cpu);

	mask &= ~(1UL << cpu);
	if (mask)
		lapic_events[__builtin_ctzl(mask)].broadcast(mask);
	return local;
}

static void tick_handle_oneshot_broadcast(struct clock_event_device *dev)
{
	u64 now, next_event = KTIME_MAX;
	unsigned long due = 0, mask;
	unsigned long cpu;
	int next_cpu = 0;
	bool bc_local;

	raw_spin_lock(&tick_broadcast_lock);
	dev->next_event = KTIME_MAX;
	now = ktime_get();
	mask = tick_broadcast_oneshot_mask;
	for_each_set_bit(cpu, &mask, NR_CPUS) {
		if (lapic_events[cpu].next_event <= now) {
			due |= 1UL << cpu;
			tick_broadcast_pending_mask |= 1UL << cpu;
		} else if (lapic_events[cpu].next_event < next_event) {
			next_event = lapic_events[cpu].next_event;
			next_cpu = cpu;
		}
	}
	tick_broadcast_pending_mask &= ~(1UL << smp_processor_id());
	bc_local = tick_do_broadcast(due);
	if (next_event != KTIME_MAX)
		tick_broadcast_set_event(dev, next_cpu, next_event);
	raw_spin_unlock(&tick_broadcast_lock);
	if (bc_local)
		lapic_events[smp_processor_id()].event_handler(&lapic_events[smp_processor_id()]);
}

void tick_install_broadcast_device(struct clock_event_device *dev)
{
	dev->event_handler = tick_handle_oneshot_broadcast;
	dev->next_event = KTIME_MAX;
	tick_broadcast_device = dev;
}

/* Interrupts off (the idle loop). */
noinline int __tick_broadcast_oneshot_control(enum tick_broadcast_state state)
{
	struct clock_event_device *bc = tick_broadcast_device, *dev;
	int cpu = smp_processor_id();
	unsigned long bit = 1UL << cpu;

	if (!bc)
		return -EBUSY;	/* nothing to wake the cpu: no deep idle */
	dev = &lapic_events[cpu];
	raw_spin_lock(&tick_broadcast_lock);
	if (state == TICK_BROADCAST_ENTER) {
		if (!(tick_broadcast_oneshot_mask & bit)) {
			tick_broadcast_oneshot_mask |= bit;
			dev->set_next_event(KTIME_MAX, dev);	/* the local timer stops */
			if (dev->next_event < bc->next_event)
				tick_broadcast_set_event(bc, cpu, dev->next_event);
		}
	} else if (tick_broadcast_oneshot_mask & bit) {
		tick_broadcast_oneshot_mask &= ~bit;
		if (tick_broadcast_pending_mask & bit)
			tick_broadcast_pending_mask &= ~bit;	/* the broadcast's IPI brings the event */
		else
			dev->set_next_event(dev->next_event, dev);	/* the local timer runs again */
	}
	raw_spin_unlock(&tick_broadcast_lock);
	return 0;
}

int tick_broadcast_oneshot_control(enum tick_broadcast_state state)
{
	return __tick_broadcast_oneshot_control(state);
}
