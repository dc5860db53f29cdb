"""BPF ring buffer maps in a session, through BCC's Python API (python3-bpfcc 0.26, libbpf's
ring_buffer__new/__poll underneath): BPF_RINGBUF_OUTPUT, a tracepoint program that reserves and
submits records (or copies them in with ringbuf_output), and a reader that maps the map's fd
(the consumer page read-write, the producer page and the data twice read only: the map's perf
pool region, kernel/bpf/ringbuf.c) and waits in epoll_wait for the kernel's wakeups (served:
session/native/serve.c).  Records bigger than a quarter of the one-page buffer wrap past its end
every few records and must read whole; a record committed with BPF_RB_NO_WAKEUP wakes nobody
(6.1's rule) but is there for ring_buffer__consume(); poll(2) of the map's fd is ready while
there is data to read, and not before (ringbuf_map_poll_kern)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from simtest import SESSION_TIMEOUT, tracefs_sim

from tracefs_sim.namespace import debian_61_headers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "machine"))
from bpf_cases import ARRAY_MMAP_CASES, RINGBUF_MMAP_CASES, parse  # noqa: E402

BPFTEST = Path(__file__).resolve().parents[2] / "kernel_model/user/bpftest.c"
REFERENCE = parse((Path(__file__).resolve().parents[1] / "data/bpf/reference.txt").read_text())
ADDRESS = re.compile(r"0xffff[0-9a-f]{12}")

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(not Path("/usr/lib/python3/dist-packages/bcc").is_dir(), reason="python3-bpfcc is not installed"),
    pytest.mark.skipif(debian_61_headers() is None, reason="no Debian linux-headers-6.1 installed"),
]

READER = r'''
import ctypes, os, select, sys
from bcc import BPF

MODE = sys.argv[1]          # reserve | output | nowakeup | poll
PROGRAM = r"""
struct event { u64 seq; u32 pid; char comm[16]; char pad[PAD]; u64 tail; };
BPF_RINGBUF_OUTPUT(events, 1);
BPF_ARRAY(counter, u64, 1);

