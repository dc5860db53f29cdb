"""kprobe_events, dynamic_events, kprobe_profile and the events/kprobes tree over a fake probe
engine with the contract's API: registration order and errnos, error_log carets, read-back,
EBUSY/ENOENT/EEXIST, `>` vs `>>`, ids, enabling per trace array, hits to trace lines."""

from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest

import struct

from kprobe_fakes import FUNCTIONS, FakeHit, FakeKprobeEngine, KprobeMachine, addr_of
from tracefs_sim.fs import build_tree
from tracefs_sim.trace.core import TraceCore

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "linux-6.1"   # captured from a real 6.1
OPEN_PROBE = b"p:myprobe do_sys_open dfd=$arg1 filename=+0($arg2):ustring flags=$arg3:x32\n"


class Setup:
    def __init__(self):
        self.machine = KprobeMachine()
        self.engine = FakeKprobeEngine(self.machine)
        self.system = TraceCore(self.machine, ftrace_sites=None, kprobe_engine=self.engine)
        self.kprobes = self.system.kprobes
        self.engine.entries = self.kprobes.probes
        self.tree = build_tree(self.system)

    def node(self, path):
        return self.tree.walk(path)

    def read(self, path) -> bytes:
        return self.node(path).read()

    def write(self, path, data: bytes, *, trunc=False) -> None:
        node = self.node(path)
        if trunc and node.truncate is not None:
            node.truncate()
        node.write(data)

    def errno_of(self, path, data: bytes, *, trunc=False) -> int:
        try:
            self.write(path, data, trunc=trunc)
        except OSError as e:
            return e.errno
        return 0

    def state(self):
        """Everything a rejected command must leave as it was."""
        return (self.read("kprobe_events"), self.read("kprobe_profile"), self.read("available_events"),
                sorted(self.tree.path_of(n) for n in self.tree), [(p.addr, p.enabled) for p in self.engine.probes])

    def trace_lines(self) -> list[str]:
        self.system.drain.drain_once()
        return [l for l in self.read("trace").decode().splitlines() if not l.startswith("#")]


@pytest.fixture
def s():
    return Setup()


def _error_log_entries(text: str) -> list[str]:
    """error_log without its time stamps."""
    return re.sub(r"^\[ *\d+\.\d+\] ", "", text, flags=re.M).splitlines()


# ---- read-back, files and format -----------------------------------------------------------

def test_kprobe_events_read_back_normalised(s):
    s.write("kprobe_events", OPEN_PROBE, trunc=True)
    s.write("kprobe_events", b"r:myret vfs_read $retval\n")
    s.write("kprobe_events", b"p vfs_read+5\n")
    expected = (b"p:kprobes/myprobe do_sys_open dfd=$arg1 filename=+0($arg2):ustring flags=$arg3:x32\n"
                b"r10:kprobes/myret vfs_read arg1=$retval\n"
                b"p:kprobes/p_vfs_read_5 vfs_read+5\n")
    assert s.read("kprobe_events") == expected
    assert s.read("dynamic_events") == expected
    assert set(s.node("events/kprobes").children) == {"enable", "filter", "myprobe", "myret", "p_vfs_read_5"}
    # The same files as a static event directory has (no hist: the static ones have none).
    assert set(s.node("events/kprobes/myprobe").children) == set(s.node("events/sched/sched_switch").children)
    assert "kprobes:myprobe\n" in s.read("available_events").decode()


def test_format_matches_linux(s):
    s.write("kprobe_events", OPEN_PROBE, trunc=True)
    s.write("kprobe_events", b"r:myret vfs_read $retval\n")
    golden = (REFERENCE / "e_kprobes.out").read_text()
    for name in ("myprobe", "myret"):
        section = golden.split(f"### $ cat events/kprobes/{name}/format\n", 1)[1].split("### $", 1)[0]
        event_id = int(s.read(f"events/kprobes/{name}/id"))
        expected = re.sub(r"^ID: \d+$", f"ID: {event_id}", section, flags=re.M)
        assert s.read(f"events/kprobes/{name}/format").decode() == expected


