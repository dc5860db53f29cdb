"""Function probes (the set_ftrace_filter commands) in the guest: FtraceSites.set_probes hands
the dispatcher a table it runs at every hit of the function, on a booted machine. traceon /
traceoff flip the slot's recording bit, stacktrace writes kernel_stack records, enable_event /
disable_event flip the event file's bit, and the counts go down in the guest."""
import struct

import pytest

from tracefs_sim.probes.ftrace import (PROBE_DISABLE_EVENT, PROBE_ENABLE_EVENT, PROBE_STACKTRACE_COUNT,
                                       PROBE_TRACEOFF, PROBE_TRACEON_COUNT, FunctionProbe, ProbeCounter)
from tests.rb_page_reference import decode_page

TRACE_STACK = 4
GETUID = "__do_sys_getuid"
SWITCH_ID = 316


@pytest.fixture
def machine(make_machine):
    return make_machine(traced=True, cpus=2, seed=11)


def getuid_loop(machine, n):
    proc = machine.spawn(["getuid-loop", str(n)], lambda data: None)
    assert proc.wait(60) == 0


def site_bytes(machine, name):
    return machine.read_memory(machine.sites.address(name), 5)


def records(machine, slot=0):
    out = []
    for page in machine.tracing.drain(slot):
        for ev in decode_page(page.data).events:
            out.append(bytes(ev.payload))
    return out


def sched_switch(machine):
    return next(e for e in machine.image.events if (e.system, e.name) == ("sched", "sched_switch"))


def test_traceoff_at_the_function_turns_the_slot_off_in_the_guest(machine):
    sites = machine.sites
    nop = site_bytes(machine, GETUID)
    sites.set_probes([FunctionProbe(GETUID, PROBE_TRACEOFF, 0, None)])
    # patched though no tracer asked for the function: the probe is an ftrace_ops of its own
    assert site_bytes(machine, GETUID)[0] == 0xE8 and sites.patched_count == 1
    assert machine.tracing.is_recording(0)
    getuid_loop(machine, 1)
    assert not machine.tracing.is_recording(0)
    sites.set_probes([])
    assert site_bytes(machine, GETUID) == nop and sites.patched_count == 0


def test_counted_traceon_acts_only_on_a_change_and_counts_down(machine):
    sites, tracing = machine.sites, machine.tracing
    counter = ProbeCounter(2)
    tracing.open_slot(1)
    tracing.open_slot(2)
    sites.set_probes([FunctionProbe(GETUID, PROBE_TRACEON_COUNT, 1, counter)])
    tracing.set_recording(1, True)
    getuid_loop(machine, 3)
    assert sites.read_counter(counter) == 2          # already on: update_traceon_count() skips
    tracing.set_recording(1, False)
    getuid_loop(machine, 3)
    assert tracing.is_recording(1) and sites.read_counter(counter) == 1
    tracing.set_recording(1, False)
    # the guest's count survives a rewrite of the table
    other = ProbeCounter(5)
    sites.set_probes([FunctionProbe(GETUID, PROBE_TRACEON_COUNT, 1, counter),
                      FunctionProbe("from_kuid_munged", PROBE_TRACEON_COUNT, 2, other)])
    assert sites.read_counter(counter) == 1
    getuid_loop(machine, 1)
    assert tracing.is_recording(1) and sites.read_counter(counter) == 0
    tracing.set_recording(1, False)
    getuid_loop(machine, 1)
    assert not tracing.is_recording(1)               # count 0: nothing more
    assert sites.read_counter(other) == 4             # slot 2 was off: turned on once
    assert dict((n, r) for n, r, _ in sites.enabled()) == {GETUID: 1, "from_kuid_munged": 1}
    sites.set_probes([])
    assert sites.read_counter(counter) == 0 and sites.patched_count == 0


