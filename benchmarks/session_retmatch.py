"""How often a session task's `sys_exit` ret is the host's (issue 14, "Return values").

Not run in CI; by hand (root, /dev/fuse):

    .venv/bin/python benchmarks/session_retmatch.py [--show 15]

For each workload, one `tracefs-sim run --workload none` session records
raw_syscalls:sys_exit (`NR nr = ret`) while the workload runs, and the same
command line runs on the host under strace `-f -n` (the oracle: it sees the host's real results;
it runs outside the session, so that strace's own calls stay out of the kernel's trace).  With
`--in-session` strace runs in the session instead, on the very processes the kernel runs (its
own calls are the kernel's too, but its pids are the tasks': no pairing is guessed). The processes of the two runs are paired in the order they
first appear, and each one's calls in strace's log are aligned with its task's sys_exit records (by syscall number, difflib: a call either side may lack, such as
the first execve, whose sys_exit the kernel records before the task has the workload's pid)
and their results compared. Calls the kernel does not model (its ret -ENOSYS) are counted
apart; mmap/brk-style addresses are compared as they are (the kernel's address space is its
own). Prints, per workload and in total: aligned calls, matching rets, calls to unmodelled
syscalls, and the most frequent mismatches as (syscall, host ret, kernel ret, count); and
apart, the address-space calls (mmap, munmap, mprotect, brk), whose results are addresses the
kernel places with its own 6.1 algorithms in its model of the host process's VMAs.  Both runs
(strace and the session, and so every process they start) are under `setarch -R` (no address
randomization) unless `--random`: the host then lays a process out the same way in both
runs, so the addresses compare.
"""

import argparse
import collections
import difflib
import errno
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACEFS_SIM = os.path.join(ROOT, ".venv", "bin", "tracefs-sim")
ENOSYS = -errno.ENOSYS
SYSCALL_TABLE = os.path.join(ROOT, "kernel_model", "kernel", "syscall_table.h")

WORKLOADS = {
    "ls -R /usr/share": "ls -R /usr/share",
    "bash -c script": "bash -c 'cd /etc; for f in hostname passwd group; do wc -l $f; done;"
                      " x=$(cat /etc/os-release | head -2); echo \"$x\" | grep -c NAME; ls /usr/bin | wc -l;"
                      " test -d /usr && echo yes; read a < /etc/hostname; echo $a'",
    "python3 -c pass": "python3 -c pass",
}

# the address-space calls (counted apart too)
MM_CALLS = {"mmap", "munmap", "mprotect", "brk"}
# calls whose result is a pid: the two runs' pids differ
PID_RESULTS = {"getpid", "gettid", "getppid", "clone", "clone3", "fork", "vfork", "wait4", "waitid"}
STRACE_LINE = re.compile(r"^(\d+) +\[ *(\d+)\] (?:<\.\.\. (\w+) resumed>|(\w+)\().*?(?:= (.*))?$")
TRACE_LINE = re.compile(r"^ *(\S.*)-(\d+) +\[\d{3}\] \S{5} +[\d.]+: sys_exit: NR (-?\d+) = (-?\d+)$")


def host_ret(text: str):
    """strace's result text as the kernel's ret (-errno on failure); None: no result."""
    text = text.strip()
    if text.startswith("?"):
        return None
    m = re.match(r"(-?(?:0x[0-9a-f]+|\d+))(?: (E[A-Z0-9]+))?", text)
    if not m:
        return None
    if m.group(1) == "-1" and m.group(2):
        return -getattr(errno, m.group(2), 0) if hasattr(errno, m.group(2)) else -{
            "ERESTARTSYS": 512, "ERESTARTNOINTR": 513, "ERESTARTNOHAND": 514,
            "ERESTART_RESTARTBLOCK": 516}.get(m.group(2), 0)
    value = int(m.group(1), 0)
    return value - (1 << 64) if value >= 1 << 63 else value


def strace_calls(path: str) -> dict[int, list[tuple[int, str, int]]]:
    """pid -> [(nr, name, ret)] of the calls that returned, in order."""
    calls: dict[int, list[tuple[int, str, int]]] = collections.defaultdict(list)
    pending: dict[int, str] = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = STRACE_LINE.match(line)
            if not m:
                continue
            pid, nr = int(m.group(1)), int(m.group(2))
            name = m.group(3) or m.group(4)
            if line.endswith("<unfinished ...>"):
                pending[pid] = name
                continue
            if m.group(5) is None:
                continue
            ret = host_ret(m.group(5))
            if ret is not None:
                calls[pid].append((nr, name, ret))
    return calls


