"""A machine with a few kernel functions and a fake kprobe engine with the exact API of
probes.kprobes.KprobeEngine (contract section 3), for the kprobe_events tests."""

from __future__ import annotations

import errno
import struct
import threading
from types import SimpleNamespace

from fakes import FAKE_VERSION, FakeImage, FakeMachine, FakeSymbol
from tests.probe_fetch_reference import record_body
from tracefs_sim.probes.kprobes import default_maxactive

BASE = 0xFFFFFFFF81000000
NOP5 = b"\x0f\x1f\x44\x00\x00"

# name -> (offset from BASE, size, traceable, instruction starts)
FUNCTIONS = {
    "do_sys_open": (0x1000, 0x40, True, {0, 5, 8, 12, 17}),
    "vfs_read": (0x2000, 0x310, True, {0, 5, 6, 9, 13, 0x20}),
    "ksys_read": (0x3000, 0xF0, True, {0, 5, 0x6B}),
    "schedule": (0x4000, 0x80, True, {0, 5}),
    "native_irq_notrace": (0x5000, 0x20, False, {0, 1}),
    "kprobe_blacklisted": (0x6000, 0x20, True, {0, 5}),
}
VERSION_ADDR = BASE + 0x10000


def addr_of(name: str, offset: int = 0) -> int:
    return BASE + FUNCTIONS[name][0] + offset


def guest_record(hit, entry) -> None:
    """What a probe event's record program makes in the guest at a hit (kernel/trace_probe.c),
    as the fakes play it: the reference interpreter's record of the event's arguments
    (entry: the TraceKprobe or TraceUprobe), in the slots its event records in."""
    event = entry.event
    if event.file_slots:
        hit.record(event.id, event.file_slots,
                   record_body(entry.spec.args, entry.spec.head_size, hit, hit.ip, hit.ret_ip))


def kprobe_image() -> FakeImage:
    """The fake image with the functions the kprobe tests probe."""
    symbols = sorted([FakeSymbol(n, BASE + o, s) for n, (o, s, _, _) in FUNCTIONS.items()] +
                     [FakeSymbol("_stext", BASE, 0x100),
                      FakeSymbol("linux_banner", VERSION_ADDR, len(FAKE_VERSION) + 1, "D"),
                      FakeSymbol("jiffies", VERSION_ADDR + 0x1000, 8, "D")],
                     key=lambda s: s.addr)
    return FakeImage(symbols=symbols,
                     mcount_sites={n: BASE + o for n, (o, _, traceable, _) in FUNCTIONS.items() if traceable})


class KprobeMachine(FakeMachine):
    def __init__(self, cpus: int = 2):
        from fakes import FakeOptions
        super().__init__(FakeOptions(cpus=cpus))
        self.image = kprobe_image()

    def read_memory(self, vaddr: int, size: int) -> bytes:
        if VERSION_ADDR <= vaddr < VERSION_ADDR + 0x1000:
            data = FAKE_VERSION + b"\0"
            return data[vaddr - VERSION_ADDR:vaddr - VERSION_ADDR + size]
        found = self.image.symbolize(vaddr)
        if found is not None and found[0].type == "T":
            # Every function starts with its ftrace nop; the rest reads as int3 padding here.
            text = NOP5 + b"\xcc" * found[0].size
            return text[found[1]:found[1] + size]
        raise ValueError(f"{vaddr:#x}+{size} is not kernel memory")


class FakeKprobe:
    def __init__(self, engine, addr, on_hit, is_return, maxactive, on_return):
        self.engine = engine
        self.addr = addr
        self.on_hit = on_hit
        self.is_return = is_return
        self.maxactive = maxactive or default_maxactive(engine.machine.nr_cpus)
        self.on_return = on_return
        self.enabled = False
        self.registered = True
        self.record_slots = 0
        self.nhit = 0
        self.nmissed = 0

    def set_record_slots(self, slots: int) -> None:
        self.record_slots = slots

    def enable(self) -> None:
        assert self.registered
        self.enabled = True

    def disable(self) -> None:
        self.enabled = False

    def unregister(self) -> None:
        self.enabled = False
        self.registered = False
        self.engine.probes.remove(self)


