"""The emulated PMU in a session: Debian's perf counts and samples the `cycles`, `instructions`
and `branches` hardware events of the emulated kernel (kernel/events/x86_pmu.c, the machine's
counters in native/pmu.h and native/pmu_insn.c): perf stat counts, perf record samples on counter
overflow through an NMI (asm_exc_nmi) with kernel call chains, by a fixed period (-c) or at a
frequency (perf's default -F 4000)."""

import os
import re
import shutil

import pytest
from simtest import tracefs_sim

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed"),
]
TSC_HZ = 2_000_000_000  # trace/clock.py's TSC_KHZ: the cycles of a second of running
REPORT_LINE = re.compile(r"^ +(\d+\.\d+)% +(\S+) +\[kernel\.vmlinux\] +\[k\] (\S+)$")
# a frame of a call graph under an entry: `---name`, `|--12.34%--name`, or a name alone
CHAIN_LINE = re.compile(r"^[ |]+(?:---|\|--[\d.]+%--)?([A-Za-z_][\w.]*)$", re.M)


def run(script: str, timeout: float = 180):
    return tracefs_sim("run", "-c", script, timeout=timeout)


def stat_counts(text: str) -> dict[str, str]:
    """perf stat -x, lines: event -> its count field (a number, or <not supported>)."""
    counts = {}
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 3 and fields[2] in ("cycles", "instructions", "branches", "context-switches"):
            counts[fields[2]] = fields[0]
    return counts


def test_perf_stat_counts_cycles_instructions_system_wide_and_of_a_command():
    result = run("nproc; perf stat -x, -e cycles,instructions,context-switches -a sleep 1 2>&1; echo ==; "
                 "perf stat -x, -e cycles,instructions,branches -- ls / 2>&1 >/dev/null; echo ==; "
                 "perf stat -x, -e cache-misses -- true 2>&1")
    assert result.returncode == 0, result.stderr
    system, command, cache = result.stdout.split("\n==\n")
    ncpu = int(system.split()[0])
    wide = stat_counts(system)
    # cycles of the CPUs while they ran guest code: some, at most all of the second on each cpu
    assert 0 < int(wide["cycles"]) < 1.2 * TSC_HZ * ncpu, result.stdout
    # instructions the emulated CPUs ran: at most one a cycle under Unicorn, and some
    assert 0 < int(wide["instructions"]) < int(wide["cycles"]), result.stdout
    assert int(wide["context-switches"]) > 0, result.stdout
    # ls's task: the kernel's work for its calls (its own code runs on the host)
    of_ls = stat_counts(command)
    assert int(of_ls["cycles"]) > 0 and 0 < int(of_ls["branches"]) < int(of_ls["instructions"]), result.stdout
    assert "<not supported>,,cache-misses" in cache  # the machine counts no cache events


def test_perf_record_cycles_by_period_with_kernel_call_chains(tmp_path):
    data = tmp_path / "perf.data"
    result = run(f"perf record -o {data} -e cycles -c 100000 -g -a sleep 1 && "
                 f"perf report -i {data} --stdio --no-children && echo == && "
                 f"perf script -i {data} -F period && echo == && cat /proc/kallsyms")
    assert result.returncode == 0, result.stderr
    report, periods, kallsyms = result.stdout.split("\n==\n")
    symbols = {line.split()[2] for line in kallsyms.splitlines()}
    assert periods.split() and set(periods.split()) == {"100000"}  # each sample one period
    tops = [(float(m.group(1)), m.group(3)) for line in report.splitlines() if (m := REPORT_LINE.match(line))]
    assert tops, report
    # the hottest entry first, each an emulated kernel function
    assert [pct for pct, _ in tops] == sorted((pct for pct, _ in tops), reverse=True)
    assert all(sym in symbols for _, sym in tops), tops
    # call chains under the entries: the callers of the sampled functions, by frame pointers
    chain_names = {m.group(1) for m in CHAIN_LINE.finditer(report)} & symbols
    assert chain_names - {sym for _, sym in tops}, report


def test_perf_record_cycles_at_perfs_default_frequency(tmp_path):
    """No -c: perf asks for 4000 samples a second (attr.freq); the kernel starts at a period of 1
    and moves it toward the rate's (perf_adjust_period at each overflow)."""
    data = tmp_path / "perf.data"
    result = run(f"perf record -o {data} -e cycles -a sleep 1 && perf script -i {data} -F cpu,period && uname -r")
    assert result.returncode == 0, result.stderr
    *lines, release = result.stdout.splitlines()
    assert release.endswith("tracefs-sim")  # the emulated kernel still serves the session after it
    per_cpu: dict[str, list[int]] = {}
    for line in lines:
        cpu, period = line.split()
        per_cpu.setdefault(cpu, []).append(int(period))
    assert per_cpu, result.stderr
    periods = max(per_cpu.values(), key=len)
    assert periods[0] < 100 < max(periods)  # from 1 up, not a fixed period
    # never beyond the cycles of a second at 4000 a second, over a few filter steps
    assert max(p for ps in per_cpu.values() for p in ps) < 8 * TSC_HZ // 4000