TRACEPOINT_PROBE(raw_syscalls, sys_enter) {
    int zero = 0;
    u64 *seq;
    if (args->id != 110 || (bpf_get_current_pid_tgid() >> 32) != TGID)   /* the reader's getppid */
        return 0;
    seq = counter.lookup(&zero);
    if (!seq)
        return 0;
#ifdef OUTPUT
    struct event e = {};
    e.seq = __sync_fetch_and_add(seq, 1);
    e.pid = bpf_get_current_pid_tgid() >> 32;
    bpf_get_current_comm(&e.comm, sizeof(e.comm));
    e.tail = e.seq ^ 0x5eed5eed;
    events.ringbuf_output(&e, sizeof(e), 0);
#else
    struct event *e = events.ringbuf_reserve(sizeof(struct event));
    if (!e)
        return 0;
    e->seq = __sync_fetch_and_add(seq, 1);
    e->pid = bpf_get_current_pid_tgid() >> 32;
    bpf_get_current_comm(&e->comm, sizeof(e->comm));
    e->tail = e->seq ^ 0x5eed5eed;
    events.ringbuf_submit(e, FLAGS);
#endif
    return 0;
}
"""
pad = 400 if MODE == "output" else 1000
cflags = ["-DPAD=%d" % pad, "-DFLAGS=%d" % (1 if MODE == "nowakeup" else 0), "-DTGID=%d" % os.getpid()]
if MODE == "output":
    cflags.append("-DOUTPUT")
b = BPF(text=PROGRAM, cflags=cflags)


class Event(ctypes.Structure):
    _fields_ = [("seq", ctypes.c_uint64), ("pid", ctypes.c_uint32), ("comm", ctypes.c_char * 16),
                ("pad", ctypes.c_char * pad), ("tail", ctypes.c_uint64)]


got = []


def callback(ctx, data, size):
    e = ctypes.cast(data, ctypes.POINTER(Event)).contents
    got.append((size, e.seq, e.tail, e.comm))


b["events"].open_ring_buffer(callback)
bad = 0
poller = select.poll()
poller.register(b["events"].map_fd, select.POLLIN)
for i in range(24):
    if MODE == "poll" and poller.poll(0):      # ringbuf_map_poll_kern: no data, not ready
        bad += 1
        print("ready with no data before", i)
    os.getppid()
    if MODE == "poll":
        ready = poller.poll(5000)
        if ready != [(b["events"].map_fd, select.POLLIN)]:
            bad += 1
            print("poll gave", ready)
        b.ring_buffer_consume()
    elif MODE == "nowakeup":
        b.ring_buffer_poll(300)            # nobody is woken: nothing read
        if len(got) != i:
            bad += 1
            print("woken for", got[i:])
        b.ring_buffer_consume()            # the record is there all the same
    else:
        b.ring_buffer_poll(5000)           # woken for the record
    if len(got) != i + 1:
        bad += 1
        print("after", i + 1, "getppid: got", len(got))
        break
for k, (size, seq, tail, comm) in enumerate(got):
    if size != ctypes.sizeof(Event) or seq != k or tail != seq ^ 0x5eed5eed or comm != b"python3":
        bad += 1
        print("bad record", k, size, seq, hex(tail), comm)
print("records", len(got), "size", ctypes.sizeof(Event), "bad", bad)
'''


@pytest.mark.parametrize("mode", ["reserve", "output", "nowakeup", "poll"])
def test_bcc_reads_a_ring_buffer(tmp_path, mode):
    script = tmp_path / "rb_reader.py"
    script.write_text(READER)
    result = tracefs_sim("run", "--workload", "none", "-c", f"/usr/bin/python3 {script} {mode}",
                         timeout=SESSION_TIMEOUT, cwd=tmp_path)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    size = 1040 if mode != "output" else 440
    assert f"records 24 size {size} bad 0" in result.stdout, out


@pytest.fixture
def host_bpftest(tmp_path):
    binary = tmp_path / "bpftest"
    subprocess.run(["gcc", "-static", "-O1", "-DHOST", "-o", str(binary), str(BPFTEST)], check=True, timeout=120)
    return binary


@pytest.mark.parametrize("name", sorted(RINGBUF_MMAP_CASES))
def test_mmap_of_a_ring_buffer_as_linux(tmp_path, host_bpftest, name):
    """bpftest's mmap of a ring buffer map's fd from a session's process (tests/machine/bpf_cases.py
    RINGBUF_MMAP_CASES): the positions and records it reads, in both copies of the data (a
    wrapping record's tail too), and the errnos of what 6.1 refuses, as the real 6.1's."""
    args = " ".join(f"'{a}'" for a in RINGBUF_MMAP_CASES[name])
    result = tracefs_sim("run", "--workload", "none", "-c", f"{host_bpftest} {args}", timeout=150, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ADDRESS.sub("ADDR", result.stdout) == ADDRESS.sub("ADDR", REFERENCE[name])


@pytest.mark.parametrize("name", sorted(ARRAY_MMAP_CASES))
def test_mmap_of_an_mmapable_array_as_linux(tmp_path, host_bpftest, name):
    """bpftest's mmap of a BPF_F_MMAPABLE array's fd from a session's process (ARRAY_MMAP_CASES):
    the values it reads and writes there, as the syscall sees them, and 6.1's refusals (not
    mmapable, past the values, private, frozen or read-only to programs and writable)."""
    args = " ".join(f"'{a}'" for a in ARRAY_MMAP_CASES[name])
    result = tracefs_sim("run", "--workload", "none", "-c", f"{host_bpftest} {args}", timeout=150, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ADDRESS.sub("ADDR", result.stdout) == ADDRESS.sub("ADDR", REFERENCE[name])


def test_a_mapping_holds_the_map_until_munmap_or_exit(tmp_path, host_bpftest):
    """A process maps a ring buffer and closes its fd: the map is still there (BPF_MAP_GET_NEXT_ID
    finds it) while mapped; its exit unmaps it and the map goes (the next process finds none),
    as does a munmap. What the same commands print on the real 6.1 (real-tracefs)."""
    z = "0" * 24  # union bpf_attr's start_id, next_id, open_flags
    script = (f"{host_bpftest} map 27 0 0 4096 mmapk 3 0 4096 3 1 close 3 raw 12 {z}; "
              f"{host_bpftest} raw 12 {z}; "
              f"{host_bpftest} map 27 0 0 4096 mmapk 3 4096 8192 1 1 close 3 raw 12 {z} unmap 0 raw 12 {z}")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=150, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "map: 3", "mmapk: 0", "close: 0", "raw: 0",     # mapped: the map lives on
        "raw: -2",                                      # its process exited: gone
        "map: 3", "mmapk: 0", "close: 0", "raw: 0", "unmap: 0", "raw: -2",
    ], result.stdout + result.stderr
