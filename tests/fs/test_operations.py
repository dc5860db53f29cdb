"""The FUSE Operations driven directly (no mount): tree layout, modes, reads, writes, errors."""

import errno
import os
import signal
import stat
import subprocess
import sys
import time
from types import SimpleNamespace

import pyfuse3
import pytest
import trio
from fakes import FakeMachine

from tracefs_sim.fs import TracefsOperations, build_tree
from tests.rb_page_reference import decode_page
from tracefs_sim.trace.records import ENTRY_HEADER
from tracefs_sim.trace.core import TraceCore

CTX = SimpleNamespace(pid=os.getpid(), uid=0, gid=0, umask=0o022)

# Modes as a_layout.out lists them on Linux 6.1, for the files that exist here.
TOP_FILES = {
    "README": 0o440, "available_events": 0o440, "available_tracers": 0o440, "buffer_percent": 0o640, "buffer_size_kb": 0o640,
    "buffer_total_size_kb": 0o440, "current_tracer": 0o640, "error_log": 0o640, "free_buffer": 0o200,
    "printk_formats": 0o440, "saved_cmdlines": 0o440, "saved_cmdlines_size": 0o640, "saved_tgids": 0o440, "set_event": 0o640,
    "set_event_notrace_pid": 0o640, "set_event_pid": 0o640, "snapshot": 0o640, "timestamp_mode": 0o440, "trace": 0o640,
    "trace_clock": 0o640,
    "trace_marker": 0o220, "trace_marker_raw": 0o220, "trace_options": 0o640, "trace_pipe": 0o440, "tracing_cpumask": 0o640,
    "tracing_on": 0o640, "tracing_max_latency": 0o640, "tracing_thresh": 0o640,
}
CPU_FILES = {"buffer_size_kb": 0o640, "snapshot": 0o640, "snapshot_raw": 0o440, "stats": 0o440, "trace": 0o640,
             "trace_pipe": 0o440, "trace_pipe_raw": 0o440}


@pytest.fixture
def setup():
    machine = FakeMachine(clock_ns=2_274_249_000)
    system = TraceCore(machine, ftrace_sites=None, kprobe_engine=None)
    tree = build_tree(system)
    return SimpleNamespace(ta=system.top, tree=tree, ops=TracefsOperations(tree), system=system,
                           machine=machine)


def run(coroutine_fn, *args):
    return trio.run(coroutine_fn, *args)


def fuse_errno(coroutine_fn, *args):
    with pytest.raises(pyfuse3.FUSEError) as caught:
        run(coroutine_fn, *args)
    return caught.value.errno


def lookup_path(ops, path):
    inode = pyfuse3.ROOT_INODE
    for part in path.split("/"):
        inode = run(ops.lookup, inode, part.encode(), CTX).st_ino
    return inode


def read_file(ops, path, flags=os.O_RDONLY, chunk=4096):
    info = run(ops.open, lookup_path(ops, path), flags, CTX)
    data = b""
    while True:
        piece = run(ops.read, info.fh, len(data), chunk)
        if not piece:
            break
        data += piece
    run(ops.release, info.fh)
    return data


def write_file(ops, path, data, flags=os.O_WRONLY | os.O_TRUNC):
    info = run(ops.open, lookup_path(ops, path), flags, CTX)
    try:
        return run(ops.write, info.fh, 0, data)
    finally:
        run(ops.release, info.fh)


def test_top_level_has_exactly_the_real_files(setup):
    root = setup.tree.root
    files = {name: node.mode for name, node in root.children.items() if not hasattr(node, "children")}
    dirs = {name for name, node in root.children.items() if hasattr(node, "children")}
    assert files == TOP_FILES
    assert dirs == {"per_cpu", "events", "options", "instances"}