def test_events_dir_comes_with_the_first_event_and_goes_with_the_last(s):
    assert s.node("events/kprobes") is None
    s.write("kprobe_events", b"p:a do_sys_open\n", trunc=True)
    s.write("kprobe_events", b"p:b vfs_read\n")
    s.write("kprobe_events", b"-:a\n")
    assert set(s.node("events/kprobes").children) == {"enable", "filter", "b"}
    s.write("kprobe_events", b"-:b\n")
    assert s.node("events/kprobes") is None
    assert s.read("kprobe_events") == b""
    assert s.engine.probes == []


def test_custom_group_and_instances(s):
    s.node("instances").make_child("foo")
    s.write("kprobe_events", b"p:grp/ev do_sys_open\n", trunc=True)
    for top in ("", "instances/foo/"):
        assert set(s.node(f"{top}events/grp/ev").children) == {"enable", "filter", "format", "hist", "id", "trigger"}
    s.node("instances").make_child("bar")
    assert s.node("instances/bar/events/grp/ev/enable").read() == b"0\n"
    s.write("kprobe_events", b"-:grp/ev\n")
    for top in ("", "instances/foo/", "instances/bar/"):
        assert s.node(f"{top}events/grp") is None


def test_ids_are_the_next_free_ones_and_not_reused(s):
    s.write("kprobe_events", b"p:a do_sys_open\n", trunc=True)
    first = int(s.read("events/kprobes/a/id"))
    assert first == max(e.id for e in s.system.registry.all_events() if e.system != "kprobes") + 1
    s.write("kprobe_events", b"-:a\n")
    # A registration that fails after taking its id (here: not an instruction boundary) burns it.
    assert s.errno_of("kprobe_events", b"p:b vfs_read+3\n") == errno.EILSEQ
    s.write("kprobe_events", b"p:a do_sys_open\n")
    assert int(s.read("events/kprobes/a/id")) == first + 2


# ---- errors --------------------------------------------------------------------------------

def _golden_log(command: str) -> list[str]:
    """The error_log entry Linux wrote for a command in g_errors.out / e_kprobes.out."""
    for name in ("g_errors.out", "e_kprobes.out"):
        lines = _error_log_entries((REFERENCE / name).read_text())
        for i, line in enumerate(lines):
            if line == f"  Command: {command}":
                return lines[i - 1:i + 2]
    raise AssertionError(command)


@pytest.mark.parametrize("command, err", [
    ("p:bad nosuchfunc", errno.ENOENT),
    ("p:myprobe do_sys_open %zz", errno.EINVAL),
    ("p:myprobe do_sys_open filename=$arg2:ustring", errno.EINVAL),
    ("p:myprobe do_sys_open filename=%arg1:ustring", errno.EINVAL),
])
def test_errors_logged_as_linux(s, command, err):
    s.write("error_log", b"", trunc=True)
    before = s.state()
    assert s.errno_of("kprobe_events", command.encode() + b"\n", trunc=True) == err
    assert _error_log_entries(s.read("error_log").decode()) == _golden_log(command)
    assert s.state() == before


@pytest.mark.parametrize("command, err, message, caret", [
    ("p:x vfs_read+3", errno.EILSEQ, "Probe point is not an instruction boundary", "vfs_read+3"),
    ("p:x native_irq_notrace", errno.EINVAL, "Failed to register probe event", "native_irq_notrace"),
    ("p:x kprobe_blacklisted", errno.EINVAL, "Failed to register probe event", "kprobe_blacklisted"),
    ("p:sched/sched_switch do_sys_open", errno.EEXIST, "Given group/event name is already used by another event",
     "p:sched"),
    ("p:x do_sys_open a=@nosuchsym", errno.ENOENT, "Invalid probed address or symbol", "do_sys_open"),
    ("r5:x vfs_read+5", errno.EINVAL, "Retprobe address must be an function entry", "vfs_read+5"),
])
def test_registration_errors(s, command, err, message, caret):
    before = s.state()
    assert s.errno_of("kprobe_events", command.encode()) == err
    entry = _error_log_entries(s.read("error_log").decode())
    assert entry[0] == f"trace_kprobe: error: {message}"
    assert entry[1] == f"  Command: {command}"
    assert entry[2] == " " * (len("  Command: ") + command.index(caret)) + "^"
    assert s.state() == before


