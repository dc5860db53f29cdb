"""Debian's `perf probe` (linux-perf 6.1, unmodified) inside `tracefs-sim run`: it finds the running
kernel's vmlinux where a distribution kernel's debug package puts it
(/usr/lib/debug/boot/vmlinux-RELEASE, its build-id the one /sys/kernel/notes shows), resolves
probe points, source lines and variables from its DWARF, skips what debugfs's kprobes/blacklist
lists, and writes kprobe_events as `_text+OFFSET` (the namespace's /proc/kallsyms, the emulated
kernel's); the probes it adds hit when a program runs. Never run outside the namespace: the host
has a real tracefs perf would write."""

import os
import re
import shutil
import subprocess

import pytest
from kernel_paths import kernel_visible
from simtest import REPO, section, tracefs_sim

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and mount namespaces"),
    pytest.mark.skipif(shutil.which("perf") is None, reason="linux-perf is not installed"),
]

T = "/sys/kernel/tracing"
# perf keeps a build-id cache under $HOME: each session gets a private one (a tmpfs over
# /var/tmp, seen in its mount namespace only).
PRIVATE_HOME = "mount -t tmpfs perf-home /var/tmp; export HOME=/var/tmp; cd $HOME;"
# A record of any task: the emulated cat, and the session's shell (it opens the files of its
# redirections, one in the child that execs `tracefs-sim exec`, whose own calls are not the
# kernel's to see).
RECORD = r"^ +(\S.*)-(\d+) +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: "


def run(script: str) -> str:
    result = tracefs_sim("run", "--workload", "none", "-c", PRIVATE_HOME + script, timeout=150)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def kallsyms_offset(out: str, name: str) -> int:
    """The symbol's offset from _text in the session's /proc/kallsyms (printed in `== syms`)."""
    syms = {line.split()[2]: int(line.split()[0], 16) for line in section(out, "syms")}
    return syms[name] - syms["_text"]


def test_perf_probe_adds_lists_hits_and_deletes():
    out = run(f"""
echo '== syms'; grep -wE '_text|do_sys_open|vfs_read|do_sys_openat2' /proc/kallsyms
echo '== add'; for p in do_sys_open vfs_read 'vfs_read%return' zz_openat2=do_sys_openat2+6; do
    timeout 30 perf probe -q -a "$p"; echo "status $?"; done
echo '== list'; timeout 30 perf probe -l 'probe:do_sys_open|probe:vfs_read*'
echo '== list mid'; timeout 30 perf probe -l probe:zz_openat2
echo '== kprobe_events'; cat {T}/kprobe_events
echo '== debug list'; cat /sys/kernel/debug/kprobes/list
echo 1 > {T}/events/probe/enable
tracefs-sim exec cat /etc/passwd > /dev/null
echo 0 > {T}/events/probe/enable
echo '== trace'; grep -v '^#' {T}/trace
echo '== profile'; cat {T}/kprobe_profile
echo '== delete'; timeout 30 perf probe -d 'probe:*' 2>&1; echo "status $?"
echo '== after'; cat {T}/kprobe_events; ls {T}/events | grep -cx probe; timeout 30 perf probe -l
""")
    assert section(out, "add") == ["status 0"] * 4
    # With the DWARF, each as function@file. (The offset probe is listed apart: perf 6.1 carries
    # the offset of one it lists over to the function entries it lists after it, as
    # debuginfo__find_probe_point() sets none for those.)
    assert section(out, "list") == [
        "  probe:do_sys_open    (on do_sys_open@fs/open.c)", "  probe:vfs_read       (on vfs_read@fs/read_write.c)",
        "  probe:vfs_read__return (on vfs_read%return@fs/read_write.c)"]
    assert section(out, "list mid") == ["  probe:zz_openat2     (on do_sys_openat2+6@fs/open.c)"]
    # What perf wrote, as kprobe_events reads it back (kretprobes get Linux's default maxactive)
    assert section(out, "kprobe_events") == [
        f"p:probe/do_sys_open _text+{kallsyms_offset(out, 'do_sys_open')}",
        f"p:probe/vfs_read _text+{kallsyms_offset(out, 'vfs_read')}",
        # (the README says kretprobes take an offset, as 6.1's does: perf then writes _text+OFF)
        f"r10:probe/vfs_read__return _text+{kallsyms_offset(out, 'vfs_read')}",
        f"p:probe/zz_openat2 _text+{kallsyms_offset(out, 'do_sys_openat2') + 6}"]
    listed = {re.sub(r"^\S+  ", "", line) for line in section(out, "debug list")}
    assert listed == {"k  do_sys_open+0x0    [DISABLED][FTRACE]", "k  vfs_read+0x0    [DISABLED][FTRACE]",
                      "r  vfs_read+0x0    [DISABLED][FTRACE]", "k  do_sys_openat2+0x6    [DISABLED]"}
    trace = section(out, "trace")
    opens = [l for l in trace if re.match(RECORD + r"do_sys_open: \(do_sys_open\+0x0/0x[0-9a-f]+\)$", l)]
    mids = [l for l in trace if re.match(RECORD + r"zz_openat2: \(do_sys_openat2\+0x6/0x[0-9a-f]+\)$", l)]
    reads = [l for l in trace if re.match(RECORD + r"vfs_read: \(vfs_read\+0x0/0x[0-9a-f]+\)$", l)]
    returns = [l for l in trace if re.match(RECORD + r"vfs_read__return: \(\w+\+0x[0-9a-f]+/0x[0-9a-f]+ <- "
                                                     r"vfs_read\)$", l)]
    assert opens and len(mids) == len(opens) and reads and len(returns) == len(reads), trace
    assert len(opens + mids + reads + returns) == len(trace), trace    # nothing but the probes' hits
    assert any(line.lstrip().startswith("cat-") for line in opens + reads), trace
    profile = {line.split()[0]: int(line.split()[1]) for line in section(out, "profile")}
    assert profile == {"do_sys_open": len(opens), "vfs_read": len(reads), "vfs_read__return": len(returns),
                       "zz_openat2": len(mids)}
    assert section(out, "delete")[-1] == "status 0"
    assert sorted(section(out, "delete")[:-1]) == [
        f"Removed event: probe:{name}" for name in ("do_sys_open", "vfs_read", "vfs_read__return",
                                                    "zz_openat2")]
    assert section(out, "after") == ["0"]