def test_counted_stacktrace_writes_that_many_stack_records(machine):
    sites = machine.sites
    records(machine)
    counter = ProbeCounter(2)
    sites.set_probes([FunctionProbe(GETUID, PROBE_STACKTRACE_COUNT, 0, counter)])
    getuid_loop(machine, 5)
    stacks = [r for r in records(machine) if struct.unpack_from("<H", r)[0] == TRACE_STACK]
    assert len(stacks) == 2 and sites.read_counter(counter) == 0
    size = struct.unpack_from("<i", stacks[0], 8)[0]
    frames = struct.unpack_from(f"<{size}Q", stacks[0], 16)
    # Linux's trace_dump_stack() starts past its own frames too: the trampoline, the function
    assert machine.image.symbolize(frames[0])[0].name == "ftrace_caller"
    assert machine.image.kallsyms_lookup(frames[0]) is None              # printed as an address
    assert machine.image.symbolize(frames[1])[0].name == GETUID
    # __x64_sys_getuid is __do_sys_getuid (SYSCALL_DEFINE0's alias): called from the dispatch
    assert machine.image.symbolize(frames[2])[0].name == "do_syscall_64"


def test_enable_and_disable_event_flip_the_event_files_bit(machine):
    sites, tracing = machine.sites, machine.tracing
    event = sched_switch(machine)
    tracing.set_event_id(event, SWITCH_ID)
    # soft mode: enabled (the tracepoint armed) but soft-disabled
    tracing.set_event_soft_disabled(event, 0, True)
    tracing.enable_event(event, 0, True)
    assert not tracing.event_recording(event, 0)
    counter = ProbeCounter(-1)
    file = tracing.event_file(event)
    sites.set_probes([FunctionProbe(GETUID, PROBE_ENABLE_EVENT, 0, counter, file)])
    getuid_loop(machine, 1)
    assert tracing.event_recording(event, 0) and sites.read_counter(counter) == -1
    switches = [r for r in records(machine) if struct.unpack_from("<H", r)[0] == SWITCH_ID]
    assert switches
    off = ProbeCounter(1)
    sites.set_probes([FunctionProbe("from_kuid_munged", PROBE_DISABLE_EVENT, 0, off, file)])
    getuid_loop(machine, 1)
    assert not tracing.event_recording(event, 0) and sites.read_counter(off) == 0
    sites.set_probes([])
    tracing.enable_event(event, 0, False)


def test_probes_act_on_a_slot_past_word_0(machine):
    """A function probe of a trace array past word 0 of the kernel's masks (ftrace_probe's u16
    slot): enable_event flips the slot's bit in the event's extension words, stacktrace writes
    in the slot's own rings, traceoff clears its recording bit, word 0's slots untouched."""
    sites, tracing = machine.sites, machine.tracing
    slot = 200
    event = sched_switch(machine)
    tracing.set_event_id(event, SWITCH_ID)
    tracing.open_slot(slot)
    tracing.set_recording(slot, True)
    tracing.set_event_soft_disabled(event, slot, True)
    tracing.enable_event(event, slot, True)
    file = tracing.event_file(event)
    stacks = ProbeCounter(2)
    sites.set_probes([FunctionProbe(GETUID, PROBE_ENABLE_EVENT, slot, ProbeCounter(-1), file),
                      FunctionProbe(GETUID, PROBE_STACKTRACE_COUNT, slot, stacks)])
    getuid_loop(machine, 3)
    assert tracing.event_recording(event, slot) and not tracing.event_recording(event, 0)
    got = [struct.unpack_from("<H", r)[0] for r in records(machine, slot)]
    assert got.count(TRACE_STACK) == 2 and SWITCH_ID in got and sites.read_counter(stacks) == 0
    assert TRACE_STACK not in [struct.unpack_from("<H", r)[0] for r in records(machine, 0)]
    sites.set_probes([FunctionProbe(GETUID, PROBE_TRACEOFF, slot, None)])
    getuid_loop(machine, 1)
    assert not tracing.is_recording(slot) and tracing.is_recording(0)
    sites.set_probes([])
    tracing.enable_event(event, slot, False)


def test_bad_tables_change_nothing(machine):
    sites = machine.sites
    sites.set_probes([FunctionProbe(GETUID, PROBE_TRACEOFF, 0, None)])
    with pytest.raises(KeyError):
        sites.set_probes([FunctionProbe("no_such_function", PROBE_TRACEOFF, 0, None)])
    with pytest.raises(ValueError):
        sites.set_probes([FunctionProbe(GETUID, PROBE_TRACEOFF, machine.image.abi_value("TRACE_SLOTS"), None)])
    with pytest.raises(OSError):
        sites.set_probes([FunctionProbe(GETUID, PROBE_TRACEOFF, 0, None)] * 5000)
    assert [n for n, _, _ in sites.enabled()] == [GETUID] and sites.patched_count == 1
