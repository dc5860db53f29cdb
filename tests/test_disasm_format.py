"""tracefs_sim.disasm on bytes built here: objdump's AT&T text, the patch-site notes, and which
function a name or address means. Expected texts are what GNU objdump prints for the bytes."""

import re
import shutil
import struct
import subprocess
from types import SimpleNamespace

import pytest
from elftools.elf.elffile import ELFFile

from tracefs_sim import disasm
from tracefs_sim.machine import JumpEntry, KernelImage, Symbol
from tracefs_sim.machine.machine import default_kernel_image

BASE = 0xFFFFFFFF81000000
CALLER = Symbol("ftrace_caller", BASE + 0x100, 0x40, "T")
FUNC = Symbol("some_func", BASE, 0x100, "T")
KEY = Symbol("__tracepoint_sched_switch", BASE + 0x10000, 8, "D")


def symbolize(addr):
    for sym in (FUNC, CALLER, KEY):
        if sym.addr <= addr < sym.addr + sym.size:
            return sym, addr - sym.addr
    return None


def rel32(opcode: int, site: int, target: int) -> bytes:
    return bytes([opcode]) + struct.pack("<i", target - (site + 5))


def texts(code: bytes, start: int = BASE) -> list[str]:
    return [line.text for line in disasm.disassemble(code, start, symbolize)]


OBJDUMP_FORMS = [
    ("0f1f440000", "nopl   0x0(%rax,%rax,1)"),
    ("ffe0", "jmp    *%rax"),
    ("41ff5408f8", "call   *-0x8(%r8,%rcx,1)"),
    ("48c7c0eaffffff", "mov    $0xffffffffffffffea,%rax"),
    ("b800f0ff7f", "mov    $0x7ffff000,%eax"),
    ("f6471c01", "testb  $0x1,0x1c(%rdi)"),
    ("49837d0000", "cmpq   $0x0,0x0(%r13)"),
    ("48833800", "cmpq   $0x0,(%rax)"),
    ("65488b042528000000", "mov    %gs:0x28,%rax"),
    ("2e660f1f840000000000", "cs nopw 0x0(%rax,%rax,1)"),
    ("6690", "xchg   %ax,%ax"),
    ("f348a5", "rep movsq %ds:(%rsi),%es:(%rdi)"),
    ("f3ab", "rep stos %eax,%es:(%rdi)"),
    ("f0480108", "lock add %rcx,(%rax)"),
    ("9c", "pushf"),
    ("55", "push   %rbp"),
    ("ee", "out    %al,(%dx)"),
    ("ec", "in     (%dx),%al"),
    ("c3", "ret"),
    ("488d4424f8", "lea    -0x8(%rsp),%rax"),
    ("0fb6c0", "movzbl %al,%eax"),
    ("4863d0", "movslq %eax,%rdx"),
    ("480f46c3", "cmovbe %rbx,%rax"),
    ("6a10", "push   $0x10"),
    ("c21000", "ret    $0x10"),
    ("0f94c0", "sete   %al"),
    ("48b8efcdab8967452301", "movabs $0x123456789abcdef,%rax"),
    ("0f20d8", "mov    %cr3,%rax"),
    ("0f0110", "lgdt   (%rax)"),
    ("cd03", "int    $0x3"),
    ("49d33cd4", "sarq   %cl,(%r12,%rdx,8)"),
    ("d36b48", "shrl   %cl,0x48(%rbx)"),
    ("48d3e0", "shl    %cl,%rax"),
]


@pytest.mark.parametrize("hexbytes, expected", OBJDUMP_FORMS)
def test_objdump_att_form(hexbytes, expected):
    assert texts(bytes.fromhex(hexbytes)) == [expected]