def test_modes_and_attributes(setup):
    ops = setup.ops
    root = run(ops.getattr, pyfuse3.ROOT_INODE, CTX)
    assert stat.S_ISDIR(root.st_mode) and stat.S_IMODE(root.st_mode) == 0o700
    assert root.st_nlink == 6                        # ., .., per_cpu, events, options, instances
    for name, mode in TOP_FILES.items():
        attr = run(ops.getattr, lookup_path(ops, name), CTX)
        assert stat.S_ISREG(attr.st_mode) and stat.S_IMODE(attr.st_mode) == mode, name
        assert (attr.st_size, attr.st_uid, attr.st_gid, attr.st_nlink) == (0, 0, 0, 1)
        assert attr.st_mtime_ns == setup.tree.created_ns
    per_cpu = run(ops.getattr, lookup_path(ops, "per_cpu"), CTX)
    assert stat.S_IMODE(per_cpu.st_mode) == 0o750 and per_cpu.st_nlink == 4
    for cpu in (0, 1):
        directory = setup.tree.walk(f"per_cpu/cpu{cpu}")
        assert {n: c.mode for n, c in directory.children.items()} == CPU_FILES
    assert setup.tree.walk("per_cpu/cpu2") is None


def test_events_tree(setup):
    events = setup.tree.walk("events")
    assert set(events.children) == {"enable", "header_event", "header_page", "ftrace", "kmem", "raw_syscalls",
                                    "sched", "syscalls"}
    switch = setup.tree.walk("events/sched/sched_switch")
    assert {n: c.mode for n, c in switch.children.items()} == {
        "enable": 0o640, "filter": 0o640, "format": 0o440, "hist": 0o440, "id": 0o440, "trigger": 0o640}
    # ftrace's own records: no enable or filter anywhere (Linux: events/ftrace/enable is ENOENT)
    assert set(setup.tree.walk("events/ftrace").children) == {"print", "function", "funcgraph_entry", "funcgraph_exit",
                                                               "kernel_stack", "user_stack", "func_repeats", "raw_data"}
    # and a trigger file for trace_marker's print event alone (6.1's trace_marker_file)
    assert set(setup.tree.walk("events/ftrace/print").children) == {"format", "hist", "id", "trigger"}
    assert set(setup.tree.walk("events/ftrace/function").children) == {"format", "hist", "id"}
    assert set(setup.tree.walk("events/sched").children) >= {"enable", "filter"}
    fmt = read_file(setup.ops, "events/sched/sched_switch/format").decode()
    event_id = int(read_file(setup.ops, "events/sched/sched_switch/id"))
    assert fmt.startswith(f"name: sched_switch\nID: {event_id}\nformat:\n")
    assert read_file(setup.ops, "events/header_page").startswith(b"\tfield: u64 timestamp;")


def test_unknown_paths_are_enoent(setup):
    ops = setup.ops
    for path in ("nosuchfile", "options/blk_classic",
                 "events/sched/nosuch", "events/ftrace/enable", "events/sched/sched_switch/hist_debug"):
        parent, _, name = path.rpartition("/")
        parent_inode = lookup_path(ops, parent) if parent else pyfuse3.ROOT_INODE
        assert fuse_errno(ops.lookup, parent_inode, name.encode(), CTX) == errno.ENOENT, path
    assert fuse_errno(ops.getattr, 99999, CTX) == errno.ENOENT


def test_reads(setup):
    ops = setup.ops
    assert read_file(ops, "tracing_on") == b"1\n"
    assert read_file(ops, "current_tracer") == b"nop\n"
    assert read_file(ops, "buffer_size_kb") == b"7 (expanded: 1408)\n"
    assert read_file(ops, "per_cpu/cpu1/buffer_size_kb") == b"7\n"
    assert b"now ts:     2.274249\n" in read_file(ops, "per_cpu/cpu0/stats")
    assert read_file(ops, "trace").startswith(b"# tracer: nop\n")
    assert read_file(ops, "per_cpu/cpu1/trace") == read_file(ops, "trace")
    readme = read_file(ops, "README", chunk=7).decode()   # small reads still see all of it
    assert readme.startswith("tracing mini-HOWTO:") and "error_log\t- error log" in readme
    assert "trace_marker_raw\t\t- Writes into this file writes binary data" in readme
    assert "stack_trace" not in readme and "kprobe_events" not in readme
    assert "  events/<system>/<event>/\t- Directory containing control files for\n" in readme


