"""Every x86-64 syscall's syscalls:* events in the mounted tree, driven with echo/cat: formats
byte for byte with Linux 6.1's, the subsystem switch, set_event globs, filters on arguments, and
syscalls the kernel lacks failing with ENOSYS while raw_syscalls records them."""

import os
import re
from pathlib import Path

import pytest
from simtest import sh, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse and root")

FORMATS = Path(__file__).resolve().parents[1] / "data" / "linux-6.1-syscalls-formats.txt"
TCGETS = 0x5401


@pytest.fixture
def mnt(mount_at):
    return mount_at("--workload", "none")


def run(mnt: Path, *argv: str) -> str:
    result = tracefs_sim("exec", "--mount", str(mnt), *argv, timeout=60)
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


def trace_lines(mnt: Path) -> list[str]:
    return [line for line in sh(mnt, "cat trace").stdout.splitlines() if not line.startswith("#")]


def sections(text: str) -> dict[str, str]:
    """`=== NAME` headed sections."""
    return {block.split("\n", 1)[0]: block.split("\n", 1)[1] for block in re.split(r"^=== ", text, flags=re.M)[1:]}


def test_every_format_is_linuxs(mnt):
    out = sh(mnt, 'for d in events/syscalls/*/; do n=${d%/}; echo "=== syscalls/${n##*/}"; '
                  'cat $d/format; done', timeout=60).stdout
    ids = sh(mnt, "grep -H . events/syscalls/*/id").stdout
    ids = dict(re.findall(r"^events/syscalls/(\w+)/id:(\d+)$", ids, flags=re.M))
    formats, expected = sections(out), sections(FORMATS.read_text())
    assert len(ids) == 690 and set(formats) == set(expected)
    for name, text in expected.items():
        event = name.removeprefix("syscalls/")
        assert formats[name] == re.sub(r"^ID: \d+$", f"ID: {ids[event]}", text, count=1, flags=re.M), name


def test_the_subsystem_switch_and_set_event_cover_all(mnt):
    assert sh(mnt, "ls events/syscalls | wc -l; cat events/syscalls/enable").stdout == "692\n0\n"
    assert sh(mnt, "echo 1 > events/syscalls/enable; cat events/syscalls/enable; "
                   "wc -l < set_event").stdout == "1\n690\n"
    assert run(mnt, "syscall", "16", "3", str(TCGETS), "0") == "-9 (Bad file descriptor)\n"   # no fd 3: ioctl is modelled
    calls = [line.split(": ", 1)[1] for line in trace_lines(mnt) if "sys_ioctl" in line]
    assert calls == ["sys_ioctl(fd: 3, cmd: 5401, arg: 0)", "sys_ioctl -> 0xfffffffffffffff7"]
    assert sh(mnt, "echo '!syscalls:sys_enter_ioctl' >> set_event; wc -l < set_event; "
                   "cat events/syscalls/enable").stdout == "689\nX\n"
    assert sh(mnt, "echo 0 > events/syscalls/enable; wc -l < set_event").stdout == "0\n"
    assert sh(mnt, "echo 'syscalls:*' > set_event; wc -l < set_event; "
                   "echo > set_event; wc -l < set_event").stdout == "690\n0\n"


def test_filters_on_arguments(mnt):
    assert sh(mnt, "echo 'fd == 3 && cmd == 0x5401' > events/syscalls/sys_enter_ioctl/filter && "
                   "echo 1 > events/syscalls/sys_enter_ioctl/enable && "
                   "cat events/syscalls/sys_enter_ioctl/filter").stdout == "fd == 3 && cmd == 0x5401\n"
    for fd, cmd in ((4, TCGETS), (3, 0), (3, TCGETS)):
        run(mnt, "syscall", "16", str(fd), str(cmd), "0")
    calls = [line.split(": ", 1)[1] for line in trace_lines(mnt)]
    assert calls == ["sys_ioctl(fd: 3, cmd: 5401, arg: 0)"]


@pytest.mark.skipif(not os.path.exists("/bin/busybox"), reason="needs Debian's busybox-static")
def test_a_forked_child_returns_0_from_its_clone(mnt):
    """6.1's ret_from_fork goes back to user mode through syscall_exit_to_user_mode, whose
    syscall work records the child's return from the call that made it (`sys_exit: NR 56 = 0`:
    busybox forks with clone) before its own calls."""
    assert sh(mnt, "echo 1 > events/raw_syscalls/sys_exit/enable; "
                   "echo 1 > events/sched/sched_process_fork/enable").returncode == 0
    run(mnt, "/bin/busybox", "sh", "-c", "true & wait")
    lines = trace_lines(mnt)
    child = next(m[1] for line in lines if (m := re.search(r"sched_process_fork: comm=busybox .* child_pid=(\d+)", line)))
    exits = [line.split(": ", 1)[1] for line in lines if re.match(rf"^\s*\S+-{child} ", line) and "sys_exit:" in line]
    assert exits[:1] == ["sys_exit: NR 56 = 0"], lines


def test_unknown_numbers_fail_with_enosys_and_raw_syscalls_see_them(mnt):
    assert sh(mnt, "echo 1 > events/raw_syscalls/enable").returncode == 0
    assert run(mnt, "syscall", "999", "7") == "-38 (Function not implemented)\n"
    assert run(mnt, "syscall", "400") == "-38 (Function not implemented)\n"    # a hole in the table
    events = [line.split(": ", 1)[1] for line in trace_lines(mnt) if re.search(r"NR (999|400) ", line)]
    assert events == ["sys_enter: NR 999 (7, 0, 0, 0, 0, 0)", "sys_exit: NR 999 = -38",
                      "sys_enter: NR 400 (0, 0, 0, 0, 0, 0)", "sys_exit: NR 400 = -38"]