def test_the_pmi_enters_through_the_nmi_handler_only_while_a_counter_samples(tmp_path):
    """The function tracer on perf_event_nmi_handler (asm_exc_nmi -> exc_nmi -> default_do_nmi ->
    nmi_handle -> it): no hit while nothing counts, hits while perf record samples cycles."""
    tr = "/sys/kernel/tracing"
    result = run(f"echo perf_event_nmi_handler > {tr}/set_ftrace_filter && echo function > {tr}/current_tracer && "
                 f"sleep 0.5 && echo idle $(grep -c perf_event_nmi_handler {tr}/trace) && "
                 f"perf record -o {tmp_path / 'perf.data'} -e cycles -c 200000 -a sleep 0.5 2>/dev/null; "
                 f"echo sampling $(grep -c perf_event_nmi_handler {tr}/trace); echo nop > {tr}/current_tracer")
    assert result.returncode == 0, result.stderr
    counts = dict(line.split() for line in result.stdout.splitlines() if line.startswith(("idle", "sampling")))
    assert counts["idle"] == "0", result.stdout
    assert int(counts["sampling"]) > 10, result.stdout


def test_the_cpu_pmu_in_sysfs_and_its_raw_events():
    """/sys/bus/event_source/devices/cpu as 6.1 shows Intel's: type 4, the raw config's fields,
    the named events the machine counts (cycles, instructions, branches); perf takes
    `cpu/event=0x3c/` from them."""
    dev = "/sys/bus/event_source/devices/cpu"
    result = run(f"cat {dev}/type {dev}/format/event {dev}/format/umask {dev}/format/cmask; ls {dev}/events; "
                 f"cat {dev}/events/cpu-cycles; perf stat -x, -e cpu/event=0x3c/,cpu/cpu-cycles/ -a sleep 0.2 2>&1")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:8] == ["4", "config:0-7", "config:8-15", "config:24-31",
                         "branch-instructions", "cpu-cycles", "instructions", "event=0x3c"], lines
    counts = {f[2]: f[0] for f in (line.split(",") for line in lines[8:]) if len(f) > 3}
    assert int(counts["cpu/event=0x3c/"]) > 0 and int(counts["cpu/cpu-cycles/"]) > 0, lines


@pytest.mark.skipif(shutil.which("bpftrace") is None, reason="bpftrace is not installed")
def test_bpftrace_hardware_cycles_probe_counts_kernel_stacks():
    """bpftrace's `hardware:cycles:PERIOD`: a PERF_EVENT program on a sampling cycles event of
    each cpu, run in the NMI with the interrupted registers (its kstack)."""
    result = run("timeout -s INT 2 bpftrace -e 'hardware:cycles:1000000 { @[kstack(2)] = count(); }'; "
                 "echo ==; cat /proc/kallsyms")
    out, kallsyms = result.stdout.split("\n==\n")
    symbols = {line.split()[2] for line in kallsyms.splitlines()}
    frames = re.findall(r"^ +(\w+)\+\d+$", out, re.M)
    counts = [int(n) for n in re.findall(r"^\]: (\d+)$", out, re.M)]
    assert counts and sum(counts) >= 3, out
    assert frames and all(f in symbols for f in frames), out


def test_a_killed_perf_record_leaves_the_pmu_off(tmp_path):
    """perf killed mid-record: its events die with its fds, their counters stop, no NMI comes."""
    tr = "/sys/kernel/tracing"
    result = run(f"echo perf_event_nmi_handler > {tr}/set_ftrace_filter; echo function > {tr}/current_tracer; "
                 f"perf record -o {tmp_path / 'perf.data'} -e cycles -c 200000 -a sleep 10 2>/dev/null & pid=$!; "
                 # (sampling starts once perf has set up: later on a loaded box)
                 f"for i in $(seq 60); do n=$(grep -c perf_event_nmi_handler {tr}/trace); [ $n -gt 10 ] && break; "
                 f"sleep 0.5; done; echo before $n; kill -9 $pid; wait $pid; "
                 # (the session tears the killed process's task down as its supervisor sees it die)
                 f"for i in 1 2 3 4 5 6 7 8 9 10; do echo > {tr}/trace; sleep 0.5; "
                 f"n=$(grep -c perf_event_nmi_handler {tr}/trace); [ $n = 0 ] && break; done; "
                 f"echo after $n; echo nop > {tr}/current_tracer")
    counts = dict(line.split() for line in result.stdout.splitlines() if line.startswith(("before", "after")))
    assert int(counts["before"]) > 10, result.stdout  # it sampled
    assert counts["after"] == "0", result.stdout


