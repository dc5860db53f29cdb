"""The uprobe engine on a booted machine: a static glibc program's function probed by file
offset hits in the process and in its forked child, a uretprobe sees the return value, an
armed point's int3 sits in the mapped page and disarming puts the original byte back, other
programs stay clean, and uprobe_register()'s errnos."""
import errno
import struct
import subprocess
import time
from pathlib import Path

import pytest

from kernel_paths import kernel_visible
from tracefs_sim.probes.kprobes.guest import GuestRecord
from tracefs_sim.probes.uprobes import ENOTSUPP, GUEST_CONSUMERS
from tracefs_sim.stack import build_stack

REPO = Path(__file__).resolve().parents[2]
PROGTEST = kernel_visible(REPO / "kernel_model" / "build" / "user" / "progtest.elf")
BUSYBOX = Path("/bin/busybox")


def file_offset(path: Path, symbol: str) -> int:
    """The file offset of a symbol's address (the PT_LOAD that holds it)."""
    addr = next(int(line.split()[0], 16) for line in subprocess.run(
        ["nm", str(path)], capture_output=True, text=True, check=True).stdout.splitlines()
        if line.split()[-1] == symbol)
    data = path.read_bytes()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_vaddr <= addr < p_vaddr + p_filesz:
            return addr - p_vaddr + p_offset
    raise AssertionError(symbol)


