/*
 * The x86 `out` instruction's hook (tracefs_sim.machine.cpu): the guest's
 * doorbells to the host.
 *
 * One port's doorbell needs no answer before the guest goes on (the trace
 * doorbell: "pages are ready", rung at every filled ring page and at ticks
 * that find committed data, tens of thousands of times a second while events
 * flow).  It is only noted here, and the run loop passes it on to Python
 * between slices; calling Python for it would take the GIL from the trace
 * core's threads once per page.  A doorbell after a quiet spell ends the
 * native loop's slice (see cpu_events.h).  The hostfs port is served here
 * (hostfs.c): the guest's file reads never reach Python.  Every other port goes to the
 * Python callback, but the notify and wake ports, whose doorbells are for another process of
 * the host: each goes to an eventfd.
 *
 * The yield port ends the slice (a live machine's): the guest spins for another CPU, which
 * runs only in its own turn.  The fence port is a host barrier (hostif.h's PORT_FENCE).
 *
 * No Unicorn header or library: see slice.c.
 */
#include <unistd.h>

#include "pmu.h"

/* UC_HOOK_INSN (UC_X86_INS_OUT) callback */
void port_out_hook(uc_engine *uc, uint32_t port, int size, uint32_t value, void *user_data)
{
	struct cpu_events *e = user_data;

	if (port == e->fence_port) {	/* the guest's store before its next load, on the host too */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return;
	}
	if (port == e->deferred_port) {
		e->deferred = 1;
		if (e->emu_stop) {
			uint64_t now = cpu_events_clock();

			if (now - e->passed_at >= e->quiet_ns) {
				e->passed_at = now;
				e->emu_stop(uc);
			}
		}
		return;
	}
	if (port == e->yield_port) {	/* the cpu it waits for runs only once this slice ends */
		if (e->emu_stop)
			e->emu_stop(uc);
		return;
	}
	if (port == e->pmu_port) {	/* the guest reads or reprograms its counters: count up to now */
		pmu_port(uc, e, value & 1);
		return;
	}
	if (port == e->hostfs_port) {
		hostfs_serve(e->hostfs, value);
		return;
	}
	if ((port == e->notify_port && e->notify_fd >= 0) || (port == e->wake_port && e->wake_fd >= 0)) {
		uint64_t one = 1;

		if (write(port == e->notify_port ? e->notify_fd : e->wake_fd, &one, sizeof(one)) < 0) {
			/* full (never read) or closed: the waiter has gone, nothing to tell */
		}
		return;
	}
	e->python_ran = 1;
	e->python_out(uc, port, size, value, user_data);
}
