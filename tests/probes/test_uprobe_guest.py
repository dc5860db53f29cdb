"""Uprobe events record in the guest (kernel/trace_probe.c uprobe_guest_record, probes/uprobes.py's
record programs) with no host handler at a hit, and their records are the reference
interpreter's (tests/probe_fetch_reference.py: Linux's process_fetch_insn()) byte for byte: a
consumer of each point with a Python handler computes the reference's record at the same hit,
and each record the guest commits is compared with it."""
import struct

from test_uprobes import PROGTEST, file_offset, run
from tests import probe_fetch_reference as reference
from tracefs_sim.fs import build_tree
from tracefs_sim.machine.hooks import REG_INDEX
from tracefs_sim.stack import build_stack

PROBE_STAGE_MAX = 3072  # a record's most bytes after its header: a larger one is a miss
WRITE = file_offset(PROGTEST, "__libc_write")
UNAME = file_offset(PROGTEST, "__uname")
# every kind of fetch the guest takes for a uprobe: registers, user memory through dereferences
# (a kernel address faults), strings, bitfields, arrays, $comm, immediates, $retval, the user
# stack's words, the probed file's bytes (@+OFFSET: its ELF header), symstr
EVENTS = (f"p:w {PROGTEST}:{WRITE:#x} fd=%di n=%dx:u32 sp=$stack buf=+0(%si):string u=+0(%si):ustring "
          f"q=+0(%si):x64 b=+1(%si):b4@2/8 a=+0(%si):u8[4] s=+0(%si):string[2] c=$comm k=+0(\\0xffffffff81000000):u64 "
          f"i=\\\"imm\" z=%ip st1=$stack1 st3=$stack3:x32 elf=@+0:x64 cls=@+4:u8 y=%sp:symstr\n"
          f"r:u {PROGTEST}:{UNAME:#x} rv=$retval sys=+0(%di):string\n")


def test_guest_uprobe_records_are_the_reference_ones(make_machine):
    m = make_machine(cpus=1, seed=11)
    stack = build_stack(m)
    tree = build_tree(stack.core)
    tree.walk("uprobe_events").write(EVENTS.encode())
    tree.walk("events/uprobes/enable").write(b"1\n")
    events = list(stack.core.uprobes.probes())
    expected: dict[int, list[bytes]] = {tu.event.id: [] for tu in events}
    actual: dict[int, list[bytes]] = {tu.event.id: [] for tu in events}
    hits = {tu.event.id: 0 for tu in events}

    def reference_of(tu):
        spec, out = tu.spec, expected[tu.event.id]

        def on_hit(hit):
            body = reference.record_body(spec.args, spec.head_size, hit, hit.ip, hit.ret_ip)
            if hit.fault is None:  # (else the guest faults the page in and the hit comes again)
                hits[tu.event.id] += 1
                if len(body) <= PROBE_STAGE_MAX:
                    out.append(body)
        return stack.core.uprobes.engine.register(
            spec.filename, spec.path.inode, spec.path.size, spec.offset, spec.ref_ctr_offset,
            is_return=spec.is_return, on_hit=on_hit)

    def on_commit(ctx):
        v = ctx.regs()
        rec = ctx.read(v[REG_INDEX["di"]], v[REG_INDEX["si"]] & 0xFFFFFFFF)
        kind = struct.unpack_from("<H", rec)[0] if rec else None
        if kind in actual:
            actual[kind].append(rec[8:])

    consumers = [reference_of(tu) for tu in events]
    hook = m.add_code_hook(m.image.addr("trace_event_commit"), on_commit)
    try:
        run(m, [str(PROGTEST), "fork"])
        run(m, [str(PROGTEST), "uname"])
    finally:
        m.remove_code_hook(hook)
        for c in consumers:
            c.unregister()
    tree.walk("events/uprobes/enable").write(b"0\n")
    assert all(expected.values()), expected
    assert actual == expected
    assert [tu.nhit for tu in events] == [hits[tu.event.id] for tu in events]
    stack.core.drain.drain_once()
    text = tree.walk("trace").read().decode()
    assert " w: (0x" in text and " u: (0x" in text and 'i="imm"' in text and "elf=0x3010102464c457f" in text, text

