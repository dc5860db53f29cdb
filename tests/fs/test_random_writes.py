"""Random bytes written to every writable file: the only failures are errnos, and every file
still reads back a well-formed value."""

import os
import re
from types import SimpleNamespace

import pyfuse3
import trio
from fakes import real_event_descs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracefs_sim.fs import TracefsOperations, build_tree
from tracefs_sim.fs.tree import FileNode
from tracefs_sim.trace import EventRegistry, TraceArray, TraceClocks

CTX = SimpleNamespace(pid=os.getpid(), uid=0, gid=0, umask=0o022)
OPS = TracefsOperations(build_tree(TraceArray(2, TraceClocks(lambda: 1)), EventRegistry(real_event_descs())))
WRITABLE = sorted(node.inode for node in OPS.tree if isinstance(node, FileNode) and node.write)
ALL_FILES = sorted(node.inode for node in OPS.tree
                   if isinstance(node, FileNode) and node.read is not None)

WELL_FORMED = {
    "tracing_on": re.compile(rb"[01]\n"),
    "current_tracer": re.compile(rb"nop\n"),
    "buffer_size_kb": re.compile(rb"(\d+( \(expanded: 1408\))?|X)\n"),
    "trace_clock": re.compile(rb"(\[?[a-z0-9_-]+\]? ){9}\[?[a-z0-9_-]+\]?\n"),
}


async def write_then_read(inode: int, data: bytes) -> None:
    info = await OPS.open(inode, os.O_WRONLY | os.O_TRUNC, CTX)
    try:
        await OPS.write(info.fh, 0, data)
    except pyfuse3.FUSEError:
        pass
    await OPS.release(info.fh)
    for each in ALL_FILES:
        info = await OPS.open(each, os.O_RDONLY, CTX)
        text = await OPS.read(info.fh, 0, 1 << 16)
        await OPS.release(info.fh)
        pattern = WELL_FORMED.get(OPS.tree.get(each).name)
        if pattern is not None:
            assert pattern.fullmatch(text), (OPS.tree.get(each).name, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(WRITABLE), st.one_of(
    st.binary(max_size=80),
    st.sampled_from([b"0\n", b"1\n", b"7\n", b"nop\n", b"global\n", b"x86-tsc\n", b"4096\n"]),
    st.integers(min_value=-5, max_value=1 << 70).map(lambda n: b"%d\n" % n),
))
def test_random_writes_leave_coherent_state(inode, data):
    trio.run(write_then_read, inode, data)
