"""blktrace in the kernel (kernel/blktrace.c): /sys/block/nvme0n1/trace/'s attributes as 6.1's
sysfs_blk_trace_attr_show/store answer them, and the blk tracer's records of the disk's I/O
(blk_trace_event_print()'s lines, blkparse's classic ones with options/blk_classic)."""
import errno
import itertools
import re

import pytest

from tracefs_sim.trace.core import TraceCore

NVME_DEV = (259 << 20) | 0  # nvme0n1
ENABLE, ACT_MASK, PID, START_LBA, END_LBA = range(5)
ALL = b"read,write,flush,sync,queue,requeue,issue,complete,fs,pc,notify,ahead,meta,discard,drv_data,fua\n"


def show(m, attr):
    ret, text = m.blk_trace_attr_request(NVME_DEV, attr, None)
    assert ret == len(text)
    return text


def store(m, attr, data):
    return m.blk_trace_attr_request(NVME_DEV, attr, data)[0]


@pytest.fixture
def traced(make_machine):
    m = make_machine(cpus=2, workload="none")
    core = TraceCore(m, ftrace_sites=None, kprobe_engine=None)
    m.tracing.set_recording(0, True)   # tracing_on, as the daemon starts it
    return m, core


def test_attributes_as_6_1_shows_and_stores_them(traced):
    m, _ = traced
    assert [show(m, a) for a in range(5)] == [b"0\n"] + [b"disabled\n"] * 4
    assert store(m, ENABLE, b"0\n") == 2   # no change: the count
    assert store(m, ENABLE, b"1\n") == 2
    assert [show(m, a) for a in range(5)] == [b"1\n", ALL, b"0\n", b"0\n", b"131072\n"]
    assert store(m, ACT_MASK, b"Queue,,complete\n") == 16   # names, any case, empty ones skipped
    assert show(m, ACT_MASK) == b"queue,complete\n"
    assert store(m, ACT_MASK, b"0x41") == 4                   # or a number
    assert show(m, ACT_MASK) == b"read,issue\n"
    assert store(m, ACT_MASK, b"queue,bogus\n") == -errno.EINVAL
    assert store(m, PID, b"12x\n") == -errno.EINVAL
    assert store(m, ENABLE, b"\n") == -errno.EINVAL
    assert store(m, ENABLE, b"0\n") == 2
    assert show(m, PID) == b"disabled\n"
    assert store(m, PID, b"7\n") == 2   # any attribute's store sets tracing up
    assert show(m, ENABLE) == b"1\n" and show(m, PID) == b"7\n"


def _trace_lines(core):
    core.drain.drain_once()
    return [line for line in core.top.read_trace().decode().splitlines() if not line.startswith("#")]


def test_the_blk_tracer_records_the_disk_io_only_while_enabled(traced, run_program):
    m, core = traced
    top = core.top
    assert core.globals.tracers.available_text() == "blk nop\n"
    top.write_current_tracer(b"blk")
    assert top.read_trace() == b"# tracer: blk\n#\n"
    assert run_program(m, ["diskwriter", "/mnt/a", "4096", "fsync"], timeout=60)[0] == 0
    assert _trace_lines(core) == []   # the queue does not trace
    assert store(m, ENABLE, b"1\n") == 2
    status, _ = run_program(m, ["diskwriter", "/mnt/b", "8192", "fsync"], timeout=60)
    assert status == 0
    lines = _trace_lines(core)
    line = re.compile(r" +(\S+)-(\d+) +\[\d{3}\] d[.N][.h]\d\. +\d+\.\d{6}: 259,0 +([A-Z]{1,2}) +([A-Z]+) (.*)$")
    parsed = [line.match(text) for text in lines]
    assert all(parsed), "\n".join(lines)
    acts = [(p[3], p[4]) for p in parsed]
    assert ("Q", "WS") in acts and ("G", "WS") in acts and ("D", "WS") in acts and ("C", "WS") in acts
    assert ("P", "N") in acts and ("Q", "FWS") in acts and ("C", "FN") in acts
    writer = next(p for p in parsed if p[3] == "Q" and p[1] == "diskwriter")
    assert re.fullmatch(r"\d+ \+ 8 \[diskwriter\]", writer[5]) and writer[0].startswith("      diskwriter-")
    completes = [p[5] for p in parsed if p[3] == "C" and p[4] == "WS"]
    assert completes and all(re.fullmatch(r"\d+ \+ 8 \[0\]", c) for c in completes)

    # blkparse's classic lines, context-info off
    top.options.write_option("blk_classic", b"1")
    assert top.options.read_option("context-info") == b"0\n"
    text = top.read_trace().decode()
    assert text.startswith("# tracer: blk\n#\n# DEV   CPU TIMESTAMP     PID ACT FLG\n#  |     |     |           |   |   |\n")
    classic = text.splitlines()[4:]
    assert classic and all(re.fullmatch(r"259,0 +\d +\d+\.\d{9} +\d+ +[A-Z ]{2} +[A-Z]{1,3} .*", c) for c in classic)
    top.options.write_option("blk_classic", b"0")
    assert top.options.read_option("context-info") == b"1\n"

    # off again: nothing more
    assert store(m, ENABLE, b"0\n") == 2
    before = len(_trace_lines(core))
    assert run_program(m, ["diskwriter", "/mnt/c", "4096", "fsync"], timeout=60)[0] == 0
    assert len(_trace_lines(core)) == before


