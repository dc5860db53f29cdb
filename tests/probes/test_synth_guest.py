"""The emulated kernel's trace_synth() (kernel/trace_events_synth.c), the way a histogram's
action emits a synthetic event: called with the event's entry, the values and their indexes,
it writes the record as 6.1's trace_event_raw_event_synth() lays it out -- numbers in u64
slots, a fixed string in its 256 bytes, a dynamic string after the fixed part -- in the slots
that have the event enabled, and `trace` prints it as 6.1 does.

Nothing in the kernel calls it until the histograms do, so the test makes a call happen: a
code hook at a system call's entry turns that call into a call of trace_synth() with values it
put on the kernel stack below the frame."""
import struct

import pytest



@pytest.fixture
def sim(traced):
    return traced(1, "none", 3)


def emit_from_getuid(m, entry: int, values: list[int], strings: dict[int, bytes]):
    """At the next getuid(), the kernel calls trace_synth(entry, vals, idx) instead (and the
    call returns what trace_synth left in rax).  values: var_ref_vals; strings: index ->
    bytes put on the stack, whose address becomes that value."""
    image = m.image
    synth = image.lookup("trace_synth").addr
    done = []

    def hook(ctx):
        if done:
            return
        done.append(True)
        base = (ctx.reg("sp") - 4096) & ~0xF
        vals = list(values)
        at = base + 512
        for i, text in strings.items():
            assert ctx.write(at, text + b"\0")
            vals[i] = at
            at += len(text) + 8
        assert ctx.write(base, struct.pack(f"<{len(vals)}Q", *vals))
        assert ctx.write(base + 256, struct.pack(f"<{len(vals)}I", *range(len(vals))))
        ctx.set_reg("di", entry)
        ctx.set_reg("si", base)
        ctx.set_reg("dx", base + 256)
        ctx.set_rip(synth)
    handle = m.add_code_hook(image.lookup("__x64_sys_getuid").addr, hook)
    try:
        assert m.spawn(["getuid-loop", "1"]).wait(30) == 0
    finally:
        m.remove_code_hook(handle)
    assert done


def test_trace_synth_writes_the_record(sim):
    m, core, tree = sim
    tree.walk("synthetic_events").write(b"wakeup_latency u64 lat; pid_t pid; int prio; char comm[16]; "
                                        b"char name[]; s8 small\n")
    tree.walk("events/synthetic/wakeup_latency/enable").write(b"1")
    index = core.synth.find("wakeup_latency").guest_index
    entry = m.tracing.synth_events.address(index)
    emit_from_getuid(m, entry, [1234, 42, (1 << 64) - 5, 0, 0, 0xFF], {3: b"sleep", 4: b"a dynamic one"})
    core.drain.drain_once()
    lines = [line for line in tree.walk("trace").read().decode().splitlines() if "wakeup_latency:" in line]
    assert len(lines) == 1
    assert lines[0].endswith("wakeup_latency: lat=1234 pid=42 prio=-5 comm=sleep name=a dynamic one small=-1")
    assert " getuid-loop-" in lines[0] or "getuid-loop" in lines[0]


def test_trace_synth_records_nothing_while_disabled(sim):
    m, core, tree = sim
    tree.walk("synthetic_events").write(b"x u64 a\n")
    entry = m.tracing.synth_events.address(core.synth.find("x").guest_index)
    emit_from_getuid(m, entry, [7], {})
    core.drain.drain_once()
    assert "x: a=7" not in tree.walk("trace").read().decode()
    tree.walk("events/synthetic/x/enable").write(b"1")
    emit_from_getuid(m, entry, [7], {})
    core.drain.drain_once()
    assert tree.walk("trace").read().decode().count(" x: a=7") == 1


def test_trace_synth_records_in_a_slot_past_word_0(sim):
    """A synthetic event enabled in a slot past word 0 of the kernel's masks (its entry's word 0
    with the summary bit, the slot in its type's extension words): trace_synth() writes its
    record there, and in no other slot."""
    from tests.rb_page_reference import decode_page

    m, core, tree = sim
    slot = 130
    tree.walk("synthetic_events").write(b"far u64 a\n")
    synth = core.synth.find("far")
    m.tracing.open_slot(slot)
    m.tracing.set_recording(slot, True)
    synth.trace_event.set_enabled(m.tracing, slot, True)
    emit_from_getuid(m, m.tracing.synth_events.address(synth.guest_index), [7], {})
    records = [bytes(ev.payload) for page in m.tracing.drain(slot) for ev in decode_page(page.data).events]
    assert [(struct.unpack_from("<H", r)[0], struct.unpack_from("<Q", r, 8)[0]) for r in records] == [(synth.id, 7)]
    core.drain.drain_once()
    assert " far: a=7" not in tree.walk("trace").read().decode()
    synth.trace_event.set_enabled(m.tracing, slot, False)
    m.tracing.set_recording(slot, False)
    m.tracing.close_slot(slot)
