"""kprobe lines and probe points as a real Linux 6.1 prints and accepts them, through
`tracefs-sim run` with echo and cat: symbols sized as kallsyms sizes them (to the next
symbol, data symbols too), the sym-addr option on kprobe and kretprobe lines, and probes on
addresses kallsyms does not know (kept unarmed, as register_trace_kprobe() keeps them)."""

import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SCRIPT = r"""
cd /sys/kernel/tracing
body() { sed -n 's/^.*[0-9]\.[0-9]\{6\}: //p' trace; }
J=$(grep ' jiffies$' /proc/kallsyms | cut -d' ' -f1)
echo '== kallsyms'; cat /proc/kallsyms
echo "p:ent vfs_read+5" > kprobe_events
echo "r:ret vfs_read" >> kprobe_events
echo "p:data vfs_read j=\\0x$J:symbol j8=\\0x$(printf %x $((0x$J + 8))):symbol" >> kprobe_events
echo 'p:away 0xffffffff00000000' >> kprobe_events
echo 'r:away2 0x10' >> kprobe_events
echo 'p:far vfs_read+4294967295' >> kprobe_events; echo "== far $?"
echo '== kprobe_events'; cat kprobe_events
echo 1 > events/kprobes/enable
echo '== away enabled'; cat events/kprobes/away/enable
tracefs-sim exec cat /etc/hostname > /dev/null
echo 0 > events/kprobes/enable
echo '== lines'; body
echo 1 > options/sym-addr
echo '== sym-addr'; body
echo 0 > options/sym-addr
echo '== profile'; cat kprobe_profile
echo '== error_log'; sed 's/^\[[ 0-9.]*\] //' error_log
echo '== end'
"""


def _sections(out: str) -> dict:
    parts = re.split(r"^== (.*)\n", out, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _kallsyms(text: str):
    table = [(int(a, 16), n) for a, _, n in (l.split() for l in text.splitlines())]
    addrs = sorted({a for a, _ in table})

    def lookup(addr):
        """(first name at the address at or below, offset, distance to the next address)."""
        start = max(a for a in addrs if a <= addr)
        name = next(n for a, n in table if a == start)
        return name, addr - start, min(a for a in addrs if a > start) - start
    return {n: a for a, n in reversed(table)}, lookup


def test_kprobe_lines_symbols_and_unknown_addresses(tmp_path):
    script = tmp_path / "probes.sh"
    script.write_text(SCRIPT)
    result = tracefs_sim("run", str(script), timeout=180)
    assert result.returncode == 0, result.stderr
    s = _sections(result.stdout)
    addr_of, lookup = _kallsyms(s["kallsyms"])
    vfs_read = addr_of["vfs_read"]
    _, _, size = lookup(vfs_read)
    assert size > 0
    # An offset past the kernel is ENOENT; addresses kallsyms does not know are kept unarmed.
    assert s["far 1"] == ""
    assert s["kprobe_events"].splitlines()[3:] == ["p:kprobes/away 0x(____ptrval____)",
                                                   "r:kprobes/away2 0x(____ptrval____)"]
    assert s["away enabled"] == "1\n"
    assert s["error_log"].splitlines() == ["trace_kprobe: error: Invalid probed address or symbol",
                                           "  Command: p:far vfs_read+4294967295",
                                           " " * len("  Command: p:far ") + "^"]
    profile = {l.split()[0]: l.split()[1:] for l in s["profile"].splitlines()}
    assert profile["away"] == profile["away2"] == ["0", "0"]
    assert int(profile["ent"][0]) > 0

    # vfs_read+5, sized to the next symbol; the kretprobe's caller and function.
    lines = s["lines"].splitlines()
    ent = [l for l in lines if l.startswith("ent: ")]
    rets = [l for l in lines if l.startswith("ret: ")]
    assert ent and set(ent) == {f"ent: (vfs_read+0x5/{size:#x})"}
    assert rets
    callers = set()
    for line in rets:
        m = re.fullmatch(r"ret: \((\w+)\+0x([0-9a-f]+)/0x([0-9a-f]+) <- vfs_read\)", line)
        assert m, line
        callers.add((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
    for name, off, sym_size in callers:
        assert lookup(addr_of[name] + off) == (name, off, sym_size)
    # jiffies is a data symbol: %pS names it, and the next symbol sizes it.
    jiffies = addr_of["jiffies"]
    data = [l for l in lines if l.startswith("data: ")]
    assert data
    j8 = "%s+0x%x/0x%x" % lookup(jiffies + 8)
    assert set(data) == {f"data: (vfs_read+0x0/{size:#x}) j=jiffies+0x0/{lookup(jiffies)[2]:#x} j8={j8}"}

    # sym-addr adds the address after each symbol of the probe point.
    with_addr = s["sym-addr"].splitlines()
    assert set(l for l in with_addr if l.startswith("ent: ")) == {
        f"ent: (vfs_read+0x5/{size:#x} <{vfs_read + 5:016x}>)"}
    for line in (l for l in with_addr if l.startswith("ret: ")):
        m = re.fullmatch(r"ret: \((\w+)\+0x([0-9a-f]+)/0x[0-9a-f]+ <([0-9a-f]{16})> <- vfs_read <([0-9a-f]{16})>\)",
                         line)
        assert m, line
        assert int(m.group(3), 16) == addr_of[m.group(1)] + int(m.group(2), 16)
        assert int(m.group(4), 16) == vfs_read
