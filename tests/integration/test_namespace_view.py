"""The generated files laid over /proc and /sys inside a session."""

from tracefs_sim.namespace import cpu_list, mounts_view

# A session's mounts (/proc/PID/mounts) and, line for line, the device and root of each
# (from /proc/PID/mountinfo). 0:50 is the simulator's FUSE mount; 0:60 another simulator's.
HOST = [
    ("sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0", "0:22", "/"),
    ("proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0", "0:21", "/"),
    ("debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0", "0:7", "/"),
    ("tracefs /sys/kernel/debug/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0", "0:12", "/"),
    ("tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0", "0:12", "/"),
    ("tracefs /tmp/other fuse.tracefs rw,nosuid,nodev,relatime,user_id=0,group_id=0,allow_other 0 0",
     "0:60", "/"),
    ("tracefs /sys/kernel/tracing fuse.tracefs rw,nosuid,nodev,relatime,user_id=0,group_id=0,allow_other 0 0",
     "0:50", "/"),
    ("tracefs-sim /sys/kernel/debug tmpfs rw,nosuid,nodev,noexec,relatime,mode=700 0 0", "0:70", "/"),
    ("tracefs /sys/kernel/debug/tracing fuse.tracefs rw,nosuid,nodev,relatime,user_id=0,group_id=0 0 0",
     "0:50", "/"),
    ("tracefs /sys/kernel/debug/kprobes fuse.tracefs rw,nosuid,nodev,relatime,user_id=0,group_id=0 0 0",
     "0:50", "/.tracefs-sim-debug/kprobes"),
    ("tracefs-sim /proc/kallsyms tmpfs ro,nosuid,nodev,noexec,relatime 0 0", "0:80", "/1"),
    ("tracefs /mnt/t fuse.tracefs rw,nosuid,nodev,relatime,user_id=0,group_id=0 0 0", "0:50", "/"),
    ("tracefs-sim /mnt/d tmpfs rw,nosuid,nodev,noexec,relatime,mode=700 0 0", "0:70", "/"),
]


def view(entries) -> str:
    mounts = "".join(line + "\n" for line, _, _ in entries)
    mountinfo = "".join(f"{i} 1 {device} {root} {line.split()[1]} rw - {line.split()[2]} x rw\n"
                        for i, (line, device, root) in enumerate(entries))
    return mounts_view(mounts, mountinfo, "0:50")


def test_mounts_view_shows_only_the_simulator_as_tracefs():
    assert view(HOST) == """\
sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0
debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0
tracefs /sys/kernel/debug/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0
tracefs /mnt/t tracefs rw,nosuid,nodev,noexec,relatime 0 0
debugfs /mnt/d debugfs rw,nosuid,nodev,noexec,relatime 0 0
"""


def test_mounts_view_keeps_unrelated_nested_mounts():
    entries = [("a / ext4 rw 0 0", "8:1", "/"), ("b /sys/kernel/debugfoo tmpfs rw 0 0", "0:5", "/"),
               ("c /sys/kernel/debug tmpfs rw 0 0", "0:6", "/")]
    assert view(entries) == "a / ext4 rw 0 0\nb /sys/kernel/debugfoo tmpfs rw 0 0\nc /sys/kernel/debug tmpfs rw 0 0\n"


def test_cpu_list_format():
    assert [cpu_list(n) for n in (1, 2, 8)] == ["0\n", "0-1\n", "0-7\n"]


# ---- the emulated kernel's debugfs kprobes/ and /proc/sys/debug, live in a session -------------

import errno  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from simtest import section, tracefs_sim  # noqa: E402

needs_session = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                   reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
LIST = "/sys/kernel/debug/kprobes/list"
OPT = "/proc/sys/debug/kprobes-optimization"
# do_sys_openat2+0x6 is a point the engine optimizes (tests/probes/test_kprobe_engine.py).
SCRIPT = f"""
echo '== modes'; stat -c '%A %U %n' /sys/kernel/debug/kprobes /sys/kernel/debug/kprobes/* /proc/sys/debug \
    /proc/sys/debug/*
echo '== root'; ls -A {T} | grep -c tracefs-sim
echo 'p:mid do_sys_openat2+6' >> {T}/kprobe_events
echo 'p:entry vfs_read' >> {T}/kprobe_events
echo 'r:ret vfs_read' >> {T}/kprobe_events
echo '== disabled'; cat {LIST}
echo 1 > {T}/events/kprobes/enable
echo '== enabled'; cat {OPT} {LIST}; tracefs-sim disasm do_sys_openat2 | sed -n 4p
echo 0 > {OPT}
echo '== unoptimized'; cat {OPT} {LIST}; tracefs-sim disasm do_sys_openat2 | sed -n 4p
tracefs-sim exec cat /etc/hostname
for bad in 2 -1 +1 abc 1x 010 ''; do echo "$bad" > {OPT} 2>/dev/null || echo "refused $bad"; done
echo '== after bad'; cat {OPT}
echo '1 2' > {OPT}; echo "== two numbers $?"; cat {OPT}
echo '== optimized again'; cat {LIST}; tracefs-sim exec cat /etc/hostname
echo '== profile'; cat {T}/kprobe_profile
echo 0 > {T}/events/kprobes/enable; echo > {T}/kprobe_events
echo '== empty'; cat {LIST}
echo '== write list'; {{ echo x > {LIST}; echo x > /sys/kernel/debug/kprobes/blacklist; }} 2>&1
echo '== blacklist'; cat /sys/kernel/debug/kprobes/blacklist
echo '== probe blacklisted'; {{ echo 'p exc_page_fault' >> {T}/kprobe_events; }} 2>&1; true
"""


