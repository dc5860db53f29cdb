/* Clock event devices (include/linux/clockchips.h): a per-cpu local APIC
 * timer, and the HPET that stands in for it while a cpu idles in a state
 * that stops it (tick broadcast, kernel/tick_broadcast.c). */
#ifndef _CLOCKCHIPS_H
#define _CLOCKCHIPS_H
#include "types.h"
#include "timer.h"

#define CLOCK_EVT_FEAT_ONESHOT	0x000002
#define CLOCK_EVT_FEAT_C3STOP	0x000008	/* stops in deep idle: needs broadcast */

struct clock_event_device {
	void (*event_handler)(struct clock_event_device *);
	int (*set_next_event)(u64 expires, struct clock_event_device *);
	void (*broadcast)(unsigned long cpumask);	/* wake these cpus' local devices */
	u64 next_event;		/* absolute ns of the programmed event, KTIME_MAX: none */
	unsigned int features;
	int cpu;
	const char *name;
};

int clockevents_program_event(struct clock_event_device *dev, u64 expires);

enum tick_broadcast_state { TICK_BROADCAST_EXIT, TICK_BROADCAST_ENTER };
void tick_install_broadcast_device(struct clock_event_device *dev);
int tick_broadcast_oneshot_control(enum tick_broadcast_state state);
static __always_inline int tick_broadcast_enter(void) { return tick_broadcast_oneshot_control(TICK_BROADCAST_ENTER); }
static __always_inline void tick_broadcast_exit(void) { tick_broadcast_oneshot_control(TICK_BROADCAST_EXIT); }

/* arch/x86: the local APIC timers (irq.c) and the HPET (hpet.c) */
extern struct clock_event_device lapic_events[];
void hpet_time_init(void);
#endif