def test_silent_errors(s):
    before = s.state()
    assert s.errno_of("kprobe_events", b"garbage\n") == errno.EINVAL
    assert s.errno_of("kprobe_events", b"-:nosuch\n") == errno.ENOENT
    assert s.errno_of("dynamic_events", b"!:nosuch\n") == errno.ENOENT
    assert s.errno_of("dynamic_events", b"z:nokind vfs_read\n") == errno.EINVAL  # no kind claims it
    assert s.read("error_log") == b""
    assert s.state() == before


def test_append_same_event_and_eexist(s):
    s.write("kprobe_events", b"p:myprobe do_sys_open\n", trunc=True)
    s.write("kprobe_events", b"p:myprobe vfs_read\n")        # another probe for the same event
    assert s.read("kprobe_events") == b"p:kprobes/myprobe do_sys_open\np:kprobes/myprobe vfs_read\n"
    before = s.state()
    assert s.errno_of("kprobe_events", b"p:myprobe vfs_read\n") == errno.EEXIST
    assert _error_log_entries(s.read("error_log").decode())[0].endswith("There is already the exact same probe event")
    assert s.errno_of("kprobe_events", b"r:myprobe ksys_read\n") == errno.EEXIST
    assert _error_log_entries(s.read("error_log").decode())[-3].endswith("Probe type is different from existing probe")
    assert s.errno_of("kprobe_events", b"p:myprobe schedule x=%di\n") == errno.EEXIST
    assert s.state() == before
    assert s.read("kprobe_profile").decode().splitlines() == [
        f"  {'myprobe':<44} {0:15} {0:15}", f"  {'myprobe':<44} {0:15} {0:15}"]


def test_truncate_ebusy_while_enabled_and_removal(s):
    s.write("kprobe_events", b"p:myprobe do_sys_open\n", trunc=True)
    s.write("events/kprobes/myprobe/enable", b"1\n")
    assert s.engine.probes[0].enabled
    before = s.state()
    with pytest.raises(OSError) as e:
        s.node("kprobe_events").truncate()
    assert e.value.errno == errno.EBUSY
    with pytest.raises(OSError) as e:
        s.node("dynamic_events").truncate()
    assert e.value.errno == errno.EBUSY
    assert s.errno_of("kprobe_events", b"-:myprobe\n") == errno.EBUSY
    assert s.state() == before
    s.write("events/kprobes/myprobe/enable", b"0\n")
    assert not s.engine.probes[0].enabled
    s.write("kprobe_events", b"\n", trunc=True)
    assert s.read("kprobe_events") == b"" and s.engine.probes == []


def test_several_commands_per_write_stop_at_the_first_failure(s):
    assert s.errno_of("kprobe_events", b"p:a do_sys_open\np:b nosuchfunc\np:c vfs_read\n", trunc=True) == errno.ENOENT
    assert s.read("kprobe_events") == b"p:kprobes/a do_sys_open\n"
    s.write("kprobe_events", b"p:b vfs_read # a comment\n-:a\n")
    assert s.read("kprobe_events") == b"p:kprobes/b vfs_read\n"


def test_dynamic_events_release_forms(s):
    s.write("dynamic_events", b"p:a do_sys_open x=%di\n", trunc=True)
    s.write("dynamic_events", b"p:g/b vfs_read\n")
    assert s.errno_of("dynamic_events", b"-:a do_sys_open x=%si\n") == errno.ENOENT
    s.write("dynamic_events", b"-:a do_sys_open x=%di\n")
    s.write("dynamic_events", b"!:g/b\n")
    assert s.read("dynamic_events") == b""