def test_perf_probe_register_and_memory_args_without_debuginfo():
    out = run(f"""
timeout 30 perf probe -q -a 'do_sys_open dfd=%di flags=%dx:x32 name=+0(%si):ustring'; echo "== status $?"
echo '== kprobe_events'; cat {T}/kprobe_events
echo 1 > {T}/events/probe/do_sys_open/enable
tracefs-sim exec cat /etc/passwd > /dev/null
echo '== busy'; timeout 30 perf probe -d probe:do_sys_open 2>&1; echo "status $?"; cat {T}/kprobe_events
echo 0 > {T}/events/probe/do_sys_open/enable
echo '== trace'; grep -v '^#' {T}/trace
timeout 30 perf probe -q -d probe:do_sys_open; echo "== deleted $?"; cat {T}/kprobe_events
""")
    assert section(out, "kprobe_events")[0].endswith(" dfd=%di flags=%dx:x32 name=+0(%si):ustring")
    # Linux refuses to remove an enabled event: perf says so, and the probe stays
    busy = section(out, "busy")
    # (perf exits with -EBUSY)
    assert busy[1:] == ["Failed to delete event: Device or resource busy", "  Error: Failed to delete events.",
                        "status 240", section(out, "kprobe_events")[0]], busy
    trace = section(out, "trace")
    assert any(re.match(RECORD + r'do_sys_open: \(do_sys_open\+0x0/0x[0-9a-f]+\) dfd=0xffffff9c flags=0x[0-9a-f]+ '
                                 r'name="/etc/passwd"$', l) for l in trace), trace
    assert section(out, "deleted 0") == []


def test_perf_probe_refuses_unknown_and_blacklisted_functions():
    out = run(f"""
echo '== nosuch'; timeout 30 perf probe -a no_such_function 2>&1; echo "status $?"
echo '== blacklisted'; timeout 30 perf probe -a exc_page_fault 2>&1; echo "status $?"
echo '== kprobe_events'; cat {T}/kprobe_events
""")
    # (as perf says it with a kernel's debuginfo: the DWARF has no such function)
    assert section(out, "nosuch") == ["Probe point 'no_such_function' not found.",
                                      "  Error: Failed to add events.", "status 254"]
    # perf reads debugfs's kprobes/blacklist (the emulated kernel's) and skips the function
    assert section(out, "blacklisted") == ["exc_page_fault is blacklisted function, skip it.",
                                           "Probe point 'exc_page_fault' not found.",
                                           "  Error: Failed to add events.", "status 254"]
    assert section(out, "kprobe_events") == []


