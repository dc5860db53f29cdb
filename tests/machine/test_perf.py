"""perf_events in the emulated kernel (kernel/events/core.c, kernel/trace_event_perf.c), driven by
the guest program perfev (kernel_model/user/perfev.c) as perf stat drives a kernel: counts of
tracepoints and software events, groups, inheritance, enable_on_exec, per-cpu events, the ioctls,
and the errnos of Linux 6.1 for bad calls."""
import re
import struct
import time

from guest_events import number_events as event_ids

EINVAL, ENOENT, E2BIG, EBADF, ESRCH, ENOSPC, ENOTTY, EOPNOTSUPP, EOVERFLOW = 22, 2, 7, 9, 3, 28, 25, 95, 75


def perfev(machine, run_program, *args):
    status, out = run_program(machine, ["perfev", *map(str, args)])
    text = out.decode()
    assert status == 0, text
    return text


def fields(text, label):
    """{name: int} of the `label: a=1 b=2` line."""
    line = next(l for l in text.splitlines() if l.startswith(label + ":"))
    return {k: int(v) for k, v in re.findall(r"(\S+?)=(-?\d+)", line)}


def answers(text):
    """{what: number} of the `what: number` lines."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^([^:=\n]+): (-?\d+)$", text, re.M)}


def test_tracepoint_counts_sys_enter_getuid(make_machine, run_program):
    m = make_machine(cpus=2)
    ids = event_ids(m)
    tp = fields(perfev(m, run_program, "tp", ids["sys_enter_getuid"], 37), "tp")
    assert tp["read"] == 32 and tp["count"] == 37   # value, enabled, running, id
    assert tp["enabled"] == tp["running"] > 0
    # the same program counting another syscall's entries: none of its getuid calls
    other = fields(perfev(m, run_program, "tp", ids["sys_enter_getpid"], 37), "tp")
    assert other["count"] == 0


def test_raw_tracepoint_counts(make_machine, run_program):
    """A tracepoint with its own key (raw_syscalls:sys_enter): every syscall the task makes."""
    m = make_machine(cpus=1)
    ids = event_ids(m)
    tp = fields(perfev(m, run_program, "tp", ids["sys_enter"], 20), "tp")
    # the 20 getuid calls, then the read of the counter itself (entered before it is read)
    assert tp["count"] == 21


def test_context_switches_of_a_sleeping_task(make_machine, run_program):
    # seeded: the virtual clock moves only as the guest runs, so no 1 ms sleep has expired
    # before its task sleeps (live, host time may pass it by and the task runs on)
    m = make_machine(cpus=2, seed=1)
    out = perfev(m, run_program, "cs", 6)
    cs, clock = fields(out, "cs"), fields(out, "task-clock")
    assert cs["count"] == 6         # each sleep switches away once
    assert clock["count"] > 0 and clock["enabled"] == clock["running"]


def test_group_read_format(make_machine, run_program):
    m = make_machine(cpus=1)
    ids = event_ids(m)
    out = perfev(m, run_program, "group", ids["sys_enter_getuid"], 9)
    got = answers(out)
    assert got["short read"] == -ENOSPC
    g = fields(out, "group")
    # nr, time_enabled, {value, id} x 2: the leader was off for the first 9 calls
    assert g["read"] == 48 and g["nr"] == 2 and g["leader"] == 9
    assert g["sibling"] >= 1
    ids_line = fields(out, "ids")
    assert re.search(rf"leader={g['leader']} id={ids_line['leader']} sibling=\d+ id={ids_line['sibling']}", out)
    assert got["sibling as leader"] == got["leader on cpu 0"] == got["pinned sibling"] == -EINVAL


def test_inherit_counts_the_children(make_machine, run_program):
    m = make_machine(cpus=2)
    ids = event_ids(m)
    out = perfev(m, run_program, "inherit", ids["sys_enter_getuid"], 11)
    assert fields(out, "inherit")["count"] == 11
    assert answers(out)["non-inherit sibling"] == -EINVAL


def test_enable_on_exec(make_machine, run_program):
    """perf stat -- CMD: disabled until the child's exec; its 3 calls before it are not counted."""
    m = make_machine(cpus=2)
    ids = event_ids(m)
    out = perfev(m, run_program, "exec", ids["sys_enter_getuid"], 5)
    assert fields(out, "exec")["count"] == 5


