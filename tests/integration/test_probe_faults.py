"""Guest faults through the real stack (issue 8): probes that fault, probes everywhere, probes on
recursion, and programs that crash under probes. Each runs in `tracefs-sim run` on the emulated
kernel's probe engine; afterwards the kernel still runs programs correctly and the daemon
answers."""

import os
import re
from pathlib import Path

import pytest
from simtest import section, tracefs_sim

from tracefs_sim import disasm
from tracefs_sim.machine import KernelImage
from tracefs_sim.machine.machine import default_kernel_image

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"


def _second_instruction(function: str) -> int:
    """Offset of the instruction after a function's ftrace site: every call passes it, and it
    moves with the kernel build (never a number written in)."""
    image = KernelImage(default_kernel_image())
    sym = image.lookup(function)
    lines = disasm.disassemble(image.read(sym.addr, sym.size), sym.addr, disasm.kernel_symbolizer(image))
    return lines[1].address - sym.addr
OPT = "/proc/sys/debug/kprobes-optimization"
# A record of any task: the emulated cat, and the session's shell (its redirections open files).
RECORD = r"^ +\S.*-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: "


def run(script: str, *options: str) -> str:
    """The script's output, in a session with no background workload."""
    result = tracefs_sim("run", "--workload", "none", *options, "-c", script, timeout=170)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_fetch_args_read_the_kernels_page_tables_past_the_direct_map():
    """A struct page lives in the vmemmap (and a large BPF map in the vmalloc area): kernel
    addresses past the direct map, mapped by the kernel's page tables. A fetch through one reads
    it, as 6.1's (copy_from_kernel_nofault), never a fault."""
    out = run(f"""
echo 'p:pg __free_pages page=$arg1 s=+0($arg1):string' >> {T}/kprobe_events
echo 1 > {T}/events/kprobes/pg/enable
tracefs-sim exec cat /proc/version >/dev/null
echo 0 > {T}/events/kprobes/pg/enable
echo '== trace'; grep -av '^#' {T}/trace
""")
    trace = section(out, "trace")
    assert trace and all(re.match(RECORD + r"pg: \(__free_pages\+0x0/0x[0-9a-f]+\) page=0xffffea[0-9a-f]{10} s=",
                                  line) for line in trace), trace
    assert not [line for line in trace if "(fault)" in line], trace


def test_fetch_args_through_bad_pointers_print_as_linux_prints_a_fault():
    # do_sys_openat2(int dfd, ...): %di is AT_FDCWD (-100), no address anyone can read. The
    # line Linux 6.1 prints for the same probe (real-tracefs, cat /proc/version) is:
    #   cat-101 [001] ..... 2.427889: bad: (do_sys_openat2+0x0/0x170) s=(fault) u=0 us=(fault) n=0 sym=0x0
    out = run(f"""
echo 'p:bad do_sys_openat2 s=+0(%di):string u=+0(%di):u64 us=+0(%di):ustring n=+0(\\0):u32 \
sym=+8(+0(%di)):symbol' >> {T}/kprobe_events
echo 1 > {T}/events/kprobes/bad/enable
echo '== cat'; tracefs-sim exec cat /proc/version
echo 0 > {T}/events/kprobes/bad/enable
echo '== trace'; grep -v '^#' {T}/trace
echo '== again'; tracefs-sim exec cat /proc/version
""")
    trace = section(out, "trace")
    assert trace and all(re.match(RECORD + r"bad: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) s=\(fault\) u=0 "
                                           r"us=\(fault\) n=0 sym=0x0$", line) for line in trace), trace
    assert any(line.lstrip().startswith("cat-") for line in trace), trace
    assert section(out, "cat") == section(out, "again") != []


def _instructions(listing: list[str]) -> tuple[int, list[int]]:
    """(function address, offsets of its instructions) from `tracefs-sim disasm FUNC`."""
    base = int(re.match(r"^([0-9a-f]{16}) <\w+>:$", listing[0]).group(1), 16)
    # (a long instruction's bytes go on over a second line, objdump's way: no mnemonic there)
    return base, [int(line.split(":")[0], 16) - base for line in listing[1:] if len(line.split("\t")) >= 3]


