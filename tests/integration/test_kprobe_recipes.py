"""The kprobe recipes of mountpoint_scripts/ run as written in `tracefs-sim run` on the
emulated kernel's real probe engine, and kprobe_events fuzzed through a mount: the daemon
survives, a rejected command changes nothing, and every accepted probe can be removed."""

import errno
import os
import re
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from simtest import REPO, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SCRIPTS = REPO / "mountpoint_scripts"
# The context columns of a record line, then the event.
CONTEXT = r"^ {0,16}\S.{0,15}-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9a-f]{5} +\d+\.\d{6}: "


def _by_cat(line: str) -> bool:
    """A record of the cat the recipe ran: its comm, or <...> when it had exited before the
    daemon learnt its name (the guest saves comms at switches only while a tracepoint is on)."""
    return re.match(r"^ *(cat|<\.\.\.>)-\d+ ", line) is not None


def run_recipe(name: str) -> str:
    result = tracefs_sim("run", str(SCRIPTS / name), timeout=180)
    assert result.returncode == 0, result.stderr
    return result.stdout


def section(output: str, title: str) -> str:
    start = output.index(f"== {title}")
    start = output.index("\n", start) + 1
    end = output.find("\n== ", start - 1)
    return output[start:] if end < 0 else output[start:end + 1]


def test_kprobe_do_sys_open_recipe():
    out = run_recipe("kprobe_do_sys_open.sh")
    lines = [l for l in out.splitlines() if not l.startswith("#")]
    opened = [l for l in lines if re.match(CONTEXT + r"myprobe: \(do_sys_open\+0x0/0x[0-9a-f]+\) filename=", l)]
    assert any(l.endswith(' filename="/etc/passwd"') and _by_cat(l) for l in opened), out
    # The last command lists the new event's directory.
    assert lines[-6:] == ["enable", "filter", "format", "hist", "id", "trigger"], out


def test_kretprobe_vfs_read_recipe():
    out = run_recipe("kretprobe_vfs_read.sh")
    assert section(out, "kprobe_events reads back").splitlines() == ["r10:kprobes/myret vfs_read arg1=$retval"]
    fmt = section(out, "the event's format")
    assert "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n" in fmt
    assert "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n" in fmt
    assert 'print fmt: "(%lx <- %lx) arg1=0x%Lx", REC->__probe_func, REC->__probe_ret_ip, REC->arg1\n' in fmt
    returns = section(out, "vfs_read returning").splitlines()
    assert returns, out
    for line in returns:
        assert re.match(CONTEXT + r"myret: \(\w+\+0x[0-9a-f]+/0x[0-9a-f]+ <- vfs_read\) arg1=0x[0-9a-f]+$", line), line
    # cat reads the file's bytes, then 0 at its end.
    assert any(l.endswith(" arg1=0x0") and _by_cat(l) for l in returns), returns
    (profile,) = section(out, "kprobe_profile").splitlines()
    name, hits, misses = profile.split()
    assert profile.startswith(f"  {'myret':<44} ") and int(hits) >= len(returns) and misses == "0"
    assert section(out, "removed:") == ""


def test_kprobe_register_fetch_recipe():
    out = run_recipe("kprobe_register_fetch.sh")
    assert section(out, "kprobe_events").splitlines() == ["p:kprobes/myprobe do_sys_open arg1=%di"]
    hits = section(out, "do_sys_open's dfd").splitlines()
    assert hits and all(re.match(CONTEXT + r"myprobe: \(do_sys_open\+0x0/0x[0-9a-f]+\) arg1=0x[0-9a-f]+$", l)
                        for l in hits), hits
    assert any(l.endswith(" arg1=0xffffff9c") or l.endswith(" arg1=0xffffffffffffff9c") for l in hits), hits


def test_kprobe_mid_function_recipe():
    out = run_recipe("kprobe_mid_function.sh")
    offset = int(re.search(r"== a probe at vfs_read\+(\d+) ", out).group(1))
    assert offset > 0
    assert f"p:kprobes/midprobe vfs_read+{offset} count=%dx:u64\n" in out
    if "one byte further" in out:
        refusal = section(out, "one byte further").splitlines()
        assert refusal[0].endswith("trace_kprobe: error: Probe point is not an instruction boundary")
        assert refusal[1] == f"  Command: p:bad vfs_read+{offset + 1}"
    hits = section(out, "hits:").splitlines()
    assert hits, out
    assert all(re.match(CONTEXT + rf"midprobe: \(vfs_read\+0x{offset:x}/0x[0-9a-f]+\) count=\d+", l) for l in hits[:5])


# ---- fuzzing through the mount ----------------------------------------------------------------

_PIECES = st.sampled_from([
    "p", "r", "r3", "p:x", "r:y", "p:g/z", "-:x", "-:y", "-:g/z", "do_sys_open", "vfs_read", "vfs_read+5",
    "vfs_read+1", "schedule", "nosuch", "0x0", "%di", "%zz", "$arg2", "+0($arg2):ustring", "$retval",
    "$comm", "@jiffies", ":u32[3]", "x=%si:x16", "$stack1", "\\7", '\\"s"', "%return", ":string"])


def _write(path, text: str) -> int:
    try:
        with open(path, "a") as f:
            f.write(text)
        return 0
    except OSError as e:
        return e.errno


def _state(mnt):
    return ((mnt / "kprobe_events").read_text(), (mnt / "kprobe_profile").read_text(),
            sorted(os.listdir(mnt / "events")))


