"""uprobe_events, dynamic_events' p:/r: on a PATH:OFFSET, uprobe_profile and events/uprobes
over a fake uprobe engine: the commands a real 6.1 ran (tests/data/linux-6.1/uprobes/*.sh,
outputs beside them) give the same errnos, error_log lines and carets, read-back, profile and
format files; enabling registers with the engine (its errnos), hits become 6.1's lines."""

from __future__ import annotations

import errno
import os
import re
import struct
from pathlib import Path

import pytest

from kprobe_fakes import FakeHit, FakeKprobeEngine, KprobeMachine, guest_record
from tracefs_sim.fs import build_tree
from tracefs_sim.trace.core import TraceCore
from tracefs_sim.trace.uprobe_spec import PathInfo

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "linux-6.1" / "uprobes"
BUSYBOX = PathInfo((8, 1234), 1982256, True)  # /mnt/busybox in the captured run


def _lookup(path: str) -> PathInfo:
    """kern_path() in the captured VM: /mnt is the shared directory holding busybox."""
    if path in ("/mnt/busybox", "/mnt/./busybox"):
        return BUSYBOX
    if path in ("/mnt", "/mnt/"):
        return PathInfo((8, 1), 4096, False)
    raise FileNotFoundError(errno.ENOENT, path)


class FakeUprobe:
    def __init__(self, engine, inode, offset, is_return, on_hit):
        self.engine, self.inode, self.offset, self.is_return, self.on_hit = engine, inode, offset, is_return, on_hit
        self.nhit = 0

    def set_record_slots(self, slots):
        pass  # (guest_record() reads its event's at each hit)

    def unregister(self):
        self.engine.probes.remove(self)


class FakeUprobeEngine:
    """uprobe_register()'s checks (offset within the file, an aligned reference counter); a hit
    makes what the guest's record program would (guest_record(), through `entries`: the
    TraceUprobes, which the test's core sets)."""

    def __init__(self):
        self.probes: list[FakeUprobe] = []
        self.entries = lambda: ()

    def register(self, path, inode, size, offset, ref_ctr_offset, *, is_return, guest=None, slots=0, on_hit=None):
        if offset > size or ref_ctr_offset % 2:
            raise OSError(errno.EINVAL, "bad uprobe")
        probe = FakeUprobe(self, inode, offset, is_return, on_hit)
        self.probes.append(probe)
        return probe

    def hit(self, hit, offset):
        for p in list(self.probes):
            if p.offset == offset:
                p.nhit += 1
                if p.on_hit is not None:
                    p.on_hit(hit)
                else:
                    guest_record(hit, next(tu for tu in self.entries() if tu.handle is p))


class UprobeHit(FakeHit):
    """A uprobe hit: user memory only (a kernel address faults), file offsets map as the probed
    address does."""

    def __init__(self, machine, ip, *, probe_offset=0, **kw):
        super().__init__(machine, ip, **kw)
        self._base = ip - probe_offset

    def read_kernel(self, addr, size):
        return None

    def file_vaddr(self, file_offset):
        return self._base + file_offset


class Setup:
    def __init__(self):
        self.machine = KprobeMachine()
        self.uprobes = FakeUprobeEngine()
        self.system = TraceCore(self.machine, ftrace_sites=None, kprobe_engine=FakeKprobeEngine(self.machine),
                                uprobe_engine=self.uprobes)
        self.system.uprobes._lookup = _lookup
        self.uprobes.entries = self.system.uprobes.probes
        self.tree = build_tree(self.system)

    def read(self, path) -> bytes:
        return self.tree.walk(path).read()

    def write(self, path, data: bytes, *, trunc=False) -> None:
        node = self.tree.walk(path)
        if trunc and node.truncate is not None:
            node.truncate()
        node.write(data)

    def errno_of(self, path, data: bytes, *, trunc=False) -> int:
        try:
            self.write(path, data, trunc=trunc)
        except OSError as e:
            return e.errno
        return 0

    def trace_lines(self) -> list[str]:
        self.system.drain.drain_once()
        return [l for l in self.read("trace").decode().splitlines() if not l.startswith("#")]


@pytest.fixture
def s():
    return Setup()


