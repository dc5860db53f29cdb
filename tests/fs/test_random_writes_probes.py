"""Random and near-valid bytes written to the function-tracer and kprobe files of a tree over a
real emulated kernel (issue 8): only Linux errnos come back, nothing is logged as an error,
the files read back, and once every probe is released the kernel text is byte-identical to
the fresh image."""
import errno
import logging
import os
from types import SimpleNamespace

import pyfuse3
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracefs_sim.fs import TracefsOperations, build_tree
from tracefs_sim.fs.tree import FileNode
from tracefs_sim.machine import Machine, MachineOptions
from tracefs_sim.probes.ftrace import FtraceSites
from tracefs_sim.probes.kprobes import KprobeEngine
from tracefs_sim.trace.core import TraceCore

CTX = SimpleNamespace(pid=os.getpid(), uid=0, gid=0, umask=0o022)
FILES = ["current_tracer", "set_ftrace_filter", "set_ftrace_notrace", "set_ftrace_pid", "set_ftrace_notrace_pid",
         "set_graph_function", "set_graph_notrace", "max_graph_depth", "kprobe_events", "dynamic_events",
         "tracing_cpumask", "options/func_stack_trace", "options/funcgraph-proc", "options/function-fork"]
REFUSALS = {errno.EINVAL, errno.ERANGE, errno.EBUSY, errno.ENOMEM, errno.ENOENT, errno.EBADF, errno.ENODEV,
            errno.ENOSPC, errno.E2BIG, errno.EEXIST, errno.EILSEQ, errno.EOVERFLOW}
GREATER, APPEND = os.O_WRONLY | os.O_TRUNC, os.O_WRONLY | os.O_APPEND
COMMANDS = [b"traceon", b"traceoff", b"stacktrace", b"enable_event:sched:sched_switch",
            b"disable_event:sched:sched_switch"]
NEAR_VALID = [b"function\n", b"function_graph\n", b"nop\n", b"vfs_read\n", b"vfs_*\n", b"*read*\n", b"!vfs_read\n",
              b"vfs_read:traceoff\n", b"vfs_read:stacktrace:2\n", b"ksys_read:enable_event:sched:sched_switch\n",
              b"!vfs_read:traceoff\n", b"nosuch\n", b"1\n", b"3\n", b"0\n", b"-1\n",
              b"p:kp vfs_read\n", b"p:kp2 vfs_read+1\n", b"p:kp3 do_sys_open filename=+0($arg2):ustring\n",
              b"r:kr vfs_read $retval\n", b"r2:kr2 ksys_read\n", b"-:kp\n", b"-:kprobes/kr\n",
              b"p:bad vfs_read %zz\n", b"p:kp4 do_sys_openat2+6 a=%di b=+8(%si):u32\n", b"p:x nosuch_symbol\n"]


@pytest.fixture(scope="module")
def tree(vmlinux):
    machine = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2, seed=5))
    sites = FtraceSites(machine)
    machine.start()
    system = TraceCore(machine, ftrace_sites=sites, kprobe_engine=KprobeEngine(machine, sites))
    ops = TracefsOperations(build_tree(system))
    yield machine, system, ops
    machine.stop()


async def write(ops, path: str, data: bytes, flags: int) -> None:
    info = await ops.open(ops.tree.walk(path).inode, flags, CTX)
    try:
        taken = await ops.write(info.fh, 0, data)
        assert 0 <= taken <= len(data)
    except pyfuse3.FUSEError as error:
        assert error.errno in REFUSALS, (path, data[:80], error.errno)
    finally:
        await ops.release(info.fh)


async def read_all(ops) -> None:
    for node in list(ops.tree):
        if isinstance(node, FileNode) and node.read is not None and node.pipe is None:
            info = await ops.open(node.inode, os.O_RDONLY, CTX)
            await ops.read(info.fh, 0, 1 << 16)
            await ops.release(info.fh)


@pytest.fixture(autouse=True)
def no_errors_logged(caplog):
    yield
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(FILES), st.sampled_from([GREATER, APPEND]), st.one_of(
    st.binary(max_size=60), st.sampled_from(NEAR_VALID), st.sampled_from(NEAR_VALID),
    st.sampled_from(NEAR_VALID).map(lambda v: v[:len(v) // 2] + b"\0" + v[len(v) // 2:]))), max_size=6),
    st.booleans())
def test_probe_files_take_anything_and_release_to_the_image(tree, writes, enable):
    machine, system, ops = tree

    async def session():
        for path, flags, data in writes:
            await write(ops, path, data, flags)
        if enable:   # arm whatever kprobe events were accepted, let the kernel run through them
            await write(ops, "events/enable", b"1\n", GREATER)
            await trio.to_thread.run_sync(lambda: machine.spawn(["cat", "/etc/hostname"]).wait(30))
            await write(ops, "events/enable", b"0\n", GREATER)
        await trio.to_thread.run_sync(system.drain.drain_once)
        await read_all(ops)
        # release everything: the kernel must come back to the image's bytes
        await write(ops, "current_tracer", b"nop\n", GREATER)
        for path in ("set_ftrace_filter", "set_ftrace_notrace", "set_graph_function", "set_graph_notrace",
                     "kprobe_events"):
            await write(ops, path, b"", GREATER)
        # truncating set_ftrace_filter keeps its commands, as Linux: remove them by name
        for command in COMMANDS:
            for removal in (b"!*:%s\n" % command, b"!*:%s:0\n" % command):
                await write(ops, "set_ftrace_filter", removal, APPEND)
        for path in ("set_ftrace_filter",):
            text = await read(ops, path)
            assert text == b"#### all functions enabled ####\n", text
        assert await read(ops, "kprobe_events") == b""

    trio.run(session)
    start, end = machine.image.text_range
    assert machine.read_memory(start, end - start) == machine.image.read(start, end - start)


async def read(ops, path: str) -> bytes:
    info = await ops.open(ops.tree.walk(path).inode, os.O_RDONLY, CTX)
    text = await ops.read(info.fh, 0, 1 << 16)
    await ops.release(info.fh)
    return text
