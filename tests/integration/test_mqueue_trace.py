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