def _no_stamps(text: str) -> list[str]:
    return re.sub(r"^\[ *\d+\.\d+\] ", "", text, flags=re.M).splitlines()


_ERRNO_OF = {os.strerror(e): e for e in (errno.ENOENT, errno.EINVAL, errno.EEXIST, errno.EBUSY)}


def _captured(name: str) -> tuple[list[tuple[str, int, list[str]]], list[str]]:
    """The `t CMD` runs of a captured output: (command, errno, error_log lines after it), and
    the lines after the last of them."""
    lines = (REFERENCE / name).read_text().splitlines()
    runs = []
    i = 0
    while i < len(lines) and lines[i].startswith("== ") and lines[i] != "== uprobe_events":
        command = lines[i][3:]
        i += 1
        err = 0
        if lines[i].startswith("sh: write error: "):
            err = _ERRNO_OF[lines[i][len("sh: write error: "):]]
            i += 1
        assert lines[i].startswith("rc=")
        i += 1
        log = []
        while i < len(lines) and not lines[i].startswith("== ") and not lines[i].startswith("r:") \
                and not lines[i].startswith("p:"):
            log.append(lines[i])
            i += 1
        runs.append((command, err, _no_stamps("\n".join(log))))
        if name == "commands2.out" and lines[i].startswith(("p:", "r:")):
            break
    return runs, lines[i:]


def _section(rest: list[str], title: str) -> list[str]:
    start = rest.index(f"== {title}") + 1
    end = next((j for j in range(start, len(rest)) if rest[j].startswith("== ")), len(rest))
    return rest[start:end]


def test_commands_as_linux_runs_them(s):
    """commands1: errnos, read-back of uprobe_events and dynamic_events, uprobe_profile and the
    last 8 error_log entries."""
    runs, rest = _captured("commands1.out")
    for command, err, _ in runs:
        assert s.errno_of("uprobe_events", command.encode() + b"\n") == err, command
    assert s.read("uprobe_events").decode().splitlines() == _section(rest, "uprobe_events")
    assert s.read("dynamic_events").decode().splitlines() == _section(rest, "dynamic_events")
    assert s.read("uprobe_profile").decode().splitlines() == _section(rest, "profile")
    golden = [line for line in _section(rest, "error_log") if line.startswith(("[", " "))]
    assert _no_stamps(s.read("error_log").decode()) == _no_stamps("\n".join(golden))


def test_each_error_logged_as_linux(s):
    """commands2: each command's error_log entry (the log cleared in between), and its errno;
    a refused command changes nothing."""
    runs, rest = _captured("commands2.out")
    for command, err, log in runs:
        before = (s.read("uprobe_events"), s.read("available_events"))
        assert s.errno_of("uprobe_events", command.encode() + b"\n") == err, command
        assert _no_stamps(s.read("error_log").decode()) == log, command
        if err:
            assert (s.read("uprobe_events"), s.read("available_events")) == before
        s.write("error_log", b"", trunc=True)
    expected = [line for line in rest if line.startswith(("p:", "r:"))]
    assert s.read("uprobe_events").decode().splitlines() == expected


def _format(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("ID:")]


def test_format_files_as_linux(s):
    _, rest = _captured("commands1.out")
    text = "\n".join(rest)
    for command in ("p:myp /mnt/busybox:0x1000 %di %si:u32 +0(%sp):string", "r:myr /mnt/busybox:0x2000 $retval",
                    "p:grp/ev /mnt/busybox:0x1000%return",
                    "p:x /mnt/busybox:0x30(0x40) $comm @0x1000 @+0x10:u8 %ax:x16"):
        s.write("uprobe_events", command.encode() + b"\n")
    for path in ("uprobes/myp", "uprobes/myr", "grp/ev", "uprobes/x"):
        name = path.split("/")[1]
        start = text.index(f"name: {name}\n")
        end = text.find("\nname: ", start + 1)
        golden = text[start:end if end >= 0 else text.index("\n== enable")]
        assert _format(s.read(f"events/{path}/format").decode()) == _format(golden)
    assert sorted(s.tree.walk("events/uprobes/myp").children) == \
        sorted(["enable", "filter", "format", "hist", "id", "trigger"])


