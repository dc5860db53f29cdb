"""The x86-64 syscall table, its entry points and the syscalls:* events against Linux 6.1's
(kernel_model/scripts/gen_syscalls.py generates them from 6.1's own definitions; the data here
is copied from the reference 6.1: its syscall_64.tbl, kallsyms, traceable functions, formats)."""
import re
import struct
from pathlib import Path

import pytest
from capstone import CS_ARCH_X86, CS_MODE_64, Cs

from tracefs_sim.trace.events import TraceEvent

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = Path(__file__).resolve().parents[2] / "kernel_model"
NR_SYSCALLS = 451   # 6.1's: the highest number of syscall_64.tbl (450) + 1
ENOSYS = 38


def linux_table() -> dict[int, str | None]:
    """number -> entry point (`sys_newstat`), None for an entry without one."""
    table = {}
    for line in (DATA / "linux-6.1-syscall_64.tbl").read_text().splitlines():
        fields = line.split()
        if fields and not line.startswith("#"):
            table[int(fields[0])] = fields[3] if len(fields) > 3 else None
    return table


def linux_symbols() -> tuple[dict[str, tuple[int, str]], set[str]]:
    """6.1's kallsyms lines (name -> address, type) and traceable functions of the syscalls."""
    kallsyms, traceable, section = {}, set(), None
    for line in (DATA / "linux-6.1-syscall-symbols.txt").read_text().splitlines():
        if line.startswith("=== "):
            section = line[4:]
        elif section == "kallsyms":
            addr, kind, name = line.split()
            kallsyms[name] = (int(addr, 16), kind)
        elif section == "available_filter_functions":
            traceable.add(line.split()[0])
    return kallsyms, traceable


def linux_syscalls_formats() -> dict[str, str]:
    """event name -> its format file."""
    text = (DATA / "linux-6.1-syscalls-formats.txt").read_text()
    return {block.split("\n", 1)[0].removeprefix("syscalls/"): block.split("\n", 1)[1]
            for block in re.split(r"^=== ", text, flags=re.M)[1:]}


def table_names() -> set[str]:
    """The syscalls 6.1's table has an entry point for, and ni_syscall."""
    return {entry.removeprefix("sys_") for entry in linux_table().values() if entry}


def handlers(image) -> list[int]:
    table = image.lookup("sys_call_table")
    return list(struct.unpack(f"<{table.size // 8}Q", image.read(table.addr, table.size)))


def test_table_is_linuxs(image):
    """sys_call_table as syscall_64.c builds it: every number up to the last has 6.1's entry
    point, holes and entries without one __x64_sys_ni_syscall."""
    linux = linux_table()
    found = handlers(image)
    assert len(found) == NR_SYSCALLS == max(linux) + 1
    for nr, addr in enumerate(found):
        entry = linux.get(nr) or "sys_ni_syscall"
        assert image.lookup(f"__x64_{entry}").addr == addr, nr


def test_entry_points_are_linuxs(image):
    """__x64_sys_<name> with 6.1's kallsyms type (T, W for the weak entry of a syscall 6.1
    defines nowhere), __do_sys_<name> where 6.1 kept it out of line (an alias of the entry
    for SYSCALL_DEFINE0, as there), no __se_sys_<name> (always inlined, as there)."""
    linux, _ = linux_symbols()
    for name in table_names():
        entry, do_sys = image.lookup(f"__x64_sys_{name}"), image.lookup(f"__do_sys_{name}")
        assert entry.type == linux[f"__x64_sys_{name}"][1], name
        assert (do_sys is not None) == (f"__do_sys_{name}" in linux), name
        if do_sys is not None:
            assert do_sys.type == "t"
            alias = linux[f"__do_sys_{name}"][0] == linux[f"__x64_sys_{name}"][0]
            assert (do_sys.addr == entry.addr) == alias, name
    assert not [s.name for s in image.symbols if s.name.startswith("__se_sys_")]
    # each its own function: gcc folds no identical bodies (the ENOSYS ones, exit and
    # exit_group) into one, or into a call to another
    entries = {image.lookup(f"__x64_sys_{name}").addr for name in table_names()}
    assert len(entries) == len(table_names())
    for name in table_names():
        assert not {f for f in _calls(image, f"__x64_sys_{name}") if f.startswith("__x64_sys_")}, name
    assert image.lookup("sys_ni_syscall").type == "T"