# ---- enabling and hits ---------------------------------------------------------------------

def _open_hit(s, path=b"/etc/passwd", **kw):
    return FakeHit(s.machine, addr_of("do_sys_open"), regs={"di": 0xFFFFFFFFFFFFFF9C, "si": 0x7000, "dx": 0x8000},
                   memory={0x7000: path + b"\0"}, **kw)


def test_hit_becomes_the_linux_trace_line(s):
    s.write("kprobe_events", OPEN_PROBE, trunc=True)
    s.write("events/kprobes/myprobe/enable", b"1\n")
    s.engine.hit(_open_hit(s))
    lines = s.trace_lines()
    assert len(lines) == 1
    assert lines[0].endswith(' myprobe: (do_sys_open+0x0/0x40) dfd=0xffffffffffffff9c filename="/etc/passwd" '
                             'flags=0x8000')
    assert s.read("kprobe_profile").decode() == f"  {'myprobe':<44} {1:15} {0:15}\n"


def test_kretprobe_line(s):
    s.write("kprobe_events", b"r:myret vfs_read $retval\n", trunc=True)
    assert s.engine.probes[0].is_return and s.engine.probes[0].maxactive == 10
    s.write("events/kprobes/enable", b"1\n")
    s.engine.hit(FakeHit(s.machine, addr_of("vfs_read"), ret_ip=addr_of("ksys_read", 0x6B), retval=0xC5))
    assert s.trace_lines()[0].endswith(" myret: (ksys_read+0x6b/0xf0 <- vfs_read) arg1=0xc5")


@pytest.mark.parametrize("sym_offset", [False, True])
def test_probe_lines_follow_sym_addr_not_sym_offset(s, sym_offset):
    """print_kprobe_event() forces sym-offset on for the probed address, the kretprobe's
    function is printed without it, and sym-addr adds ` <%016lx>` to each."""
    s.write("kprobe_events", b"p:ent vfs_read+5\nr:ret vfs_read rv=$retval:s32\n", trunc=True)
    s.write("events/kprobes/enable", b"1\n")
    s.write("options/sym-offset", b"%d\n" % sym_offset)
    s.engine.hit(FakeHit(s.machine, addr_of("vfs_read", 5)))
    ret_ip = addr_of("ksys_read", 0x6B)
    s.engine.hit(FakeHit(s.machine, addr_of("vfs_read"), ret_ip=ret_ip, retval=(1 << 64) - 2))
    size_r, size_k = FUNCTIONS["vfs_read"][1], FUNCTIONS["ksys_read"][1]
    plain = [f" ent: (vfs_read+0x5/{size_r:#x})", f" ret: (ksys_read+0x6b/{size_k:#x} <- vfs_read) rv=-2"]
    assert [l[l.index(" ent:") if " ent:" in l else l.index(" ret:"):] for l in s.trace_lines()] == plain
    s.write("options/sym-addr", b"1\n")
    lines = s.trace_lines()
    assert lines[0].endswith(f" ent: (vfs_read+0x5/{size_r:#x} <{addr_of('vfs_read', 5):016x}>)")
    assert lines[1].endswith(f" ret: (ksys_read+0x6b/{size_k:#x} <{ret_ip:016x}> <- vfs_read "
                             f"<{addr_of('vfs_read'):016x}>) rv=-2")


def test_filter_on_probe_fields(s):
    s.write("kprobe_events", OPEN_PROBE, trunc=True)
    s.write("events/kprobes/myprobe/filter", b'filename == "/etc/passwd"\n')
    s.write("set_event", b"kprobes:myprobe\n")
    assert s.read("set_event") == b"kprobes:myprobe\n"
    s.engine.hit(_open_hit(s, b"/dev/null"))
    s.engine.hit(_open_hit(s))
    lines = s.trace_lines()
    assert len(lines) == 1 and '"/etc/passwd"' in lines[0]


