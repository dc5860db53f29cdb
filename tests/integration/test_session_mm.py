"""A session task's address space: the kernel's VMAs of a session process model its host
process's (seeded from /proc/PID/maps at its exec), so its mmap/munmap/mprotect/brk run
6.1's own algorithms there and return what the host's did (strace in the same session, on the
same process, is the oracle); threads share one mm, fork copies it (issue 14)."""

import difflib
import os
import re
import shutil
from pathlib import Path

import pytest
from simtest import section, tracefs_sim

pytestmark = [pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                 reason="needs /dev/fuse, root and namespaces"),
              pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="needs /usr/bin/python3")]

T = "/sys/kernel/tracing"
# comm-pid [cpu] flags timestamp: event: rest, or a syscall's exit: `sys_NAME -> 0xRET`
LINE = re.compile(r"^ *(\S.*)-(\d+) +\[(\d{3})\] \S{5} +(\d+\.\d{6}): (\w+)(?:: | )(.*)$")
MM_CALLS = ("mmap", "munmap", "mprotect", "brk", "mremap")
STRACE_LINE = re.compile(r"^(\d+) +(\w+)\((.*)\) += (-?\w+)(?: (E[A-Z0-9]+))?")


def run(script: str, timeout: float = 180) -> str:
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def events(lines: list[str]) -> list[tuple[str, int, str, str]]:
    """(comm, pid, event, rest) of each trace line."""
    return [(m.group(1).strip(), int(m.group(2)), m.group(5), m.group(6))
            for m in map(LINE.match, lines) if m]


def as_ret(text: str, err: str | None) -> int:
    if err:
        import errno
        return -getattr(errno, err)
    value = int(text, 0)
    return value - (1 << 64) if value >= 1 << 63 else value


def kernel_calls(seen, pid: int) -> list[tuple[str, int]]:
    """(call, ret) of the pid's sys_exit_* events after its exec."""
    calls, after_exec = [], False
    for _, p, event, rest in seen:
        if p != pid:
            continue
        if event == "sched_process_exec":
            after_exec, calls = True, []
        m = re.match(r"-> (0x[0-9a-f]+)$", rest) if event.startswith("sys_") else None
        if after_exec and m:
            calls.append((event[4:], as_ret(m.group(1), None)))
    return calls


def strace_calls(lines: list[str]) -> dict[int, list[tuple[str, int, str]]]:
    """pid -> [(call, ret, args)] of strace -f's log."""
    calls: dict[int, list] = {}
    for line in lines:
        m = STRACE_LINE.match(line)
        if m and m.group(2) in MM_CALLS + ("arch_prctl", "rseq"):
            calls.setdefault(int(m.group(1)), []).append((m.group(2), as_ret(m.group(4), m.group(5)), m.group(3)))
    return calls


def wait_for_exit(pid: str) -> str:
    """Shell: until the kernel's replay reached the process's end (at most 20 s): on a loaded
    machine it may run more than the 2 s behind the host that a tracefs read waits for.
    sched_process_exit must be on before the process runs (EXIT_EVENT)."""
    return (f"for i in $(seq 200); do "
            f"grep -q \"sched_process_exit: comm=[^ ]* pid={pid} \" {T}/trace && break; sleep 0.1; done;")


EXIT_EVENT = f"echo 1 > {T}/events/sched/sched_process_exit/enable;"
FIRST_PID = "$(head -1 /tmp/mm-strace.txt | cut -d' ' -f1)"   # strace -f's first process: the command


def enable_mm_events() -> str:
    return "".join(f"echo 1 > {T}/events/syscalls/sys_exit_{call}/enable;"
                   for call in MM_CALLS + ("arch_prctl", "rseq")) + \
        f"echo 1 > {T}/events/sched/sched_process_exec/enable;" + EXIT_EVENT


