"""Uprobe events whose arguments the guest's interpreter covers (kernel/trace_probe.c
uprobe_guest_record, probes/uprobes.py's record programs) record with no host handler at a hit,
and their records are the host handler's (trace/probe_record.py) byte for byte: the same
seeded machine runs the same program under the same events both ways."""
import re

from test_uprobes import PROGTEST, file_offset, run
from tracefs_sim.fs import build_tree
from tracefs_sim.stack import build_stack
from tracefs_sim.trace import trace_uprobe

WRITE = file_offset(PROGTEST, "__libc_write")
UNAME = file_offset(PROGTEST, "__uname")
# every kind of fetch the guest takes for a uprobe: registers, user memory through dereferences
# (a kernel address faults), strings, bitfields, arrays, $comm, immediates, $retval, the user
# stack's words, the probed file's bytes (@+OFFSET: its ELF header), symstr
EVENTS = (f"p:w {PROGTEST}:{WRITE:#x} fd=%di n=%dx:u32 sp=$stack buf=+0(%si):string u=+0(%si):ustring "
          f"q=+0(%si):x64 b=+1(%si):b4@2/8 a=+0(%si):u8[4] s=+0(%si):string[2] c=$comm k=+0(\\0xffffffff81000000):u64 "
          f"i=\\\"imm\" z=%ip st1=$stack1 st3=$stack3:x32 elf=@+0:x64 cls=@+4:u8 y=%sp:symstr\n"
          f"r:u {PROGTEST}:{UNAME:#x} rv=$retval sys=+0(%di):string\n")


def trace_of(make_machine, monkeypatch, guest: bool) -> tuple[str, list[int]]:
    """The trace (its times left out) of `progtest fork` and `progtest uname`
    under EVENTS, and each probe's host-handled hits."""
    if not guest:
        monkeypatch.setattr(trace_uprobe, "compile_args", lambda *args, **kw: None)
    m = make_machine(cpus=1, seed=11)
    stack = build_stack(m)
    tree = build_tree(stack.core)
    tree.walk("uprobe_events").write(EVENTS.encode())
    tree.walk("events/uprobes/enable").write(b"1\n")
    run(m, [str(PROGTEST), "fork"])
    run(m, [str(PROGTEST), "uname"])
    stack.core.drain.drain_once()
    # (the two ways run different guest code, so the times differ; strings hold newlines)
    text = re.sub(r" +\d+\.\d{6}: ", " TIME: ", tree.walk("trace").read().decode())
    host = [tu.handle.host_hits for tu in stack.core.uprobes.probes()]
    tree.walk("events/uprobes/enable").write(b"0\n")
    monkeypatch.undo()
    return text, host


def test_guest_uprobe_records_are_the_host_handlers(make_machine, monkeypatch):
    guest, guest_host_hits = trace_of(make_machine, monkeypatch, True)
    host, host_host_hits = trace_of(make_machine, monkeypatch, False)
    assert " w: (0x" in guest and " u: (0x" in guest and 'i="imm"' in guest, guest
    assert guest == host
    assert guest_host_hits == [0, 0]     # no hit reached a host handler
    assert all(host_host_hits)