def test_writes_and_errors(setup):
    ops = setup.ops
    assert write_file(ops, "tracing_on", b"2\n") == 2
    assert read_file(ops, "tracing_on") == b"1\n"
    for path, bad in (("tracing_on", b"-1\n"), ("tracing_on", b"abc\n"), ("current_tracer", b"nosuch\n"),
                      ("trace_clock", b"nosuchclock\n"), ("buffer_size_kb", b"0\n"),
                      ("per_cpu/cpu0/buffer_size_kb", b"abc\n")):
        info = run(ops.open, lookup_path(ops, path), os.O_WRONLY | os.O_TRUNC, CTX)
        assert fuse_errno(ops.write, info.fh, 0, bad) == errno.EINVAL, (path, bad)
    assert read_file(ops, "tracing_on") == b"1\n"
    assert read_file(ops, "current_tracer") == b"nop\n"
    write_file(ops, "per_cpu/cpu1/buffer_size_kb", b"100\n")
    assert read_file(ops, "buffer_size_kb") == b"X\n"
    # O_APPEND and offsets do not matter: each write is parsed alone.
    info = run(ops.open, lookup_path(ops, "tracing_on"), os.O_WRONLY | os.O_APPEND, CTX)
    run(ops.write, info.fh, 2, b"0\n")
    assert read_file(ops, "tracing_on") == b"0\n"


def test_files_without_write_answer_einval_even_for_root(setup):
    for path in ("README", "available_tracers", "buffer_total_size_kb", "trace_pipe",
                 "per_cpu/cpu0/stats", "events/header_page", "events/sched/sched_switch/id"):
        info = run(setup.ops.open, lookup_path(setup.ops, path), os.O_WRONLY, CTX)
        assert fuse_errno(setup.ops.write, info.fh, 0, b"x\n") == errno.EINVAL, path


def test_o_trunc_on_trace_clears_but_on_other_files_is_harmless(setup):
    buffer = setup.ta.buffer
    for cpu in (0, 1):
        setup.ta.add_records(cpu, [(i, b"\x05\0\0\0\0\0\0\0" + bytes(12)) for i in range(4)])
    write_file(setup.ops, "per_cpu/cpu1/trace", b"\n")
    assert (buffer.cpu(0).entries, buffer.cpu(1).entries) == (4, 0)
    write_file(setup.ops, "trace", b"x\n", flags=os.O_WRONLY | os.O_APPEND)   # `>>` keeps
    assert buffer.cpu(0).entries == 4
    write_file(setup.ops, "trace", b"\n")
    assert buffer.is_empty()
    write_file(setup.ops, "tracing_on", b"1\n")


def test_setattr_truncate_and_chmod(setup):
    ops = setup.ops
    inode = lookup_path(ops, "tracing_on")
    attr = pyfuse3.EntryAttributes()
    attr.st_size = 0
    attr.st_mode = 0o600
    # pyfuse3.SetattrFields is read-only from Python; the kernel's request is stood in for.
    no_change = dict(update_size=False, update_mode=False, update_uid=False, update_gid=False,
                     update_atime=False, update_mtime=False, update_ctime=False)
    fields = SimpleNamespace(**{**no_change, "update_size": True})
    result = run(ops.setattr, inode, attr, fields, None, CTX)
    assert result.st_size == 0 and stat.S_IMODE(result.st_mode) == 0o640
    fields = SimpleNamespace(**{**no_change, "update_mode": True})
    assert stat.S_IMODE(run(ops.setattr, inode, attr, fields, None, CTX).st_mode) == 0o600


def test_namespace_changes_are_refused_like_tracefs(setup):
    ops = setup.ops
    root = pyfuse3.ROOT_INODE
    assert fuse_errno(ops.create, root, b"new", 0o644, os.O_WRONLY, CTX) == errno.EACCES
    assert fuse_errno(ops.mkdir, root, b"new", 0o755, CTX) == errno.EPERM
    assert fuse_errno(ops.unlink, root, b"README", CTX) == errno.EPERM
    assert fuse_errno(ops.rmdir, root, b"per_cpu", CTX) == errno.EPERM
    assert fuse_errno(ops.rename, root, b"README", root, b"R", 0, CTX) == errno.EPERM