def test_perf_stat_splits_cycles_between_user_mode_and_the_kernel():
    """cycles:u and cycles:k (exclude_kernel, exclude_user) split the machine's cycles: the
    emulated kernel's own programs run in user mode, a session's commands in the host."""
    result = run("perf stat -x, -e cycles,cycles:u,cycles:k -a sleep 1 2>&1")
    assert result.returncode == 0, result.stderr
    counts = {f[2]: int(f[0]) for f in (line.split(",") for line in result.stdout.splitlines())
              if len(f) > 3 and f[2].startswith("cycles")}
    total, user, kernel = counts["cycles"], counts["cycles:u"], counts["cycles:k"]
    assert user > 0 and kernel > 0, counts
    assert abs(user + kernel - total) <= total // 10, counts


def test_sampling_past_the_max_sample_rate_is_throttled(tmp_path):
    """kernel.perf_event_max_sample_rate is the emulated kernel's: at 1000 a second (4 a tick),
    a cpu-clock sampled every 100 us is throttled each tick it runs (PERF_RECORD_THROTTLE, the
    counter stopped) and started again at the next (PERF_RECORD_UNTHROTTLE), as perf report
    --stats counts them; perf itself lowers its default frequency to the rate."""
    data = tmp_path / "perf.data"
    with open("/proc/sys/kernel/perf_event_max_sample_rate") as f:
        host_rate = f.read()
    result = run(f"echo 1000 > /proc/sys/kernel/perf_event_max_sample_rate && "
                 f"perf record -e cpu-clock -c 100000 -a -o {data} sleep 0.5 2>/dev/null && "
                 f"perf report -i {data} --stats 2>&1; echo ==; perf record -F 5000 -a -o {data} true 2>&1")
    assert result.returncode == 0, result.stderr
    stats, lowered = result.stdout.split("\n==\n")
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^ +(\w+) events: +(\d+)", stats, re.M)}
    assert counts.get("THROTTLE", 0) > 0 and counts.get("UNTHROTTLE", 0) > 0, stats
    assert "1,000 Hz" in lowered or "1000 Hz" in lowered, lowered
    with open("/proc/sys/kernel/perf_event_max_sample_rate") as f:
        assert f.read() == host_rate  # the host's own is untouched


def test_pmis_that_take_too_long_lower_the_sample_rate(tmp_path):
    """6.1's perf_sample_event_took(): the emulated PMI (the sample and its call chain) takes
    more than perf_cpu_time_max_percent (25) of a 10 us sample period on average, so the kernel
    lowers perf_event_max_sample_rate, saying so in its log as 6.1 does; the sysctls' ranges and
    the rate's EINVAL while the percent is 100 (no throttling) are 6.1's."""
    result = run(f"""cd {tmp_path}
        cat /proc/sys/kernel/perf_cpu_time_max_percent /proc/sys/kernel/perf_event_max_sample_rate
        echo 101 > /proc/sys/kernel/perf_cpu_time_max_percent || echo refused
        perf record -q -e cycles -c 10000 -g -a -o p.data sleep 1 2>/dev/null
        cat /proc/sys/kernel/perf_event_max_sample_rate
        dmesg | grep 'perf: interrupt took too long' | tail -1
        echo 100 > /proc/sys/kernel/perf_cpu_time_max_percent
        echo 5000 > /proc/sys/kernel/perf_event_max_sample_rate || echo refused
        echo 25 > /proc/sys/kernel/perf_cpu_time_max_percent
        echo 5000 > /proc/sys/kernel/perf_event_max_sample_rate && cat /proc/sys/kernel/perf_event_max_sample_rate
        """)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["25", "100000", "refused"], result.stdout
    lowered = int(lines[3])
    assert lowered < 100000 and lowered % 250 == 0, result.stdout    # (max samples a tick) * HZ
    said = re.search(r"\] perf: interrupt took too long \((\d+) > (\d+)\), lowering "
                     r"kernel\.perf_event_max_sample_rate to (\d+)$", lines[4])
    assert said and int(said[1]) > int(said[2]) and int(said[3]) == lowered, result.stdout
    assert lines[5:] == ["refused", "5000"], result.stdout
