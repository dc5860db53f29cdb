"""Interrupts: the HPET's IRQ 0 through its irq_desc, softirqs, the x86 system vectors."""
from guest_events import EventCapture

HARDIRQ = 0x08  # TRACE_FLAG_HARDIRQ
SOFTIRQ = 0x10  # TRACE_FLAG_SOFTIRQ
TIMER_SOFTIRQ = 1


def test_idle_cpus_are_woken_by_the_hpet_through_irq_0(make_machine):
    """Idle cpus stop their local timer and hand their next event to the HPET (tick
    broadcast): its interrupt is IRQ 0, "timer", on cpu 0, with irq_handler_entry/exit."""
    m = make_machine(cpus=2, workload="default")
    cap = EventCapture(m)
    cap.enable("irq:irq_handler_entry", "irq:irq_handler_exit")
    recs = cap.wait_for("irq:irq_handler_exit", timeout=5, where=lambda r: r.fields["irq"] == 0)
    # (the disk's interrupt, irq 24, comes too while the disk writer writes)
    entries = [r for r in recs if r.event == "irq:irq_handler_entry" and r.fields["irq"] == 0]
    assert entries
    for r in entries:
        assert (r.cpu, r.fields["irq"], r.fields["name"]) == (0, 0, b"timer")
        assert r.fields["common_flags"] & HARDIRQ
    exits = [r for r in recs if r.event == "irq:irq_handler_exit" and r.fields["irq"] == 0]
    assert exits and all(r.fields["ret"] == 1 for r in exits)  # IRQ_HANDLED


def test_softirqs_raised_in_hardirq_run_at_its_exit(make_machine):
    """The tick raises TIMER_SOFTIRQ in the timer interrupt when the wheel has timers due
    (vmstat's); irq_exit() runs it there, between softirq_entry and softirq_exit, in softirq
    context."""
    m = make_machine(cpus=1, workload="default")  # vmstat's timers are deferrable: a busy cpu runs them
    cap = EventCapture(m)
    cap.enable("irq:softirq_raise", "irq:softirq_entry", "irq:softirq_exit")
    recs = cap.wait_for("irq:softirq_exit", timeout=5, where=lambda r: r.fields["vec"] == TIMER_SOFTIRQ)
    timer = [r for r in recs if r.fields["vec"] == TIMER_SOFTIRQ]
    raised = next(r for r in timer if r.event == "irq:softirq_raise")
    assert raised.fields["common_flags"] & HARDIRQ
    # (one cpu's records: the cpus' clocks need not agree to the nanosecond)
    ran = [r for r in timer if r.cpu == raised.cpu and r.ts > raised.ts and r.event != "irq:softirq_raise"]
    assert [r.event for r in ran[:2]] == ["irq:softirq_entry", "irq:softirq_exit"]
    assert all(r.fields["common_flags"] & SOFTIRQ for r in ran[:2])


def test_system_vectors(make_machine, run_program):
    """A busy cpu takes the local timer vector (0xec); waking a task on an idle cpu sends it
    the reschedule vector (0xfd)."""
    m = make_machine(cpus=2, workload="default")
    cap = EventCapture(m)
    cap.enable("irq_vectors:local_timer_entry", "irq_vectors:local_timer_exit",
               "irq_vectors:reschedule_entry", "irq_vectors:reschedule_exit")
    run_program(m, ["getuid-loop", "200000"])
    recs = cap.wait_for("irq_vectors:reschedule_exit", timeout=5)
    vectors = {r.event.split(":")[1]: r.fields["vector"] for r in recs}
    assert vectors["local_timer_entry"] == vectors["local_timer_exit"] == 0xEC
    assert vectors["reschedule_entry"] == vectors["reschedule_exit"] == 0xFD