def test_perf_probe_x_writes_uprobe_events_that_hit():
    """`perf probe -x BINARY` on a static program: the file offsets it computes go to
    uprobe_events as on Linux (a %return one as r:), the events hit when the emulated kernel
    runs the program, and `perf probe -d` removes them."""
    prog = kernel_visible(REPO / "kernel_model" / "build" / "user" / "progtest.elf")
    out = run(f"perf probe -x {prog} -a __libc_write > /dev/null 2>&1; perf probe -x {prog} -a '__uname%return'"
              f" > /dev/null 2>&1; echo '== events'; cat {T}/uprobe_events;"
              f"echo 1 > {T}/events/probe_progtest/enable; tracefs-sim exec {prog} uname > /dev/null;"
              f"echo 0 > {T}/events/probe_progtest/enable; echo '== trace'; grep -v '^#' {T}/trace;"
              f"perf probe -d 'probe_progtest:*' > /dev/null 2>&1; echo '== after'; cat {T}/uprobe_events")
    events = [re.sub(r":0x[0-9a-f]{16}$", ":OFFS", l) for l in section(out, "events")]
    assert events == [f"p:probe_progtest/__libc_write {prog}:OFFS",
                      f"r:probe_progtest/__uname__return {prog}:OFFS"], out
    trace = section(out, "trace")
    record = RECORD.replace("0-9]", "0-9a-f]")  # a uprobe record's context: DNZff (6.1's borrow)
    assert any(re.match(record + r"__libc_write: \(0x[0-9a-f]+\)$", l) for l in trace), out
    assert any(re.match(record + r"__uname__return: \(0x[0-9a-f]+ <- 0x[0-9a-f]+\)$", l) for l in trace), out
    assert section(out, "after") == []


def test_perf_probe_with_debuginfo_fetches_variables_that_hit():
    """C variables by name, as on a distribution kernel with its debug package: perf turns them
    into the fetch args the DWARF locates (a register, a string at a register, a struct member
    at an offset from one, $retval), the emulated kernel's kprobes fetch them at each hit."""
    out = run(f"""
echo '== syms'; grep -wE '_text|do_sys_open|vfs_read|try_to_wake_up' /proc/kallsyms
echo '== add'; timeout 30 perf probe 'do_sys_open filename:string' 2>&1; echo "status $?"
for p in 'vfs_read count' 'vfs_read%return $retval' 'try_to_wake_up p->comm:string p->pid'; do
    timeout 30 perf probe -q "$p"; echo "status $?"; done
echo '== kprobe_events'; cat {T}/kprobe_events
echo '== list'; timeout 30 perf probe -l
echo 1 > {T}/events/probe/enable
tracefs-sim exec cat /etc/hostname > /dev/null
echo 0 > {T}/events/probe/enable
echo '== trace'; grep -v '^#' {T}/trace
echo '== delete'; timeout 30 perf probe -q -d 'probe:*'; echo "status $?"; cat {T}/kprobe_events
""")
    assert section(out, "add") == [
        "Added new event:", "  probe:do_sys_open    (on do_sys_open with filename:string)", "",
        "You can now use it in all perf tools, such as:", "", "\tperf record -e probe:do_sys_open -aR sleep 1", "",
        "status 0", "status 0", "status 0", "status 0"]
    events = section(out, "kprobe_events")
    assert events[:3] == [
        f"p:probe/do_sys_open _text+{kallsyms_offset(out, 'do_sys_open')} filename_string=+0(%si):string",
        f"p:probe/vfs_read _text+{kallsyms_offset(out, 'vfs_read')} count=%dx:x64",
        f"r10:probe/vfs_read__return _text+{kallsyms_offset(out, 'vfs_read')} arg1=$retval"]
    # struct task_struct's comm and pid at their offsets from p (in %di at the entry)
    assert re.fullmatch(rf"p:probe/try_to_wake_up _text\+{kallsyms_offset(out, 'try_to_wake_up')} "
                        r"comm=\+\d+\(%di\):string pid=\+\d+\(%di\):s32", events[3]), events
    assert section(out, "list") == [
        "  probe:do_sys_open    (on do_sys_open@fs/open.c with filename_string)",
        "  probe:try_to_wake_up (on try_to_wake_up@kernel/sched/core.c with comm pid)",
        "  probe:vfs_read       (on vfs_read@fs/read_write.c with count)",
        "  probe:vfs_read__return (on vfs_read%return@fs/read_write.c with arg1)"]
    trace = section(out, "trace")
    assert any(re.match(RECORD + r'do_sys_open: \(do_sys_open\+0x0/0x[0-9a-f]+\) filename_string="/etc/hostname"$', l)
               and l.lstrip().startswith("cat-") for l in trace), trace
    reads = [l for l in trace if re.match(RECORD + r"vfs_read: \(vfs_read\+0x0/0x[0-9a-f]+\) count=0x[0-9a-f]+$", l)]
    returns = [l for l in trace if re.match(RECORD + r"vfs_read__return: \(\w+\+0x[0-9a-f]+/0x[0-9a-f]+ <- vfs_read\) "
                                                     r"arg1=0x[0-9a-f]+$", l)]
    assert any(l.lstrip().startswith("cat-") for l in reads) and len(returns) == len(reads), trace
    # cat's read of /etc/hostname returns its length
    size = os.path.getsize("/etc/hostname")
    assert any(l.lstrip().startswith("cat-") and l.endswith(f" arg1={size:#x}") for l in returns), trace
    wakeups = [re.match(RECORD + r'try_to_wake_up: \(try_to_wake_up\+0x0/0x[0-9a-f]+\) comm="([^"]+)" pid=(\d+)$', l)
               for l in trace if "try_to_wake_up:" in l]
    assert wakeups and all(wakeups), trace
    assert section(out, "delete") == ["status 0"]