def test_slots_per_trace_array(s):
    s.write("kprobe_events", OPEN_PROBE, trunc=True)
    s.node("instances").make_child("foo")
    event = next(tk.event for tk in s.kprobes.probes() if tk.spec.event == "myprobe")
    foo = s.system.instances.get("foo")
    s.write("instances/foo/events/kprobes/myprobe/enable", b"1\n")
    assert event.slots == 1 << foo.slot and s.engine.probes[0].enabled
    s.write("events/enable", b"1\n")
    assert event.slots == 1 | 1 << foo.slot
    s.engine.hit(_open_hit(s))
    s.system.drain.drain_once()
    assert b"myprobe:" in foo.read_trace() and b"myprobe:" in s.read("trace")
    s.write("events/enable", b"0\n")
    assert event.slots == 1 << foo.slot and s.engine.probes[0].enabled
    s.node("instances").remove_child("foo")     # its events go off with it
    assert event.slots == 0 and not s.engine.probes[0].enabled


def test_disabled_probe_records_nothing_and_removal_clears_the_trace(s):
    s.write("kprobe_events", OPEN_PROBE, trunc=True)
    s.engine.hit(_open_hit(s))
    assert s.trace_lines() == []
    s.write("events/kprobes/myprobe/enable", b"1\n")
    s.engine.hit(_open_hit(s))
    assert len(s.trace_lines()) == 1
    s.write("events/kprobes/myprobe/enable", b"0\n")
    s.write("kprobe_events", b"-:myprobe\n")
    # Linux resets the buffers that may hold records of a removed event.
    assert s.trace_lines() == []


def test_appended_probe_of_an_enabled_event_is_armed(s):
    s.write("kprobe_events", b"p:myprobe do_sys_open\n", trunc=True)
    s.write("events/kprobes/myprobe/enable", b"1\n")
    s.write("kprobe_events", b"p:myprobe vfs_read\n")
    assert all(p.enabled for p in s.engine.probes)
    # One of several probes may go while the event is enabled; the last may not.
    s.write("kprobe_events", b"-:myprobe vfs_read\n")
    assert s.errno_of("kprobe_events", b"-:myprobe\n") == errno.EBUSY


# ---- the engine's debug views ----------------------------------------------------------------

def test_optimization_sysctl_and_views(s):
    from tracefs_sim.probes.kprobes.debugfs import KprobeDebugViews

    views = KprobeDebugViews(s.engine)
    assert views.read_optimization() == b"1\n"
    views.write_optimization(b"0\n")
    assert s.engine.optimization is False and views.read_optimization() == b"0\n"
    for bad in (b"2\n", b"-1", b"x", b"1x", b""):
        with pytest.raises(OSError) as e:
            views.write_optimization(bad)
        assert e.value.errno == errno.EINVAL
    assert s.engine.optimization is False
    views.write_optimization(b" 1 2\n")     # one int is read; the rest is left unread
    assert s.engine.optimization is True
    s.write("kprobe_events", b"p:a do_sys_open\n", trunc=True)
    assert views.read_list() == b"%016x  k  do_sys_open+0x0    [DISABLED][FTRACE]\n" % addr_of("do_sys_open")


def test_module_probe_is_kept_unarmed(s):
    # No module is loaded: Linux keeps the probe, unarmed, waiting for the module.
    s.write("kprobe_events", b"p:m mymod:func %di\n", trunc=True)
    assert s.read("kprobe_events") == b"p:kprobes/m mymod:func arg1=%di\n"
    assert s.engine.probes == []
    s.write("events/kprobes/m/enable", b"1\n")
    assert s.read("events/kprobes/m/enable") == b"1\n"
    s.write("events/kprobes/m/enable", b"0\n")
    assert s.read("kprobe_profile") == f"  {'m':<44} {0:15} {0:15}\n".encode()
    s.write("kprobe_events", b"-:m\n")
    assert s.read("kprobe_events") == b""


