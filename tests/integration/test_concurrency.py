"""Concurrency (issue 8): several consumers of trace_pipe, readers of `trace` while events
stream, writers changing control files while the machine runs, instances created and removed
in a loop, and the per-CPU accounting of stats against an independently known event count.
Real mounts, real processes; every wait has a timeout; `no_leftovers` checks the host after."""

import os
import re
import signal
import subprocess
import time

import pytest
from simtest import TRACEFS_SIM, blocked_in_read, process_running, sh, wait_until

from tracefs_sim import control

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse and root"),
    pytest.mark.usefixtures("no_leftovers"),
]

# One line of sys_enter_getuid as trace/trace_pipe print it: "  comm-pid  [cpu] flags  ts: sys_getuid()".
# The timestamp: seconds.micros, or a plain count with the counter clock.
GETUID_LINE = re.compile(r"^\s*(\S.*)-(\d+)\s+\[(\d{3})\] \S{5}\s+(\d+(?:\.\d{6})?): sys_getuid\(\)$")
ENTRIES = re.compile(r"^# entries-in-buffer/entries-written: (\d+)/(\d+)   #P:(\d+)$", re.M)


def read(path) -> str:
    """The file as `cat` reads it (a separate process)."""
    result = subprocess.run(["cat", str(path)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, f"cat {path}: {result.stderr}"
    return result.stdout


def write(path, text: str) -> None:
    result = sh(path.parent, f"echo '{text}' > {path.name}")
    assert result.returncode == 0, f"echo {text} > {path}: {result.stderr}"


def run_getuids(mnt, count: int, timeout: float = 60) -> None:
    """`count` getuid syscalls in the emulated kernel, through the mount's control socket."""
    result = subprocess.run([TRACEFS_SIM, "exec", "--mount", str(mnt), "getuid-loop", str(count)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    assert result.returncode == 0, result.stderr


def getuid_only(mnt) -> None:
    write(mnt / "events/syscalls/sys_enter_getuid/enable", "1")
    assert read(mnt / "set_event") == "syscalls:sys_enter_getuid\n"


def cpu_stats(mnt, cpu: int) -> dict[str, int]:
    stats = {}
    for line in read(mnt / f"per_cpu/cpu{cpu}/stats").splitlines():
        key, _, value = line.partition(":")
        if not key.endswith(" ts"):  # oldest event ts, now ts: times, not counts
            stats[key] = int(value)
    return stats


def popen(argv, **kwargs) -> subprocess.Popen:
    """A process in its own group, as a shell runs a background job."""
    return subprocess.Popen(argv, process_group=0, **kwargs)


def stop(processes) -> None:
    """Ctrl-C to each process's group (a loop's children with it), SIGKILL if that is not enough."""
    for p in processes:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
    for p in processes:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(10)


def daemon_alive(mnt) -> bool:
    pid = control.daemon_from_pidfile(control.mount_socket_path(str(mnt)))
    return pid is not None and process_running(pid)


def test_trace_pipe_readers_share_events_exactly_once(mount_at, tmp_path):
    mnt = mount_at("--workload", "none")
    # The counter clock stamps every event with a distinct number (microseconds may collide).
    write(mnt / "trace_clock", "counter")
    getuid_only(mnt)
    outputs = [tmp_path / f"reader{i}" for i in range(3)]
    readers = [popen(["cat", str(mnt / "trace_pipe")], stdout=out.open("wb"),
                                stderr=subprocess.PIPE) for out in outputs]
    try:
        assert wait_until(lambda: all(blocked_in_read(r.pid) for r in readers), 20)
        run_getuids(mnt, 3000)

        def lines():
            return [line for out in outputs for line in out.read_text().splitlines()]
        assert wait_until(lambda: len(lines()) >= 3000, 30), f"{len(lines())} of 3000 lines"
        time.sleep(0.5)  # a duplicate would arrive meanwhile
    finally:
        stop(readers)
    every = lines()
    matched = [GETUID_LINE.match(line) for line in every]
    assert all(matched), [line for line, m in zip(every, matched) if not m][:5]
    assert len(every) == 3000
    assert len({m.group(4) for m in matched}) == 3000, "an event read twice"
    consumed = [cpu_stats(mnt, cpu) for cpu in range(2)]
    assert sum(s["read events"] for s in consumed) == 3000
    assert sum(s["entries"] for s in consumed) == 0
    assert read(mnt / "trace").count("sys_getuid()") == 0


def check_trace_snapshot(text: str, nr_cpus: int) -> tuple[int, int]:
    """A well-formed `trace`: header, then lines in time order (the CPUs' buffers merged by
    timestamp, as print_trace_line's iterator does); counts as the header says."""
    assert text.startswith("# tracer: nop\n#\n"), text[:200]
    header = ENTRIES.search(text)
    assert header and int(header.group(3)) == nr_cpus, text[:300]
    entries, written = int(header.group(1)), int(header.group(2))
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(lines) == entries, (len(lines), entries)
    assert written >= entries
    last = 0.0
    for line in lines:
        m = GETUID_LINE.match(line)
        assert m, line
        ts = float(m.group(4))
        assert ts >= last, f"out of time order: {line}"
        last = ts
    return entries, written


def test_trace_readers_while_events_stream(mount_at):
    mnt = mount_at("--workload", "none")
    getuid_only(mnt)
    producer = popen([TRACEFS_SIM, "exec", "--mount", str(mnt), "getuid-loop", "4000"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    snapshots = []
    try:
        while producer.poll() is None and len(snapshots) < 200:
            snapshots.append(check_trace_snapshot(read(mnt / "trace"), 2))
        assert producer.wait(60) == 0
    finally:
        stop([producer])
    assert snapshots, "no read while the producer ran"
    assert [w for _, w in snapshots] == sorted(w for _, w in snapshots), "entries-written went back"
    assert check_trace_snapshot(read(mnt / "trace"), 2) == (4000, 4000)


WRITERS = {
    "tracer": """for i in $(seq 60); do echo nop > current_tracer; echo 0 > tracing_on;
                 echo 1 > tracing_on; done; echo 0 > tracing_on""",
    "filter": """f=events/sched/sched_switch/filter
                 for i in $(seq 60); do echo 'prev_pid == 0' > $f; echo 'next_comm ~ "kworker*"' > $f;
                 echo 0 > $f; done; echo 'prev_prio < 100' > $f""",
    "set_event": """for i in $(seq 60); do echo '!sched:sched_switch' >> set_event;
                    echo sched:sched_switch >> set_event; done""",
    "enable": """for i in $(seq 60); do echo 1 > events/sched/sched_wakeup/enable;
                 echo 0 > events/sched/sched_wakeup/enable; done""",
}


def test_writers_change_state_while_machine_runs(mount_at, tmp_path):
    mnt = mount_at()
    # cat ends (EOF) when tracing goes off after it read something (tracing_wait_pipe), so the
    # reader is a loop that reopens; it stops only if a read fails.
    reader = popen(["bash", "-c", "while cat trace_pipe; do :; done; exit 1"], cwd=mnt,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    writers = {name: popen(["bash", "-ec", script], cwd=mnt, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
               for name, script in WRITERS.items()}
    try:
        for name, writer in writers.items():
            _, err = writer.communicate(timeout=120)
            assert writer.returncode == 0 and not err, f"{name}: {err}"
        assert reader.poll() is None, f"reading trace_pipe failed: {reader.stderr.read()}"
    finally:
        stop([reader, *writers.values()])
    assert not reader.stderr.read(), "the trace_pipe reader got an error"
    assert daemon_alive(mnt)
    assert read(mnt / "current_tracer") == "nop\n"
    assert read(mnt / "tracing_on") == "0\n"
    assert read(mnt / "events/sched/sched_switch/filter") == "prev_prio < 100\n"
    assert read(mnt / "set_event") == "sched:sched_switch\n"
    assert read(mnt / "events/sched/sched_switch/enable") == "1\n"
    assert read(mnt / "events/sched/sched_wakeup/enable") == "0\n"
    assert read(mnt / "events/sched/enable") == "X\n"


# Writers of the probe files while the function tracer and a kprobe patch the running kernel.
# (A trace_pipe reader would make tracer switches EBUSY, as on Linux: the reader reads `trace`.)
PROBE_WRITERS = {
    "tracer": """for i in $(seq 30); do echo function_graph > current_tracer; echo function > current_tracer;
                 done""",
    "filter": """for i in $(seq 30); do echo 'vfs_*' > set_ftrace_filter; echo '!vfs_write' >> set_ftrace_filter;
                 echo ksys_read >> set_ftrace_filter; echo > set_ftrace_filter; done; echo vfs_read > set_ftrace_filter""",
    "pids": """for i in $(seq 30); do echo 1 > set_ftrace_pid; echo > set_ftrace_pid; done""",
    "kprobes": """for i in $(seq 30); do echo 'p:kp vfs_read+0 a=%di' >> kprobe_events;
                  echo 1 > events/kprobes/kp/enable; echo 0 > events/kprobes/kp/enable;
                  echo '-:kp' >> kprobe_events; done""",
}


def test_probe_writers_while_machine_runs(mount_at):
    mnt = mount_at()
    write(mnt / "current_tracer", "function")
    reader = popen(["bash", "-c", "while cat trace > /dev/null; do :; done; exit 1"], cwd=mnt,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    writers = {name: popen(["bash", "-ec", script], cwd=mnt, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
               for name, script in PROBE_WRITERS.items()}
    try:
        for name, writer in writers.items():
            _, err = writer.communicate(timeout=180)
            assert writer.returncode == 0 and not err, f"{name}: {err}"
        assert reader.poll() is None, f"reading trace failed: {reader.stderr.read()}"
    finally:
        stop([reader, *writers.values()])
    assert not reader.stderr.read(), "the trace reader got an error"
    assert daemon_alive(mnt)
    assert read(mnt / "current_tracer") == "function\n"
    assert read(mnt / "set_ftrace_filter") == "vfs_read\n"
    assert read(mnt / "set_ftrace_pid") == "no pid\n"
    assert read(mnt / "kprobe_events") == ""
    assert read(mnt / "enabled_functions").startswith("vfs_read (1)")
    write(mnt / "current_tracer", "nop")
    assert read(mnt / "enabled_functions") == ""


def test_instances_mkdir_rmdir_reuse_slots(mount_at):
    # little memory: instances are made until the kernel cannot allocate the next one's buffers
    mnt = mount_at("--workload", "none", "--mem", "96")
    cycle = sh(mnt / "instances", """set -e
        for i in $(seq 50); do mkdir i$i; echo 1 > i$i/events/syscalls/sys_enter_getuid/enable
        rmdir i$i; done""", timeout=180)
    assert cycle.returncode == 0, cycle.stderr
    full = sh(mnt / "instances", "i=0; while mkdir c$((i + 1)); do i=$((i + 1)); done; echo $i", timeout=60)
    assert "Cannot allocate memory" in full.stderr, full.stderr
    slots = int(full.stdout)
    assert slots > 62 and sorted(os.listdir(mnt / "instances")) == sorted(f"c{i}" for i in range(1, slots + 1))
    freed = sh(mnt / "instances", f"set -e; for i in $(seq {slots}); do rmdir c$i; done", timeout=60)
    assert freed.returncode == 0, freed.stderr
    # Two processes at once, while events are produced in every instance.
    loops = [popen(["bash", "-ec", f"""for i in $(seq 25); do mkdir {p}$i
                 echo 1 > {p}$i/events/syscalls/sys_enter_getuid/enable; rmdir {p}$i; done"""],
                              cwd=mnt / "instances", stderr=subprocess.PIPE, text=True)
             for p in ("a", "b")]
    try:
        run_getuids(mnt, 2000)
        for loop in loops:
            _, err = loop.communicate(timeout=180)
            assert loop.returncode == 0, err
    finally:
        stop(loops)
    assert os.listdir(mnt / "instances") == []
    # as many again, once the kernel has freed the last buffers (after a grace period)
    assert wait_until(lambda: sh(mnt / "instances", f"set -e; for i in $(seq {slots}); do mkdir -p d$i; done",
                                 timeout=60).returncode == 0, 30)
    assert daemon_alive(mnt)


@pytest.mark.parametrize("cpus", [1, 2])
@pytest.mark.parametrize("overwrite", [1, 0])
def test_stats_account_for_every_event(mount_at, overwrite, cpus):
    """With one CPU the per-CPU sums are checked against the known count exactly; with two, their
    total is (which CPU ran each getuid is the scheduler's business)."""
    mnt = mount_at("--workload", "none", "--cpus", str(cpus))
    write(mnt / "buffer_size_kb", "8")
    write(mnt / "options/overwrite", str(overwrite))
    getuid_only(mnt)
    run_getuids(mnt, 3000)
    stats = [cpu_stats(mnt, cpu) for cpu in range(cpus)]
    for cpu, s in enumerate(stats):
        per_cpu_trace = read(mnt / f"per_cpu/cpu{cpu}/trace")
        assert per_cpu_trace.count("sys_getuid()") == s["entries"]
        assert s["read events"] == 0
    assert sum(s["entries"] + s["overrun"] + s["dropped events"] for s in stats) == 3000
    assert 0 < sum(s["entries"] for s in stats) < 3000, "the small buffer never filled"
    if overwrite:
        assert sum(s["dropped events"] for s in stats) == 0
    else:
        assert sum(s["overrun"] for s in stats) == 0
    # Consuming moves records from entries to read events; the sum still holds.
    in_buffer = sum(s["entries"] for s in stats)
    consumer = popen(["cat", str(mnt / "trace_pipe")], stdout=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: blocked_in_read(consumer.pid), 20)
    finally:
        stop([consumer])
    consumed = consumer.stdout.read().count("sys_getuid()")
    assert consumed == in_buffer
    after = [cpu_stats(mnt, cpu) for cpu in range(cpus)]
    assert sum(s["entries"] for s in after) == 0
    assert sum(s["read events"] for s in after) == consumed
    assert sum(s["entries"] + s["overrun"] + s["dropped events"] + s["read events"]
               for s in after) == 3000
