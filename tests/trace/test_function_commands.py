"""set_ftrace_filter's commands in a trace array (against fake sites and guest): what Linux 6.1
lists, the errno of bad input with nothing changed, which registration a removal takes, the
events' soft mode as their enable files show it, and the table the guest is handed."""

import errno

import pytest

from tests.fakes import FakeFtraceSites, make_trace_array
from tracefs_sim.probes.ftrace import (PROBE_CPUDUMP, PROBE_DISABLE_EVENT, PROBE_DUMP, PROBE_ENABLE_EVENT,
                                       PROBE_SNAPSHOT, PROBE_SNAPSHOT_COUNT, PROBE_STACKTRACE, PROBE_TRACEOFF,
                                       PROBE_TRACEON_COUNT)
from tracefs_sim.trace.function_commands import FunctionCommands
from tracefs_sim.trace.function_tracer import FtraceGlobal

FUNCTIONS = ["ksys_read", "vfs_read", "vfs_readv", "vfs_readlink", "vfs_write", "__do_sys_getuid"]
ALL = "#### all functions enabled ####\n"


def make_array(sites, slot=0, ftrace=None, guest=None):
    return make_trace_array(slot, ftrace=ftrace or FtraceGlobal(sites, 0x1d0), guest=guest)


@pytest.fixture
def sites():
    return FakeFtraceSites(FUNCTIONS)


@pytest.fixture
def ta(sites):
    return make_array(sites)


def write(ta, text):
    """As `echo TEXT >> set_ftrace_filter` does it."""
    ta.functions.filter.write(text.encode() + b"\n")


def listing(ta):
    return ta.functions.filter.read().decode()


def fails(ta, text, code):
    before, table = listing(ta), list(ta.functions.ftrace.sites.probes)
    enables = {name: ta.events.read_enable("sched", name) for name in ("sched_switch", "sched_wakeup")}
    with pytest.raises(OSError) as failed:
        write(ta, text)
    assert failed.value.errno == code, text
    assert listing(ta) == before and ta.functions.ftrace.sites.probes == table
    assert enables == {name: ta.events.read_enable("sched", name) for name in ("sched_switch", "sched_wakeup")}


def test_listing_as_linux_prints_it(ta):
    write(ta, "vfs_read:traceoff")
    assert listing(ta) == ALL + "vfs_read:traceoff:unlimited\n"
    write(ta, "vfs_write:traceon:2")
    write(ta, "vfs_read:stacktrace vfs_read:stacktrace:3")
    write(ta, "ksys_read:enable_event:sched:sched_switch")
    write(ta, "ksys_read:disable_event:sched:sched_wakeup:4")
    # the newest command kind first (list_add on tr->func_probes)
    assert listing(ta) == ALL + (
        "ksys_read:disable_event:sched:sched_wakeup:count=4\n"
        "ksys_read:enable_event:sched:sched_switch:unlimited\n"
        "vfs_read:stacktrace:count=3\n"
        "vfs_read:stacktrace:unlimited\n"
        "vfs_write:traceon:count=2\n"
        "vfs_read:traceoff:unlimited\n")
    # names first, then the commands; truncating the file keeps the commands
    write(ta, "vfs_write")
    assert listing(ta).startswith("vfs_write\nksys_read:disable_event:")
    ta.functions.filter.clear()
    assert listing(ta).startswith(ALL + "ksys_read:disable_event:")


def test_an_empty_count_is_a_counted_probe_of_minus_one(ta):
    write(ta, "vfs_write:traceon:")
    assert listing(ta) == ALL + "vfs_write:traceon:count=-1\n"
    write(ta, "vfs_read:traceon:0x10 ksys_read:traceon:010 __do_sys_getuid:traceon:+5")
    assert sorted(listing(ta).splitlines()[1:]) == [
        "__do_sys_getuid:traceon:count=5", "ksys_read:traceon:count=8", "vfs_read:traceon:count=16",
        "vfs_write:traceon:count=-1"]