def test_sysctl_int_parsing_follows_proc_dointvec_minmax():
    from tracefs_sim.lib.sysctl import parse_sysctl_int

    taken = {b"1": (1, 1), b"0\n": (0, 2), b"  1\n": (1, 4), b"\t1\t": (1, 3), b"0x1": (1, 3), b"-0": (0, 2),
             b"1 2\n": (1, 2), b"00000000000000000001": (1, 20), b"1\n\n\nx": (1, 4)}
    for data, expected in taken.items():
        assert parse_sysctl_int(data, 0, 1) == expected, data
    for data in (b"", b" \n", b"2", b"-1", b"+1", b"010", b"08", b"0x", b"1x", b"1\0", b"-", b"x1",
                 b"1" * 21, b"99999999999999999999", b"2147483648"):
        with pytest.raises(OSError) as e:
            parse_sysctl_int(data, 0, 1)
        assert e.value.errno == errno.EINVAL, data
    assert parse_sysctl_int(b"-2147483648", -2**31, 0) == (-2**31, 11)


def _listing(lines: list[str]) -> dict[str, str]:
    """symbol+offset (with k/r) -> the flags after it, of each `kprobes/list` line."""
    found = {}
    for line in lines:
        m = re.fullmatch(r"ffffffff[0-9a-f]{8}  ([kr])  (\S+)    (.*)", line)
        assert m, line
        found[f"{m.group(1)} {m.group(2)}"] = m.group(3)
    return found


@needs_session
def test_kprobe_debug_views_follow_the_engine():
    result = tracefs_sim("run", "-c", SCRIPT, timeout=150)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert section(out, "modes") == [
        "drwxr-xr-x root /sys/kernel/debug/kprobes", "-r-------- root /sys/kernel/debug/kprobes/blacklist",
        "-rw------- root /sys/kernel/debug/kprobes/enabled",
        "-r-------- root /sys/kernel/debug/kprobes/list", "dr-xr-xr-x root /proc/sys/debug",
        "-rw-r--r-- root /proc/sys/debug/kprobes-optimization"]
    assert section(out, "root") == ["0"]        # the daemon's side door is not listed
    assert _listing(section(out, "disabled")) == {
        "k do_sys_openat2+0x6": "[DISABLED]", "k vfs_read+0x0": "[DISABLED][FTRACE]",
        "r vfs_read+0x0": "[DISABLED][FTRACE]"}
    enabled = section(out, "enabled")
    assert enabled[0] == "1"
    assert _listing(enabled[1:4]) == {"k do_sys_openat2+0x6": "[OPTIMIZED]", "k vfs_read+0x0": "[FTRACE]",
                                      "r vfs_read+0x0": "[FTRACE]"}
    assert re.search(r"\sjmp\s", enabled[4]), enabled[4]       # the probed instruction became a jmp
    unoptimized = section(out, "unoptimized")
    assert unoptimized[0] == "0"
    assert _listing(unoptimized[1:4])["k do_sys_openat2+0x6"] == ""
    assert re.search(r"\sint3", unoptimized[4]), unoptimized[4]
    hostname = Path("/etc/hostname").read_text().strip()   # (a program reads the host's files)
    assert unoptimized[5] == hostname      # the program runs through the int3 probe
    assert unoptimized[6:] == [f"refused {bad}" for bad in ("2", "-1", "+1", "abc", "1x", "010", "")]
    assert section(out, "after bad") == ["0"]
    assert section(out, "two numbers 0") == ["1"]
    again = section(out, "optimized again")
    assert _listing(again[:3])["k do_sys_openat2+0x6"] == "[OPTIMIZED]" and again[3] == hostname
    profile = {line.split()[0]: (int(line.split()[1]), int(line.split()[2])) for line in section(out, "profile")}
    assert profile["mid"][0] >= 2 and profile["entry"][0] >= 2 and profile["ret"][0] >= 2, profile
    assert section(out, "empty") == []
    assert [l.split(": ")[-1] for l in section(out, "write list")] == ["Invalid argument"] * 2
    blacklist = section(out, "blacklist")
    assert blacklist and all(re.fullmatch(r"0x(ffffffff[0-9a-f]{8})-0x(ffffffff[0-9a-f]{8})\t\w+", l)
                             for l in blacklist), blacklist
    assert any(l.endswith("\texc_page_fault") for l in blacklist)
    assert section(out, "probe blacklisted")[0].endswith("Invalid argument")


def test_the_hosts_tracing_mounts_are_found_outermost_first():
    from tracefs_sim.namespace import host_tracing_mounts
    mountinfo = "".join(f"{i} 1 0:{i} / {where} rw - {fstype} {fstype} rw\n" for i, (where, fstype) in enumerate([
        ("/", "ext4"), ("/sys", "sysfs"), ("/sys/kernel/debug", "debugfs"), ("/sys/kernel/debug/tracing", "tracefs"),
        ("/sys/kernel/tracing", "tracefs"), ("/sys/fs/bpf", "bpf"), ("/sys/kernel/debugger", "tmpfs"),
        (r"/mnt/my\040trace", "tracefs"), ("/sys/fs/cgroup", "cgroup2")]))
    assert host_tracing_mounts(mountinfo) == ["/sys/kernel/debug", "/sys/kernel/tracing", "/sys/fs/bpf", "/mnt/my trace"]