def _source_at(path, name: str) -> tuple[int, list[str]]:
    """The line where `name`'s definition starts in `path` (1-based), and the file's lines."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"^\w.*\b{name}\(", line)) + 1
    return start, lines


def test_perf_probe_lines_vars_and_source_probes():
    """perf probe -L prints kernel_model's own source (the session shows it where the DWARF
    names it), -V the variables the DWARF has at a point, a probe on a source line lands on an
    instruction the kprobe engine takes, and `schedule` is one probe in kernel/sched/core.c."""
    start, source = _source_at(REPO / "kernel_model" / "fs" / "read_write.c", "vfs_read")
    call = next(i for i in range(start, len(source)) if "new_sync_read(" in source[i]) + 1
    out = run(f"""
echo '== lines'; timeout 30 perf probe -L vfs_read 2>&1; echo "status $?"
echo '== range'; timeout 30 perf probe -L fs/read_write.c:{call - 2}-{call} 2>&1; echo "status $?"
echo '== vars'; timeout 30 perf probe -V vfs_read 2>&1; echo "status $?"
echo '== add'; timeout 30 perf probe -q -a 'fs/read_write.c:{call} pos'; echo "status $?"
timeout 30 perf probe -q -a schedule; echo "status $?"
echo '== kprobe_events'; cat {T}/kprobe_events
echo '== list'; timeout 30 perf probe -l
timeout 30 perf probe -q -d 'probe:*'
""")
    lines = section(out, "lines")
    assert lines[0] == f"<vfs_read@/usr/src/linux-6.1.0-tracefs-sim/fs/read_write.c:0>" and lines[-1] == "status 0"
    body = lines[1:-1]
    # each line of the function, from its first, numbered from 0 where there is code for it
    assert [l[9:] for l in body] == source[start - 1:start - 1 + len(body)], lines
    # through the function's closing brace (and what lies between it and the address its range
    # ends at: the next function's first line when no padding comes between them)
    closing = next(i for i in range(start - 1, len(source)) if source[i] == "}")
    assert body[0] == f"      0  {source[start - 1]}" and closing < start - 1 + len(body) <= closing + 3, lines
    numbered = [int(l[:7]) for l in body if l[:7].strip()]
    assert numbered == sorted(numbered) and call - start in numbered, lines
    # a file's lines, numbered as in the file where -L vfs_read numbered them
    assert section(out, "range") == [
        f"</usr/src/linux-6.1.0-tracefs-sim/fs/read_write.c:{call - 2}>",
        *[f"{n:7d}  {source[n - 1]}" if n - start in numbered else f"         {source[n - 1]}"
          for n in range(call - 2, call + 1)], "status 0"]
    assert section(out, "vars") == ["Available variables at vfs_read", "\t@<vfs_read+0>", "\t\tchar*\tbuf",
                                    "\t\tloff_t*\tpos", "\t\tsize_t\tcount", "\t\tstruct file*\tfile", "status 0"]
    assert section(out, "add") == ["status 0", "status 0"]
    events = section(out, "kprobe_events")
    # (a register the DWARF locates pos in at that line)
    assert len(events) == 2 and re.fullmatch(r"p:probe/vfs_read _text\+\d+ pos=%\w+:x64", events[0]), events
    assert re.fullmatch(r"p:probe/schedule _text\+\d+", events[1]), events
    assert section(out, "list") == [
        "  probe:schedule       (on schedule@kernel/sched/core.c)",
        f"  probe:vfs_read       (on vfs_read:{call - start}@fs/read_write.c with pos)"]


def test_session_shows_the_kernels_debuginfo_beside_the_hosts_files():
    """/sys/kernel/notes is the emulated kernel's build-id (the one its vmlinux carries), the
    vmlinux is at /usr/lib/debug/boot/vmlinux-RELEASE and the sources under the DWARF's
    directory; the directories they are shown in still list the host's own entries, and the
    host sees none of it."""
    vmlinux = REPO / "kernel_model" / "build" / "vmlinux"
    host_before = {d: sorted(os.listdir(d)) for d in ("/usr/lib/debug", "/usr/src") if os.path.isdir(d)}
    out = run("""