# the mremap cases of the machine's own test program (built with the kernel), run on the host
PROGTEST = Path(__file__).resolve().parents[2] / "kernel_model" / "build" / "user" / "progtest.elf"


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
@pytest.mark.parametrize("command", ["ls /", "/usr/bin/python3 -c pass", f"{PROGTEST} mremap"])
def test_address_space_calls_return_the_hosts_results(command):
    # strace -f in the session traces the very process whose task the kernel runs: each
    # mmap/munmap/mprotect/brk's host result against sys_exit's ret
    out = run(f"{enable_mm_events()} strace -f -qqq -o /tmp/mm-strace.txt {command} > /dev/null;"
              f"{wait_for_exit(FIRST_PID)} echo 0 > {T}/tracing_on; echo '== strace'; cat /tmp/mm-strace.txt; rm -f /tmp/mm-strace.txt;"
              f"echo '== trace'; grep -v '^#' {T}/trace")
    host = strace_calls(section(out, "strace"))
    pid = min(host)
    hcalls = host[pid]
    kcalls = kernel_calls(events(section(out, "trace")), pid)
    assert len(kcalls) >= 20, (kcalls, hcalls)
    matcher = difflib.SequenceMatcher(None, [c for c, _, _ in hcalls], [c for c, _ in kcalls], autojunk=False)
    pairs = [(hcalls[b.a + i], kcalls[b.b + i][1]) for b in matcher.get_matching_blocks() for i in range(b.size)]
    assert len(pairs) >= 0.95 * len(hcalls), (hcalls, kcalls)
    equal = [h for h, k in pairs if h[1] == k]
    # the kernel places them itself (vm_unmapped_area over the host's layout): the same
    # address in the common case; a mapping the host 6.18 aligns to 2 MiB (THP) is the known
    # exception, so not all, but most
    assert len(equal) >= 0.9 * len(pairs), [(h, hex(k & (2**64 - 1))) for h, k in pairs if h[1] != k]
    fixed = [(h, k) for h, k in pairs if h[0] == "mmap" and "MAP_FIXED" in h[2]]
    assert fixed and all(h[1] == k for h, k in fixed), fixed
    brks = [(h, k) for h, k in pairs if h[0] == "brk"]
    assert len(brks) >= 2 and all(h[1] == k for h, k in brks), brks
    assert all(h[1] == k for h, k in pairs if h[0] in ("arch_prctl", "rseq", "mremap")), pairs
    if "mremap" in command:
        assert sum(h[0] == "mremap" for h, _ in pairs) >= 14, pairs


def test_a_kprobe_on_do_mmap_fires_for_the_sessions_ls():
    out = run(f"echo 'p:dm do_mmap len=$arg3 prot=$arg4' >> {T}/kprobe_events;"
              f"echo 'p:ub do_brk_flags addr=$arg3 len=$arg4' >> {T}/kprobe_events;"
              f"echo 'p:mp mprotect_fixup start=$arg3 end=$arg4' >> {T}/kprobe_events;"
              f"echo 1 > {T}/events/kprobes/enable; {EXIT_EVENT} ls / > /dev/null & wait $!; {wait_for_exit('$!')}"
              f"echo 0 > {T}/events/kprobes/enable;"
              f"echo '== trace'; grep -v '^#' {T}/trace")
    seen = [(comm, event) for comm, _, event, _ in events(section(out, "trace"))]
    assert seen.count(("ls", "dm")) >= 10, seen
    assert ("ls", "ub") in seen and ("ls", "mp") in seen, seen


THREADS = r"""
import ctypes, mmap, os, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
def work():
    m = mmap.mmap(-1, 1 << 20)
    print("thread", threading.get_native_id(), flush=True)
    m.close()
t = threading.Thread(target=work)
t.start(); t.join()
# at a fixed address: where the kernel's VMA is too, whatever the host's THP alignment of the
# thread's arena did to the layout (a mmap(NULL) after it may land elsewhere in the kernel)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
addr = libc.mmap(0x200000000000, 4 * 4096, 3, 0x22 | 0x100000, -1, 0)   # MAP_FIXED_NOREPLACE
print("main", os.getpid(), hex(addr), flush=True)
pid = os.fork()
if pid == 0:
    ok = libc.mprotect(addr, 4096, 1)
    bad = libc.mprotect(addr + (1 << 40), 4096, 1)
    print("child", os.getpid(), ok, bad, flush=True)
    os._exit(0)
os.waitpid(pid, 0)
"""


