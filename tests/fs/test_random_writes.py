"""Random and near-valid bytes written to every writable file of the tree (top level and an
instance), with `>` and `>>`: NUL bytes, invalid UTF-8, 1 MiB writes. The only failures are
Linux errnos (never EIO, which is what a daemon bug turns into), nothing is logged as an
error, and every file still reads back a well-formed value."""

import errno
import logging
import os
import re
from types import SimpleNamespace

import pyfuse3
import pytest
import trio
from fakes import FakeMachine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracefs_sim.fs import TracefsOperations, build_tree
from tracefs_sim.fs.tree import FileNode
from tracefs_sim.trace.core import TraceCore

CTX = SimpleNamespace(pid=os.getpid(), uid=0, gid=0, umask=0o022)
MACHINE = FakeMachine(clock_ns=1)
SYSTEM = TraceCore(MACHINE, ftrace_sites=None, kprobe_engine=None)
OPS = TracefsOperations(build_tree(SYSTEM))
trio.run(OPS.mkdir, OPS.tree.walk("instances").inode, b"inst", 0o755, CTX)
WRITABLE = sorted(node.inode for node in OPS.tree
                  if isinstance(node, FileNode) and (node.write or node.write_as) and node.name != "free_buffer")
# Every file that can change (format and id files are constant).
READABLE = sorted(node.inode for node in OPS.tree
                  if isinstance(node, FileNode) and node.read is not None and node.name not in ("format", "id"))
EVENT_NAMES = {f"{e.system}:{e.name}".encode() for e in SYSTEM.registry.all_events()}

WELL_FORMED = {
    "tracing_on": re.compile(rb"[01]\n"),
    "tracing_cpumask": re.compile(rb"[0-3]\n"),
    "current_tracer": re.compile(rb"nop\n"),
    "buffer_size_kb": re.compile(rb"(\d+( \(expanded: 1408\))?|X)\n"),
    "trace_clock": re.compile(rb"(\[?[a-z0-9_-]+\]? ){9}\[?[a-z0-9_-]+\]?\n"),
    "enable": re.compile(rb"[01X]\*?\n"),   # `*`: soft mode (an event a trigger holds)
    "saved_cmdlines_size": re.compile(rb"\d+\n"),
    "set_event_pid": re.compile(rb"(\d+\n)*"),
    "set_event_notrace_pid": re.compile(rb"(\d+\n)*"),
    "trace_options": re.compile(rb"((no)?[a-z_-]+\n){30}"),
    "trigger": re.compile(rb"# Available triggers:\n#( [a-z_]+)+\n|"
                          rb"([a-z_]+(:[a-z_]+:[a-z_0-9]+)?:(unlimited|count=-?\d+)( if [^\n]*)?\n)+"),
    # a command may hold any byte, newlines included
    "error_log": re.compile(rb"(\[ *\d+\.\d{6}\] event filter parse error: error: .*\n  Command: .*\n *\^\n)*", re.S),
}


def check(name: str, text: bytes) -> None:
    if name == "set_event":
        assert all(line in EVENT_NAMES for line in text.splitlines()), text
    elif name == "filter":
        assert text.endswith(b"\n"), text
    elif name in ("trace", "trace_pipe"):
        assert text == b"" or text.startswith(b"# tracer: nop\n") or b": " in text, text
    elif name in WELL_FORMED:
        assert WELL_FORMED[name].fullmatch(text), (name, text)


# What a write may be refused with: the errnos Linux's handlers of these files return (the
# event filter parser leaks EPERM, ESRCH and ENOENT as well as EINVAL; a second trigger of a
# type is EEXIST).
REFUSALS = {errno.EINVAL, errno.EEXIST, errno.ERANGE, errno.EBUSY, errno.ENOMEM, errno.ENOENT, errno.EBADF, errno.ENODEV,
            errno.ENOSPC, errno.E2BIG, errno.EPERM, errno.ESRCH, errno.EOVERFLOW}
GREATER, APPEND = os.O_WRONLY | os.O_TRUNC, os.O_WRONLY | os.O_APPEND


async def write_then_read(inode: int, data: bytes, flags: int = GREATER) -> None:
    info = await OPS.open(inode, flags, CTX)
    try:
        taken = await OPS.write(info.fh, 0, data)
        assert 0 <= taken <= len(data)
    except pyfuse3.FUSEError as error:
        assert error.errno in REFUSALS, (OPS.tree.get(inode).name, data[:80], error.errno)
    await OPS.release(info.fh)
    await trio.to_thread.run_sync(SYSTEM.drain.drain_once)
    for each in READABLE:
        node = OPS.tree.get(each)
        if node.pipe is not None:
            continue
        info = await OPS.open(each, os.O_RDONLY, CTX)
        text = await OPS.read(info.fh, 0, 1 << 16)
        await OPS.release(info.fh)
        check(node.name, text)