def test_branch_targets_are_symbolised():
    code = rel32(0xE8, BASE, CALLER.addr) + rel32(0xE9, BASE + 5, CALLER.addr + 0x10) + b"\xeb\xfa"
    assert texts(code) == [
        f"call   {CALLER.addr:x} <ftrace_caller>",
        f"jmp    {CALLER.addr + 0x10:x} <ftrace_caller+0x10>",
        f"jmp    {BASE + 6:x} <some_func+0x6>",
    ]
    # No symbol there: the bare address, as objdump writes it.
    assert texts(rel32(0xE8, BASE, BASE + 0x5000)) == [f"call   0x{BASE + 0x5000:x}"]


def test_rip_relative_operand_names_its_target():
    line, = disasm.disassemble(bytes.fromhex("488b05f9ff0000"), BASE, symbolize)  # mov 0xfff9(%rip),%rax
    assert line.text == "mov    0xfff9(%rip),%rax"
    assert line.note == f"# {KEY.addr:x} <__tracepoint_sched_switch>"


def test_undecodable_bytes_are_bad_and_decoding_goes_on():
    lines = disasm.disassemble(bytes.fromhex("06c3"), BASE, symbolize)  # 06: push %es, invalid in 64-bit
    assert [(line.address, line.text) for line in lines] == [(BASE, "(bad)"), (BASE + 1, "ret")]


def test_listing_layout_and_notes():
    code = bytes.fromhex("0f1f440000") + bytes.fromhex("2e660f1f840000000000") + b"\xc3"
    listing = disasm.format_listing("some_func", BASE, code, symbolize, {BASE: "ftrace site (nop)"})
    assert listing.splitlines() == [
        f"{BASE:016x} <some_func>:",
        f"{BASE:x}:\t0f 1f 44 00 00       \tnopl   0x0(%rax,%rax,1)\t; ftrace site (nop)",
        f"{BASE + 5:x}:\t2e 66 0f 1f 84 00 00 \tcs nopw 0x0(%rax,%rax,1)",
        f"{BASE + 12:x}:\t00 00 00",  # objdump wraps at 7 bytes a row
        f"{BASE + 15:x}:\tc3                   \tret",
    ]


# ---- patch-site notes on a small image built here ----

JUMP_SITE = BASE + 0x20
JUMP_TARGET = BASE + 0x80


def fake_image(key_events=("sched", "sched_switch")):
    events = [SimpleNamespace(system="syscalls", name="sys_enter_read", key_addr=KEY.addr, syscall_nr=0)]
    if key_events:
        events.append(SimpleNamespace(system=key_events[0], name=key_events[1], key_addr=KEY.addr,
                                      syscall_nr=None))
    return SimpleNamespace(mcount_sites={"some_func": BASE},
                           jump_entries=[JumpEntry(JUMP_SITE, JUMP_TARGET, KEY.addr)],
                           events=events, symbols=[FUNC, CALLER, KEY])


def function_bytes(entry: bytes, label: bytes) -> bytes:
    code = bytearray(b"\x90" * FUNC.size)
    code[0:5] = entry
    code[JUMP_SITE - BASE:JUMP_SITE - BASE + 5] = label
    return bytes(code)


@pytest.mark.parametrize("entry, state", [
    (disasm.NOP5, "nop"),
    (rel32(0xE8, BASE, CALLER.addr), "call"),
    (b"\xcc" + disasm.NOP5[1:], "int3: being patched"),
    (b"\x90" * 5, "unexpected bytes"),
])
def test_ftrace_site_note_says_what_the_live_bytes_do(entry, state):
    notes = disasm.site_notes(fake_image(), BASE, function_bytes(entry, disasm.NOP5))
    assert notes[BASE] == f"ftrace site ({state})"


@pytest.mark.parametrize("label, state", [
    (disasm.NOP5, "disabled"),
    (rel32(0xE9, JUMP_SITE, JUMP_TARGET), "enabled"),
    (bytes([0xEB, JUMP_TARGET - (JUMP_SITE + 2)]) + b"\x0f\x1f\x00", "enabled"),
    (rel32(0xE9, JUMP_SITE, JUMP_TARGET + 1), "unexpected bytes"),
    (b"\xcc" + disasm.NOP5[1:], "int3: being patched"),
])
def test_jump_label_note_says_whether_the_key_is_on(label, state):
    notes = disasm.site_notes(fake_image(), BASE, function_bytes(disasm.NOP5, label))
    # The syscalls:* event riding on the same key is not the key's owner.
    assert notes[JUMP_SITE] == f"jump label of sched:sched_switch ({state})"