def test_threads_share_one_mm_and_fork_copies_it():
    # do_mas_munmap(mm, ...) runs for every mmap (__mmap_region) and munmap: its mm is the
    # thread's; a forked child's mprotect finds the VMA its parent mapped before the fork
    out = run(f"cat > /tmp/mm-threads.py <<'EOF'\n{THREADS}\nEOF\n"
              f"echo 'p:mr do_mas_munmap mm=$arg1' >> {T}/kprobe_events; echo 1 > {T}/events/kprobes/mr/enable;"
              f"echo 1 > {T}/events/syscalls/sys_exit_mprotect/enable; echo 1 > {T}/events/syscalls/sys_exit_clone3/enable;"
              f"{EXIT_EVENT}"
              f"echo '== out'; /usr/bin/python3 /tmp/mm-threads.py & wait $!; {wait_for_exit('$!')}"
              f"rm -f /tmp/mm-threads.py; echo 0 > {T}/tracing_on;"
              f"echo '== trace'; grep -v '^#' {T}/trace")
    lines = section(out, "out")
    thread = int(next(line for line in lines if line.startswith("thread")).split()[1])
    main = int(next(line for line in lines if line.startswith("main")).split()[1])
    assert next(line for line in lines if line.startswith("main")).split()[2] == "0x200000000000"
    _, child, ok, bad = next(line for line in lines if line.startswith("child")).split()
    assert (int(ok), int(bad)) == (0, -1)   # the host's: ENOMEM for the unmapped one
    seen = events(section(out, "trace"))
    mms = {pid: {rest.split("mm=")[1] for _, p, event, rest in seen if p == pid and event == "mr"}
           for pid in (main, thread)}
    assert len(mms[main]) == 1 and mms[main] == mms[thread], mms
    # glibc's pthread_create is clone3(CLONE_VM|CLONE_THREAD...): it returns the thread's tid
    assert ("sys_clone3", f"-> {hex(thread)}") in [(event, rest) for _, p, event, rest in seen if p == main]
    rets = [rest for _, p, event, rest in seen if p == int(child) and event == "sys_mprotect"]
    assert rets == ["-> 0x0", "-> 0xfffffffffffffff4"], rets   # 0, -ENOMEM: as the host's


RSEQ = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
fs = ctypes.c_ulong()
assert libc.syscall(158, 0x1003, ctypes.byref(fs)) == 0      # arch_prctl(ARCH_GET_FS)
area = fs.value + ctypes.c_long.in_dll(libc, "__rseq_offset").value
sig = 0x53053053
def rseq(addr, length, flags, s):
    r = libc.syscall(334, ctypes.c_void_p(addr), length, flags, s)
    return r if r >= 0 else -ctypes.get_errno()
print("rets", rseq(area, 32, 0, sig), rseq(area, 32, 0, sig + 1), rseq(area + 32, 32, 0, sig),
      rseq(area, 32, 2, sig), rseq(area, 32, 1, sig + 1), rseq(area, 32, 1, sig), rseq(area, 32, 0, sig), flush=True)