def test_trace_pipe_nonblocking_is_eagain(setup):
    info = run(setup.ops.open, lookup_path(setup.ops, "trace_pipe"), os.O_RDONLY | os.O_NONBLOCK, CTX)
    assert info.nonseekable and info.direct_io
    assert fuse_errno(setup.ops.read, info.fh, 0, 4096) == errno.EAGAIN


@pytest.fixture
def reader_process():
    """A process standing in for a blocked reader, with SIGUSR1 blocked."""
    code = "import signal,time; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1}); print(1, flush=True); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    proc.stdout.readline()
    yield proc
    proc.kill()
    proc.wait()


def test_blocked_pipe_read_waits_through_wakeups_and_ends_on_a_signal(setup, reader_process):
    ops = setup.ops
    ctx = SimpleNamespace(pid=reader_process.pid, uid=0, gid=0, umask=0o022)
    info = run(ops.open, lookup_path(ops, "per_cpu/cpu0/trace_pipe"), os.O_RDONLY, ctx)
    outcome = {}

    async def scenario():
        async def reader():
            try:
                await ops.read(info.fh, 0, 4096)
            except pyfuse3.FUSEError as error:
                outcome["errno"] = error.errno
                outcome["at"] = time.monotonic()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(reader)
            await trio.sleep(0.2)
            setup.ta.write_tracing_on(b"0\n")           # a wake-up with nothing to read
            reader_process.send_signal(signal.SIGUSR1)  # pending but blocked: not for us
            await trio.sleep(0.3)
            assert "errno" not in outcome
            reader_process.kill()
            outcome["killed"] = time.monotonic()

    trio.run(scenario)
    assert outcome["errno"] == errno.EINTR
    assert outcome["at"] - outcome["killed"] < 0.5


# ---- events, instances, markers through the FUSE operations ----

def test_set_event_truncates_on_open_and_appends_with_o_append(setup):
    write_file(setup.ops, "set_event", b"sched:sched_switch\n")
    write_file(setup.ops, "set_event", b"sched:sched_wakeup\n", flags=os.O_WRONLY | os.O_APPEND)
    assert read_file(setup.ops, "set_event") == b"sched:sched_switch\nsched:sched_wakeup\n"
    write_file(setup.ops, "set_event", b"kmem:kfree\n")
    assert read_file(setup.ops, "set_event") == b"kmem:kfree\n"
    assert read_file(setup.ops, "events/kmem/enable") == b"X\n"
    assert read_file(setup.ops, "events/enable") == b"X\n"
    info = run(setup.ops.open, lookup_path(setup.ops, "set_event"), os.O_WRONLY | os.O_APPEND, CTX)
    assert fuse_errno(setup.ops.write, info.fh, 0, b"nosuch\n") == errno.EINVAL
    write_file(setup.ops, "set_event", b"\n")
    assert read_file(setup.ops, "set_event") == b""


def test_filter_file_errors_through_fuse(setup):
    path = "events/sched/sched_switch/filter"
    info = run(setup.ops.open, lookup_path(setup.ops, path), os.O_WRONLY | os.O_TRUNC, CTX)
    assert fuse_errno(setup.ops.write, info.fh, 0, b"nosuchfield == 1\n") == errno.EINVAL
    assert read_file(setup.ops, path) == b"nosuchfield == 1\n            ^\nparse_error: Field not found\n\n"
    assert b"Command: nosuchfield == 1\n" in read_file(setup.ops, "error_log")
    write_file(setup.ops, "error_log", b"\n")
    assert read_file(setup.ops, "error_log") == b""