def test_jump_label_of_a_key_no_event_owns_is_named_by_its_symbol():
    notes = disasm.site_notes(fake_image(key_events=()), BASE, function_bytes(disasm.NOP5, disasm.NOP5))
    assert notes[JUMP_SITE] == "jump label of __tracepoint_sched_switch (disabled)"


def test_sites_outside_the_code_are_not_noted():
    assert disasm.site_notes(fake_image(), BASE + 1, function_bytes(disasm.NOP5, disasm.NOP5)[1:0x20]) == {}


# ---- the kernel image: which function, and objdump's text for all of it ----


@pytest.fixture(scope="module")
def image():
    return KernelImage(default_kernel_image())


def test_resolve_by_name_and_by_address(image):
    sym = image.lookup("vfs_read")
    assert disasm.resolve_function(image, "vfs_read") == ("vfs_read", sym.addr, sym.addr + sym.size)
    inside = sym.addr + sym.size - 1
    assert disasm.resolve_function(image, f"{inside:#x}")[0] == "vfs_read"
    assert disasm.resolve_function(image, f"{inside:016x}")[0] == "vfs_read"  # as kallsyms prints it


@pytest.mark.parametrize("target, message", [
    ("no_such_function", "no_such_function: no such symbol in the emulated kernel"),
    ("cafe", "cafe: no such symbol in the emulated kernel"),  # not taken for an address
    ("0x10", "0x10: not in any function of the emulated kernel"),
])
def test_resolve_refuses_what_is_no_function(image, target, message):
    with pytest.raises(disasm.DisasmError, match=f"^{re.escape(message)}$"):
        disasm.resolve_function(image, target)


def test_resolve_refuses_data(image):
    data = next(s for s in image.symbols if s.type in "bBdD")
    with pytest.raises(disasm.DisasmError, match="not a function"):
        disasm.resolve_function(image, data.name)


@pytest.mark.skipif(shutil.which("objdump") is None, reason="GNU objdump not installed")
def test_every_function_of_the_kernel_reads_as_objdump_prints_it(image):
    expected = {}
    dump = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", image.path],
                          capture_output=True, text=True, check=True).stdout
    # objdump names an address by its global symbol, the kernel's views by kallsyms' first:
    # SYSCALL_DEFINE0's __x64_sys_getuid is __do_sys_getuid there
    kallsyms_name = {s.name: image.symbolize(s.addr)[0].name for s in image.symbols
                     if s.is_text and image.symbolize(s.addr)}

    def renamed(text: str) -> str:
        return re.sub(r"<([\w.]+)(?=[+>])", lambda m: "<" + kallsyms_name.get(m.group(1), m.group(1)), text)
    for row in dump.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t(.*)$", row)
        if m:
            expected[int(m.group(1), 16)] = renamed(" ".join(m.group(2).split()))
    symbolize_all = disasm.kernel_symbolizer(image)
    mismatches = []
    checked = 0
    # objdump shows data placed in text (kprobe_insn_slots) as bytes: compare functions only
    with open(image.path, "rb") as f:
        functions = {s.name for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols()
                     if s["st_info"]["type"] == "STT_FUNC"}
    for sym in image.symbols:
        if not sym.is_text or not sym.size or sym.name not in functions:
            continue
        for line in disasm.disassemble(image.read(sym.addr, sym.size), sym.addr, symbolize_all):
            mine = " ".join(f"{line.text} {line.note}".split())
            checked += 1
            if expected.get(line.address) != mine:
                mismatches.append((hex(line.address), expected.get(line.address), mine))
    assert checked > 1000
    assert mismatches[:10] == []
