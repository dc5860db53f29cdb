"""host_heap: with the mmap threshold fixed, a large block freed goes back to the system and
the next large block is mapped again; glibc's own moving threshold (the control) keeps the
second one in the heap. Each case runs in a fresh interpreter: the setting is process-wide."""

import subprocess
import sys

import pytest

PROBE = r"""
import ctypes, sys
from tracefs_sim.host_heap import fix_mmap_threshold

class Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                               "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Mallinfo2
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold()
MIB = 1 << 20
libc.free(libc.malloc(8 * MIB))   # a large transient block, mapped and unmapped
before = libc.mallinfo2().hblkhd
block = libc.malloc(4 * MIB)      # the next large one: mapped again, or taken from the heap?
print("mapped" if libc.mallinfo2().hblkhd - before >= 4 * MIB else "heap")
libc.free(block)
"""


def where_large_block_goes(mode: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module", autouse=True)
def glibc():
    import ctypes
    if not hasattr(ctypes.CDLL(None), "mallinfo2"):
        pytest.skip("needs glibc 2.33+ (mallinfo2)")


def test_moving_threshold_keeps_large_blocks_in_the_heap():
    assert where_large_block_goes("default") == "heap"


def test_fixed_threshold_maps_every_large_block():
    assert where_large_block_goes("fixed") == "mapped"