def test_bad_input_gets_linux_errno_and_changes_nothing(ta):
    write(ta, "vfs_read:traceon:0 vfs_read:traceoff")
    fails(ta, "vfs_read:bogus", errno.EINVAL)
    fails(ta, "vfs_read:enable_event:sched:nosuch", errno.EINVAL)
    fails(ta, "vfs_read:enable_event:sched", errno.EINVAL)
    fails(ta, "vfs_read:enable_event", errno.EINVAL)
    fails(ta, "vfs_read:enable_event:sched:sched_switch:", errno.EINVAL)
    fails(ta, "vfs_read:enable_event:sched:sched_switch:x", errno.EINVAL)
    fails(ta, "vfs_read:enable_event:ftrace:function", errno.EINVAL)
    fails(ta, "nosuch:enable_event:sched:sched_switch", errno.EINVAL)
    for count in ("abc", "-1", "3x", "0x"):
        fails(ta, f"vfs_write:traceon:{count}", errno.EINVAL)
    fails(ta, "nosuchfunc:traceon", errno.EINVAL)
    fails(ta, ":traceon", errno.EINVAL)
    fails(ta, "vfs_read:traceon:7", errno.EINVAL)         # already there: nothing added
    fails(ta, "vfs_read:traceoff", errno.EINVAL)
    fails(ta, "!vfs_read:stacktrace", errno.ENODEV)       # no such probe
    fails(ta, "!vfs_write:traceoff", errno.EINVAL)        # the probe has no vfs_write
    fails(ta, "!2:traceoff", errno.EINVAL)                # removal has no index form
    fails(ta, "!vfs_read:enable_event:sched:nosuch", errno.EINVAL)
    with pytest.raises(OSError) as failed:
        ta.functions.notrace.write(b"vfs_read:traceon\n")
    assert failed.value.errno == errno.EINVAL and ta.functions.notrace.names == frozenset()


def test_removal_takes_the_counted_or_the_unlimited_registration(ta):
    write(ta, "vfs_write:traceon vfs_write:traceon:3 vfs_rea*:traceoff:1")
    assert sorted(listing(ta).splitlines()[1:4]) == [
        "vfs_read:traceoff:count=1", "vfs_readlink:traceoff:count=1", "vfs_readv:traceoff:count=1"]
    write(ta, "!vfs_write:traceon:9")
    assert "vfs_write:traceon:count=3" not in listing(ta) and "vfs_write:traceon:unlimited" in listing(ta)
    with pytest.raises(OSError) as failed:
        write(ta, "!*:traceoff")
    assert failed.value.errno == errno.ENODEV
    write(ta, "!vfs_readv:traceoff:0")
    assert "vfs_readv" not in listing(ta) and "vfs_readlink:traceoff:count=1" in listing(ta)
    write(ta, "!*:traceoff:0 !vfs_write:traceon")
    assert listing(ta) == ALL
    assert ta.functions.ftrace.sites.probes == []


