"""perf ring buffers in a session: the emulated kernel writes them in its perf pool's regions,
which a session's process maps (the supervisor gives it the region's file in place of the
event's fd). Debian's perf records tracepoints with kernel call chains and `perf script` reads
them back with the emulated kernel's symbols."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from simtest import REPO, tracefs_sim

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
]
DATA = Path(__file__).parent / "data"
EINVAL, ENOMEM = 22, 12
SWITCH = re.compile(r"^ *(\S+) +(\d+) \[(\d{3})\] +\d+\.\d{6}: +sched:sched_switch: prev_comm=(\S+) prev_pid=(\d+) "
                    r"prev_prio=\d+ prev_state=\S+ ==> next_comm=\S+ next_pid=\d+ next_prio=\d+$")
# A kernel frame: perf names the kernel's dso after the vmlinux it found for it (the session shows
# the emulated kernel's where Debian's debug package puts a kernel's), [kernel.kallsyms] without one.
FRAME = re.compile(r"^\s+([0-9a-f]{16}) (\S+) \((?:\[kernel\.kallsyms\]|/usr/lib/debug/boot/vmlinux-\S+)\)$")


def function_ends() -> set[int]:
    """Where the vmlinux's functions end. Its symbols (unlike kallsyms') have sizes: a return
    address just past a function that ends in a call to a __noreturn one (start_kernel's
    cpu_startup_entry(), __x64_sys_exit_group's do_group_exit()) is in none of them, and perf
    names it [unknown], as with Linux's vmlinux."""
    nm = subprocess.run(["nm", "-S", "--defined-only", str(REPO / "kernel_model" / "build" / "vmlinux")],
                        capture_output=True, text=True, check=True).stdout
    return {int(f[0], 16) + int(f[1], 16) for f in (line.split() for line in nm.splitlines()) if len(f) == 4}


def run(script: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return tracefs_sim("run", "-c", script, timeout=timeout)


GETUID_ID = "$(cat /sys/kernel/tracing/events/syscalls/sys_enter_getuid/id)"


def run_program(tmp_path, name: str, args: str = GETUID_ID) -> subprocess.CompletedProcess:
    """data/NAME.c built and run in a session (by default with the id of sys_enter_getuid)."""
    subprocess.run(["gcc", "-O1", "-o", str(tmp_path / name), str(DATA / f"{name}.c"), "-lpthread"], check=True,
                   timeout=60)
    return run(f"{tmp_path / name} {args}")


def test_a_session_process_reads_samples_from_a_mapped_ring_buffer(tmp_path):
    result = run_program(tmp_path, "perf_ring")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"private {EINVAL}", f"pages4 {EINVAL}", f"pgoff {EINVAL}",
        f"toobig {ENOMEM}",             # more pages than a pool region holds
        "cycles 200",                   # 200 buffers made and freed: more than the pool's regions
        "set_output 0", f"mapped_set_output -1 {EINVAL}",
        "samples 10 10 size 4096",      # 5 getuids, each sampled by both events, all the caller's
    ], result.stderr


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_perf_record_of_sched_switch_with_kernel_call_chains(tmp_path):
    data = tmp_path / "perf.data"
    result = run(f"perf record -o {data} -e sched:sched_switch -a -g sleep 1 && perf script -i {data} -F comm,pid,"
                 f"cpu,time,event,trace,ip,sym,dso && echo == && cat /proc/kallsyms")
    assert result.returncode == 0, result.stderr
    script, kallsyms = result.stdout.split("\n==\n")
    symbols = {}
    for line in kallsyms.splitlines():
        addr, _, name = line.split()[:3]
        symbols[name] = int(addr, 16)
    switches, chains, chain = [], [], None
    for line in script.splitlines():
        if m := SWITCH.match(line):
            switches.append(m)
            chain = []
            chains.append(chain)
        elif (f := FRAME.match(line)) and chain is not None:
            chain.append((int(f.group(1), 16), f.group(2)))
    assert len(switches) >= 3, script
    assert "Captured and wrote" in result.stderr
    # every sample's chain starts in __schedule, and each frame is the emulated kernel's symbol
    assert all(chain and chain[0][1] == "__schedule" for chain in chains), script
    ends = function_ends()
    for chain in chains:
        for addr, name in chain:
            if name == "[unknown]":
                assert addr in ends, hex(addr)
            else:
                assert symbols[name] <= addr, (name, hex(addr))
    # the chains go down to where each task entered the kernel: a session process's system
    # call (its task waits there for the host's next record), an idle cpu's start
    bottoms = {chain[-1][1] for chain in chains}
    # (entry_SYSCALL_64_after_hwframe is a label within entry_SYSCALL_64: kallsyms names the
    # address after the label, the vmlinux after the function)
    assert bottoms & {"entry_SYSCALL_64_after_hwframe", "entry_SYSCALL_64"}, script
    assert bottoms & {"secondary_startup_64", "_text", "_stext"}, script
    assert any(m.group(4) in ("perf", "sleep") for m in switches), script


def test_side_band_records_of_a_child_that_execs(tmp_path):
    result = run_program(tmp_path, "perf_sideband", "")
    assert result.returncode == 0, result.stderr
    # one FORK (the session process's), one COMM with the exec flag, one EXIT, each in one cpu's buffer
    assert result.stdout.splitlines() == ["cpus 1 fork 1 comm 1 exit 1"], result.stderr


def test_poll_of_perf_fds_waits_for_the_kernels_wakeup(tmp_path):
    result = run_program(tmp_path, "perf_poll")
    assert result.returncode == 0, result.stderr
    # what the same program prints on the reference 6.1 (real-tracefs)
    assert result.stdout.splitlines() == [
        "empty 0 0", "one sample 0 0",    # wakeup_events 2: no wakeup after one sample
        "wakeup 1 0x1", "taken 0 0",     # a poll takes the wakeup
        "pipe 1 0 0x1",                  # a host fd of the same set
        "woken 1 0x1",                   # asleep in poll until the kernel's wakeup
        "set_output 10 0x1",             # the buffer's wakeup, seen on an event redirected to it
        "timeout 0 0", "ppoll 0 0 100000000",
        "signal -1 Interrupted system call",
    ], result.stderr


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_perf_record_sleeps_in_poll_until_woken(tmp_path):
    data = tmp_path / "perf.data"
    result = run(f"perf record -o {data} -e sched:sched_switch -a sleep 1")
    assert result.returncode == 0, result.stderr
    # perf counts the polls that returned: one per wakeup of the half-full buffer, or the end
    # (a poll that never waited would return thousands of times)
    woken = re.search(r"Woken up (\d+) times", result.stderr)
    assert woken and int(woken.group(1)) < 100, result.stderr
    assert "were lost" not in result.stderr


SAMPLE = re.compile(r"^ *(\S+) +(\d+) \[(\d{3})\] +(\d+) cpu-clock(?::\S*)?: *$")


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_cpu_clock_sampling_with_kernel_call_chains(tmp_path):
    freq, count = tmp_path / "freq.data", tmp_path / "count.data"
    fields = "-F comm,tid,cpu,period,event,ip,sym,dso"
    # (-e cpu-clock: perf's default event is cycles, now that the machine has a PMU)
    result = run(f"perf record -o {freq} -e cpu-clock -F 99 -a -g sleep 1 && perf script -i {freq} {fields} && echo == && "
                 f"perf record -o {count} -e cpu-clock -c 2000000 -a sleep 0.5 && perf script -i {count} {fields} "
                 f"&& echo == && perf report -i {freq} --stdio --no-children --sort sym")
    assert result.returncode == 0, result.stderr
    by_freq, by_count, report = result.stdout.split("\n==\n")
    samples, chains = [], []
    for line in by_freq.splitlines():
        if m := SAMPLE.match(line):
            samples.append(m)
            chains.append([])
        elif (f := FRAME.match(line)) and chains:
            chains[-1].append(f.group(2))
    # each cpu's hrtimer takes samples (both cpus idle most of the second); a frequency is a
    # fixed period for an hrtimer (1e9 / 99 ns), as on Linux
    assert len(samples) >= 10, by_freq
    assert {m.group(3) for m in samples} == {"000", "001"}, by_freq
    assert {m.group(4) for m in samples} == {"10101010"}, by_freq
    # a sample's chain is the interrupted context's (the kernel's frames: a sample in user
    # mode has none), down to where the cpu started
    assert sum(bool(chain) for chain in chains) >= len(chains) / 2, by_freq
    assert any(chain[-1] in ("_text", "_stext", "secondary_startup_64") for chain in chains), by_freq
    assert set(re.findall(r"\] +(\d+) cpu-clock:", by_count)) == {"2000000"}, by_count
    assert "Samples:" in report and "cpu-clock" in report, report


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_perf_sched_record_and_latency(tmp_path):
    data = tmp_path / "sched.data"
    result = run(f"perf sched record -o {data} sleep 1 && perf sched latency -i {data} && "
                 f"perf sched timehist -i {data}")
    assert result.returncode == 0, result.stderr
    # perf sched maps 1024 data pages a cpu (-m 1024): a pool region holds them
    assert "Captured and wrote" in result.stderr
    latency, _, timehist = result.stdout.partition("task name")
    assert re.search(r"^ +sleep:\d+ +\| +[\d.]+ ms \| +\d+ \|", latency, re.M), latency
    assert re.search(r"^ +TOTAL: +\| +[\d.]+ ms \| +\d+ \|", latency, re.M), latency
    # timehist: a line per switch, the sleep among the tasks
    assert re.search(r"^ +\d+\.\d{6} \[000[01]\] +sleep\[\d+\]", timehist, re.M), timehist


def test_munmap_of_a_ring_buffer_reaches_the_kernel(tmp_path):
    result = run_program(tmp_path, "perf_munmap")
    assert result.returncode == 0, result.stderr
    # what the same program prints on the reference 6.1 (real-tracefs)
    assert result.stdout.splitlines() == [
        "mapped 100",                   # each unmapped buffer's pool region comes back (64 regions)
        f"mapped again other size {EINVAL}", "unmapped, other size 0",
        f"set_output while mapped {EINVAL}", f"set_output unmapped {EINVAL}",
    ], result.stderr


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_mmap2_records_of_an_emulated_programs_image(tmp_path):
    data = tmp_path / "perf.data"
    result = run(f"perf record -o {data} -e sched:sched_switch -a -- tracefs-sim exec getuid-loop 1000 && "
                 f"perf script -i {data} --show-mmap-events")
    assert result.returncode == 0, result.stderr
    # the kernel's own record of the program's text, as the loader maps it (perf's synthesized
    # ones, from /proc, are the host processes' and come at time 0)
    mmaps = re.findall(r"^ *getuid-loop +(\d+) .*PERF_RECORD_MMAP2 (\d+)/(\d+): \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) "
                       r"@ 0x?[0-9a-f]* [0-9a-f]+:[0-9a-f]+ \d+ \d+\]: r-xp (\S+)$", result.stdout, re.M)
    assert mmaps, result.stdout
    tid, pid, _, addr, size, name = mmaps[0]
    assert tid == pid and int(size, 16) > 0 and name.endswith("getuid-loop"), mmaps


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_perf_top_shows_the_emulated_kernels_samples():
    # perf top reads keys from its stdin: a pipe that stays open for the few seconds it runs
    result = run("sleep 10 | timeout -s INT 5 perf top --stdio -d 1")
    # each refresh: the samples per second the cpu-clock hrtimers took, the hottest symbols
    assert re.search(r"PerfTop: +[1-9]\d* irqs/sec +kernel:", result.stdout), result.stdout[-3000:]
    assert re.search(r"^ +\d+\.\d+% +\[kernel\] +\[k\] \S+", result.stdout, re.M), result.stdout[-3000:]


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_perf_trace_shows_a_session_commands_system_calls(tmp_path):
    """`perf trace -- CMD`: raw_syscalls:sys_enter/sys_exit perf events on the emulated kernel,
    filtered to the command's pid; the calls are the host process's, as the kernel made them."""
    (tmp_path / "file").write_text("twelve bytes")
    out = tmp_path / "trace.out"
    result = run(f"cd {tmp_path} && perf trace -o {out} -e openat,read,close -- cat file && "
                 f"perf trace -s -- cat file")
    assert result.returncode == 0, result.stderr
    calls = re.findall(r"^ +\d+\.\d{3} \( *\d+\.\d{3} ms\): cat/(\d+) (\w+)\((.*?)\) += (-?\d+)", out.read_text(), re.M)
    assert calls, out.read_text()
    assert len({pid for pid, *_ in calls}) == 1, calls
    # cat's own open of the file (the libraries' opens have O_CLOEXEC), then its read and close
    opened = [i for i, (_, name, args, ret) in enumerate(calls)
              if name == "openat" and re.fullmatch(r"dfd: CWD, filename: 0x[0-9a-f]+(, flags: RDONLY)?", args)]
    assert opened and int(calls[opened[-1]][3]) >= 0, calls
    fd = calls[opened[-1]][3]
    after = [(name, re.sub(r"buf: 0x[0-9a-f]+", "buf", args), ret) for _, name, args, ret in calls[opened[-1] + 1:]]
    assert after[:2] == [("read", f"fd: {fd}, buf, count: 131072", "12"),
                         ("read", f"fd: {fd}, buf, count: 131072", "0")], calls
    assert ("close", f"fd: {fd}", "0") in after, calls
    # -s: a summary per thread, with the calls the kernel counted
    assert result.stdout == "twelve bytes" * 2, result.stdout
    assert re.search(r"^ cat \(\d+\), \d+ events, [\d.]+%$", result.stderr, re.M), result.stderr
    assert re.search(r"^ +openat +\d+ +\d+ +[\d.]+ ", result.stderr, re.M), result.stderr


def test_a_software_event_at_a_frequency_adjusts_its_period(tmp_path):
    """-F on a software event (context-switches): its period starts at 1 and follows the rate
    asked for, as 6.1's perf_adjust_period moves it at overflows close together and at the ticks
    (the tick stops and starts it around the change); each sample carries the period that ran
    out (perf_swevent_set_period's last_period)."""
    data = tmp_path / "perf.data"
    result = run(f"perf record -q -F 100 -e context-switches -a -o {data} -- "
                 "perl -e 'select(undef, undef, undef, 0.0005) for 1..2000' > /dev/null 2>&1; "
                 f"perf script -i {data} -F period 2>/dev/null")
    assert result.returncode == 0, result.stderr
    periods = [int(p) for p in result.stdout.split()]
    # 2,000 sleeps of one process switch away 4,000 times at least, in a second or two (a
    # loop of forks was slow enough under load to switch only about 100 times a second);
    # sampled at 100 a second, a sample stands for several switches
    assert periods and periods[0] == 1 and max(periods) > 1, periods
    assert len(periods) * 4 < sum(periods), periods


def test_perf_event_max_stack_caps_call_chains(tmp_path):
    """kernel.perf_event_max_stack is the emulated kernel's: a sample's chain is at most that
    deep (its default depth, attr.sample_max_stack), a deeper one asked is EOVERFLOW, and it
    cannot change while an event samples chains (EBUSY, perf_event_max_stack_handler)."""
    data = tmp_path / "perf.data"
    result = run(f"echo 4 > /proc/sys/kernel/perf_event_max_stack && "
                 f"perf record -q -o {data} -e cpu-clock -g -a sleep 0.3 >/dev/null 2>&1; "
                 f"perf script -i {data} -F ip 2>/dev/null | awk 'NF == 0 {{ print n; n = 0; next }} {{ n++ }}'; "
                 # (the same value again, until perf has its sampling events open: it reads
                 # kallsyms and the vmlinux first, seconds on a busy box, and opens others too)
                 f"echo ==; perf record -q -o {data} -e cpu-clock -g -a sleep 60 >/dev/null 2>&1 & p=$!; "
                 f"for i in $(seq 600); do echo 4 2>/dev/null > /proc/sys/kernel/perf_event_max_stack "
                 f"|| {{ echo busy; break; }}; sleep 0.1; done; kill -INT $p; wait")
    assert result.returncode == 0, result.stderr
    depths, busy = result.stdout.split("\n==\n")
    chains = [int(n) for n in depths.split()]
    assert chains and max(chains) <= 5 and max(chains) >= 3, chains  # the ip and 4 frames at most
    assert busy.strip() == "busy"


def test_a_flame_graphs_folded_stacks_of_the_emulated_kernel(tmp_path):
    """perf's own scripts make a flame graph's input from the emulated kernel's samples:
    `perf script report stackcollapse` folds each stack (the idle loop's the heaviest on an idle
    machine, as on Linux), `perf script report flamegraph -f json` writes d3-flame-graph's JSON."""
    # (a script's report reads ./perf.data: perf script's -i does not reach it)
    result = run(f"cd {tmp_path} && perf record -q -e cpu-clock -F 999 -g -a sleep 1 >/dev/null 2>&1; "
                 f"perf script report stackcollapse 2>/dev/null; echo ==; "
                 f"perf script report flamegraph -f json -o fg.json >/dev/null 2>&1; cat fg.json")
    assert result.returncode == 0, result.stderr
    folded, flame = result.stdout.split("\n==\n")
    stacks = {}
    for line in folded.splitlines():
        stack, count = line.rsplit(" ", 1)
        stacks[stack] = int(count)
    heaviest = max(stacks, key=stacks.get)
    assert heaviest.endswith("cpu_startup_entry;do_idle;default_idle_call;arch_cpu_idle"), stacks
    import json
    tree = json.loads(flame)
    assert tree["n"] == "all" and any(child["n"] == "swapper" for child in tree["c"]), flame[:300]
