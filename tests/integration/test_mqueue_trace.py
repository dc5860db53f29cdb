"""A guest program's POSIX message queue calls in a session's trace, as Linux 6.1 shows them
(kernel_model/user/static/mqtest's block case under real-tracefs): the syscalls:* events of
mq_open and mq_unlink, a kprobe on do_mq_timedsend with its arguments, a kretprobe on
do_mq_timedreceive with its results (an int: -ERESTARTSYS for the receive a signal interrupted
and -ETIMEDOUT for the timed one read as unsigned 32-bit values in a s64)."""
import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
SETUP = (f"echo 'p:mq/send do_mq_timedsend mqdes=%di:s32 msg_len=%dx:u64 msg_prio=%cx:u32' >> {T}/kprobe_events; "
         f"echo 'r:mq/recv_ret do_mq_timedreceive ret=$retval:s64' >> {T}/kprobe_events; "
         f"echo 1 > {T}/events/mq/enable; "
         f"echo 1 > {T}/events/syscalls/sys_enter_mq_open/enable; "
         f"echo 1 > {T}/events/syscalls/sys_exit_mq_open/enable; "
         f"echo 1 > {T}/events/syscalls/sys_enter_mq_unlink/enable")


def test_mq_calls_show_in_syscall_events_and_kprobes():
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"{SETUP}; tracefs-sim exec mqtest block > /dev/null; "
                         f"echo 0 > {T}/tracing_on; grep -v '^#' {T}/trace", timeout=180)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if re.match(r"\s*mqtest-\d+ ", line)]
    text = [line.split(": ", 1)[1] for line in lines]
    opens = [t for t in text if "sys_mq_open" in t]
    assert len(opens) == 2 and re.fullmatch(r"sys_mq_open\(u_name: [0-9a-f]+, oflag: c2, mode: 180, "
                                            r"u_attr: [0-9a-f]+\)", opens[0]), lines
    assert opens[1] == "sys_mq_open -> 0x3"
    assert len([t for t in text if t.startswith("sys_mq_unlink(u_name: ")]) == 1, lines
    sends = [re.sub(r"\+0x0/0x[0-9a-f]+", "", t) for t in text if t.startswith("send: ")]
    assert sends == [f"send: (do_mq_timedsend) mqdes=3 msg_len={n} msg_prio={p}"
                     for n, p in ((5, 4), (5, 1), (6, 9))], lines
    returns = [re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", t) for t in text if t.startswith("recv_ret: ")]
    assert returns == [f"recv_ret: (__x64_sys_mq_timedreceive <- do_mq_timedreceive) ret={r}"
                       for r in (5, 5, 6, 2**32 - 512, 2**32 - 110)], lines


HOST_QUEUE = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
name = b"tracefs-sim-test-%d" % os.getpid()
fd = libc.syscall(240, name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600, None)
print("open", fd >= 0)
print("send", libc.syscall(242, fd, b"hi", 2, 3, None))
buf, prio = ctypes.create_string_buffer(8192), ctypes.c_uint()
print("receive", libc.syscall(243, fd, buf, 8192, ctypes.byref(prio), None), buf.raw[:2], prio.value)
until = (ctypes.c_long * 2)(int(time.time()) + 1, 0)
print("timed receive", libc.syscall(243, fd, buf, 8192, None, until), ctypes.get_errno() == 110)
print("unlink", libc.syscall(241, name))
"""


def test_a_sessions_queues_are_the_hosts(tmp_path):
    # the host serves them (its queue, its sleep until the timeout); the replay in the kernel
    # makes no queue and does not block; the calls show as the syscalls events
    script = tmp_path / "hostmq.py"
    script.write_text(HOST_QUEUE)
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo 1 > {T}/events/syscalls/sys_enter_mq_open/enable; "
                         f"echo 1 > {T}/events/syscalls/sys_enter_mq_timedreceive/enable; "
                         f"python3 {script}; grep -v '^#' {T}/trace", timeout=180)
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[:5] == ["open True", "send 0", "receive 2 b'hi' 3", "timed receive -1 True", "unlink 0"], out
    assert len([line for line in out if "sys_mq_open(u_name: " in line]) == 1, out
    assert len([line for line in out if "sys_mq_timedreceive(mqdes: " in line]) == 2, out