def test_fuzzed_kprobe_events_through_the_mount(mounted):
    mnt = mounted

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck),
              database=None)
    @given(st.lists(st.lists(_PIECES, min_size=1, max_size=5).map(" ".join), max_size=6),
           st.binary(max_size=40))
    def check(commands, noise):
        for text in commands:
            before = _state(mnt)
            if _write(mnt / "kprobe_events", text + "\n"):
                assert _state(mnt) == before, text
        _write(mnt / "dynamic_events", noise.decode("latin-1"))
        for line in (mnt / "kprobe_events").read_text().splitlines():
            head, rest = line.split(" ", 1)
            assert _write(mnt / "kprobe_events", f"-:{head.split(':', 1)[1]} {rest}\n") == 0, line
        assert (mnt / "kprobe_events").read_text() == ""
        assert "kprobes" not in os.listdir(mnt / "events")

    check()
    # The daemon still answers, and the kernel still runs.
    assert (mnt / "tracing_on").read_text() == "1\n"
    result = tracefs_sim("exec", "--mount", str(mnt), "cat", "/etc/passwd", timeout=60)
    assert result.returncode == 0 and "root:" in result.stdout, result.stderr
    assert _write(mnt / "kprobe_events", "-:nosuch\n") == errno.ENOENT


@pytest.mark.skipif(shutil.which("kprobe-perf") is None, reason="perf-tools-unstable is not installed")
def test_perf_tools_kprobe_unmodified(tmp_path):
    """Brendan Gregg's `kprobe` (/usr/sbin/kprobe-perf) writes kprobe_events, enables the event,
    reads the buffer and removes the probe again."""
    script = tmp_path / "kprobe.sh"
    script.write_text(
        "mount -t tmpfs perf-tools-lock /var/tmp\n"    # its lock file: this session's /var/tmp
        "(sleep 1; tracefs-sim exec cat /etc/passwd > /dev/null) &\n"
        "timeout 60 kprobe-perf -d 3 'r:vfs_read $retval'; echo \"== status $?\"\n"
        "wait\n"
        "echo '== after'; cat /sys/kernel/debug/tracing/kprobe_events; ls -A /var/tmp\n")
    result = tracefs_sim("run", str(script), timeout=180)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = [l for l in out.splitlines() if " vfs_read: (" in l]
    assert lines and all(re.match(CONTEXT + r"vfs_read: \(\w+\+0x[0-9a-f]+/0x[0-9a-f]+ <- vfs_read\) "
                                            r"arg1=0x[0-9a-f]+$", l) for l in lines), out
    assert "== status 0\n" in out
    assert section(out, "after") == ""      # probe removed, lock gone


def test_int3_kprobe_through_the_gate_as_on_6_1():
    """With optimisation off, a kprobe past vfs_read's entry is an int3 that the CPU takes
    through the kernel's #BP gate: the function tracer sees 6.1's handlers (as the reference
    6.1 VM's trace shows them: do_int3 inlined into exc_int3, the step's end inlined into
    kprobe_int3_handler), the record is written in its NMI context with 6.1's wrapped
    preemption count (..Zff), and the copied instruction's step ends at a second int3."""
    script = """cd /sys/kernel/tracing
echo 0 > /proc/sys/debug/kprobes-optimization
echo 'p:myp vfs_read+5' > kprobe_events
echo kprobe_int3_handler get_kprobe setup_singlestep kprobe_post_process > set_ftrace_filter
echo 1 > events/kprobes/myp/enable
echo function > current_tracer
cat /etc/hostname > /dev/null
echo 0 > tracing_on
grep -v '^#' trace
"""
    result = tracefs_sim("run", "-c", script, timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # the lines of one task: kprobe_int3_handler's first call is a hit
    first = next(i for i, l in enumerate(lines) if l.endswith(" kprobe_int3_handler <-exc_int3"))
    pid = lines[first].split("[")[0].strip()
    mine = [re.sub(r"^.*\] (\S+) +\d+\.\d+: ", r"\1 ", l) for l in lines[first:] if l.split("[")[0].strip() == pid]
    assert mine[:6] == ["d.Z.. kprobe_int3_handler <-exc_int3",
                        "d.Z.. get_kprobe <-kprobe_int3_handler",
                        "..Zff myp: (vfs_read+0x5/" + mine[2].split("/")[1],
                        "d.Z.. setup_singlestep <-kprobe_int3_handler",
                        "d.Z.. kprobe_int3_handler <-exc_int3",      # the int3 after the copy
                        "d.Z.. get_kprobe <-kprobe_int3_handler"], mine[:8]


@pytest.mark.skipif(not os.path.exists("/bin/busybox"), reason="needs Debian's busybox-static at /bin/busybox")
def test_kprobe_opensnoop_busybox_recipe():
    """opensnoop's kprobe on do_sys_openat2 while busybox's find runs in the emulated kernel:
    each directory it prints was opened by it, in its order, with 6.1's directory-open flags
    (O_RDONLY|O_NONBLOCK|O_LARGEFILE|O_DIRECTORY|O_CLOEXEC)."""
    out = run_recipe("kprobe_opensnoop_busybox.sh")
    found = section(out, "find printed:").splitlines()
    opens = section(out, "the opens of find (busybox):").splitlines()
    assert len(found) >= 2 and found[0] == "/etc/apt", out
    assert opens == [f'(do_sys_openat2+0x0/0x{opens[0].split("/0x")[1].split(")")[0]}) filename="{d}" flags=0x98800'
                     for d in found], out