def test_enable_registers_with_the_engine_and_busy_rules(s):
    """The engine is asked at enable (an offset past the file: EINVAL, nothing armed); an
    enabled event is busy for removal and truncation; disable gives the probe back."""
    s.write("uprobe_events", b"p:big /mnt/busybox:0x10000000\np:mid /mnt/busybox:0x1001\n")
    assert s.uprobes.probes == []  # creating touches no process
    assert s.errno_of("events/uprobes/big/enable", b"1\n") == errno.EINVAL
    assert s.read("events/uprobes/big/enable") == b"0\n" and s.uprobes.probes == []
    s.write("events/uprobes/mid/enable", b"1\n")
    assert [(p.inode, p.offset, p.is_return) for p in s.uprobes.probes] == [(BUSYBOX.inode, 0x1001, False)]
    assert s.errno_of("uprobe_events", b"-:mid\n") == errno.EBUSY
    assert s.errno_of("uprobe_events", b"", trunc=True) == errno.EBUSY
    s.write("events/uprobes/mid/enable", b"0\n")
    assert s.uprobes.probes == []
    s.write("uprobe_events", b"-:mid\n")
    s.write("uprobe_events", b"", trunc=True)
    assert s.read("uprobe_events") == b""
    s.write("dynamic_events", b"p:d /mnt/busybox:0x1000\n")
    assert s.read("dynamic_events") == b"p:uprobes/d /mnt/busybox:0x0000000000001000\n"
    assert s.read("uprobe_events") == s.read("dynamic_events")
    s.write("dynamic_events", b"-:d\n")
    assert s.read("dynamic_events") == b""


def test_removal_names_the_point_as_it_reads_back(s):
    s.write("uprobe_events", b"p:myp /mnt/busybox:0x1000 %di\np:myp /mnt/busybox:0x1008 %di\n")
    assert s.errno_of("uprobe_events", b"-:myp /mnt/busybox:0x1000\n") == errno.ENOENT
    s.write("uprobe_events", b"-:myp /mnt/busybox:0x0000000000001000\n")
    assert s.read("uprobe_events") == b"p:uprobes/myp /mnt/busybox:0x0000000000001008 arg1=%di\n"
    assert s.errno_of("uprobe_events", b"-:myp /mnt/busybox:0x0000000000001008 arg1=%si\n") == errno.ENOENT
    s.write("uprobe_events", b"-:myp /mnt/busybox:0x0000000000001008 arg1=%di\n")
    assert s.read("uprobe_events") == b""


def test_hits_print_as_linux(s):
    """The captured run's entry probe of busybox (commands2): the same fetch args on the same
    registers and memory print the same line, and the profile counts the hits."""
    _, rest = _captured("commands2.out")
    golden = next(line for line in rest if " ent: " in line)
    s.write("uprobe_events", b"p:ent /mnt/busybox:0xebf0 sp=%sp argc=+0(%sp):u64 argv0=+0(+8(%sp)):string "
                             b"c=$comm s=$stack0 u=+0(+8(%sp)):ustring f=@+0x1000:x32\n")
    s.write("uprobe_events", b"r:ret /mnt/busybox:0x2000 $retval\n")
    s.write("events/uprobes/enable", b"1\n")
    sp = 0x7FFE0808FD60
    memory = {sp: struct.pack("<QQ", 2, 0x7FFE0808FF00), 0x7FFE0808FF00: b"/mnt/busybox\0",
              0x401000: struct.pack("<I", 0x8EC8348), ("stack", 0): 2}
    hit = UprobeHit(s.machine, 0x40EBF0, probe_offset=0xEBF0, regs={"sp": sp}, memory=memory, comm=b"busybox",
                    pid=151)
    s.uprobes.hit(hit, 0xEBF0)
    s.uprobes.hit(UprobeHit(s.machine, 0x402000, ret_ip=0x40EC10, retval=7, comm=b"busybox", pid=151), 0x2000)
    lines = s.trace_lines()
    assert lines[0].split(": ", 1)[1] == golden.split(": ", 1)[1]
    assert lines[1].endswith(" ret: (0x40ec10 <- 0x402000) arg1=0x7")
    assert s.read("uprobe_profile").decode().splitlines()[0] == f"  /mnt/busybox {'ent':<44} {1:15}"