def trace_calls(path: str) -> dict[int, list[tuple[int, int]]]:
    calls: dict[int, list[tuple[int, int]]] = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            m = TRACE_LINE.match(line)
            if m:
                calls[int(m.group(2))].append((int(m.group(3)), int(m.group(4))))
    return calls


def syscall_names() -> dict[int, str]:
    """number -> the table's entry point without `sys_` (the kernel's own table)."""
    names = {}
    with open(SYSCALL_TABLE) as f:
        for m in re.finditer(r"^__SYSCALL\((\d+), sys_(\w+)\)", f.read(), re.M):
            names[int(m.group(1))] = m.group(2)
    return names


def run_in_session(command: str, work: str) -> tuple[str, str]:
    """The command once, in a session, under strace -f there: strace traces the very
    processes whose tasks the kernel runs (the session's PID namespace numbers both), so each
    call's host result is compared with its own sys_exit, addresses included, with ASLR on."""
    strace_out, trace_out = os.path.join(work, "strace.txt"), os.path.join(work, "trace.txt")
    line = f"cd {work} && {command} > /dev/null 2>&1"
    t = "/sys/kernel/tracing"
    script = (f"echo 65536 > {t}/buffer_size_kb && echo 1 > {t}/events/raw_syscalls/sys_exit/enable && "
              f"strace -f -n -qqq -o {strace_out} sh -c {shlex.quote(line)}; "
              f"echo 0 > {t}/events/raw_syscalls/sys_exit/enable; cat {t}/trace > {trace_out}")
    result = subprocess.run([TRACEFS_SIM, "run", "--workload", "none", "-c", script],
                            capture_output=True, text=True, timeout=900)
    if result.returncode:
        sys.exit(f"session failed: {result.stderr[-2000:]}")
    return strace_out, trace_out


def run_workload(command: str, work: str, oracle: bool = True,
                 norandom: bool = True) -> tuple[str | None, str]:
    """The same command line twice: on the host under strace (the oracle; strace's ptrace of a
    session process is not mirrored, so it runs outside the session), and in a session with
    raw_syscalls:sys_exit recorded. Both start it as `sh -c`, from `work` (under `setarch -R`
    with norandom)."""
    strace_out, trace_out = os.path.join(work, "strace.txt"), os.path.join(work, "trace.txt")
    line = f"cd {work} && {command} > /dev/null 2>&1"
    setarch = ["setarch", "-R"] if norandom else []
    if oracle:
        subprocess.run([*setarch, "strace", "-f", "-n", "-qqq", "-o", strace_out, "sh", "-c", line],
                       capture_output=True, timeout=900)
    else:
        strace_out = None
    t = "/sys/kernel/tracing"
    script = (f"echo 65536 > {t}/buffer_size_kb && echo 1 > {t}/events/raw_syscalls/sys_exit/enable && "
              f"sh -c {shlex.quote(line)}; echo 0 > {t}/events/raw_syscalls/sys_exit/enable; "
              f"cat {t}/trace > {trace_out}")
    result = subprocess.run([*setarch, TRACEFS_SIM, "run", "--workload", "none", "-c", script],
                            capture_output=True, text=True, timeout=900)
    if result.returncode:
        sys.exit(f"session failed: {result.stderr[-2000:]}")
    return strace_out, trace_out