class FakeKprobeEngine:
    """register() validates as the contract says (EINVAL for address 0, ENOENT outside the
    kernel's symbols, EILSEQ off an instruction boundary, EINVAL blacklisted or outside a
    function); hit() plays a hit of every armed probe at addr: its handler, or for a probe
    event's (no handler, a guest record program) what the guest makes, found through
    `entries` (the kprobe events' TraceKprobes: the test's core sets it)."""

    def __init__(self, machine: KprobeMachine):
        self.machine = machine
        self.probes: list[FakeKprobe] = []
        self.programs: list[SimpleNamespace] = []  # eprobes' record programs
        self.optimization = True
        self.lock = threading.RLock()
        self._next_guest = 0
        self.perf_calls: dict[int, int] = {}  # guest index -> the kernel's perf call
        self.entries = lambda: ()

    def register(self, addr: int, *, on_hit, is_return: bool = False, maxactive: int = 0, on_return=None,
                 guest=None):
        if not addr:
            raise OSError(errno.EINVAL, "no address")
        symbols = self.machine.image.symbols
        if not symbols[0].addr <= addr < max(s.addr + s.size for s in symbols):
            raise OSError(errno.ENOENT, "kallsyms knows no such address")
        found = self.machine.image.symbolize(addr)
        if found is None or found[0].name not in FUNCTIONS or found[0].name == "kprobe_blacklisted":
            raise OSError(errno.EINVAL, "cannot probe here")
        if found[1] not in FUNCTIONS[found[0].name][3]:
            raise OSError(errno.EILSEQ, "not an instruction boundary")
        kp = FakeKprobe(self, addr, on_hit, is_return, maxactive, on_return)
        # the guest's table entry: an index of its own (none for a probe the guest cannot run)
        kp.guest = None if guest is None else SimpleNamespace(index=self._next_guest)
        self._next_guest += 1
        self.probes.append(kp)
        return kp

    # ---- the kernel's perf calls of guest probes (kprobe_perf_calls[]) ----
    def share_perf_call(self, src, dst) -> None:
        self.perf_calls[dst.index] = self.perf_calls.get(src.index, 0)

    def clear_perf_call(self, probe) -> None:
        self.perf_calls.pop(probe.index, None)

    # ---- record programs without a point (eprobes) ----
    def add_program(self, record):
        program = SimpleNamespace(index=len(self.programs), record=record, slots=0)
        self.programs.append(program)
        return program

    def set_program_slots(self, program, slots: int) -> None:
        program.slots = slots

    def remove_program(self, program) -> None:
        self.programs.remove(program)

    def hit(self, hit: "FakeHit") -> None:
        for kp in list(self.probes):
            if kp.addr == hit.ip and kp.enabled:
                kp.nhit += 1
                handler = kp.on_return if kp.is_return else kp.on_hit
                if handler is not None:
                    handler(hit)
                else:
                    guest_record(hit, next(tk for tk in self.entries() if tk.kprobe is kp))

    # ---- what the debugfs views read (probes.kprobes.debugfs) ----
    @property
    def image(self):
        return self.machine.image

    def hash_order(self) -> list:
        """The probed points (one per probe here: the fake does not aggregate)."""
        return [SimpleNamespace(addr=kp.addr, kind=None, probes=[kp]) for kp in self.probes]


class FakeHit:
    """A ProbeHit: registers, memory and the task of the probed context."""

    def __init__(self, machine: KprobeMachine, ip: int, *, regs=None, memory=None, comm=b"cat", pid=118,
                 ret_ip: int = 0, retval: int = 0, cpu: int = 0, ts: int = 1000):
        self.machine = machine
        self.ip = ip
        self.ret_ip = ret_ip
        self.cpu = cpu
        self._regs = regs or {}
        self._memory = memory or {}
        self._comm = comm
        self._pid = pid
        self._retval = retval
        self._ts = ts

    def record(self, event_type: int, slots: int, payload: bytes) -> None:
        self.machine.tracing.commit_staged(self.cpu, self._ts, event_type, slots, payload, pid=self._pid)

    # FetchContext
    def reg(self, name):
        return self._regs.get(name, 0)

    def stack(self, n):
        return self._memory.get(("stack", n), 0)

    def _read(self, addr, size):
        for start, data in self._memory.items():
            if isinstance(start, int) and start <= addr and addr + size <= start + len(data):
                return data[addr - start:addr - start + size]
        return None

    read_kernel = _read
    read_user = _read

    def read_string(self, addr, user, limit):
        for start, data in self._memory.items():
            if isinstance(start, int) and start <= addr < start + len(data):
                return data[addr - start:].split(b"\0", 1)[0]
        return None

    def comm(self):
        return self._comm

    def retval(self):
        return self._retval

    def symbolize(self, addr):
        found = self.machine.image.symbolize(addr)
        return None if found is None else (found[0].name, found[1], found[0].size)


def pack_u64(v: int) -> bytes:
    return struct.pack("<Q", v)
