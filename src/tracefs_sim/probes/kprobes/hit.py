"""A hit of a host-handled probe: the probed context its handlers read (ProbeHit implements
the tracing core's FetchContext) and the records they stage for the guest to commit.

Host handlers never write the ring: ProbeHit.record() stages the record in the CPU's
probe_stage, and the guest's probe_commit_stub commits it.  An aggregate of N probes has N-1
further commit calls in its out-of-line code, each hooked to stage the hit's next record
(ProbeStage.on_extra_commit).  A hit that finds the stage taken (a probe hit from the commit
path itself) runs no handler and counts as missed, as Linux counts a reentered kprobe."""
from __future__ import annotations

import struct

from ...machine.contract import TASK_SIZE, THREAD_SIZE, KernelSymbols, PatchableImage
from ...machine.hooks import HookContext
from ...machine.image import KERNEL_MAP, PAGE_OFFSET
from .point import required_symbol
from .regs import Regs

_STAGE_HEAD = struct.Struct("<IHHIIQQ")  # struct probe_stage up to data
_SLOTS_MASK = (1 << 64) - 1  # a record's slots: the low bits of its file word, its triggers above
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")

# a record staged: (event type, trace-array slots, flags, payload)
Record = tuple[int, int, int, bytes]


class ProbeStage:
    """probe_stage[cpu] (include/trace/probe_stage.h): one staged record per CPU, which the
    guest's probe_commit_stub commits (it keeps every register and the flags); and the records
    of an aggregate's hit after the first, waiting per task for the point's extra commit
    calls."""

    def __init__(self, image: PatchableImage, nr_cpus: int):
        stage_va = required_symbol(image, "probe_stage")
        size = image.abi_value("sizeof(probe_stage)")
        if image.abi_value("probe_stage.data") != _STAGE_HEAD.size:
            raise RuntimeError("kernel image's probe_stage layout does not match this host")
        self.max_payload = image.abi_value("PROBE_STAGE_MAX")  # a record's bytes after its header
        # probe_stage[cpu] in physical RAM (the kernel image's linear map)
        self._pa = [stage_va - KERNEL_MAP + cpu * size for cpu in range(nr_cpus)]
        self.commit_stub = required_symbol(image, "probe_commit_stub")
        self._deferred: dict[int, list[Record]] = {}  # task -> records for its extra commit calls

    def busy(self, ctx: HookContext) -> bool:
        """A record staged on this CPU and not committed yet."""
        return bool(_U32.unpack_from(ctx.ram, self._pa[ctx.cpu])[0])

    def put(self, ctx: HookContext, event_type: int, slots: int, flags: int, payload: bytes) -> bool:
        """Stage a record on this CPU; False: one is staged already (reentered)."""
        ram, pa = ctx.ram, self._pa[ctx.cpu]
        if _U32.unpack_from(ram, pa)[0]:
            return False
        data = pa + _STAGE_HEAD.size
        ram[data:data + len(payload)] = payload
        # len last: it is what the guest's stub tests
        _STAGE_HEAD.pack_into(ram, pa, len(payload), event_type, 0, flags & 0xFFFFFFFF, 0, slots & _SLOTS_MASK,
                              slots >> 64)
        return True

    def defer(self, ctx: HookContext, records: list[Record]) -> None:
        """Records for the extra commit calls the task runs next (per task: it may migrate
        between two of them)."""
        self._deferred[ctx.current_task_addr()] = records

    def on_extra_commit(self, ctx: HookContext) -> None:
        """An extra commit call of a point (a code hook): stage the hit's next record."""
        task = ctx.current_task_addr()
        queue = self._deferred.get(task)
        if not queue:
            return
        event_type, slots, flags, payload = queue.pop(0)
        if not queue:
            del self._deferred[task]
        self.put(ctx, event_type, slots, flags, payload)


class ProbeHit:
    """One hit of a probe point: the probed context (implements trace/probe_args.FetchContext)
    and record staging."""

    __slots__ = ("ip", "ret_ip", "cpu", "_regs", "_ctx", "_stage", "_image", "staged", "missed", "queue",
                 "capacity")

    def __init__(self, stage: ProbeStage, image: KernelSymbols, ctx: HookContext, regs: Regs, ip: int,
                 ret_ip: int = 0, capacity: int = 0):
        self.ip = ip
        self.ret_ip = ret_ip
        self.cpu = ctx.cpu
        self._regs = regs
        self._ctx = ctx
        self._stage = stage
        self._image = image
        self.staged = False
        self.missed = False
        self.queue: list[Record] = []  # records after the first
        self.capacity = capacity  # how many the armed code has commit calls for

    # ---- FetchContext ----
    def reg(self, name: str) -> int:
        regs = self._regs  # (Regs.__getitem__ inline: the host handlers' hot path)
        if name == "ip":
            return regs.ip
        i = regs.index.get(name)
        return regs[name] if i is None else regs.values[i]

    def stack(self, n: int) -> int:
        """regs_get_kernel_stack_nth(): 0 past the end of the kernel stack."""
        sp = self._regs["sp"]
        addr = sp + 8 * n
        if (addr & ~(THREAD_SIZE - 1)) != (sp & ~(THREAD_SIZE - 1)):
            return 0
        raw = self._ctx.read(addr, 8)
        return 0 if raw is None else int(_U64.unpack(raw)[0])

    def read_kernel(self, addr: int, size: int) -> bytes | None:
        if addr >= PAGE_OFFSET:  # the linear maps (HookContext.read's fast path, inline)
            ctx = self._ctx
            pa = addr - (KERNEL_MAP if addr >= KERNEL_MAP else PAGE_OFFSET)
            return ctx.ram[pa:pa + size] if pa + size <= ctx.ram_size and size > 0 else ctx.read(addr, size)
        if addr < TASK_SIZE:  # copy_from_kernel_nofault() refuses user addresses
            return None
        return self._ctx.read(addr, size)

    def read_user(self, addr: int, size: int) -> bytes | None:
        if addr + size > TASK_SIZE:
            return None
        return self._ctx.read(addr, size)

    def read_string(self, addr: int, user: bool, limit: int) -> bytes | None:
        if user != (addr < TASK_SIZE):
            return None
        return self._ctx.read_string(addr, limit)

    def comm(self) -> bytes:
        return self._ctx.current_comm()

    def retval(self) -> int:
        regs = self._regs
        return regs.values[regs.index["ax"]]

    def symbolize(self, addr: int) -> tuple[str, int, int] | None:
        found = self._image.kallsyms_lookup(addr)
        return None if found is None else (found[0].name, found[1], found[2])

    # ---- recording ----
    def record(self, event_type: int, slots: int, payload: bytes) -> None:
        """Stage one record for the guest to commit (probe_stage); the records after the first
        wait for the point's extra commit calls."""
        regs = self._regs
        flags = regs.values[regs.index["flags"]]
        if len(payload) > self._stage.max_payload:
            self.missed = True
        elif self.staged:
            if len(self.queue) < self.capacity:
                self.queue.append((event_type, slots, flags, payload))
            else:
                self.missed = True
        elif self._stage.put(self._ctx, event_type, slots, flags, payload):
            self.staged = True
        else:
            self.missed = True
