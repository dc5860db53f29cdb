"""Timers: the jiffies timer wheel, hrtimers, the tick, the jiffies clock."""
import struct

from guest_events import EventCapture

SOFTIRQ = 0x10  # TRACE_FLAG_SOFTIRQ
HARDIRQ = 0x08
INITIAL_JIFFIES = 2**32 - 300 * 250
HRTIMER_MODE_REL, HRTIMER_MODE_ABS_PINNED_HARD = 0x01, 0x0A
CLOCK_MONOTONIC = 1
TIMER_DEFERRABLE, TIMER_IRQSAFE = 0x00080000, 0x00200000


def symbol(machine, addr):
    found = machine.image.kallsyms_lookup(addr)
    return found[0].name if found else hex(addr)


def test_jiffies_start_five_minutes_before_they_wrap(make_machine, image):
    m = make_machine(cpus=1)
    addr = image.lookup("jiffies").addr
    assert addr == image.lookup("jiffies_64").addr and image.lookup("jiffies").type == "D"
    jiffies = struct.unpack("<Q", m.read_memory(addr, 8))[0]
    assert INITIAL_JIFFIES <= jiffies < INITIAL_JIFFIES + 250 * 60


def test_the_wheel_runs_vmstats_timers_in_the_timer_softirq(make_machine):
    """vmstat's delayed works have deferrable, irqsafe timers (a second) on the wheel; they
    expire in TIMER_SOFTIRQ: timer_start, then timer_cancel (detached), expire_entry, exit."""
    m = make_machine(cpus=2, workload="default")  # deferrable: they wait for a busy cpu
    cap = EventCapture(m)
    cap.enable("timer:timer_start", "timer:timer_cancel", "timer:timer_expire_entry", "timer:timer_expire_exit")
    # (other timers may expire first: rcu_sched's one-jiffy waits while a grace period is due)
    vmstat = lambda r: symbol(m, r.fields["function"]) == "delayed_work_timer_fn"
    recs = cap.wait_for("timer:timer_expire_entry", timeout=5, where=vmstat)
    entry = next(r for r in recs if r.event == "timer:timer_expire_entry" and vmstat(r))
    timer = entry.fields["timer"]
    recs = cap.wait_for("timer:timer_expire_exit", timeout=5, where=lambda r: r.fields["timer"] == timer)
    assert entry.fields["common_flags"] & SOFTIRQ
    assert entry.fields["now"] >= entry.fields["baseclk"] >= INITIAL_JIFFIES
    mine = [r.event for r in recs if r.fields["timer"] == timer and r.cpu == entry.cpu]
    at = mine.index("timer:timer_expire_entry")
    assert mine[at - 1:at + 2] == ["timer:timer_cancel", "timer:timer_expire_entry", "timer:timer_expire_exit"]
    starts = [r for r in recs if r.event == "timer:timer_start" and r.fields["timer"] == timer]
    for r in starts:  # armed a second ahead (rounded to a whole second), deferrable and irqsafe
        assert r.fields["flags"] & (TIMER_DEFERRABLE | TIMER_IRQSAFE) == TIMER_DEFERRABLE | TIMER_IRQSAFE
        assert 0 < r.fields["expires"] - r.fields["now"] <= 250 + 250 // 4


def test_nanosleep_arms_an_hrtimer_with_the_tasks_slack(make_machine, run_program):
    m = make_machine(cpus=1, workload="none")
    cap = EventCapture(m)
    cap.enable("timer:hrtimer_init", "timer:hrtimer_start", "timer:hrtimer_expire_entry",
               "timer:hrtimer_expire_exit", "timer:hrtimer_cancel")
    run_program(m, ["sleep", "0.01"])
    recs = cap.records()
    # the sleeper's timer: the one started with hrtimer_wakeup (a fork inits others: the new
    # thread group's ITIMER_REAL timer, as in 6.1's copy_signal)
    start = next(r for r in recs if r.event == "timer:hrtimer_start" and symbol(m, r.fields["function"]) == "hrtimer_wakeup")
    timer = start.fields["hrtimer"]
    mine = [r for r in recs if r.fields["hrtimer"] == timer]
    init = next(r for r in mine if r.event == "timer:hrtimer_init")
    assert init.fields["mode"] == HRTIMER_MODE_REL and init.fields["clockid"] == CLOCK_MONOTONIC
    assert start.fields["expires"] - start.fields["softexpires"] == 50_000  # timer_slack_ns
    entry = next(r for r in mine if r.event == "timer:hrtimer_expire_entry")
    assert entry.fields["common_flags"] & HARDIRQ and entry.fields["now"] >= start.fields["softexpires"]
    # an expiry takes the timer off with no hrtimer_cancel (6.1's is hrtimer_try_to_cancel's)
    assert [r.event for r in mine][-3:] == ["timer:hrtimer_start", "timer:hrtimer_expire_entry",
                                            "timer:hrtimer_expire_exit"]


def test_the_tick_is_an_hrtimer_that_idle_cpus_stop(make_machine):
    m = make_machine(cpus=2, workload="default")
    cap = EventCapture(m)
    cap.enable("timer:hrtimer_start", "timer:tick_stop")
    recs = cap.wait_for("timer:tick_stop", timeout=5)
    stop = next(r for r in recs if r.event == "timer:tick_stop")
    assert (stop.fields["success"], stop.fields["dependency"]) == (1, 0)
    ticks = [r for r in recs if r.event == "timer:hrtimer_start" and symbol(m, r.fields["function"]) == "tick_sched_timer"]
    assert ticks and {r.fields["mode"] for r in ticks} <= {0, HRTIMER_MODE_ABS_PINNED_HARD}