def test_address_probe_kallsyms_does_not_know_is_kept_unarmed(s):
    """register_kprobe()'s -ENOENT (no symbol at the address) is tolerated for a probe given by
    address: the event exists and can be enabled, nothing is armed; a kretprobe that never
    registered has no maxactive to show.  A symbol's offset past the kernel stays ENOENT."""
    outside = (1 << 64) - (1 << 32)
    for command, listed in ((f"p:x {outside:#x}", "p:kprobes/x 0x(____ptrval____)"),
                            ("p:y +5", "p:kprobes/y 0x(____ptrval____)"),
                            ("r:z 0x10", "r:kprobes/z 0x(____ptrval____)")):
        s.write("kprobe_events", command.encode() + b"\n")
        assert s.read("kprobe_events").decode().splitlines()[-1] == listed
    assert s.engine.probes == []
    assert s.read("events/kprobes/x/format").decode().endswith('\nprint fmt: "(%lx)", REC->__probe_ip\n')
    s.write("events/kprobes/enable", b"1\n")
    assert s.read("events/kprobes/x/enable") == b"1\n"
    s.write("events/kprobes/enable", b"0\n")
    assert s.read("kprobe_profile").decode().splitlines() == [f"  {n:<44} {0:15} {0:15}" for n in "xyz"]
    s.write("kprobe_events", b"-:x 0x(____ptrval____)\n")
    assert "kprobes/x" not in s.read("kprobe_events").decode()
    before = s.state()
    assert s.errno_of("kprobe_events", b"p:w vfs_read+4294967295\n") == errno.ENOENT
    assert s.state() == before
    assert _error_log_entries(s.read("error_log").decode())[-3:-1] == [
        "trace_kprobe: error: Invalid probed address or symbol", "  Command: p:w vfs_read+4294967295"]
    assert s.errno_of("kprobe_events", b"p:w 0\n") == errno.EINVAL
    assert _error_log_entries(s.read("error_log").decode())[-3] == "trace_kprobe: error: Failed to register probe event"


def test_dynamic_events_are_listed_first_newest_first(s):
    s.write("kprobe_events", b"p:a vfs_read\n", trunc=True)
    s.write("kprobe_events", b"p:b ksys_read\n")
    assert s.read("available_events").decode().splitlines()[:3] == ["kprobes:b", "kprobes:a", "sched:sched_switch"]
    for path in ("events/sched/sched_switch/enable", "events/kprobes/enable"):
        s.write(path, b"1\n")
    assert s.read("set_event").decode().splitlines() == ["kprobes:b", "kprobes:a", "sched:sched_switch"]
    s.node("instances").make_child("foo")
    s.write("instances/foo/events/enable", b"1\n")
    assert s.node("instances/foo/set_event").read().decode().splitlines()[:2] == ["kprobes:b", "kprobes:a"]


# ---- a kprobe event as an enable_event / disable_event target -------------------------------