def test_trace_marker_takes_the_writers_pid_and_comm(setup):
    assert write_file(setup.ops, "trace_marker", b"hello\n", flags=os.O_WRONLY) == 6
    line = read_file(setup.ops, "trace").decode().splitlines()[-1]
    comm = open(f"/proc/{os.getpid()}/comm").read().strip()[:15]
    assert line == f"{comm:>16}-{os.getpid():<7} [000] .....     2.274249: tracing_mark_write: hello"
    info = run(setup.ops.open, lookup_path(setup.ops, "trace_pipe"), os.O_RDONLY | os.O_NONBLOCK, CTX)
    assert run(setup.ops.read, info.fh, 0, 4096).decode() == line + "\n"
    assert fuse_errno(setup.ops.read, info.fh, 0, 4096) == errno.EAGAIN


def test_instances_mkdir_rmdir(setup):
    ops = setup.ops
    instances = lookup_path(ops, "instances")
    attr = run(ops.mkdir, instances, b"foo", 0o755, CTX)
    assert stat.S_ISDIR(attr.st_mode)
    assert fuse_errno(ops.mkdir, instances, b"foo", 0o755, CTX) == errno.EEXIST
    foo = setup.tree.walk("instances/foo")
    assert {"trace", "trace_pipe", "set_event", "events", "options", "per_cpu", "trace_marker",
            "tracing_on", "error_log", "free_buffer"} <= set(foo.children)
    assert not {"README", "available_events", "saved_cmdlines", "instances"} & set(foo.children)
    write_file(ops, "instances/foo/events/sched/sched_switch/enable", b"1\n")
    assert read_file(ops, "instances/foo/set_event") == b"sched:sched_switch\n"
    assert read_file(ops, "set_event") == b""
    write_file(ops, "instances/foo/trace_marker", b"in foo\n", flags=os.O_WRONLY)
    assert b"in foo" in read_file(ops, "instances/foo/trace") and b"in foo" not in read_file(ops, "trace")
    info = run(ops.open, lookup_path(ops, "instances/foo/trace_pipe"), os.O_RDONLY, CTX)
    assert fuse_errno(ops.rmdir, instances, b"foo", CTX) == errno.EBUSY
    run(ops.release, info.fh)
    run(ops.rmdir, instances, b"foo", CTX)
    assert setup.tree.walk("instances/foo") is None
    assert setup.machine.tracing.enabled[("sched", "sched_switch")] == set()
    assert fuse_errno(ops.rmdir, instances, b"foo", CTX) == errno.ENOENT
    assert fuse_errno(ops.mkdir, lookup_path(ops, "events"), b"x", 0o755, CTX) == errno.EPERM
    run(ops.mkdir, instances, b"foo", 0o755, CTX)      # the name and a slot are free again
    assert read_file(ops, "instances/foo/set_event") == b""


def test_pipe_read_returns_data_then_eof_once_tracing_is_off(setup):
    ops = setup.ops
    write_file(ops, "trace_marker", b"one\n", flags=os.O_WRONLY)
    info = run(ops.open, lookup_path(ops, "trace_pipe"), os.O_RDONLY, CTX)
    assert run(ops.read, info.fh, 0, 4096).endswith(b"tracing_mark_write: one\n")
    setup.ta.write_tracing_on(b"0\n")
    assert run(ops.read, info.fh, 0, 4096) == b""
    run(ops.release, info.fh)


def test_free_buffer_acts_on_close(setup):
    write_file(setup.ops, "buffer_size_kb", b"1408\n")
    write_file(setup.ops, "free_buffer", b"x\n", flags=os.O_WRONLY)
    assert read_file(setup.ops, "buffer_size_kb") == b"7\n"


def test_blocked_pipe_reader_is_woken_by_the_drain(setup):
    ops = setup.ops
    ev = setup.system.registry.get("sched", "sched_switch")
    write_file(ops, "events/sched/sched_switch/enable", b"1\n")
    info = run(ops.open, lookup_path(ops, "per_cpu/cpu1/trace_pipe"), os.O_RDONLY, CTX)
    got = {}

    async def scenario():
        async def reader():
            got["data"] = await ops.read(info.fh, 0, 4096)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(reader)
            await trio.sleep(0.1)
            assert "data" not in got
            setup.machine.tracing.emit(1, ev.desc, 5_000, {"prev_pid": 7}, pid=7)
            await trio.to_thread.run_sync(setup.system.drain.drain_once)

    trio.run(scenario)
    assert b"sched_switch: prev_comm= prev_pid=7 " in got["data"]