def test_a_probe_on_every_instruction_of_a_function():
    # vfs_read holds calls (direct and indirect), conditional and unconditional jumps, a cmov,
    # its ret(s) and padding: every instruction boundary gets a probe, optimized where the engine
    # can, then all as int3. dd must still copy the file exactly.
    out = run(f"""
echo '== disasm'; tracefs-sim disasm vfs_read
base=$(tracefs-sim disasm vfs_read | sed -n '1s/ .*//p')
for a in $(tracefs-sim disasm vfs_read | awk -F'\t' 'NR > 1 && NF >= 3 {{ sub(/:.*/, "", $1); print $1 }}'); do
    off=$((0x$a - 0x$base)); echo "p:kprobes/i$off vfs_read+$off" >> {T}/kprobe_events || echo "refused $off"
done
echo '== reference'; tracefs-sim exec dd if=/etc/passwd bs=7 | md5sum; tracefs-sim exec cat /etc/passwd | wc -c
echo 1 > {T}/events/kprobes/enable
echo '== optimized'; grep -c OPTIMIZED /sys/kernel/debug/kprobes/list
echo '== probed'; tracefs-sim exec dd if=/etc/passwd bs=7 | md5sum
echo 0 > {OPT}
echo '== int3'; grep -c OPTIMIZED /sys/kernel/debug/kprobes/list; tracefs-sim exec dd if=/etc/passwd bs=7 | md5sum
echo '== profile'; cat {T}/kprobe_profile
echo 0 > {T}/events/kprobes/enable; echo > {T}/kprobe_events
echo '== restored'; tracefs-sim disasm vfs_read
""")
    listing = section(out, "disasm")
    base, offsets = _instructions(listing)
    assert len(offsets) > 30 and "refused" not in out
    reference = section(out, "reference")
    assert int(section(out, "optimized")[0]) > 0
    # dd's output (the file and its counts: `exec` passes stdout and stderr) is unchanged
    assert section(out, "probed") == reference[:1]
    assert section(out, "int3") == ["0"] + reference[:1]
    assert section(out, "restored") == listing           # every byte back as it was
    hits = {int(line.split()[0][1:]): int(line.split()[1]) for line in section(out, "profile")}
    assert sorted(hits) == offsets
    # The control flow the counts must follow: the first instructions run on every call; each
    # call leaves by one of the rets; the padding after the rets never runs.
    code = {int(l.split(":")[0], 16) - base: l.split("\t")[-1] for l in listing[1:] if len(l.split("\t")) >= 3}
    rets = [off for off, text in code.items() if text.startswith("ret")]
    padding = [off for off, text in code.items() if text.startswith("nop") and "ftrace site" not in text]
    calls = hits[0]
    assert calls >= 2 * (1 + int(reference[1]) // 7)     # two dd runs, 7 bytes a read
    assert hits[offsets[1]] == hits[offsets[2]] == calls
    assert sum(hits[off] for off in rets) == calls and rets   # (one ret or several: gcc's choice)
    assert padding and all(hits[off] == 0 for off in padding)


def _probe_events(out: str) -> list[tuple[str, str, str | None, str | None]]:
    """(event, function or return site, returned-from function, level) of each trace line."""
    events = []
    for line in section(out, "trace"):
        m = re.match(r"^ +\S+-\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: (\w+): \((\w+)\+0x[0-9a-f]+/0x[0-9a-f]+"
                     r"(?: <- (\w+))?\)(?: level=(\d+))?$", line)
        assert m, line
        events.append(m.groups())
    return events


def _profile(out: str) -> dict[str, tuple[int, int]]:
    return {l.split()[0]: (int(l.split()[1]), int(l.split()[2])) for l in section(out, "profile")}


# free_pgtables(table, level) recurses through the page-table levels when a process's mm goes
# (mmput, after each program's exit and exec).
RECURSION = f"""
echo 1 > {T}/events/kprobes/enable
echo '== cat'; tracefs-sim exec cat /etc/hostname
echo 0 > {T}/events/kprobes/enable
echo '== trace'; grep -v '^#' {T}/trace
echo '== profile'; cat {T}/kprobe_profile
echo '== again'; tracefs-sim exec cat /etc/hostname
"""


def test_a_kretprobe_on_a_recursive_function_sees_every_return():
    # The default pool (maxactive 10 on 1 CPU) holds the whole depth: every call returns
    # through the probe, innermost first. (One CPU: no other mm goes at the same time.)
    out = run(f"echo 'p:ent free_pgtables level=%si:s32' >> {T}/kprobe_events;"
              f"echo 'r:ret free_pgtables' >> {T}/kprobe_events;" + RECURSION, "--cpus", "1")
    assert section(out, "cat") == section(out, "again") != []
    events = _probe_events(out)
    entries = [e for e in events if e[0] == "ent"]
    returns = [e for e in events if e[0] == "ret"]
    # (the compiler inlined the top level's loop into mmput, which calls it for level 3)
    top = max(int(e[3]) for e in entries)
    assert entries and min(int(e[3]) for e in entries) < top
    assert len(returns) == len(entries) and _profile(out) == {"ent": (len(entries), 0), "ret": (len(entries), 0)}
    # A top-level call returns to mmput; each deeper one to free_pgtables itself, before its caller.
    depth = 0
    for name, where, returned_from, level in events:
        if name == "ent":
            assert int(level) == top - depth
            depth += 1
        else:
            depth -= 1
            assert (where, returned_from) == ("mmput" if depth == 0 else "free_pgtables", "free_pgtables")
    assert depth == 0


def test_a_kretprobe_pool_of_one_on_a_recursive_function_counts_misses():
    # maxactive 1: only the outermost call gets an instance; the nested ones are misses.
    out = run(f"echo 'p:ent free_pgtables' >> {T}/kprobe_events;"
              f"echo 'r1:one free_pgtables' >> {T}/kprobe_events;" + RECURSION, "--cpus", "1")
    assert section(out, "cat") == section(out, "again") != []
    events = _probe_events(out)
    calls = sum(e[0] == "ent" for e in events)
    outermost = [e for e in events if e[0] == "one"]
    assert outermost and all(e[1:3] == ("mmput", "free_pgtables") for e in outermost)
    assert calls > len(outermost)
    assert _profile(out)["one"] == (len(outermost), calls - len(outermost))


LINE = re.compile(r"^ +\S+-\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: (\w+): \((.+?)(?: <- (\w+))?\)(?: level=-?\d+)?$")
TWO_KRETPROBES = (f"echo 'p:ent free_pgtables' >> {T}/kprobe_events;"
                  f"echo 'r:ret free_pgtables' >> {T}/kprobe_events;"
                  f"echo 'r:two free_pgtables' >> {T}/kprobe_events;" + RECURSION)


def _returns_of_two_kretprobes(out: str) -> tuple[list[str], list[str]]:
    """(ret's return sites, two's) of a TWO_KRETPROBES run, checked for their pairing."""
    assert section(out, "cat") == section(out, "again") != []
    events = []
    for line in section(out, "trace"):
        m = LINE.match(line)
        assert m, line
        events.append(m.groups())
    calls = sum(e[0] == "ent" for e in events)
    returns = [e for e in events if e[0] != "ent"]
    # Each call took an instance of both (their own pools, no miss); at its return the most
    # recent one runs first: ret's (taken second), then two's.
    assert calls and [e[0] for e in returns] == ["ret", "two"] * calls
    assert all(e[2] == "free_pgtables" for e in returns)
    assert _profile(out) == {"ent": (calls, 0), "ret": (calls, 0), "two": (calls, 0)}
    return [e[1] for e in returns[0::2]], [e[1] for e in returns[1::2]]


def test_two_kretprobes_on_one_recursive_function():
    # Both swap the same return address: one trampoline per call, each instance restoring what
    # it found (two's: the caller; ret's: the trampoline two put there). The kernel runs on.
    out = run(TWO_KRETPROBES, "--cpus", "1")
    ret_sites, two_sites = _returns_of_two_kretprobes(out)
    # two's instance holds the real caller: mmput for a top-level call, else free_pgtables
    assert {re.sub(r"\+.*", "", site) for site in two_sites} == {"mmput", "free_pgtables"}
    assert "mmput" in two_sites[-1]
    assert len(set(ret_sites)) == 1 and ret_sites[0] not in two_sites


def test_a_return_address_at_the_trampoline_prints_as_linux_prints_it():
    # Linux 6.1 (real-tracefs, two kretprobes on vfs_read):
    #   /* a: ([unknown/kretprobe'd] <- vfs_read) */   /* b: (ksys_read+0x6b/0xf0 <- vfs_read) */
    ret_sites, _ = _returns_of_two_kretprobes(run(TWO_KRETPROBES, "--cpus", "1"))
    assert set(ret_sites) == {"[unknown/kretprobe'd]"}


DEBUG = "/sys/kernel/debug/kprobes"


def _debug_list(lines: list[str]) -> dict[str, str]:
    """kind + symbol+offset -> flags, of debug/kprobes/list lines (their order is by address hash)."""
    found = {}
    for line in lines:
        m = re.fullmatch(r"ffffffff[0-9a-f]{8}  ([kr]  \S+)    (.*)", line)
        assert m, line
        found[m.group(1)] = m.group(2)
    return found


def test_kprobes_enabled_disarms_and_rearms_every_probe():
    # debug/kprobes/enabled (kernel/kprobes.c, checked on real-tracefs): 0 disarms every probe
    # (text restored, [OPTIMIZED] gone) without touching their own enable state; enabling a
    # probe meanwhile leaves it [DISABLED] and unarmed even after 1 re-arms the others;
    # kstrtobool_from_user() parses the write.
    out = run(f"""
echo 'p:mid do_sys_openat2+6' >> {T}/kprobe_events
echo 'r:ret vfs_read' >> {T}/kprobe_events
echo 'p:w vfs_write' >> {T}/kprobe_events
echo '== original'; tracefs-sim disasm do_sys_openat2 | sed -n 4p
echo 1 > {T}/events/kprobes/mid/enable; echo 1 > {T}/events/kprobes/ret/enable
echo '== armed'; cat {DEBUG}/enabled {DEBUG}/list; tracefs-sim disasm do_sys_openat2 | sed -n 4p
echo 0 > {DEBUG}/enabled; echo 'n' > {DEBUG}/enabled
echo '== disarmed'; cat {DEBUG}/enabled {DEBUG}/list; tracefs-sim disasm do_sys_openat2 | sed -n 4p
echo '== before'; cat {T}/kprobe_profile
tracefs-sim exec cat /etc/hostname >/dev/null
echo '== while disarmed'; cat {T}/kprobe_profile
echo 1 > {T}/events/kprobes/w/enable
echo '== w'; cat {T}/events/kprobes/w/enable; grep vfs_write {DEBUG}/list
for v in 2 ' 1' x; do printf '%s' "$v" > {DEBUG}/enabled 2>/dev/null || echo "refused [$v] $(cat {DEBUG}/enabled)"; done
printf on > {DEBUG}/enabled
echo '== rearmed'; cat {DEBUG}/enabled {DEBUG}/list; tracefs-sim disasm do_sys_openat2 | sed -n 4p
tracefs-sim exec cat /etc/hostname
echo '== profile'; cat {T}/kprobe_profile
""")
    armed, disarmed, rearmed = section(out, "armed"), section(out, "disarmed"), section(out, "rearmed")
    original = section(out, "original")[0]
    probes = {"k  do_sys_openat2+0x6": "[OPTIMIZED]", "r  vfs_read+0x0": "[FTRACE]",
              "k  vfs_write+0x0": "[DISABLED][FTRACE]"}
    assert armed[0] == "1" and _debug_list(armed[1:4]) == probes
    assert re.search(r"\sjmp\s", armed[4]) and armed[4] != original
    assert disarmed[0] == "0" and _debug_list(disarmed[1:4]) == {**probes, "k  do_sys_openat2+0x6": ""}
    assert disarmed[4] == original
    # the program run while disarmed hits nothing (the session's shell hit the probes before:
    # its redirections open files and read its script)
    assert section(out, "while disarmed") == section(out, "before")
    w = section(out, "w")
    assert w[0] == "1" and _debug_list(w[1:2]) == {"k  vfs_write+0x0": "[DISABLED][FTRACE]"}
    assert [l for l in out.splitlines() if l.startswith("refused")] == [
        "refused [2] 0", "refused [ 1] 0", "refused [x] 0"]
    assert rearmed[0] == "1" and _debug_list(rearmed[1:4]) == probes
    assert re.search(r"\sjmp\s", rearmed[4]) and rearmed[5:] == [Path("/etc/hostname").read_text().strip()]
    profile = _profile(out)
    assert profile["mid"][0] > 0 and profile["ret"][0] > 0 and profile["w"] == (0, 0)


def test_programs_crash_under_probes_and_the_kernel_goes_on():
    # `fault KIND` dies by a CPU exception in user mode; the kernel kills it by the signal, as
    # Linux kills a process with no handler (a shell shows 128 + the signal). Probes sit on
    # the exit path (an entry probe with an argument, a kretprobe on mmput, an int3 probe in
    # the middle of do_group_exit's caller chain) while it happens.
    out = run(f"""
echo 'p:ex do_group_exit code=%di:s32' >> {T}/kprobe_events
echo 'r:mm mmput' >> {T}/kprobe_events
echo 'p:mid vfs_read+{_second_instruction("vfs_read"):#x}' >> {T}/kprobe_events
echo 1 > {T}/events/kprobes/enable
for kind in segv ill fpe trap; do tracefs-sim exec fault $kind; echo "== $kind $?"; done
echo '== cat'; tracefs-sim exec cat /etc/hostname
echo 0 > {T}/events/kprobes/enable
echo '== trace'; grep -v '^#' {T}/trace
echo '== profile'; cat {T}/kprobe_profile
""")
    for kind, signal in (("segv", 11), ("ill", 4), ("fpe", 8), ("trap", 5)):
        assert f"== {kind} {128 + signal}" in out, out
    assert section(out, "cat") != []
    exits = [int(m.group(1)) for m in (re.match(r"^ +fault-\d+ .* ex: \(do_group_exit\+0x0/0x[0-9a-f]+\) "
                                                 r"code=(\d+)$", l) for l in section(out, "trace")) if m]
    assert exits == [11, 4, 8, 5]
    profile = _profile(out)
    assert profile["mm"][0] >= 4 and profile["mid"][0] > 0, profile      # the daemon still answers