def test_enable_event_whose_target_is_a_kprobe_event(s):
    """6.1 (real-tracefs): `enable_event:kprobes:myprobe:2` on a tracepoint reads back so, the
    probe event in soft mode (0*) until the trigger fires; the guest is given the probe event's
    soft_off word to flip (its id), the trigger's count, and the event holds it (EBUSY)."""
    s.write("kprobe_events", b"p:myprobe vfs_read\n")
    s.write("events/sched/sched_switch/trigger", b"enable_event:kprobes:myprobe:2\n")
    assert s.read("events/sched/sched_switch/trigger") == b"enable_event:kprobes:myprobe:count=2\n"
    assert s.read("events/kprobes/myprobe/enable") == b"0*\n"
    probe_id = int(s.read("events/kprobes/myprobe/id"))
    triggers = s.system.guest.triggers
    (t,) = triggers.table
    assert (t.cmd, t.target_id, t.target_dyn) == ("enable_event", probe_id, True)
    assert triggers.dyn_soft_disabled(probe_id, 0)
    triggers.set_dyn_soft_disabled(probe_id, 0, False)        # as the guest's trigger does
    assert s.read("events/kprobes/myprobe/enable") == b"1*\n"
    assert s.errno_of("kprobe_events", b"-:myprobe\n") == errno.EBUSY
    # the disable_event of the same target is the same trigger type (EEXIST); `!` removes it
    assert s.errno_of("events/sched/sched_switch/trigger", b"disable_event:kprobes:myprobe\n") == errno.EEXIST
    # (fired: removing it leaves the event enabled, as 6.1's __ftrace_event_enable_disable())
    s.write("events/sched/sched_switch/trigger", b"!enable_event:kprobes:myprobe\n")
    assert s.read("events/kprobes/myprobe/enable") == b"1\n"
    s.write("events/kprobes/myprobe/enable", b"0\n")
    # not fired: it goes with the trigger, its soft_off bit cleared
    s.write("events/sched/sched_switch/trigger", b"disable_event:kprobes:myprobe\n")
    assert s.read("events/kprobes/myprobe/enable") == b"0*\n"
    s.write("events/sched/sched_switch/trigger", b"!disable_event:kprobes:myprobe\n")
    assert s.read("events/kprobes/myprobe/enable") == b"0\n"
    assert not triggers.dyn_soft_disabled(probe_id, 0)
    s.write("kprobe_events", b"-:myprobe\n")
    assert s.errno_of("events/sched/sched_switch/trigger", b"enable_event:kprobes:myprobe\n") == errno.EINVAL


def _perf(s, event_id: int, open_: bool):
    """The kernel's PERF_OPEN / PERF_CLOSE request for a kprobe event (its tracepoint perf events)."""
    from tracefs_sim.machine.contract import KprobeRequest
    return s.kprobes.serve_local(KprobeRequest(open_, "", 0, 0, False, 0, perf_event=event_id))


def test_perf_holds_a_kprobe_event(s):
    """kprobe_register()'s TRACE_REG_PERF_REGISTER: perf's use arms the event's probes with its
    enable 0 (answered with their guest indexes and the format's fields), makes its removal
    EBUSY, and survives the trace's enable and disable; its end disarms them"""
    s.write("kprobe_events", b"p:myprobe do_sys_open dfd=%di:s32\n", trunc=True)
    event_id = int(s.read("events/kprobes/myprobe/id"))
    (kp,) = s.engine.probes
    answer = _perf(s, event_id, True)
    assert answer.probes == (kp.guest.index,)
    assert answer.fields == (("unsigned long", "__probe_ip", 8, 8, False), ("s32", "dfd", 16, 4, True))
    assert kp.enabled and s.read("events/kprobes/myprobe/enable") == b"0\n"
    assert s.errno_of("kprobe_events", b"-:myprobe\n") == errno.EBUSY
    s.write("events/kprobes/myprobe/enable", b"1\n")
    s.write("events/kprobes/myprobe/enable", b"0\n")
    assert kp.enabled  # still perf's
    assert _perf(s, event_id, False) == 0
    assert not kp.enabled
    s.write("kprobe_events", b"-:myprobe\n")
    assert s.engine.probes == []


def test_perf_of_an_id_no_kprobe_event_has(s):
    """EINVAL for an id that is no kprobe event's, and for an event whose probe runs on the
    host (no guest record program: the guest's perf call would never see its hits)"""
    assert _perf(s, 4242, True) == -errno.EINVAL
    s.write("kprobe_events", b"p:myprobe do_sys_open\n", trunc=True)
    s.engine.probes[0].guest = None
    assert _perf(s, int(s.read("events/kprobes/myprobe/id")), True) == -errno.EINVAL
    assert not s.engine.probes[0].enabled