echo '== release'; uname -r
echo '== notes'; od -An -tx1 -v /sys/kernel/notes | tr -d ' \\n'; echo
echo '== vmlinux'; cmp /usr/lib/debug/boot/vmlinux-$(uname -r) """ + str(vmlinux) + """ && echo same
echo '== source'; cmp /usr/src/linux-6.1.0-tracefs-sim/fs/read_write.c """ + str(REPO / "kernel_model/fs/read_write.c") + """ && echo same
for d in /usr/lib/debug /usr/src; do echo "== ls $d"; ls -A $d; done
""")
    assert section(out, "release") == ["6.1.0-tracefs-sim"]
    notes = subprocess.run(["readelf", "-n", str(vmlinux)], capture_output=True, text=True, check=True).stdout
    build_id = re.search(r"Build ID: ([0-9a-f]{40})", notes).group(1)
    # an Elf64_Nhdr (namesz 4, descsz 20, NT_GNU_BUILD_ID), "GNU\0", the build-id
    assert section(out, "notes") == ["040000001400000003000000474e5500" + build_id]
    assert section(out, "vmlinux") == ["same"] and section(out, "source") == ["same"]
    for directory, entries in host_before.items():
        added = {"/usr/lib/debug": "boot", "/usr/src": "linux-6.1.0-tracefs-sim"}[directory]
        assert sorted(section(out, f"ls {directory}")) == sorted(set(entries) | {added}), out
        assert sorted(os.listdir(directory)) == entries   # the host's, untouched


def test_perf_report_and_annotate_read_the_kernels_vmlinux_and_source():
    """Samples of the idle cpus (in arch_cpu_idle, whose halt they wake from): perf report
    resolves them in the vmlinux it found (perf's `[kernel.vmlinux]`), perf annotate interleaves
    kernel_model's source with the disassembly."""
    start, source = _source_at(REPO / "kernel_model" / "kernel" / "sched" / "core.c", "arch_cpu_idle")
    out = run("""
perf record -o perf.data -q -e cpu-clock -c 1000000 -a -- sleep 0.5 > /dev/null 2>&1; echo "== record $?"
echo '== report'; perf report -i perf.data --stdio --sort dso,sym 2>&1 | grep -v '^#' | grep .
echo '== annotate'; perf annotate -i perf.data --stdio -s arch_cpu_idle 2>&1
""")
    assert section(out, "record 0") == []
    report = section(out, "report")
    # (a compiler's clone is named as 6.1's: finish_task_switch.isra.0); a sample may land in an
    # emulated program's user code, whose file perf cannot open: `[unknown]  [.] 0x...`
    assert report and all(re.fullmatch(r" +\d+\.\d+%  \[kernel\.vmlinux\]  \[k\] [\w.]+", l) or
                          re.fullmatch(r" +\d+\.\d+%  \[unknown\] +\[\.\] 0x[0-9a-f]+", l) for l in report), report
    assert any(l.endswith("[k] arch_cpu_idle") for l in report), report
    annotate = section(out, "annotate")
    assert annotate[0].startswith(" Percent |\tSource code & Disassembly of elf for cpu-clock ("), annotate
    # the function's own first line (from /usr/src/linux-6.1.0-tracefs-sim/kernel/sched/core.c),
    # and its instructions with their share
    assert any(re.fullmatch(rf" +: \d+ +{re.escape(source[start - 1].strip())}", l) for l in annotate), annotate
    assert sum(bool(re.match(r" +\d+\.\d+ : +ffffffff8[0-9a-f]{7}:\s+\S", l)) for l in annotate) > 5, annotate
