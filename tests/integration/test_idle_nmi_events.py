"""power:cpu_idle, the idle loop's entry to and exit from idle, as 6.1's default_idle_call
emits them on a machine without a cpuidle driver (the reference VM's): state 1 with interrupts
off before the halt, PWR_EVENT_EXIT (4294967295) with them on after the wake-up, on each cpu in
turn; with the function tracer, the idle loop's functions around them in 6.1's order.  And
nmi:nmi_handler, each NMI handler's run as nmi_handle() times it, in the NMI context ('Z')."""
import os
import re

import pytest

from simtest import quiet  # noqa: F401 (a fixture)

EVENT = re.compile(r"^\s+<idle>-0\s+\[(\d{3})\] (\S{5})\s+[\d.]+: cpu_idle: state=(\d+) cpu_id=(\d+)$")
IDLE_FUNCTIONS = "arch_cpu_idle_enter tick_nohz_idle_stop_tick default_idle_call arch_cpu_idle arch_cpu_idle_exit"


def test_cpu_idle_pairs_on_each_cpu(quiet):
    run, guest = quiet
    run("echo 1 > events/power/cpu_idle/enable")
    for _ in range(3):
        guest("sleep", "0.05")   # (with no workload, a cpu idles until something wakes it)
    out = run("echo 0 > events/power/cpu_idle/enable; grep -v '^#' trace")
    events = [EVENT.match(line) for line in out.splitlines()]
    assert events and all(events), repr(out)
    for cpu in ("000", "001"):
        mine = [(m.group(2), int(m.group(3))) for m in events if m.group(1) == cpu]
        assert len(mine) >= 4, out
        assert all(int(m.group(4)) == int(m.group(1)) for m in events), out
        # (the first may be either: the recording began inside or outside an idle stretch)
        states = [state for _, state in mine]
        start = 0 if states[0] == 1 else 1
        assert states[start:] == [1, 4294967295] * ((len(states) - start) // 2) + [1] * ((len(states) - start) % 2), out
        for flags, state in mine:
            # entry: irqs off, preemption off (the idle task's count); exit: irqs back on, and
            # need-resched when the interrupt that ended it woke a task
            assert flags in (("d..1.",) if state == 1 else ("...1.", ".N.1.")), out


def test_idle_functions_in_61s_order(quiet):
    run, guest = quiet
    run(f"echo '{IDLE_FUNCTIONS}' > set_ftrace_filter; echo 1 > events/power/cpu_idle/enable; "
        "echo function > current_tracer")
    for _ in range(3):
        guest("sleep", "0.05")
    out = run("echo 0 > tracing_on; grep -v '^#' per_cpu/cpu1/trace per_cpu/cpu0/trace; echo nop > current_tracer")
    lines = [re.sub(r"^.*?\d: ", "", line) for line in out.splitlines()]
    # one idle stretch, as 6.1 traces it (the reference VM's cpu 1)
    stretch = ["arch_cpu_idle_enter <-do_idle", "tick_nohz_idle_stop_tick <-do_idle", "default_idle_call <-do_idle",
               "cpu_idle: state=1 cpu_id=1", "arch_cpu_idle <-default_idle_call",
               "cpu_idle: state=4294967295 cpu_id=1", "arch_cpu_idle_exit <-do_idle"]
    at = lines.index(stretch[0])
    assert lines[at:at + len(stretch)] == stretch, out


NMI = re.compile(r"^\s+\S+-\d+\s+\[\d{3}\] (\S{5})\s+[\d.]+: nmi_handler: (\w+)\(\) delta_ns: (-?\d+) handled: (\d+)$")


def test_nmi_handler_for_each_pmi(quiet):
    """perfev samples cycles every 100,000: each overflow's NMI runs perf's handler, the one
    registered for NMI_LOCAL, under nmi_handle (and the function tracer sees that chain)."""
    run, guest = quiet
    run("echo 'nmi_handle perf_event_nmi_handler' > set_ftrace_filter; echo 1 > events/nmi/nmi_handler/enable; "
        "echo function > current_tracer")
    guest("perfev", "cycles", "100", "100000", "1000000")
    out = run("echo 0 > tracing_on; grep -v '^#' trace; echo nop > current_tracer")
    calls = [re.sub(r"^.*?\d: ", "", line) for line in out.splitlines() if " <-" in line]
    events = [NMI.match(line) for line in out.splitlines() if "nmi_handler:" in line]
    assert len(events) >= 10 and all(events), out
    for m in events:
        # irqs off, NMI and hardirq context (__nmi_enter)
        flags, handler, delta, handled = m.groups()
        assert flags[0] == "d" and flags[2] == "Z", out
        assert handler == "perf_event_nmi_handler" and int(delta) >= 0 and handled in ("0", "1"), out
    assert any(m.group(4) == "1" for m in events), out
    assert calls[:2] == ["nmi_handle <-default_do_nmi", "perf_event_nmi_handler <-nmi_handle"], out


RSS = re.compile(r"^\s+(\S+)-\d+\s+\[\d{3}\] \S{5}\s+[\d.]+: rss_stat: mm_id=0 curr=(\d) type=(\w+) size=(\d+)B$")


def test_rss_stat_from_the_tasks_cache(quiet):
    """kmem:rss_stat as 6.1 builds x86-64 (SPLIT_RSS_COUNTING): a task's faults change its own
    mm's counters in a per-task cache, added to the mm (and traced) every 64 faults and at exit;
    so memhog writing 4 MiB (1,024 pages) makes a few dozen events, its anonymous pages' size
    growing by about 64 pages each, not one a page.  (mm_id: the %p hash's key is not ready, as
    on the reference VM.)"""
    run, guest = quiet
    run("echo 1 > events/kmem/rss_stat/enable")
    guest("memhog", "4")
    out = run("echo 0 > events/kmem/rss_stat/enable; grep -v '^#' trace")
    events = [RSS.match(line) for line in out.splitlines()]
    assert events and all(events), out
    own = [int(m.group(4)) for m in events if m.group(1) == "memhog" and m.group(2) == "1"
           and m.group(3) == "MM_ANONPAGES"]
    assert 10 <= len(own) <= 40, out
    assert own == sorted(own) and own[-1] >= 1024 * 4096, out
    steps = [b - a for a, b in zip(own, own[1:])]
    assert all(step % 4096 == 0 and step <= 66 * 4096 for step in steps), out


@pytest.mark.skipif(not os.path.exists("/bin/busybox"), reason="needs Debian's busybox-static")
def test_rss_stat_of_another_mm_is_under_its_page_table_lock(quiet):
    """A change of an mm that is not the task's own (a fork's copy into the child's, an exec's
    pages of the new mm, the old one's unmapping) is made under the page table's lock, as 6.1's
    copy_pte_range / zap_pte_range / do_anonymous_page make it: `...1.`, as on the reference VM;
    the task's own cache added to its mm (sync_mm_rss, curr=1) is not: `.....`."""
    run, guest = quiet
    run("echo 1 > events/kmem/rss_stat/enable")
    guest("/bin/busybox", "sh", "-c", "ls / > /dev/null; true | true")
    out = run("echo 0 > events/kmem/rss_stat/enable; grep -v '^#' trace")
    flags = {(line.split()[2], "curr=1" in line) for line in out.splitlines() if "rss_stat" in line}
    assert ("...1.", False) in flags and (".....", True) in flags, out
    assert {f for f, own in flags if not own} == {"...1."}, out