def test_per_cpu_event(make_machine, run_program):
    m = make_machine(cpus=1)
    ids = event_ids(m)
    got = fields(perfev(m, run_program, "cpu", ids["sys_enter_getuid"], 0, 8), "cpu")
    assert got["count"] == 8 and got["enabled"] == got["running"] > 0


def test_ioctls(make_machine, run_program):
    m = make_machine(cpus=1)
    ids = event_ids(m)
    out = perfev(m, run_program, "ioctl", ids["sys_enter_getuid"], 4)
    assert fields(out, "disabled")["count"] == 0 and fields(out, "disabled")["enabled"] == 0
    enabled = fields(out, "enabled")
    assert enabled["count"] == 4
    again = fields(out, "disabled again")
    assert again["count"] == 4 and again["enabled"] >= enabled["enabled"]
    reset = fields(out, "after reset")
    assert reset["count"] == 0 and reset["enabled"] == again["enabled"]  # off: its time stands still
    got = answers(out)
    assert got["enable"] == got["disable"] == got["reset"] == 0
    assert re.search(rf"^id: 0 {enabled['id']}$", out, re.M)
    assert got["period of a counting event"] == got["refresh of a counting event"] == -EINVAL
    assert got["unknown ioctl"] == got["ioctl on stdout"] == -ENOTTY
    assert got["set_output to an unmapped event"] == -EINVAL
    assert got["set_output -1"] == 0
    assert got["set_output to a non-perf fd"] == -EBADF


def test_errnos_of_bad_calls(make_machine, run_program):
    """What Linux 6.1's perf_copy_attr / perf_event_open / perf_event_alloc answer."""
    m = make_machine(cpus=2)
    ids = event_ids(m)
    out = perfev(m, run_program, "errors", ids["sys_enter_getuid"])
    got = answers(out)
    assert got["valid"] >= 0 and got["size 0 (VER0)"] >= 0 and got["size 144, zero tail"] >= 0
    assert got["size 32"] == got["size 144, tail set"] == -E2BIG
    assert re.findall(r"^size written back: (\d+)$", out, re.M) == ["128", "128"]
    assert got["type 99"] == got["software config 12"] == -ENOENT
    # the cpu PMU (kernel/events/x86_pmu.c): cycles and instructions, by their generic and raw
    # configs; the events the machine does not count are absent, as a PMU without them says
    assert got["hardware cycles"] >= 0 and got["raw 0x3c"] >= 0
    assert got["hardware instructions"] >= 0 and got["raw 0xc0"] >= 0
    assert (got["hardware branch misses"] == got["raw 0xc5"] == got["raw 0xc0 umask 1"]
            == got["hw cache L1D read access"] == -ENOENT)
    assert got["hardware config 10"] == got["raw 0x3c cmask 1"] == -EINVAL
    assert got["cycles precise_ip 1"] == -EOPNOTSUPP  # no PEBS: perf lowers precise_ip and retries
    assert got["callchain deeper than perf_event_max_stack"] == -EOVERFLOW  # get_callchain_buffers()
    for what in ["bad flags", "tracepoint id 0xfffff", "sample_type bit 25", "read_format bit 5",
                 "reserved bit", "inherit_thread without inherit", "remove_on_exec and enable_on_exec",
                 "freq above the max rate", "period bit 63", "inherit with SAMPLE_READ",
                 "pid -1 cpu -1", "cpu 64", "cgroup with pid -1"]:
        assert got[what] == -EINVAL, what
    assert got["pid 99999"] == -ESRCH
    assert got["group fd 1 (not perf)"] == got["group fd 15 (closed)"] == -EBADF


def test_nothing_left_behind(make_machine, run_program):
    """The events die with their fds (and their children with their tasks): every jump label
    perf owns (the tracepoints' perf sites, the software events' and the scheduler's hooks) is
    the image's nop again once the programs exit."""
    m = make_machine(cpus=1)
    ids = event_ids(m)
    image = m.image
    host_keys = {e.key_addr for e in image.events} | {image.addr("trace_cmdline_key")}
    perf_sites = [e.code for e in image.jump_entries if e.key not in host_keys]
    # each trace_<event>() call has its perf site beside the trace's, and the hooks have theirs
    assert len(perf_sites) > len([e for e in image.jump_entries if e.key in host_keys]) - 10
    perfev(m, run_program, "inherit", ids["sys_enter_getuid"], 3)
    perfev(m, run_program, "group", ids["sched_switch"], 2)
    perfev(m, run_program, "cs", 2)
    status, _ = run_program(m, ["perfev", "crash", str(ids["sys_enter_getuid"])])
    assert status == 128 + 11  # killed by SIGSEGV with its events open, one child holding inherited ones
    time.sleep(0.1)      # the child's sleep ends: it exits, with the last of them
    m.read_memory(image.text_range[0], 1)
    assert {m.read_memory(s, 5) for s in perf_sites} == {bytes.fromhex("0f1f440000")}


