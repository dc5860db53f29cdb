"""Kprobe events as perf tracepoint sources in a session: a kprobe event of kprobe_events (or
`perf probe`'s) opened by its id (PERF_TYPE_TRACEPOINT) is armed for perf whatever its enable
file says, each hit a sample whose raw data is the event's record as its format file describes
it (the fetched arguments too), with the probed context's call chain; the event cannot be
removed while perf holds it (EBUSY), and its perf events take filters on its fields."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from simtest import tracefs_sim

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
]
needs_perf = pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
DATA = Path(__file__).parent / "data"
EBUSY = 16
# a perf script sample line: comm, pid, cpu, time, event, the rest (the record as print fmt says)
SAMPLE = re.compile(r"^ *(\S+) +(\d+) \[(\d{3})\] +\d+\.\d{6}: +(\S+): (.*)$")
FRAME = re.compile(r"^\s+([0-9a-f]{16}) (\S+) \(")


def run(script: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return tracefs_sim("run", "-c", script, timeout=timeout)


def kallsyms(text: str) -> dict[str, int]:
    symbols = {}
    for line in text.splitlines():
        addr, _, name = line.split()[:3]
        symbols.setdefault(name, int(addr, 16))
    return symbols


def samples(script: str) -> list[tuple[re.Match, list[str]]]:
    """perf script's samples, each with its call chain's symbols (symbol+offset)."""
    found: list[tuple[re.Match, list[str]]] = []
    for line in script.splitlines():
        if m := SAMPLE.match(line):
            found.append((m, []))
        elif (f := FRAME.match(line)) and found:
            found[-1][1].append(f.group(2))
    return found


@needs_perf
def test_perf_probe_then_perf_record_of_its_event(tmp_path):
    """`perf probe -a do_sys_open`, then `perf record -e probe:do_sys_open -a -- cat FILE`: perf
    script shows cat's opens, each `(ADDRESS)` of do_sys_open, as 6.1's print fmt has it"""
    data = tmp_path / "perf.data"
    result = run(f"perf probe -a do_sys_open && perf record -o {data} -e probe:do_sys_open -a -- cat /etc/hostname"
                 f" && perf script -i {data} && echo == && cat /proc/kallsyms; perf probe -d 'probe:*'")
    assert result.returncode == 0, result.stderr
    script, syms = result.stdout.split("\n==\n")
    addr = kallsyms(syms)["do_sys_open"]
    hits = [m for m, _ in samples(script)]
    cat = [m for m in hits if m.group(1) == "cat"]
    assert len(cat) >= 3, script  # its loader's, its libc's, the file's
    assert all(m.group(4) == "probe:do_sys_open" and m.group(5) == f"({addr:x})" for m in hits), script
    assert "Removed event: probe:do_sys_open" in result.stdout + result.stderr


@needs_perf
def test_kprobe_and_kretprobe_events_with_call_chains(tmp_path):
    """seed 004's `perf record -e kprobes:yanfei -a -g` (with a string argument), and a
    kretprobe event beside it: the entry's chain starts in the probed function (%ip as after
    the int3) above the system call that made it, the return's at the caller it returns to;
    the string is the file cat opened, the return value the fd it got"""
    data = tmp_path / "perf.data"
    result = run("cd /sys/kernel/tracing && "
                 "echo 'p:kprobes/yanfei do_sys_openat2 filename=+0($arg2):ustring' >> kprobe_events && "
                 "echo 'r:kprobes/oret do_sys_openat2 $retval' >> kprobe_events && "
                 f"perf record -o {data} -e kprobes:yanfei -e kprobes:oret -a -g -- cat /etc/hostname && "
                 f"perf script -i {data} && echo == && cat events/kprobes/yanfei/enable /proc/kallsyms")
    assert result.returncode == 0, result.stderr
    script, rest = result.stdout.split("\n==\n")
    enable, syms = rest.split("\n", 1)
    assert enable == "0"  # perf's own arming: its enable file stays 0
    func = kallsyms(syms)["do_sys_openat2"]
    found = [(m, chain) for m, chain in samples(script) if m.group(1) == "cat"]
    entries = [(m, chain) for m, chain in found if m.group(4) == "kprobes:yanfei"]
    returns = [(m, chain) for m, chain in found if m.group(4) == "kprobes:oret"]
    opened = [m for m, _ in entries if m.group(5) == f'({func:x}) filename="/etc/hostname"']
    assert opened, script
    for m, chain in entries:
        assert chain[0] == "do_sys_openat2+0x1", script
        assert {"do_syscall_64"} <= {f.split("+")[0] for f in chain}, script
    assert returns, script
    for m, chain in returns:
        assert re.fullmatch(rf"\({func:x} <- [0-9a-f]+\) arg1=0x[0-9a-f]+", m.group(5)), m.group(0)
        assert chain[0].split("+")[0] in ("do_sys_open", "__x64_sys_openat", "__x64_sys_open"), script
    # an fd for /etc/hostname: its open, then its return with a small number
    assert any(int(m.group(5).rsplit("=", 1)[1], 16) < 64 for m, _ in returns), script


def test_a_perf_event_holds_its_kprobe_event(tmp_path):
    """data/perf_kprobe_event.c, whose output on the reference 6.1 (real-tracefs) is below:
    a per-task event counts the task's 3 opens while the event's enable is 0, the event's
    removal is EBUSY while it is open, a filter on it is taken, and after its close it goes"""
    exe = tmp_path / "perf_kprobe_event"
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(DATA / "perf_kprobe_event.c")], check=True, timeout=60)
    result = run("cd /sys/kernel/tracing && echo 'p:kprobes/pk do_sys_openat2' >> kprobe_events && "
                 f"{exe} $PWD && cat /sys/kernel/debug/kprobes/list && echo end")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["count 3", f"remove_busy {EBUSY}", "enable 0", "filter 0", "remove 0",
                                          "end"], result.stdout


@needs_perf
def test_perf_record_filter_on_a_kprobe_events_field(tmp_path):
    """`perf record --filter` on a string argument of the event: only the opens of that file"""
    data = tmp_path / "perf.data"
    result = run("cd /sys/kernel/tracing && "
                 "echo 'p:kprobes/yanfei do_sys_openat2 filename=+0($arg2):ustring' >> kprobe_events && "
                 f"perf record -o {data} -e kprobes:yanfei --filter 'filename ~ \"*hostname*\"' -a -- "
                 f"cat /etc/hostname && perf script -i {data}")
    assert result.returncode == 0, result.stderr
    hits = [m for m, _ in samples(result.stdout)]
    assert hits and all(m.group(5).endswith('filename="/etc/hostname"') for m in hits), result.stdout
    assert any(m.group(1) == "cat" for m in hits), result.stdout


@needs_perf
def test_a_probe_appended_while_perf_holds_the_event(tmp_path):
    """A second probe point appended to the event while `perf record` holds it is armed with it
    and its hits are the event's samples too; removed again (it has a sibling: allowed), its
    hits stop"""
    data = tmp_path / "perf.data"
    result = run("cd /sys/kernel/tracing && echo 'p:kprobes/opens do_sys_openat2' >> kprobe_events && "
                 f"{{ perf record -o {data} -e kprobes:opens -a sleep 6 2>/dev/null & }} && "
                 # perf holds the event once its probe is armed, and enables it once its
                 # workload started (1 s later, on a loaded machine, at the latest)
                 "for i in $(seq 100); do grep -q do_sys_openat2 /sys/kernel/debug/kprobes/list && break; "
                 "sleep 0.1; done && sleep 1 && "
                 # the kernel replays cat's calls as their records come: the removal waits a bit
                 "echo 'p:kprobes/opens ksys_read' >> kprobe_events && cat /etc/hostname && sleep 1 && "
                 "echo '-:kprobes/opens ksys_read' >> kprobe_events && cat /etc/hostname && wait && "
                 f"perf script -i {data} -F comm,pid,event,trace && echo == && cat /proc/kallsyms")
    assert result.returncode == 0, result.stderr
    script, syms = result.stdout.split("\n==\n")
    read = kallsyms(syms)["ksys_read"]
    cats: dict[int, list[str]] = {}
    for line in script.splitlines():
        words = line.split()
        if len(words) == 4 and words[0] == "cat":
            cats.setdefault(int(words[1]), []).append(words[3])
    assert len(cats) == 2, script  # each cat's opens
    first, second = (cats[pid] for pid in sorted(cats))
    assert f"({read:x})" in first, script  # its read of the file, through the appended probe
    assert f"({read:x})" not in second, script
