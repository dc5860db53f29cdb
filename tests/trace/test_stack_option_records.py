"""options/stacktrace, userstacktrace, sym-userobj: the user_stack printer as 6.1's
trace_user_stack_print / seq_print_user_ip, the kernel_stack printer, raw/hex/bin (trace_nop_print),
and the drain keeping a stack with the event it follows (dropped with an event its filter drops)."""

import struct

import pytest

from tracefs_sim.trace import _drain
from tracefs_sim.trace.ftrace_records import (KERNEL_STACK_DESC, TRACE_STACK, TRACE_USER_STACK, USER_STACK_DESC,
                                              SymFlags, user_stack_text)
from tracefs_sim.trace.rb_page import PageWriter

pytestmark = pytest.mark.timeout(60)

TGID = 42
VMAS = [(0x400000, 0x401000, "/sleep"), (0x600000, 0x601000, None), (0x7FFFFFFDE000, 0x7FFFFFFFF000, None)]


def user_stack(*callers: int, tgid: int = TGID) -> bytes:
    callers = (callers + (0,) * 8)[:8]
    return struct.pack("<HBBiI4x8Q", TRACE_USER_STACK, 0, 0, tgid, tgid, *callers)


def kernel_stack(*callers: int, follows: bool) -> bytes:
    return struct.pack(f"<HBBiii{len(callers)}Q", TRACE_STACK, 0, 0, TGID, len(callers), int(follows), *callers)


def vmas_of(tgid: int):
    return VMAS if tgid == TGID else None


def test_user_stack_addresses_without_sym_userobj():
    # seq_print_user_ip() with no mm: " <%016lx>" after " => ", up to the first 0
    assert user_stack_text(user_stack(0x400472, 0x4000C2), vmas_of, SymFlags()) == (
        b"<user stack trace>\n =>  <0000000000400472>\n =>  <00000000004000c2>\n")
    assert USER_STACK_DESC.line(user_stack(0x400472), None, SymFlags()) == (
        b"<user stack trace>\n =>  <0000000000400472>\n")
    # a kernel thread's (or a session task's): no frames at all
    assert user_stack_text(user_stack(), vmas_of, SymFlags(sym_userobj=True)) == b"<user stack trace>\n"


def test_user_stack_sym_userobj():
    flags = SymFlags(sym_userobj=True)
    # the file of find_vma(ip) and ip less its vm_start; an anonymous mapping prints the address
    assert user_stack_text(user_stack(0x400472, 0x600010, 0x7FFFFFFFE000), vmas_of, flags) == (
        b"<user stack trace>\n => /sleep[+0x472]\n =>  <0000000000600010>\n =>  <00007fffffffe000>\n")
    # sym-addr: the address after the object too
    assert user_stack_text(user_stack(0x400472), vmas_of, SymFlags(sym_userobj=True, sym_addr=True)) == (
        b"<user stack trace>\n => /sleep[+0x472] <0000000000400472>\n")
    # a task gone (no mm): addresses, as with the option off
    assert user_stack_text(user_stack(0x400472, tgid=7), vmas_of, flags) == (
        b"<user stack trace>\n =>  <0000000000400472>\n")
    # find_vma(): the first mapping ending above ip, even one starting above it
    assert user_stack_text(user_stack(0x3FF000), vmas_of, flags) == (
        b"<user stack trace>\n => /sleep[+0xfffffffffffff000]\n")


def test_kernel_stack_printer_and_formats():
    symbols = {0xFFFFFFFF81000010: ("trace_event_raw_event_sched_switch", 0x10, 0x100),
               0xFFFFFFFF81002000: ("__schedule", 0x40, 0x400)}
    text = KERNEL_STACK_DESC.line(kernel_stack(*symbols, follows=True), symbols.get, SymFlags())
    assert text == b"<stack trace>\n => trace_event_raw_event_sched_switch\n => __schedule\n"
    # 6.1's formats (events/ftrace/user_stack/format on the reference kernel)
    assert [(f.type, f.name, f.offset, f.size) for f in USER_STACK_DESC.fields] == [
        ("unsigned int", "tgid", 8, 4), ("unsigned long[8]", "caller", 16, 64)]


def test_raw_hex_bin_are_trace_nop_print():
    from fakes import make_trace_array
    array = make_trace_array()
    event = array.registry.by_id(TRACE_USER_STACK)
    assert (event.system, event.name) == ("ftrace", "user_stack")
    # neither record type has raw/hex/bin printers in 6.1: register_trace_event() gives them trace_nop_print
    assert event.raw_body(user_stack(0x400472)) == b"type: 12\n"
    assert array.registry.by_id(TRACE_STACK).raw_body(kernel_stack(1, follows=True)) == b"type: 4\n"


def _keep(records: list[tuple[int, bytes]], dropped_types: set[int], follow: bytearray | None = None):
    writer = PageWriter()
    for ts, payload in records:
        assert writer.append(ts, payload)
    page = writer.ring_page()
    spans, _ = _drain.walk(page, None)
    plans = {t: _drain.DROP for t in dropped_types}
    entries, short = _drain.keep(pages=[(page, spans)], plans=plans, plan_of=lambda t: _drain.KEEP, tasks={},
                                 task_of=lambda pid: (b"", 0), special=None, from_ns=None, save_comm=None,
                                 save_tgid=None, follow=follow)
    assert short == 0
    return [struct.unpack_from("<H", e.payload)[0] for e in entries]


EVENT, OTHER = 300, 301


def event(event_type: int) -> bytes:
    return struct.pack("<HBBiQ", event_type, 0, 0, TGID, 0)


def test_drain_drops_the_stacks_of_a_dropped_event():
    records = [(10, event(EVENT)), (11, kernel_stack(1, 2, follows=True)), (12, user_stack(0x400000)),
               (20, event(OTHER)), (21, kernel_stack(1, follows=True)), (22, user_stack(0x400000)),
               (30, event(EVENT))]
    assert _keep(records, set()) == [EVENT, TRACE_STACK, TRACE_USER_STACK, OTHER, TRACE_STACK, TRACE_USER_STACK, EVENT]
    assert _keep(records, {OTHER}) == [EVENT, TRACE_STACK, TRACE_USER_STACK, EVENT]
    # a stack of the stacktrace trigger (or func_stack_trace) stands alone: kept after a dropped event
    assert _keep([(10, event(OTHER)), (11, kernel_stack(1, follows=False))], {OTHER}) == [TRACE_STACK]


def test_drain_follows_an_event_across_calls():
    # the event's page walked in one batch, its stacks in the next: the state goes with `follow`
    follow = bytearray(1)
    assert _keep([(10, event(OTHER))], {OTHER}, follow) == []
    assert follow == b"\x01"
    assert _keep([(11, kernel_stack(1, follows=True)), (12, event(EVENT))], {OTHER}, follow) == [EVENT]
    assert follow == b"\x00"
    with pytest.raises(TypeError):
        _keep([], set(), bytearray(2))