def test_set_filter(make_machine, run_program):
    """PERF_EVENT_IOC_SET_FILTER: the kernel parses the filter over the event's fields."""
    m = make_machine(cpus=1, seed=2)
    ids = event_ids(m)
    out = perfev(m, run_program, "filter", ids["sys_enter"], ids["sched_switch"], 5)
    got = answers(out)
    assert got["filter"] == got["glob filter"] == 0
    assert got["second filter"] == -17            # EEXIST: one filter an event
    assert got["software event"] == got["unknown field"] == got["string op on a number"] \
        == got["unbalanced"] == -EINVAL
    assert got["fd not open"] == -EBADF and got["bad pointer"] == -14
    assert fields(out, "raw")["count"] == 10      # the 5 getuid and 5 getpid calls, no other
    assert fields(out, "switch")["count"] == 5    # perfev switching out to sleep


def _cycles(m, run_program, loops, period, spin=0, modes=False):
    out = perfev(m, run_program, "cycles", loops, period, spin)
    got = fields(out, "cycles"), fields(out, "sampling")
    return (*got, fields(out, "user"), fields(out, "kernel")) if modes else got


def test_cycles_count_the_time_a_task_ran(make_machine, run_program):
    """The cpu PMU's cycles (hostif.h's struct hostif_pmu): the virtual TSC's cycles (2 GHz) of the
    slices the task's cpu ran while the task was on it.  Seeded, the clock is code executed, so
    the same program counts the same each run; ten times the work counts about ten times more."""
    m = make_machine(cpus=1, seed=7)
    small, small_sampling = _cycles(m, run_program, 200, 20_000)
    again, _ = _cycles(m, run_program, 200, 20_000)
    big, big_sampling = _cycles(m, run_program, 2000, 20_000)
    assert small["read"] == 32 and small["enabled"] == small["running"] > 0
    assert 0 < small["count"] == again["count"]
    assert 5 * small["count"] < big["count"] < 20 * small["count"]
    # 2 cycles a ns of the clock, at most: a task's cycles fit in its running time
    assert small["count"] <= 2 * small["running"] + 2 * 1_000_000
    # the sampling event counts the same cycles as the counting one (it was opened just after)
    assert abs(big_sampling["count"] - big["count"]) <= big["count"] // 10


def _nmi_count(m):
    """PMIs the guest's NMI handler took on cpu 0 (x86_pmu.c's apic_perf_irqs)."""
    return struct.unpack("<Q", m.read_memory(m.image.addr("apic_perf_irqs"), 8))[0]


def test_cycles_sampling_takes_nmis_only_while_a_counter_interrupts(make_machine, run_program):
    """A sampling cycles event's overflows come as NMIs (asm_exc_nmi -> exc_nmi -> default_do_nmi
    -> nmi_handle -> perf_event_nmi_handler -> intel_pmu_handle_irq); with no event open the PMU
    is off and no NMI comes."""
    m = make_machine(cpus=1, seed=7)
    before = _nmi_count(m)
    time.sleep(0.2)
    assert _nmi_count(m) == before  # nothing counting: no NMI
    _, sampling = _cycles(m, run_program, 2000, 20_000)
    after = _nmi_count(m)
    time.sleep(0.2)
    assert _nmi_count(m) == after  # its event closed: the PMU is off again
    # one NMI per period the sampling event counted: the machine ends the slice at the overflow
    assert sampling["count"] > 50 * 20_000
    periods = sampling["count"] // 20_000
    assert abs((after - before) - periods) <= 2 + periods // 20


