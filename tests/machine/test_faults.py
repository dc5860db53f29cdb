"""A user program's CPU exception kills that process by the signal (as Linux
does without a handler) and leaves the machine running."""
import time
from pathlib import Path

import pytest

from tracefs_sim.machine.image import KERNEL_MAP

BUILD = Path(__file__).resolve().parents[2] / "kernel_model" / "build"


def user_copies(machine, program_bytes: bytes) -> list[int]:
    """Physical addresses of pages holding the program's loaded text, outside the kernel image."""
    image_end = machine.image.addr("_end") - KERNEL_MAP
    ram = machine._runner.stop_machine(lambda: bytes(machine._mem.buf))
    found, start = [], 0
    while (at := ram.find(program_bytes, start)) >= 0:
        if at >= image_end and at % 4096 == 0:
            found.append(at)
        start = at + 1
    return found


@pytest.mark.parametrize("fill, status", [(b"\xf4", 128 + 11),   # hlt at CPL 3: #GP -> SIGSEGV
                                          (b"\x06", 128 + 4),   # push %es, invalid in 64-bit mode: #UD -> SIGILL
                                          (b"\xcc", 128 + 5),   # int3: SIGTRAP
                                          (b"\xcd\x41", 128 + 11)])  # int $0x41, a DPL 0 gate: #GP -> SIGSEGV
def test_user_fault_kills_the_process(make_machine, run_program, fill, status):
    m = make_machine(cpus=1)
    text = (BUILD / "user" / "sleep.img").read_bytes()[:256]
    # asleep long enough to be found and patched on a loaded box (2 s was not, once in CI; 6 s
    # not once on a box running three suites)
    proc = m.spawn(["sleep", "10"])
    deadline = time.monotonic() + 9
    while not (pages := user_copies(m, text)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(pages) == 1  # the sleeping process's copy of its code
    assert proc.wait(0) is None
    code = (fill * 2048)[:4096]

    def patch():  # as a debugger's poke would: new bytes, stale translations dropped
        m._mem.write(pages[0], code)
        for cpu in m._cpus:
            cpu.uc.ctl_flush_tb()
    m._runner.stop_machine(patch)
    assert proc.wait(0) is None  # still asleep: the patched page is its code
    assert proc.wait(15) == status  # it faults when nanosleep returns into that code
    assert m.running and run_program(m, ["getuid-loop", "2"])[0] == 0