def test_traceable_syscall_functions_are_linuxs(image):
    """available_filter_functions has 6.1's syscall functions: the entries, __do_sys_<name>
    of SYSCALL_DEFINE0 (the alias's name), sys_ni_syscall; not the out-of-line __do_sys_ of
    the others (6.1's `static inline` is notrace) nor __x64_sys_ni_syscall (entry code)."""
    _, traceable = linux_symbols()
    names = {f"{prefix}{name}" for name in table_names() for prefix in ("__x64_sys_", "__do_sys_")}
    names.add("sys_ni_syscall")
    assert set(image.mcount_sites) & names == traceable


def test_syscalls_events_are_linuxs(image):
    """A sys_enter_/sys_exit_ pair for exactly the syscalls 6.1 has them for, every format
    byte for byte (the ID is ours: registration order)."""
    linux = linux_syscalls_formats()
    events = {e.name: e for e in image.events if e.system == "syscalls"}
    assert set(events) == set(linux)
    for event_id, (name, desc) in enumerate(sorted(events.items()), start=100):
        expected = re.sub(r"^ID: \d+$", f"ID: {event_id}", linux[name], count=1, flags=re.M)
        assert TraceEvent(event_id, desc).format_text() == expected, name


def test_syscalls_events_ride_on_their_numbers(image):
    """Each event is filtered by the number whose table entry is its syscall's."""
    linux = linux_table()
    events = [e for e in image.events if e.system == "syscalls"]
    assert len(events) == 690
    for event in events:
        name = event.name.removeprefix("sys_enter_").removeprefix("sys_exit_")
        assert linux[event.syscall_nr] == f"sys_{name}", event.name


def _calls(image, name: str) -> set[str]:
    """The functions `name` calls (by kallsyms' names)."""
    sym = image.lookup(name)
    md = Cs(CS_ARCH_X86, CS_MODE_64)
    called = set()
    for insn in md.disasm(image.read(sym.addr, sym.size), sym.addr):
        if insn.mnemonic == "call" and insn.op_str.startswith("0x"):
            hit = image.symbolize(int(insn.op_str, 16))
            if hit is not None:
                called.add(hit[0].name)
    return called


def test_syscalls_md_says_which_are_implemented(image):
    """SYSCALLS.md (generated) lists each entry as implemented or ENOSYS: the ENOSYS ones end
    in sys_ni_syscall (from the entry, or its out-of-line __do_sys_), the others do not."""
    rows = re.findall(r"^\| (\d+) \| \w+ \| `__x64_sys_(\w+)` \| [\w, ]+ \| (implemented|ENOSYS)",
                      (MODEL / "SYSCALLS.md").read_text(), flags=re.M)
    linux = linux_table()
    assert {int(nr) for nr, _, _ in rows} == {nr for nr, entry in linux.items() if entry not in (None, "sys_ni_syscall")}
    implemented = set()
    for _, name, status in rows:
        chain = _calls(image, f"__x64_sys_{name}")
        if image.lookup(f"__do_sys_{name}") is not None:
            chain |= _calls(image, f"__do_sys_{name}")
        assert ("sys_ni_syscall" in chain) == (status == "ENOSYS"), name
        if status == "implemented":
            implemented.add(name)
    assert {"read", "write", "openat", "getuid", "clone", "execve", "wait4"} <= implemented


@pytest.mark.parametrize("argv, output", [
    (["syscall", "39"], None),                                   # getpid: implemented
    (["syscall", "169", "0", "0", "0"], b"-38 (Function not implemented)\n"),  # reboot: not modelled
    (["syscall", "212"], b"-38 (Function not implemented)\n"),   # lookup_dcookie: 6.1 has none
    (["syscall", "400"], b"-38 (Function not implemented)\n"),   # a hole in the table
    (["syscall", "451"], b"-38 (Function not implemented)\n"),   # NR_syscalls
    (["syscall", "-1"], b"-38 (Function not implemented)\n"),
])
def test_unimplemented_and_unknown_syscalls_fail_with_enosys(make_machine, run_program, argv, output):
    status, out = run_program(make_machine(cpus=1), argv)
    if output is None:
        assert status == 0 and int(out) > 1
    else:
        assert (status, out) == (1, output)