"""


def test_rseq_and_arch_prctl_as_the_host():
    # glibc registered rseq at start: again is EBUSY, another signature EPERM, another area or
    # unknown flags EINVAL; unregistration with a wrong signature EPERM, then 0; then again 0
    out = run(f"cat > /tmp/mm-rseq.py <<'EOF'\n{RSEQ}\nEOF\n"
              f"echo 1 > {T}/events/syscalls/sys_exit_rseq/enable; echo 1 > {T}/events/syscalls/sys_exit_arch_prctl/enable;"
              f"{EXIT_EVENT}"
              f"echo '== out'; /usr/bin/python3 /tmp/mm-rseq.py & wait $!; {wait_for_exit('$!')}"
              f"rm -f /tmp/mm-rseq.py; echo 0 > {T}/tracing_on;"
              f"echo '== trace'; grep -v '^#' {T}/trace")
    host = [int(x) for x in next(line for line in section(out, "out") if line.startswith("rets")).split()[1:]]
    assert host == [-16, -1, -22, -22, -1, 0, 0], host
    seen = [(event, rest) for comm, _, event, rest in events(section(out, "trace")) if comm == "python3"]
    rets = [as_ret(rest.split("-> ")[1], None) for event, rest in seen if event == "sys_rseq"]
    assert rets[-7:] == host, rets     # (the first: glibc's registration at start, 0)
    assert rets[0] == 0 and len(rets) == 8
    prctl = [rest for event, rest in seen if event == "sys_arch_prctl"]
    assert prctl and set(prctl) == {"-> 0x0"}, prctl


MAPS = r"""
import mmap, ctypes
m = mmap.mmap(-1, 5 * 4096)
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
f = open("/etc/hostname", "rb")
fm = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
print("anon", hex(addr), flush=True)
print("== maps", flush=True)
print(open("/proc/self/maps").read(), end="", flush=True)
"""


def test_proc_pid_maps_shows_the_host_processs_mappings():
    # the session's /proc is the kernel's: its maps of a session process are the VMAs seeded at
    # exec and made by the process's own calls since, in 6.1's format
    out = run(f"cat > /tmp/mm-maps.py <<'EOF'\n{MAPS}\nEOF\n"
              f"echo '== out'; /usr/bin/python3 /tmp/mm-maps.py; rm -f /tmp/mm-maps.py")
    anon = int(next(line for line in section(out, "out") if line.startswith("anon")).split()[1], 16)
    maps = section(out, "maps")
    fields = [line.split() for line in maps]
    ranges = [tuple(int(x, 16) for x in f[0].split("-")) for f in fields]
    assert any(start <= anon and anon + 5 * 4096 <= end for start, end in ranges), (hex(anon), maps)
    named = {f[5] for f in fields if len(f) > 5}
    assert {"[heap]", "[stack]", "[vdso]", "/etc/hostname"} <= named, named
    exe = [f for f in fields if len(f) > 5 and f[5].startswith("/usr/bin/python3")]
    assert any(f[1] == "r-xp" for f in exe), maps
    assert all(re.match(r"^[0-9a-f]{8,}-[0-9a-f]{8,} [r-][w-][x-][ps] [0-9a-f]{8} [0-9a-f]{2}:[0-9a-f]{2} \d+ *", line)
               for line in maps), maps
    assert ranges == sorted(ranges) and all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:]))


# the new fd, file, memory, limit and scheduler calls of issue 15, each run by the host and
# replayed here (the kernel's own results: signals and the timers' expiries are the machine's)
FD_CALLS = {"timerfd": ("timerfd_create", "timerfd_settime", "timerfd_gettime"),
            "signalfd": ("signalfd4",), "memfd": ("memfd_create",), "msync": ("msync",),
            "readahead": ("readahead",), "rlimit": ("prlimit64",),
            # (mincore's vector and sched_attr: gen_syscall_args.py's OVERRIDES)
            "mlock": ("mlock", "mlock2", "munlock", "mlockall", "munlockall", "mincore"),
            "sched": ("sched_setscheduler", "sched_setparam", "sched_setaffinity", "sched_setattr",
                      "sched_getattr"),
            # (fsetxattr and fallocate: a few of progtest's calls are 6.1's refusals and a
            # later host kernel's successes)
            "xattr": ("fgetxattr", "flistxattr", "fremovexattr")}


def calls_as_the_host(calls: tuple[str, ...], command: str, comm: str, setup: str = "") -> tuple[list, list]:
    """(kernel, host): the (call, ret) of each of `calls` that the command's process (`comm`,
    after its exec) made, by its sys_exit_* events and by strace's log of the same process."""
    enable = "".join(f"echo 1 > {T}/events/syscalls/sys_exit_{c}/enable;" for c in calls)
    out = run(f"{setup}{enable} echo 1 > {T}/events/sched/sched_process_exec/enable; {EXIT_EVENT}"
              f"strace -qqq -e trace={','.join(calls)} -o /tmp/fd-strace.txt {command} > /dev/null;"
              f"for i in $(seq 200); do grep -q 'sched_process_exit: comm={comm}' {T}/trace && break; sleep 0.1; done;"
              f"echo 0 > {T}/tracing_on;"
              f"echo '== strace'; cat /tmp/fd-strace.txt; rm -f /tmp/fd-strace.txt;"
              f"echo '== trace'; grep -v '^#' {T}/trace")
    host = [(m.group(2), as_ret(m.group(4), m.group(5)))
            for m in map(re.compile(r"^(\d+ +)?(\w+)\((.*)\) += (-?\w+)(?: (E[A-Z0-9]+))?").match,
                         section(out, "strace")) if m]
    seen = events(section(out, "trace"))
    pid = next(p for c, p, event, _ in seen if event == "sched_process_exec" and c.startswith(comm))
    kernel = [(event[4:], as_ret(m.group(1), None)) for _, p, event, rest in seen
              if p == pid and event.startswith("sys_") and (m := re.match(r"-> (0x[0-9a-f]+)$", rest))]
    return kernel, host


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
@pytest.mark.parametrize("cmd", sorted(FD_CALLS))
def test_a_session_process_new_calls_return_the_hosts_results(cmd):
    kernel, host = calls_as_the_host(FD_CALLS[cmd], f"{PROGTEST} {cmd}", "progtest")
    assert host and kernel == host, (kernel, host)


