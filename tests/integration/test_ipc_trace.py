"""A guest program's System V message queue calls in a session's trace, as Linux 6.1 shows them
(kernel_model/user/static/ipctest's msgblock case under real-tracefs): the syscalls:* events of
msgget, a kprobe on do_msgsnd with its arguments, a kretprobe on do_msgrcv with its results
(-ERESTARTNOHAND for the receive a signal interrupted, -EIDRM for the one IPC_RMID ended), and
the function tracer, where x86-64's entries jump to do_msgsnd and do_msgrcv (their caller is
do_syscall_64)."""
import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
SETUP = (f"echo 'p:ipc/msgsnd do_msgsnd msqid=%di:s32 mtype=%si:s64 msgsz=%cx:u64' >> {T}/kprobe_events; "
         f"echo 'r:ipc/msgrcv_ret do_msgrcv ret=$retval:s64' >> {T}/kprobe_events; "
         f"echo 1 > {T}/events/ipc/enable; "
         f"echo 1 > {T}/events/syscalls/sys_enter_msgget/enable; "
         f"echo 1 > {T}/events/syscalls/sys_exit_msgget/enable; "
         f"echo 'do_msgrcv do_msgsnd' > {T}/set_ftrace_filter; echo function > {T}/current_tracer")


def test_msg_calls_show_in_syscall_events_kprobes_and_the_function_tracer():
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"{SETUP}; tracefs-sim exec ipctest msgblock > /dev/null; "
                         f"echo 0 > {T}/tracing_on; grep -v '^#' {T}/trace", timeout=180)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if re.match(r"\s*ipctest-\d+ ", line)]
    text = [line.split(": ", 1)[1] for line in lines]
    assert [t for t in text if "sys_msgget" in t] == ["sys_msgget(key: 0, msgflg: 180)", "sys_msgget -> 0x0"]
    sends = [re.sub(r"\+0x0/0x[0-9a-f]+", "", t) for t in text if t.startswith("msgsnd: ")]
    assert sends == [f"msgsnd: (do_msgsnd) msqid=0 mtype={t} msgsz={n}"
                     for t, n in ((1, 12), (2, 13), (1, 8192), (1, 8192), (1, 1), (3, 2))], lines
    returns = [re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", t) for t in text if t.startswith("msgrcv_ret: ")]
    assert returns == [f"msgrcv_ret: (do_syscall_64 <- do_msgrcv) ret={r}"
                       for r in (13, 12, 8192, 2, -514, -43)], lines
    assert text.count("do_msgsnd <-do_syscall_64") == 6, lines
    assert text.count("do_msgrcv <-do_syscall_64") == 6, lines