def test_an_instance_has_no_options_file_for_top_level_flags(setup):
    # create_trace_options_dir() skips TOP_LEVEL_TRACE_FLAGS for instances; trace_options keeps them.
    run(setup.ops.mkdir, lookup_path(setup.ops, "instances"), b"foo", 0o755, CTX)
    assert "record-cmd" in setup.tree.walk("options").children
    instance_options = setup.tree.walk("instances/foo/options").children
    assert "record-cmd" not in instance_options and "record-tgid" in instance_options
    assert b"record-cmd\n" in read_file(setup.ops, "instances/foo/trace_options")
    write_file(setup.ops, "instances/foo/trace_options", b"norecord-cmd\n")
    assert b"norecord-cmd\n" in read_file(setup.ops, "instances/foo/trace_options")
    assert read_file(setup.ops, "options/record-cmd") == b"1\n"


def test_ending_answers_blocked_and_new_pipe_reads_with_eof(setup):
    ops = setup.ops
    blocked = run(ops.open, lookup_path(ops, "trace_pipe"), os.O_RDONLY, CTX)
    got = {}

    async def scenario():
        async def reader():
            got["data"] = await ops.read(blocked.fh, 0, 4096)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(reader)
            await trio.sleep(0.1)
            assert "data" not in got
            ops.end_waits()

    trio.run(scenario)
    assert got["data"] == b""
    fresh = run(ops.open, lookup_path(ops, "per_cpu/cpu0/trace_pipe"), os.O_RDONLY, CTX)
    assert run(ops.read, fresh.fh, 0, 4096) == b""


def test_trace_pipe_raw_blocks_until_a_page_and_never_ends_on_tracing_off(setup):
    ops = setup.ops
    ev = setup.system.registry.get("sched", "sched_switch")
    write_file(ops, "events/sched/sched_switch/enable", b"1\n")
    path = "per_cpu/cpu1/trace_pipe_raw"
    nonblocking = run(ops.open, lookup_path(ops, path), os.O_RDONLY | os.O_NONBLOCK, CTX)
    assert nonblocking.nonseekable and nonblocking.direct_io
    assert fuse_errno(ops.read, nonblocking.fh, 0, 4096) == errno.EAGAIN
    info = run(ops.open, lookup_path(ops, path), os.O_RDONLY, CTX)
    got = {}

    async def scenario():
        async def reader():
            got["data"] = await ops.read(info.fh, 0, 4096)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(reader)
            await trio.sleep(0.1)
            setup.ta.write_tracing_on(b"0\n")     # a wake-up with nothing to read: still blocked
            await trio.sleep(0.1)
            assert "data" not in got
            setup.ta.write_tracing_on(b"1\n")
            setup.machine.tracing.emit(1, ev.desc, 5_000, {"prev_pid": 7}, pid=7)
            await trio.to_thread.run_sync(setup.system.drain.drain_once)

    trio.run(scenario)
    page = decode_page(got["data"])
    assert [e.timestamp for e in page.events] == [5_000]
    assert ENTRY_HEADER.unpack_from(page.events[0].payload, 0)[0] == ev.id
    assert fuse_errno(ops.read, nonblocking.fh, 0, 4096) == errno.EAGAIN
    run(ops.release, info.fh)
    run(ops.release, nonblocking.fh)


def test_printk_formats_lists_the_tracepoint_strings(setup):
    """t_show(): each tracepoint_string()'s address and text, tabs, newlines and quotes
    escaped (the emulated kernel has no trace_printk formats, which Linux lists first)."""
    assert read_file(setup.ops, "printk_formats") == (b'0xffffffff81020000 : "Start scheduler-tick"\n'
                                                      b'0xffffffff81020015 : "a \\"quoted\\"\\ttab"\n')
