"""`tracefs-sim disasm`: the live code of an emulated kernel function, as a session, a mount and
the control socket show it."""

import re
import struct

import pytest
import trio

from simtest import tracefs_sim
from tracefs_sim import control
from tracefs_sim.machine import KernelImage, Machine, MachineOptions
from tracefs_sim.machine.machine import default_kernel_image

NOP5_ROW = re.compile(r"^([0-9a-f]+):\t0f 1f 44 00 00 +\tnopl   0x0\(%rax,%rax,1\)\t; ftrace site \(nop\)$")


@pytest.fixture(scope="module")
def image():
    return KernelImage(default_kernel_image())


def instruction_rows(listing: str) -> list[str]:
    rows = listing.splitlines()[1:]
    # An endbr64 (a CET build) may come before the ftrace nop, as in Linux.
    return rows[1:] if rows and "endbr64" in rows[0] else rows


def test_session_shows_the_entry_nop_and_refuses_unknown_symbols(image):
    result = tracefs_sim("run", "--workload", "none", "-c",
                         "tracefs-sim disasm vfs_read && tracefs-sim disasm vfs_raed; echo status=$?")
    vfs_read = image.lookup("vfs_read")
    listing, _, status = result.stdout.rpartition("status=")
    assert listing.splitlines()[0] == f"{vfs_read.addr:016x} <vfs_read>:"
    first = NOP5_ROW.match(instruction_rows(listing)[0])
    assert first, listing
    assert int(first.group(1), 16) == image.mcount_sites["vfs_read"]
    # The whole function and nothing after it: the last row is inside vfs_read.
    last = int(listing.splitlines()[-1].split(":")[0], 16)
    assert vfs_read.addr < last < vfs_read.addr + vfs_read.size
    assert status == "1\n"
    assert result.stderr.splitlines()[-1] == "tracefs-sim disasm: vfs_raed: no such symbol in the emulated kernel"
    assert result.returncode == 0


def test_given_the_mount_and_an_address_inside_the_function(mounted, image):
    vfs_read = image.lookup("vfs_read")
    result = tracefs_sim("disasm", "--mount", str(mounted), f"{vfs_read.addr + 5:#x}", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"{vfs_read.addr:016x} <vfs_read>:"
    assert NOP5_ROW.match(instruction_rows(result.stdout)[0])

    result = tracefs_sim("disasm", "--mount", str(mounted), "jiffies", timeout=30)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "tracefs-sim disasm: jiffies: not a function (kallsyms type D)\n"


@pytest.fixture
def machine():
    machine = Machine(MachineOptions(workload="none"))
    machine.start()
    try:
        yield machine
    finally:
        machine.stop()


def served(machine, path, client_calls):
    """Run `client_calls(path)` (blocking client code) against control.serve(machine, path)."""
    async def main():
        async with trio.open_nursery() as nursery:
            await nursery.start(control.serve, machine, path)
            result = await trio.to_thread.run_sync(client_calls, path)
            nursery.cancel_scope.cancel()
        return result
    return trio.run(main)


def test_a_patched_jump_label_shows_as_enabled_and_back(machine, tmp_path):
    event = next(e for e in machine.image.events if (e.system, e.name) == ("sched", "sched_process_exit"))
    site = machine.image.jump_sites(event.key_addr)[0]
    entry = next(e for e in machine.image.jump_entries if e.code == site)
    function = machine.image.symbolize(site)[0].name
    jmp = b"\xe9" + struct.pack("<i", entry.target - (site + 5))

    def note_at_site(path):
        reply = control.disassemble(path, function)
        return dict(reply["notes"]).get(site), reply

    path = str(tmp_path / "control.sock")
    before, _ = served(machine, path, note_at_site)
    machine.text_poke(site, jmp)  # what enabling the event does
    during, reply = served(machine, path, note_at_site)
    machine.text_poke(site, bytes.fromhex("0f1f440000"))
    after, _ = served(machine, path, note_at_site)

    assert before == after == "jump label of sched:sched_process_exit (disabled)"
    assert during == "jump label of sched:sched_process_exit (enabled)"
    offset = site - reply["start"]
    assert bytes.fromhex(reply["bytes"])[offset:offset + 5] == jmp  # the live bytes, not the ELF's
    row = next(r for r in reply["listing"].splitlines() if r.startswith(f"{site:x}:"))
    target = machine.image.symbolize(entry.target)
    assert f"\tjmp    {entry.target:x} <{target[0].name}+0x{target[1]:x}>\t; jump label" in row


def test_bad_disasm_requests_get_an_error(machine, tmp_path):
    def ask(path):
        with pytest.raises(control.ControlError, match="disasm needs target"):
            control.disassemble(path, 42)
        with pytest.raises(control.ControlError, match="^0x10: not in any function"):
            control.disassemble(path, "0x10")
        return control.disassemble(path, "vfs_read")["symbol"]  # and the server still answers

    assert served(machine, str(tmp_path / "control.sock"), ask) == "vfs_read"