def test_glob_order_is_the_hash_buckets(ta, sites):
    """t_probe_show walks the probe's ftrace_hash: buckets by hash_long(ip, bits), where a hash
    of n entries has fls(n / 2) bits, each bucket newest first."""
    write(ta, "vfs_*:traceoff")
    names = [line.split(":")[0] for line in listing(ta).splitlines()[1:]]
    matched = [f for f in FUNCTIONS if f.startswith("vfs_")]
    bits = (len(matched) // 2).bit_length()

    def bucket(ip, bits):
        return ((ip * 0x61C8864680B583EB) % (1 << 64)) >> (64 - bits) if bits else 0
    # the 10-bit working copy, each bucket newest first, then moved bucket by bucket
    work = sorted(matched, key=lambda f: (bucket(sites.address(f), 10), -matched.index(f)))
    expected = []
    for b in range(1 << bits):
        for f in work:
            if bucket(sites.address(f), bits) == b:
                expected.insert(len(expected) - sum(1 for e in expected if bucket(sites.address(e), bits) == b), f)
    assert names == expected and sorted(names) == sorted(matched)


def test_event_probes_share_one_count_per_registration(ta, sites):
    write(ta, "vfs_read*:enable_event:sched:sched_waking:2")
    lines = listing(ta).splitlines()[1:]
    assert len(lines) == 3 and all(line.endswith(":enable_event:sched:sched_waking:count=2") for line in lines)
    counters = {id(p.counter) for p in sites.probes}
    assert len(counters) == 1
    sites.probes[0].counter.value = 1     # the guest counted one down
    assert all(line.endswith(":count=1") for line in listing(ta).splitlines()[1:])
    # one probe per command kind: another event for a function already in it adds nothing
    fails(ta, "vfs_read:enable_event:sched:sched_switch:2", errno.EINVAL)
    write(ta, "ksys_read:enable_event:sched:sched_switch:2")
    assert "ksys_read:enable_event:sched:sched_switch:count=2" in listing(ta)


def test_soft_mode_in_the_enable_files(ta):
    guest = ta._guest
    ev = ta.events
    write(ta, "vfs_read:enable_event:sched:sched_switch")
    assert ev.read_enable("sched", "sched_switch") == b"0*\n"
    assert b"sched:sched_switch\n" in ev.read_set_event()        # ENABLED: the tracepoint is armed
    assert ev.read_enable("sched") == b"X\n"
    desc = ev.files[next(i for i, f in ev.files.items() if f.event.name == "sched_switch")].event.desc
    assert not guest.event_recording(desc, 0)
    guest.set_event_soft_disabled(desc, 0, False)                 # the probe fired in the guest
    assert ev.read_enable("sched", "sched_switch") == b"1*\n"
    ev.write_enable(b"0", "sched", "sched_switch")                # soft mode: only soft-disabled
    assert ev.read_enable("sched", "sched_switch") == b"0*\n" and guest.enabled[("sched", "sched_switch")]
    ev.write_enable(b"1", "sched", "sched_switch")
    assert ev.read_enable("sched", "sched_switch") == b"1*\n"
    write(ta, "!vfs_read:enable_event:sched:sched_switch")
    assert ev.read_enable("sched", "sched_switch") == b"1\n"      # left as it was: recording
    ev.write_enable(b"0", "sched", "sched_switch")
    write(ta, "ksys_read:enable_event:sched:sched_switch")
    write(ta, "!ksys_read:enable_event:sched:sched_switch")
    assert ev.read_enable("sched", "sched_switch") == b"0\n" and not guest.enabled[("sched", "sched_switch")]
    ev.write_enable(b"1", "sched", "sched_wakeup")
    write(ta, "ksys_read:disable_event:sched:sched_wakeup")
    assert ev.read_enable("sched", "sched_wakeup") == b"1*\n"
    write(ta, "!ksys_read:disable_event:sched:sched_wakeup")
    assert ev.read_enable("sched", "sched_wakeup") == b"1\n"


def test_the_guest_table(sites):
    ftrace = FtraceGlobal(sites, 0x1d0)
    top = make_array(sites, ftrace=ftrace)
    inst = make_array(sites, slot=3, ftrace=ftrace)
    write(inst, "vfs_read:traceoff vfs_write:traceon:2 ksys_read:stacktrace")
    write(inst, "ksys_read:disable_event:sched:sched_switch:1")
    write(top, "vfs_write:enable_event:sched:sched_wakeup")
    table = {(p.function, p.command): p for p in sites.probes}
    assert table["vfs_read", PROBE_TRACEOFF].slot == 3 and table["vfs_read", PROBE_TRACEOFF].counter is None
    assert table["vfs_write", PROBE_TRACEON_COUNT].counter.value == 2
    assert table["ksys_read", PROBE_STACKTRACE].slot == 3          # ftrace_stacktrace(): trace_stack(tr)
    off = table["ksys_read", PROBE_DISABLE_EVENT]
    assert off.slot == 3 and off.event_file and off.counter.value == 1
    assert table["vfs_write", PROBE_ENABLE_EVENT].slot == 0 and table["vfs_write", PROBE_ENABLE_EVENT].counter.value == -1
    assert dict((n, c) for n, c, _ in sites.enabled()) == {"ksys_read": 2, "vfs_read": 1, "vfs_write": 2}
    inst.shutdown()                                  # an instance removed takes its probes along
    assert [(p.function, p.command) for p in sites.probes] == [("vfs_write", PROBE_ENABLE_EVENT)]
    assert inst.events.read_enable("sched", "sched_switch") == b"0\n"


def test_tracing_on_reads_the_guests_state(ta):
    guest = ta._guest
    assert ta.read_tracing_on() == b"1\n"
    guest.recording[0] = False                       # a traceoff probe ran in the guest
    assert ta.read_tracing_on() == b"0\n"
    ta.write_tracing_on(b"1")
    assert guest.recording[0] and ta.read_tracing_on() == b"1\n"
    guest.recording[0] = False
    # what the guest recorded before it went off is still kept
    assert ta.add_records(0, [(5, b"\x01\x00\x00\x00\x07\x00\x00\x00" + bytes(16))]) == 1


def test_probes_list_in_their_hash_order_as_linux_does():
    # Linux 6.1 (addresses from its /proc/kallsyms): after ksys_read:traceoff:0x10 then
    # ksys_write:traceoff:010, set_ftrace_filter lists ksys_write's first
    sites = {"vfs_read": 0xFFFFFFFF813669E0, "ksys_read": 0xFFFFFFFF81367550, "ksys_write": 0xFFFFFFFF81367680}
    commands = FunctionCommands(list(sites), sites.__getitem__, 0, lambda counter: counter.value, lambda: None,
                                make_trace_array().events, lambda: None)
    commands.run("ksys_read:traceoff:0x10")
    commands.run("ksys_write:traceoff:010")
    assert commands.lines() == b"ksys_write:traceoff:count=8\nksys_read:traceoff:count=16\n"


def test_snapshot_command_as_linux(sites):
    """6.1 (real-tracefs): func:snapshot[:N] allocates the array's snapshot buffer, reads back
    `:unlimited` / `:count=N` (a counted and an unlimited registration apart), and the guest
    asks for the array's snapshot at the hit (the count taken there); a bad count is EINVAL."""
    inst = make_array(sites, slot=2)
    assert not inst.snapshot.allocated
    write(inst, "vfs_read:snapshot vfs_write:snapshot:3")
    assert inst.snapshot.allocated
    assert listing(inst) == ALL + "vfs_write:snapshot:count=3\nvfs_read:snapshot:unlimited\n"
    table = {(p.function, p.command): p for p in sites.probes}
    assert table["vfs_read", PROBE_SNAPSHOT].slot == 2 and table["vfs_read", PROBE_SNAPSHOT].counter is None
    assert table["vfs_write", PROBE_SNAPSHOT_COUNT].counter.value == 3
    fails(inst, "vfs_read:snapshot:abc", errno.EINVAL)
    write(inst, "!vfs_read:snapshot")
    assert listing(inst) == ALL + "vfs_write:snapshot:count=3\n"
    write(inst, "!vfs_write:snapshot:0")
    assert listing(inst) == ALL and sites.probes == []


def test_dump_and_cpudump_as_linux(sites):
    """6.1: func:dump registers with the count 1 whatever was written (ftrace_dump_callback()
    passes "1"), func:cpudump keeps no count; both act on the top level (global_trace) from
    any array; `!func:dump` removes it with or without a count written."""
    inst = make_array(sites, slot=2)
    write(inst, "vfs_read:dump:5 vfs_write:cpudump:3")
    assert listing(inst) == ALL + "vfs_write:cpudump:unlimited\nvfs_read:dump:count=1\n"
    table = {(p.function, p.command): p for p in sites.probes}
    assert table["vfs_read", PROBE_DUMP].slot == 0 and table["vfs_read", PROBE_DUMP].counter.value == 1
    assert table["vfs_write", PROBE_CPUDUMP].slot == 0 and table["vfs_write", PROBE_CPUDUMP].counter is None
    write(inst, "!vfs_read:dump:7")
    write(inst, "!vfs_write:cpudump")
    assert listing(inst) == ALL and not sites.probes
