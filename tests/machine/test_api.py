"""kallsyms, read_memory, text_poke, programs, tasks."""
import re
import struct

import pytest


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2)


def test_kallsyms_format(machine, image):
    text = machine.kallsyms()
    lines = text.splitlines()
    assert lines[0] == "ffffffff81000000 T _stext" or "ffffffff81000000 T _stext" in lines[:4]
    assert all(re.fullmatch(r"[0-9a-f]{16} [TtWDdBbRr] \S+", ln) for ln in lines)
    addrs = [int(ln.split()[0], 16) for ln in lines]
    assert addrs == sorted(addrs)
    assert f"{image.lookup('vfs_read').addr:016x} T vfs_read" in lines
    assert any(ln.endswith(" t do_epoll_wait") for ln in lines)  # static function
    assert any(ln.endswith(" W __x64_sys_lookup_dcookie") for ln in lines)  # weak (COND_SYSCALL)
    assert any(ln.endswith(" _etext") for ln in lines)


def test_programs(machine):
    assert {"cat", "getuid-loop", "sleep", "dd", "echo", "true"} <= set(machine.programs())


def test_read_memory(machine, image):
    sym = image.lookup("vfs_read")
    assert machine.read_memory(sym.addr, 5) == image.read(sym.addr, 5)
    gdt = image.lookup("gdt_page").addr
    assert struct.unpack("<Q", machine.read_memory(gdt + 16, 8))[0] == 0x00AF9B000000FFFF
    with pytest.raises(ValueError):
        machine.read_memory(0x400000, 8)  # user address


def test_text_poke_invalidates_every_cpu(machine, image, run_program):
    site = image.mcount_sites["__do_sys_getuid"]   # = __x64_sys_getuid (SYSCALL_DEFINE0's alias)
    orig = machine.read_memory(site, 6)
    assert run_program(machine, ["getuid-loop", "40"]) == (0, b"0\n" * 40)
    machine.text_poke(site, bytes.fromhex("b82a000000c3"))  # mov $42, %eax; ret
    assert run_program(machine, ["getuid-loop", "40"]) == (0, b"42\n" * 40)
    machine.text_poke(site, orig)
    assert run_program(machine, ["getuid-loop", "40"]) == (0, b"0\n" * 40)


def test_text_poke_rejects_non_text(machine, image):
    with pytest.raises(ValueError):
        machine.text_poke(image.lookup("jiffies").addr, b"\x90")


def test_tasks_have_pids_and_comms(machine):
    tasks = machine.tasks()
    assert sum(t.comm.startswith("swapper/") for t in tasks) == 2
    assert all(t.pid == t.tgid for t in tasks)