POLL = r"""
import select, os
r1, w1 = os.pipe(); r2, w2 = os.pipe(); r3, w3 = os.pipe()
os.write(w1, b"x"); os.write(w3, b"y")
p = select.poll()
for fd in (r1, r2, r3, w2): p.register(fd, select.POLLIN)
print(sorted(p.poll(100)))
e = select.epoll()
for fd in (r1, r2, r3): e.register(fd, select.EPOLLIN)
print(sorted(e.poll(0.1)))
os.truncate(__file__, 3)
"""


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
def test_arrays_and_paths_the_declarations_do_not_describe_return_the_hosts_results(tmp_path):
    # poll's nfds struct pollfd (not one), epoll_wait's maxevents events written, truncate's
    # path (not a buffer of `length` bytes): gen_syscall_args.py's OVERRIDES
    script = tmp_path / "poll.py"
    script.write_text(POLL)
    kernel, host = calls_as_the_host(("poll", "epoll_wait", "truncate"), f"/usr/bin/python3 {script}", "python3")
    assert host == [("poll", 2), ("epoll_wait", 2), ("truncate", 0)] and kernel == host, (kernel, host)


IOV = r"""
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.writev(fd, [b"hello ", b"vectored ", b"world\n"])
os.pwritev(fd, [b"HE", b"LLO"], 0)
os.preadv(fd, [bytearray(3), bytearray(100)], 2)
os.lseek(fd, 0, 0)
os.readv(fd, [bytearray(4), bytearray(4), bytearray(100)])
os.readv(fd, [bytearray(4)])
"""


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
def test_vectored_reads_and_writes_return_the_hosts_results(tmp_path):
    # the struct iovec arrays are copied and laid out over the kernel's output window (they
    # were the window's stale bytes: EFAULT)
    script = tmp_path / "iov.py"
    script.write_text(IOV)
    kernel, host = calls_as_the_host(("readv", "writev", "preadv2", "pwritev2"),
                                     f"/usr/bin/python3 {script} {tmp_path / 'data'}", "python3")
    assert host == [("writev", 21), ("pwritev2", 5), ("preadv2", 19), ("readv", 21), ("readv", 0)], host
    assert kernel == host, (kernel, host)


def test_sched_setattr_reaches_the_scheduler_with_the_processs_sched_attr():
    # the supervisor copies the struct sched_attr of its own size (its first u32): the kernel's
    # sched_setattr() gets progtest's first one (SCHED_OTHER, nice 5, 48 bytes), not the sink's
    probe = "p:s6attr sched_setattr size=+0($arg2):u32 policy=+4($arg2):u32 nice=+16($arg2):s32"
    out = run(f"echo '{probe}' >> {T}/kprobe_events; echo 1 > {T}/events/kprobes/s6attr/enable; {EXIT_EVENT}"
              f"{PROGTEST} sched > /dev/null & wait $!; {wait_for_exit('$!')}"
              f"echo 0 > {T}/tracing_on; echo '== trace'; grep 's6attr:' {T}/trace")
    hits = [rest for comm, _, event, rest in events(section(out, "trace")) if comm.startswith("progtest")]
    assert hits and hits[0].endswith("size=48 policy=0 nice=5"), out


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
def test_a_session_shells_ulimit_holds_its_processes_fds_as_the_hosts():
    # `ulimit -n 4` (prlimit64, kept in the kernel's copy of the process's limits and inherited by
    # its child): with fd 3 taken, cat's open of a file fails with EMFILE on the host, and here
    calls = ("prlimit64", "openat")
    enable = "".join(f"echo 1 > {T}/events/syscalls/sys_exit_{c}/enable;" for c in calls)
    out = run(f"{enable} echo 1 > {T}/events/sched/sched_process_exec/enable; {EXIT_EVENT}"
              f"strace -f -qqq -e trace={','.join(calls)} -o /tmp/ul-strace.txt "
              f"bash -c 'ulimit -n 4; exec 3</dev/null; exec cat /etc/hostname' > /dev/null 2>&1;"
              f"for i in $(seq 200); do grep -q 'sched_process_exit: comm=cat' {T}/trace && break; sleep 0.1; done;"
              f"echo 0 > {T}/tracing_on;"
              f"echo '== strace'; cat /tmp/ul-strace.txt; rm -f /tmp/ul-strace.txt;"
              f"echo '== trace'; grep -v '^#' {T}/trace")
    host = {}
    for m in map(STRACE_LINE.match, section(out, "strace")):
        if m and m.group(2) in calls:
            host.setdefault(int(m.group(1)), []).append((m.group(2), as_ret(m.group(4), m.group(5))))
    pid = min(host)
    seen = events(section(out, "trace"))
    kernel = [(event[4:], as_ret(m.group(1), None)) for _, p, event, rest in seen
              if p == pid and event.startswith("sys_") and (m := re.match(r"-> (0x[0-9a-f]+)$", rest))]
    assert ("openat", -24) in host[pid] and kernel == host[pid], (kernel, host[pid])