def test_act_mask_pid_and_lba_filter(traced, run_program):
    m, core = traced
    core.top.write_current_tracer(b"blk")
    assert store(m, ACT_MASK, b"complete\n") == 9
    assert store(m, PID, b"999999\n") == 7   # a pid nobody has: no actions but those of others
    assert run_program(m, ["diskwriter", "/mnt/d", "4096", "fsync"], timeout=60)[0] == 0
    assert _trace_lines(core) == []
    assert store(m, PID, b"0\n") == 2
    assert run_program(m, ["diskwriter", "/mnt/e", "4096", "fsync"], timeout=60)[0] == 0
    acts = [re.search(r"259,0 +(\S+) ", text)[1] for text in _trace_lines(core)]
    assert acts and set(acts) == {"C"}
    core.top.clear_trace()
    assert store(m, START_LBA, b"200000\n") == 7   # past the disk's data
    assert store(m, ACT_MASK, b"queue,complete\n") == 15
    assert run_program(m, ["diskwriter", "/mnt/f", "4096", "fsync"], timeout=60)[0] == 0
    lines = _trace_lines(core)
    # only the actions of sector 0 (act_log_check() lets those through): the plug, the flush
    assert lines and not any(" + 8 " in text for text in lines)
    assert any(re.search(r" P +N \[diskwriter\]$", text) for text in lines)


def test_the_sysfs_files_of_the_kernels_disks(traced):
    """machine/blktrace.py: the disks the kernel added (its disks[]) and their trace/ files, which
    a session shows at /sys/block/DEV/trace/: a write is the store's, errno included."""
    from tracefs_sim.machine.blktrace import blk_trace_dirs, kernel_disks

    m, _ = traced
    assert kernel_disks(m) == {"nvme0n1": NVME_DEV}
    files = blk_trace_dirs(m)["nvme0n1"]
    assert list(files) == ["enable", "act_mask", "pid", "start_lba", "end_lba"]
    assert files["act_mask"].read() == b"disabled\n"
    assert files["act_mask"].write_at(b"issue,complete\n") == 15
    assert files["enable"].read() == b"1\n" and files["act_mask"].read() == b"issue,complete\n"
    with pytest.raises(OSError) as caught:
        files["end_lba"].write_at(b"lots\n")
    assert caught.value.errno == errno.EINVAL
    assert files["act_mask"].write_at(b"read," * 1000) == 4095   # a page (less its NUL) a store


def test_options_stacktrace_puts_a_stack_after_each_blk_record(traced, run_program):
    """__blk_add_trace()'s trace_buffer_unlock_commit(): ftrace_trace_stack() after the record,
    from the caller of __blk_add_trace (the blk probe), with the record's context."""
    m, core = traced
    core.top.write_current_tracer(b"blk")
    core.top.options.write_option("stacktrace", b"1")
    assert store(m, ACT_MASK, b"issue\n") == 6
    assert run_program(m, ["diskwriter", "/mnt/g", "4096", "fsync"], timeout=60)[0] == 0
    lines = _trace_lines(core)
    issues = [i for i, text in enumerate(lines) if re.search(r" 259,0 +D ", text)]
    assert issues, "\n".join(lines)
    for i in issues:
        record, stack = lines[i], lines[i + 1:]
        assert stack[0].endswith(" <stack trace>"), "\n".join(lines)
        # the stack line's task and context are the record's (its trace_ctx); its time its own
        assert stack[0].split()[:3] == record.split()[:3]
        assert stack[1] == " => blk_add_trace_rq_issue", "\n".join(lines)
        frames = list(itertools.takewhile(lambda text: text.startswith(" => "), stack[1:]))
        assert " => blk_mq_start_request" in frames, "\n".join(lines)
    # userstacktrace: the writer's user stack after the kernel one (the queue's Q is the
    # program's, in its fsync); a kthread's or an interrupt's record has none to show
    core.top.options.write_option("userstacktrace", b"1")
    assert store(m, ACT_MASK, b"queue\n") == 6
    core.top.clear_trace()
    assert run_program(m, ["diskwriter", "/mnt/h", "4096", "fsync"], timeout=60)[0] == 0
    lines = _trace_lines(core)
    queue = next(i for i, text in enumerate(lines) if re.search(r"diskwriter-\d+ .* 259,0 +Q ", text))
    user = next(i for i in range(queue + 1, len(lines)) if "<user stack trace>" in lines[i])
    assert all(text.startswith(" => ") for text in lines[queue + 2:user]), "\n".join(lines)
    assert lines[user + 1].startswith(" => "), "\n".join(lines)
    core.top.options.write_option("stacktrace", b"0")
    core.top.options.write_option("userstacktrace", b"0")
    core.top.clear_trace()
    assert run_program(m, ["diskwriter", "/mnt/i", "4096", "fsync"], timeout=60)[0] == 0
    assert not any("stack trace>" in text for text in _trace_lines(core))