def inode_of(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_dev, st.st_ino


class Hits:
    def __init__(self):
        self.hits = []

    def __call__(self, hit):
        self.hits.append((hit.comm(), hit.ip, hit.ret_ip, hit.reg("di"), hit.retval()))


@pytest.fixture
def stack(make_machine):
    m = make_machine(cpus=2)
    s = build_stack(m)
    assert s.core.uprobes is not None
    return m, s.core.uprobes.engine


def run(m, argv, timeout=120):
    out = []
    proc = m.spawn(argv, out.append)
    assert proc.wait(timeout) is not None, argv
    return b"".join(out)


def register(engine, path: Path, offset: int, on_hit, is_return=False):
    return engine.register(str(path), inode_of(path), path.stat().st_size, offset, 0, is_return=is_return,
                           on_hit=on_hit)


def mapped_bytes(m, engine, consumer) -> list[int]:
    """The probed byte in every page mapped now (read with the CPUs stopped)."""
    found = []

    def collect(ram, tasks):
        found.extend(ram.read(pa, 1)[0] for pa in engine._mapped(ram, tasks, consumer.point))
        return []
    m.poke_user_text(collect)
    return found


def test_uprobe_hits_parent_and_forked_child(stack):
    m, engine = stack
    hits = Hits()
    c = register(engine, PROGTEST, file_offset(PROGTEST, "__libc_write"), hits)
    out = run(m, [str(PROGTEST), "fork"])
    assert b"child sees 2" in out
    base = 0x400000  # a non-PIE program: the file's offset 0 is mapped there
    addr = base + file_offset(PROGTEST, "__libc_write")
    assert hits.hits and all(ip == addr for _, ip, _, _, _ in hits.hits)
    fds = {fd for _, _, _, fd, _ in hits.hits}
    assert 1 in fds  # the parent's (and the child's) stdout
    assert any(fd not in (1, 2) for fd in fds)  # the child's write into the pipe
    assert c.nhit == len(hits.hits)
    c.unregister()
    hits.hits.clear()
    run(m, [str(PROGTEST), "fork"])
    assert hits.hits == []


def test_uretprobe_sees_the_return(stack):
    m, engine = stack
    hits = Hits()
    offset = file_offset(PROGTEST, "__uname")
    c = register(engine, PROGTEST, offset, hits, is_return=True)
    out = run(m, [str(PROGTEST), "uname"])
    assert out  # it printed its uname as usual
    assert hits.hits, out
    comm, ip, ret_ip, _, retval = hits.hits[0]
    assert ip == 0x400000 + offset and retval == 0
    assert 0x401000 <= ret_ip < 0x48e000  # back in the program's text
    c.unregister()


def test_disarm_restores_the_mapped_bytes_and_other_programs_stay_clean(stack):
    m, engine = stack
    original = PROGTEST.read_bytes()
    out = []
    proc = m.spawn([str(BUSYBOX), "sleep", "3"], out.append)
    time.sleep(1.0)  # let it reach its sleep: its entry page is mapped then (any time later is fine)
    entry = struct.unpack_from("<Q", BUSYBOX.read_bytes(), 0x18)[0] - 0x400000
    hits = Hits()
    other = register(engine, PROGTEST, file_offset(PROGTEST, "main"), hits)
    assert mapped_bytes(m, engine, other) == []  # busybox does not map progtest
    c = register(engine, BUSYBOX, entry, hits)
    assert mapped_bytes(m, engine, c) in ([0xCC], [])  # present: the int3 (gone already: nothing)
    c.unregister()
    assert set(mapped_bytes(m, engine, c)) <= {BUSYBOX.read_bytes()[entry]}
    other.unregister()
    assert proc.wait(120) == 0
    assert PROGTEST.read_bytes() == original


def test_a_page_mapped_while_armed_gets_the_int3_and_loses_it_at_disarm(stack):
    m, engine = stack
    entry = struct.unpack_from("<Q", BUSYBOX.read_bytes(), 0x18)[0] - 0x400000
    hits = Hits()
    c = register(engine, BUSYBOX, entry, hits)
    proc = m.spawn([str(BUSYBOX), "sleep", "3"], lambda b: None)
    deadline = time.monotonic() + 60
    while not hits.hits and time.monotonic() < deadline:
        time.sleep(0.1)
    assert hits.hits and hits.hits[0][1] == 0x400000 + entry
    assert mapped_bytes(m, engine, c) == [0xCC]  # exec faulted the page in with the int3
    c.unregister()
    assert mapped_bytes(m, engine, c) == [BUSYBOX.read_bytes()[entry]]
    assert proc.wait(120) == 0


def test_register_errnos(stack):
    m, engine = stack
    size = PROGTEST.stat().st_size
    with pytest.raises(OSError) as e:
        engine.register(str(PROGTEST), inode_of(PROGTEST), size, size + 1, 0, is_return=False, on_hit=print)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(OSError) as e:
        engine.register(str(PROGTEST), inode_of(PROGTEST), size, 0x1000, 3, is_return=False, on_hit=print)
    assert e.value.errno == errno.EINVAL
    data = PROGTEST.read_bytes()
    int3_at = data.index(b"\xcc", 0x1000)
    with pytest.raises(OSError) as e:
        engine.register(str(PROGTEST), inode_of(PROGTEST), size, int3_at, 0, is_return=False, on_hit=print)
    assert e.value.errno == ENOTSUPP


def test_uretprobe_on_fork_returns_in_parent_and_child(stack):
    """A uretprobe on fork(): the child inherits the pending return (and the XOL page), so both
    return through the trampoline, the child with 0 and the parent with the child's pid."""
    m, engine = stack
    hits = Hits()
    c = register(engine, PROGTEST, file_offset(PROGTEST, "__libc_fork"), hits, is_return=True)
    out = run(m, [str(PROGTEST), "fork"])
    assert b"parent sees 1, child exited 7" in out, out
    retvals = sorted(r for _, _, _, _, r in hits.hits)
    assert len(retvals) == 2 and retvals[0] == 0 and retvals[1] > 0, hits.hits
    c.unregister()


def test_a_point_takes_as_many_guest_consumers_as_the_guest_holds(stack):
    """Consumers with no handler of the host's are the guest's alone: a point takes
    GUEST_CONSUMERS of them each way (at the hit, at the return), the next is ENOMEM and
    changes nothing; one with a Python handler may still come, running at the doorbell."""
    m, engine = stack
    size, offset = PROGTEST.stat().st_size, file_offset(PROGTEST, "__uname")
    program = GuestRecord(0, (), 0)
    taken = [engine.register(str(PROGTEST), inode_of(PROGTEST), size, offset, 0, is_return=False, guest=program)
             for _ in range(GUEST_CONSUMERS)]
    try:
        with pytest.raises(OSError) as e:
            engine.register(str(PROGTEST), inode_of(PROGTEST), size, offset, 0, is_return=False, guest=program)
        assert e.value.errno == errno.ENOMEM
        back = engine.register(str(PROGTEST), inode_of(PROGTEST), size, offset, 0, is_return=True, guest=program)
        taken.append(back)  # the return's consumers are counted apart
        with pytest.raises(OSError) as e:  # (the host's would push one of the guest's past it)
            engine.register(str(PROGTEST), inode_of(PROGTEST), size, offset, 0, is_return=False, on_hit=print)
        assert e.value.errno == errno.ENOMEM
        run(m, [str(PROGTEST), "uname"])
        hits = [c.nhit for c in taken]
        assert hits[0] >= 1 and hits == [hits[0]] * (GUEST_CONSUMERS + 1)
    finally:
        for c in taken:
            c.unregister()