def compare(strace_out: str | None, trace_out: str, mismatches: collections.Counter,
            missing: collections.Counter, mm: list[int] | None = None,
            same_pids: bool = False) -> tuple[int, int, int]:
    """(aligned calls, equal rets, calls the kernel does not model; `missing` counts those by
    number; `mm` adds the address-space calls' [aligned, equal]). The runs' processes are paired in the order they first appear (the session's shell,
    which starts the command, is left out: its first sys_exit comes first). Without strace's log,
    every call whose kernel ret is -ENOSYS counts as unmodelled."""
    kernel = trace_calls(trace_out)
    if not same_pids:
        kernel.pop(min(kernel, default=None), None)
    if strace_out is None:
        unmodelled = [nr for calls in kernel.values() for nr, ret in calls if ret == ENOSYS]
        missing.update(unmodelled)
        return 0, 0, len(unmodelled)
    host = strace_calls(strace_out)
    aligned = equal = unmodelled = 0
    if same_pids:	# (strace in the session: its pids are the tasks')
        pairs = [(pid, pid) for pid in host if pid in kernel]
        pids = {pid: pid for pid in host}
    else:
        pairs = list(zip(host, kernel))
        pids = dict(pairs)	# a host pid in a result (getpid, clone, wait4...) as the session's
    for hpid, kpid in pairs:
        hcalls, kcalls = host[hpid], kernel[kpid]
        matcher = difflib.SequenceMatcher(None, [nr for nr, _, _ in hcalls], [nr for nr, _ in kcalls],
                                          autojunk=False)
        for block in matcher.get_matching_blocks():
            for i in range(block.size):
                nr, name, hret = hcalls[block.a + i]
                kret = kcalls[block.b + i][1]
                if name in PID_RESULTS:
                    if hret not in pids and hret > 0:
                        continue	# a pid outside the run (strace's): nothing to compare
                    hret = pids.get(hret, hret)
                if kret == ENOSYS and hret != ENOSYS:
                    unmodelled += 1
                    missing[nr] += 1
                    continue
                aligned += 1
                if mm is not None and name in MM_CALLS:
                    mm[0] += 1
                    mm[1] += kret == hret
                if kret == hret:
                    equal += 1
                else:
                    mismatches[(name, hret if abs(hret) < 4096 else "addr", kret if abs(kret) < 4096 else "addr")] += 1
    return aligned, equal, unmodelled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=15, help="mismatches to list per workload")
    parser.add_argument("--workload", action="append", metavar="CMD",
                        help="a command line to run instead of the default workloads (repeatable)")
    parser.add_argument("--no-oracle", action="store_true",
                        help="no strace run: count the calls the kernel answers with ENOSYS")
    parser.add_argument("--random", action="store_true",
                        help="leave address randomization on (the addresses then differ)")
    parser.add_argument("--in-session", action="store_true",
                        help="strace -f in the session, on the same processes (no second run)")
    args = parser.parse_args()
    names = syscall_names()
    workloads = {command: command for command in args.workload} if args.workload else WORKLOADS
    totals = [0, 0, 0]
    mm_totals = [0, 0]
    for title, command in workloads.items():
        mismatches: collections.Counter = collections.Counter()
        missing: collections.Counter = collections.Counter()
        mm = [0, 0]
        with tempfile.TemporaryDirectory(prefix="retmatch-") as work:
            os.chmod(work, 0o755)
            if args.in_session:
                aligned, equal, unmodelled = compare(*run_in_session(command, work), mismatches,
                                                     missing, mm, same_pids=True)
            else:
                aligned, equal, unmodelled = compare(*run_workload(command, work, not args.no_oracle,
                                                                   not args.random),
                                                     mismatches, missing, mm)
        totals = [totals[0] + aligned, totals[1] + equal, totals[2] + unmodelled]
        mm_totals = [mm_totals[0] + mm[0], mm_totals[1] + mm[1]]
        print(f"{title}: {equal} of {aligned} calls to modelled syscalls return the host's result "
              f"({100.0 * equal / max(aligned, 1):.2f}%); {unmodelled} calls to unmodelled ones; "
              f"mmap/munmap/mprotect/brk: {mm[1]} of {mm[0]} ({100.0 * mm[1] / max(mm[0], 1):.2f}%)")
        for (name, hret, kret), n in mismatches.most_common(args.show):
            print(f"    {n:6d}  {name}: host {hret}, kernel {kret}")
        if missing:
            print("  unmodelled: " + ", ".join(f"{names.get(nr, nr)} {n}" for nr, n in missing.most_common()))
    print(f"total: {totals[1]} of {totals[0]} ({100.0 * totals[1] / max(totals[0], 1):.2f}%); "
          f"{totals[2]} calls to unmodelled syscalls; mmap/munmap/mprotect/brk: {mm_totals[1]} of "
          f"{mm_totals[0]} ({100.0 * mm_totals[1] / max(mm_totals[0], 1):.2f}%)")


if __name__ == "__main__":
    main()