NEAR_VALID = [b"0\n", b"1\n", b"7\n", b"nop\n", b"global\n", b"x86-tsc\n", b"4096\n", b"sched:*\n",
              b"!sched:sched_switch\n", b"prev_pid == 1\n", b"prev_pid ==\n", b"noraw\n", b"raw\n",
              b"(( a\n", b"comm ~ \"*sh\"\n", b"traceoff\n", b"123 456\n", b"norecord-cmd\n", b"+1\n",
              b" 1\n", b"0x10\n", b"1\n\n", b"raw_syscalls:sys_enter\n", b"sched:sched_switch sched:sched_wakeup",
              b"1 2 3\n", b"prev_pid > 0 && next_pid < 100\n", b"common_pid != 0\n"]


def variants(valid: bytes):
    """Near misses of a valid write: a NUL inside or after it, invalid UTF-8, doubled."""
    return st.sampled_from([valid, valid + b"\0", valid[:1] + b"\0" + valid[1:], b"\xff" + valid,
                            valid + b"\xc3\x28", valid * 2, valid.rstrip(b"\n")])


# 1 MiB writes: the kernel copies a bounded prefix (or refuses) and must not choke on the size.
BIG = st.sampled_from([b"1", b"0\n", b"\0", b"\xff", b"sched:sched_switch\n", b"prev_pid == 1 || "]).map(
    lambda unit: (unit * ((1 << 20) // len(unit) + 1))[:1 << 20])


@pytest.fixture(autouse=True)
def no_errors_logged(caplog):
    """A handler that fails with an exception is logged (and answered EIO): never here."""
    yield
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.sampled_from(WRITABLE), st.sampled_from([GREATER, APPEND]), st.one_of(
    st.binary(max_size=80),
    st.sampled_from(NEAR_VALID).flatmap(variants),
    st.integers(min_value=-5, max_value=1 << 70).map(lambda n: b"%d\n" % n),
))
def test_random_writes_leave_coherent_state(inode, flags, data):
    trio.run(write_then_read, inode, data, flags)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.sampled_from(WRITABLE), BIG)
def test_one_mebibyte_writes_are_answered(inode, data):
    trio.run(write_then_read, inode, data, GREATER)


def test_trace_marker_takes_at_most_trace_buf_size_of_a_big_write():
    marker = OPS.tree.walk("trace_marker").inode

    async def write():
        info = await OPS.open(marker, os.O_WRONLY, CTX)
        try:
            return await OPS.write(info.fh, 0, b"x" * (1 << 20))
        finally:
            await OPS.release(info.fh)

    SYSTEM.top.write_tracing_on(b"1\n")
    SYSTEM.top.write_tracing_cpumask(b"3\n")    # markers go on CPU 0: it must record
    SYSTEM.top.options.set("markers", True)
    assert trio.run(write) == 1024


# Near-valid writes and the errno Linux 6.1 answers them with (checked on the real kernel with
# `printf DATA | dd of=FILE`, at the top level and in an instance alike); None: accepted.
LINUX_ANSWERS = [
    ("tracing_on", b"x\n", errno.EINVAL),
    ("tracing_cpumask", b"4\n", errno.EOVERFLOW),
    ("tracing_cpumask", b"0x3\n", errno.EINVAL),
    ("tracing_on", b"1x\n", errno.EINVAL),
    ("tracing_on", b"99999999999999999999999\n", errno.ERANGE),
    ("tracing_on", b"1\x001\n", None),
    ("tracing_on", b"1" * (1 << 20), errno.ERANGE),
    ("events/sched/sched_switch/enable", b"2\n", errno.EINVAL),
    ("events/sched/enable", b"2\n", errno.EINVAL),
    ("options/raw", b"2\n", errno.EINVAL),
    ("trace_options", b"nosuchoption\n", errno.EINVAL),
    ("trace_options", b"norecord-cmd\n", None),
    ("current_tracer", b"nosuch\n", errno.EINVAL),
    ("trace_clock", b"nosuch\n", errno.EINVAL),
    ("buffer_size_kb", b"0\n", errno.EINVAL),
    ("set_event", b"nosuch:nosuch\n", errno.EINVAL),
    ("set_event_pid", b"x\n", errno.EINVAL),
    ("events/sched/sched_switch/filter", b"nosuchfield == 1\n", errno.EINVAL),
    ("events/sched/sched_switch/trigger", b"nosuchtrigger\n", errno.EINVAL),
]
TOP_ONLY_ANSWERS = [
    ("saved_cmdlines_size", b"0\n", errno.EINVAL),
    ("saved_cmdlines_size", b"32769\n", errno.EINVAL),
]


@pytest.mark.parametrize("path, data, expected", [*LINUX_ANSWERS, *TOP_ONLY_ANSWERS] + [
    (f"instances/inst/{path}", data, expected) for path, data, expected in LINUX_ANSWERS])
def test_near_valid_writes_get_linux_errno(path, data, expected):
    async def write():
        info = await OPS.open(OPS.tree.walk(path).inode, GREATER, CTX)
        try:
            await OPS.write(info.fh, 0, data)
        except pyfuse3.FUSEError as error:
            return error.errno
        finally:
            await OPS.release(info.fh)
        return None

    assert trio.run(write) == expected