def test_cycles_of_user_mode_and_of_the_kernel(make_machine, run_program):
    """cycles:u and cycles:k (exclude_kernel, exclude_user): the kernel tells the machine as it
    enters from user mode and returns there, so the two split the task's cycles between them;
    a user-mode loop goes to cycles:u, getuid calls mostly to cycles:k."""
    m = make_machine(cpus=1, seed=7)
    calls, _, calls_u, calls_k = _cycles(m, run_program, 2000, 10**9, 0, modes=True)
    spin, _, spin_u, spin_k = _cycles(m, run_program, 0, 10**9, 300_000, modes=True)
    for total, u, k in ((calls, calls_u, calls_k), (spin, spin_u, spin_k)):
        assert u["count"] > 0 and k["count"] > 0
        # (the total was opened first: it has the cycles of opening the other three besides)
        assert abs(u["count"] + k["count"] - total["count"]) <= total["count"] // 10, (total, u, k)
    assert calls_k["count"] > calls_u["count"]
    assert spin_u["count"] > 5 * spin_k["count"]


def _insns(m, run_program, loops, period):
    out = perfev(m, run_program, "insns", loops, period)
    return {k: fields(out, k) for k in ("instructions:u", "branches:u", "instructions:k", "sampling")}


def test_instructions_and_branches_retired(make_machine, run_program):
    """The cpu PMU's instructions (0xc0) and branch instructions (0xc4) retired, counted by the
    blocks the cpu runs (native/pmu_insn.c): a loop of n rounds of `dec; jnz` counts 2n
    instructions and n branches in user mode, give or take the few instructions around the
    ioctls that enable and disable the group, and a rep stosb of 4 KiB after it one (not one a
    round); the getuid calls count in the kernel's."""
    m = make_machine(cpus=1, seed=7)
    n = 100_000
    got = _insns(m, run_program, n, 10**9)
    u, b, k = got["instructions:u"], got["branches:u"], got["instructions:k"]
    assert u["enabled"] == u["running"] > 0, got
    assert 2 * n <= u["count"] <= 2 * n + 200, got
    assert n <= b["count"] <= n + 50, got
    assert 1000 < k["count"] < 200_000, got
    again = _insns(m, run_program, n, 10**9)  # seeded: the same counts
    assert [again[e]["count"] for e in ("instructions:u", "branches:u")] == [u["count"], b["count"]]


def test_instructions_sampling_takes_an_nmi_a_period(make_machine, run_program):
    """A sampling instructions event: one NMI per period counted, and the instructions hook gone
    with the event (the machine's CPUs run without it again)."""
    m = make_machine(cpus=1, seed=7)
    before = _nmi_count(m)
    sampling = _insns(m, run_program, 300_000, 20_000)["sampling"]
    periods = sampling["count"] // 20_000
    assert sampling["count"] >= 600_000 and periods >= 30, sampling
    assert abs((_nmi_count(m) - before) - periods) <= 2 + periods // 20
    assert not any(cpu.events.pmu_insn_hooked for cpu in m._cpus)


def test_a_sampling_event_past_the_max_sample_rate_is_throttled(make_machine, run_program):
    """perf_event_max_sample_rate / HZ overflows an event may take in a tick of its cpu: the one
    past that throttles it (its counter stopped, PERF_RECORD_THROTTLE) until the cpu's next tick
    (perf_event_task_tick: PERF_RECORD_UNTHROTTLE, started again).  At 250 a second (one a tick
    of HZ=250), a period of 20,000 cycles that overflows some 400 times a tick takes two NMIs a
    tick; at the default 100,000 (400 a tick) it takes them all."""
    from tracefs_sim.machine.sysctls import kernel_sysctls
    m = make_machine(cpus=1, seed=7)
    rate = kernel_sysctls(m)["perf_event_max_sample_rate"]
    assert rate.read() == b"100000\n"
    before = _nmi_count(m)
    _, free = _cycles(m, run_program, 20_000, 20_000)
    free_nmis = _nmi_count(m) - before
    assert abs(free_nmis - free["count"] // 20_000) <= 2 + free_nmis // 20
    assert rate.write_at(b"250\n") == 4 and rate.read() == b"250\n"
    before = _nmi_count(m)
    _, throttled = _cycles(m, run_program, 20_000, 20_000)
    throttled_nmis = _nmi_count(m) - before
    ticks = throttled["running"] // 4_000_000 + 1
    assert 0 < throttled_nmis <= 2 * ticks + 2, (throttled_nmis, ticks, throttled)
    assert throttled_nmis < free_nmis // 4
