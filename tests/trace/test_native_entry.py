"""ring_buffer.Entry, the record type of the host's buffers (_entry.Entry, native/entry.h): the
API of the NamedTuple it replaced (construct, read, index, unpack, compare), one malloc block a
record (not pymalloc objects, not GC-tracked), and _lines refusing a type of another layout."""

import gc
import os
import subprocess
import sys
import textwrap
from operator import itemgetter

import pytest

from tracefs_sim.trace import _drain, _entry, ring_buffer
from tracefs_sim.trace.ring_buffer import Entry


def test_ring_buffers_entry_is_the_c_type():
    assert ring_buffer.Entry is _entry.Entry


def test_an_entry_reads_as_the_named_tuple_did():
    payload = bytes(range(40))
    entry = Entry(1 << 63, payload, 52)
    assert (entry.ts, entry.payload, entry.length) == (1 << 63, payload, 52)
    assert type(entry.payload) is bytes
    assert len(entry) == 3 and tuple(entry) == (1 << 63, payload, 52)
    assert (entry[0], entry[1], entry[2], entry[-1]) == (1 << 63, payload, 52, 52)
    ts, data, length = entry
    assert (ts, data, length) == (1 << 63, payload, 52)
    assert list(map(itemgetter(2), [entry, Entry(0, b"", 8)])) == [52, 8]   # the ring buffer's sums
    with pytest.raises(IndexError):
        entry[3]
    assert Entry(ts=7, payload=bytearray(b"ab"), length=12) == Entry(7, memoryview(b"ab"), 12)
    assert repr(Entry(7, b"ab", 12)) == "Entry(ts=7, payload=b'ab', length=12)"


def test_an_entry_is_read_only():
    entry = Entry(1, b"x", 8)
    for name in ("ts", "payload", "length"):
        with pytest.raises(AttributeError):
            setattr(entry, name, 2)
    with pytest.raises(AttributeError):
        entry.other = 1


def test_entries_compare_by_value():
    entry = Entry(5, b"abc", 12)
    assert entry == Entry(5, b"abc", 12) and not entry != Entry(5, b"abc", 12)
    for other in (Entry(6, b"abc", 12), Entry(5, b"abd", 12), Entry(5, b"abc", 16), Entry(5, b"ab", 12)):
        assert entry != other and not entry == other
    assert entry != (5, b"abc", 12)
    with pytest.raises(TypeError):
        entry < Entry(6, b"abc", 12)
    with pytest.raises(TypeError):
        hash(entry)


@pytest.mark.parametrize("args,error", [
    ((-1, b"", 8), OverflowError), ((1 << 64, b"", 8), OverflowError), ((0, b"", 1 << 32), OverflowError),
    ((0, b"", -4), OverflowError), (("1", b"", 8), TypeError), ((1.0, b"", 8), TypeError),
    ((0, "text", 8), TypeError), ((0, b""), TypeError),
])
def test_bad_arguments_are_refused(args, error):
    with pytest.raises(error):
        Entry(*args)


def test_an_entry_is_one_block_the_collector_does_not_track():
    small, big = Entry(0, b"", 8), Entry(0, bytes(3000), 3008)
    assert sys.getsizeof(big) - sys.getsizeof(small) == 3000   # the payload inline
    assert sys.getsizeof(small) <= 40                            # header, stamp and length
    assert not gc.is_tracked(small) and gc.get_referents(big) == []
    assert _entry.Entry.__itemsize__ == 1


def test_entries_are_not_pymalloc_objects():
    payload = bytes(64)
    stamps = list(range(1 << 40, (1 << 40) + 20000))
    gc.collect()
    before = sys.getallocatedblocks()
    entries = [Entry(ts, payload, 76) for ts in stamps]
    grown = sys.getallocatedblocks() - before
    # a tuple, its bytes and its int each were one: 60000 blocks
    assert len(entries) == 20000 and grown < 200


def test_drained_entries_are_the_c_type():
    page = bytearray(4096)
    payload = bytes([1, 0, 0, 0, 5, 0, 0, 0]) + bytes(8)
    page[16:36] = (len(payload) // 4).to_bytes(4, "little") + payload   # a data event, delta 0
    page[8:16] = (20).to_bytes(8, "little")                              # commit
    page[0:8] = (1000).to_bytes(8, "little")                             # time_stamp
    spans, _ = _drain.walk(bytes(page), None)
    entries, short = _drain.keep(pages=[(bytes(page), spans)], plans={1: _drain.KEEP}, plan_of=None, tasks={5: (b"", 0)},
                                 task_of=None, special=None, from_ns=None, save_comm=None, save_tgid=None)
    assert (entries, short) == ([Entry(1000, payload, 20)], 0)
    assert type(entries[0]) is Entry and not gc.is_tracked(entries[0])


def test_lines_refuses_an_entry_type_of_another_layout():
    """_lines checks at import that the Entry of _entry's API has entry.h's layout (a stale
    build of one module would otherwise read records wrongly)."""
    script = textwrap.dedent(f"""
        import ctypes, importlib.util, sys, types
        spec = importlib.util.spec_from_file_location("tracefs_sim.trace._entry", {_entry.__file__!r})
        real = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(real)
        class Api(ctypes.Structure):   # struct entry_api, with a record type of another layout
            _fields_ = [("type", ctypes.py_object), ("new_entry", ctypes.c_void_p),
                        ("trim_freed", ctypes.c_void_p)]
        stale = type("Entry", (tuple,), {{}})
        api, name = Api(stale, None, None), b"tracefs_sim.trace._entry.api"
        new_capsule = ctypes.pythonapi.PyCapsule_New
        new_capsule.restype, new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        stub = types.ModuleType("tracefs_sim.trace._entry")
        stub.__dict__.update(real.__dict__)   # the ring page's constants, ...
        stub.Entry, stub.api = stale, new_capsule(ctypes.addressof(api), name, None)
        sys.modules["tracefs_sim.trace._entry"] = stub
        try:
            import tracefs_sim.trace._lines
        except ImportError as error:
            print(error)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert "not the record type of entry.h" in done.stdout


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_the_drain_gives_freed_records_memory_back():
    """Records freed among records still held (a buffer read while another is not) leave
    malloc free chunks that stay resident; the next keep() returns their pages."""
    payload = bytes(100)
    entries = [Entry(ts, payload, 112) for ts in range(400_000)]   # ~56 MB
    held = entries[::200]   # one in every seven pages or so pins the heap from end to end
    del entries
    gc.collect()
    freed = _rss_bytes()
    _drain.keep(pages=[], plans={}, plan_of=None, tasks={}, task_of=None, special=None, from_ns=None,
                save_comm=None, save_tgid=None)
    assert freed - _rss_bytes() > 30 << 20
    assert len(held) == 2000
