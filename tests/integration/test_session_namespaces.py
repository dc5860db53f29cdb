"""Namespaces as Debian 6.1 lays them out: every task's nsproxy is init_nsproxy, each namespace
holds its ns_common with 6.1's number, /proc/PID/ns/ names them as a real 6.1 does, and the
libbpf-tools whose CO-RE relocations reach through them (mountsnoop: task->nsproxy->mnt_ns->
ns.inum; tcptracer: sock_common.skc_net; bindsnoop, beside them: inet_sock.freebind) load and
print."""

import re
from pathlib import Path

from simtest import SESSION_TIMEOUT, tracefs_sim
from test_session_libbpf_tools import pytestmark, run_tool_in_session  # noqa: F401  (pytestmark: the same conditions)

# readlink of each /proc/self/ns/ link on the real 6.1 (tools/real-tracefs), in `ls` order
REAL_61_NS = {
    "cgroup": "cgroup:[4026531835]",
    "ipc": "ipc:[4026531839]",
    "mnt": "mnt:[4026531841]",
    "net": "net:[4026531840]",
    "pid": "pid:[4026531836]",
    "pid_for_children": "pid:[4026531836]",
    "time": "time:[4026531834]",
    "time_for_children": "time:[4026531834]",
    "user": "user:[4026531837]",
    "uts": "uts:[4026531838]",
}


def guest(script: str) -> str:
    """a busybox shell in the emulated kernel (its /proc is the model's) running SCRIPT"""
    return "tracefs-sim exec /bin/busybox sh -c '" + script + "'"


def run_tool_once(tmp_path: Path, tool: str, workload: str, expect: str, count: int = 1) -> tuple[str, str]:
    """TOOL in a session until it prints, WORKLOAD once, then (once COUNT lines of the tool's
    output match the regex EXPECT, or 30 s on) Ctrl-C: the tool's output and the session's."""
    out = tmp_path / "tool.out"
    return run_tool_in_session(
        tmp_path, tool,
        f"{workload}; for i in $(seq 300); do [ $(grep -Ec '{expect}' {out}) -ge {count} ] && break; sleep 0.1; done")


def test_proc_ns_links_name_the_initial_namespaces_as_61_does():
    """/proc/self/ns/: the ten links, 0777, each readlink as the real 6.1's; a thread's
    (task/TID/ns/) the same; the directory dr-x--x--x; following a link is ENOENT (no nsfs)"""
    result = tracefs_sim("run", "--workload", "none", "-c", guest(
        "ls -l /proc/self/ns/; ls -ld /proc/self/ns; cd /proc/self/ns; "
        "for f in *; do echo \"ns $f $(readlink $f)\"; done; "
        "for f in *; do echo \"tid $f $(readlink /proc/$$/task/$$/ns/$f)\"; done; "
        "cat /proc/self/ns/mnt; echo cat $?"), timeout=SESSION_TIMEOUT)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert dict(re.findall(r"^ns (\S+) (\S+)$", out, re.M)) == REAL_61_NS, out
    assert dict(re.findall(r"^tid (\S+) (\S+)$", out, re.M)) == REAL_61_NS, out
    links = re.findall(r"^(lrwxrwxrwx) .* (\S+) -> (\S+)$", out, re.M)
    assert [(name, target) for _, name, target in links] == list(REAL_61_NS.items()), out
    assert re.search(r"^dr-x--x--x .* /proc/self/ns$", out, re.M), out
    assert "cat 1" in out and "No such file or directory" in out + result.stderr, out


def test_mountsnoop_shows_the_callers_mount_namespace(tmp_path):
    """mountsnoop (task->nsproxy->mnt_ns->ns.inum by CO-RE): a guest's mount(2) in the mount
    namespace /proc/self/ns/mnt names, and its result (the tmpfs mounted over the guests' /tmp)"""
    text, session = run_tool_once(
        tmp_path, "mountsnoop",
        guest("readlink /proc/self/ns/mnt; mount -t tmpfs nsmark /tmp"), r"nsmark")
    ns = re.search(r"^mnt:\[(\d+)\]$", session, re.M)
    assert ns and ns.group(1) == "4026531841", session
    assert text.splitlines()[0].split() == ["COMM", "PID", "TID", "MNT_NS", "CALL"], text
    rows = [line.split(None, 4) for line in text.splitlines()[1:]]
    assert any(row[0] == "mount" and row[3] == ns.group(1) and row[4].startswith('mount("nsmark", "/tmp", "tmpfs"')
               and row[4].endswith(" = 0") for row in rows if len(row) == 5), text


def test_tcptracer_sees_a_loopback_connection(tmp_path):
    """tcptracer (sock_common.skc_net -> init_net by CO-RE): nettest life's connect (C), accept
    (A) and both closes (X) over 127.0.0.1, the ports matching"""
    text, _ = run_tool_once(tmp_path, "tcptracer", "tracefs-sim exec nettest life >/dev/null",
                            r"^X ", count=2)
    rows = re.findall(r"^([CAX])\s+\d+\s+nettest\s+4\s+127\.0\.0\.1\s+127\.0\.0\.1\s+(\d+)\s+(\d+)\s*$",
                      text, re.M)
    connects = [(sp, dp) for t, sp, dp in rows if t == "C"]
    assert connects, text
    sport, dport = connects[0]
    assert ("A", dport, sport) in rows and ("X", sport, dport) in rows and ("X", dport, sport) in rows, text


def test_bindsnoop_shows_a_bind_and_its_socket_options(tmp_path):
    """bindsnoop (inet_sock's option bits by CO-RE: freebind, transparent, bind_address_no_port;
    sock_common's skc_reuse, skc_reuseport): nettest life's listener bound to 127.0.0.1, no
    option set (OPTS ".....")"""
    text, _ = run_tool_once(tmp_path, "bindsnoop", "tracefs-sim exec nettest life >/dev/null", r"nettest")
    assert text.splitlines()[0].split() == ["PID", "COMM", "RET", "PROTO", "OPTS", "IF", "PORT", "ADDR"], text
    rows = [line.split() for line in text.splitlines()[1:]]
    assert any(row[1:6] == ["nettest", "0", "TCP", ".....", "0"] and row[7] == "127.0.0.1"
               for row in rows if len(row) == 8), text
