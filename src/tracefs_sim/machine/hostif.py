"""The host side of kernel_model/include/hostif.h: boot params, per-CPU
doorbell arguments, the request mailbox, the task layout."""
from __future__ import annotations

import struct
from dataclasses import dataclass

from .clock import TICK_NS
from .contract import THREAD_SIZE
from .image import KernelImage
from .perf_pool import PerfPool
from .paging import PhysMem, kernel_virt_to_phys
from .session_ring import LOST_OFFSET, PRODUCED_OFFSET, RETIRED_OFFSET, RETIRED_UPTO_OFFSET

# The host's copies of hostif.h's constants and offsets, checked against the image's host ABI
# when a HostInterface is made (_ABI below): a kernel built otherwise is refused at once.
(PORT_IPI, PORT_WRITE, PORT_EXIT, PORT_PANIC, PORT_READY, PORT_SPAWNED, PORT_IDLE, PORT_TRACE, PORT_CODE,
 PORT_IPI_TIMER, PORT_CONSOLE, PORT_SESSION_REPLY, PORT_HOSTFS, PORT_TLB, PORT_UPROBE, PORT_PERF_WAKEUP,
 PORT_KERNEL_REQ, PORT_STDIN, PORT_PMU, PORT_REPLY, PORT_TRACE_FULL, PORT_YIELD, PORT_FENCE) = (
    0x510, 0x511, 0x512, 0x513, 0x514, 0x515, 0x516, 0x517, 0x518, 0x519, 0x51A, 0x51B, 0x51C, 0x51D, 0x51E,
    0x520, 0x521, 0x522, 0x523, 0x524, 0x525, 0x526, 0x527)
WORKLOADS = {"none": 0, "default": 1}
BOOT_MAGIC = 0x74736D6B72656E6C

# struct hostif_cpu (head of each per-CPU area)
CPU_SELF, CPU_ID, CPU_TOP_OF_STACK, CPU_USER_RSP, CPU_NOW_NS, CPU_NEXT_EVENT, CPU_DB_ARG, CPU_USER_STATE = (
    0, 8, 16, 24, 32, 40, 48, 80)
CPU_PMU = 88  # struct hostif_pmu (pmu.py)
NMI_STACK = 88  # struct hostif_pmu's nmi_stack
NMI_STACK_SIZE = 16384  # PMU_NMI_STACK_SIZE
CPU_NOW_TSC = 184  # the host's TSC at now_ns (0: none) and its ns a tick, 32.32: native/runloop.c
HOST_REQ_SLOTS, HOST_REQ_SIZE, HOST_REQ_ARGV = 16, 1024, 1000
HOST_REQ_SPAWN, HOST_REQ_STDIN, HOST_REQ_TRACE_SLOT, HOST_REQ_TRACE_MARKER, HOST_REQ_SYSCTL, HOST_REQ_BLK_TRACE_ATTR = \
    0, 1, 2, 3, 4, 5  # enum host_request_kind
HOST_BLK_TRACE_STORE = 0x100  # a HOST_REQ_BLK_TRACE_ATTR's flags: a store, not a show
# enum host_sysctl: the sysctls whose store the kernel makes
HOST_SYSCTL_BPF_JIT_ENABLE, HOST_SYSCTL_BPF_STATS_ENABLED, HOST_SYSCTL_UNPRIVILEGED_BPF_DISABLED = 0, 1, 2
HOST_SPAWN_STDIN = 1  # a spawn's flags: its stdin is the host's
# struct hostif_hpet: the HPET's comparator and where its interrupt goes
HPET_DEADLINE, HPET_CPU, HPET_VECTOR = 0, 8, 16
HPET_DISARMED = 2**64 - 1  # also a local APIC timer's deadline that is not armed


@dataclass(frozen=True)
class TaskLayout:
    tasks: int
    pid: int
    tgid: int
    comm: int
    state: int
    exit_state: int
    percpu_size: int
    percpu_curr: int
    percpu_idle: int
    percpu_trace_pending: int  # trace data committed since the last trace doorbell
    percpu_trace_clock_step: int  # ns the guest's trace clock advances at least per read


BOOT_MONOTONIC_OFF = 80  # struct boot_params's boot_monotonic_ns (hostif.h)
BOOT_POOL_BIG_OFF = 88  # its perf_pool_big_count, perf_pool_big_size
BOOT_BOOTTIME_OFF = 104  # its boot_boottime_ns

_ABI = {
    **{f"PORT_{name}": value for name, value in (
        ("IPI", PORT_IPI), ("WRITE", PORT_WRITE), ("EXIT", PORT_EXIT), ("PANIC", PORT_PANIC), ("READY", PORT_READY),
        ("SPAWNED", PORT_SPAWNED), ("IDLE", PORT_IDLE), ("TRACE", PORT_TRACE), ("CODE", PORT_CODE),
        ("IPI_TIMER", PORT_IPI_TIMER), ("CONSOLE", PORT_CONSOLE), ("SESSION_REPLY", PORT_SESSION_REPLY),
        ("HOSTFS", PORT_HOSTFS), ("TLB", PORT_TLB), ("UPROBE", PORT_UPROBE), ("PERF_WAKEUP", PORT_PERF_WAKEUP),
        ("KERNEL_REQ", PORT_KERNEL_REQ), ("STDIN", PORT_STDIN), ("PMU", PORT_PMU), ("REPLY", PORT_REPLY),
        ("TRACE_FULL", PORT_TRACE_FULL), ("YIELD", PORT_YIELD), ("FENCE", PORT_FENCE))},
    **{f"hostif_cpu.{name}": value for name, value in (
        ("self", CPU_SELF), ("cpu", CPU_ID), ("top_of_stack", CPU_TOP_OF_STACK), ("user_rsp", CPU_USER_RSP),
        ("now_ns", CPU_NOW_NS), ("next_event_ns", CPU_NEXT_EVENT), ("db_arg", CPU_DB_ARG),
        ("user_state", CPU_USER_STATE), ("pmu", CPU_PMU), ("now_tsc", CPU_NOW_TSC))},
    "HOST_REQ_SLOTS": HOST_REQ_SLOTS, "HOST_REQ_ARGV": HOST_REQ_ARGV, "sizeof(host_request)": HOST_REQ_SIZE,
    "HOST_SPAWN_STDIN": HOST_SPAWN_STDIN, "HOST_REQ_TRACE_SLOT": HOST_REQ_TRACE_SLOT,
    "HOST_REQ_TRACE_MARKER": HOST_REQ_TRACE_MARKER, "HOST_REQ_SYSCTL": HOST_REQ_SYSCTL,
    "HOST_REQ_BLK_TRACE_ATTR": HOST_REQ_BLK_TRACE_ATTR, "HOST_BLK_TRACE_STORE": HOST_BLK_TRACE_STORE,
    "HOST_SYSCTL_BPF_JIT_ENABLE": HOST_SYSCTL_BPF_JIT_ENABLE,
    "HOST_SYSCTL_BPF_STATS_ENABLED": HOST_SYSCTL_BPF_STATS_ENABLED,
    "HOST_SYSCTL_UNPRIVILEGED_BPF_DISABLED": HOST_SYSCTL_UNPRIVILEGED_BPF_DISABLED,
    "hostif_hpet.deadline": HPET_DEADLINE, "hostif_hpet.cpu": HPET_CPU, "hostif_hpet.vector": HPET_VECTOR,
    "boot_params.boot_monotonic_ns": BOOT_MONOTONIC_OFF, "boot_params.perf_pool_big_count": BOOT_POOL_BIG_OFF,
    "boot_params.boot_boottime_ns": BOOT_BOOTTIME_OFF,
    "hostif_pmu.nmi_stack": NMI_STACK, "PMU_NMI_STACK_SIZE": NMI_STACK_SIZE,
    # kernel.h, timer.h: a task's stack (its pt_regs at the top), the tick
    "THREAD_SIZE": THREAD_SIZE, "HZ": 10**9 // TICK_NS,
    # uapi/session_ring.h: the counters the daemon reads
    "session_ring.lost": LOST_OFFSET, "session_ring.produced": PRODUCED_OFFSET,
    "session_ring.retired": RETIRED_OFFSET, "session_ring.retired_upto": RETIRED_UPTO_OFFSET,
}


def check_abi(image: KernelImage) -> None:
    """The host's copies of hostif.h's values are the image's (ValueError naming those not)."""
    wrong = [name for name, value in _ABI.items() if image.abi_value(name) != value]
    if wrong:
        raise ValueError(f"kernel image's host interface does not match this host: {wrong}")


class HostInterface:
    def __init__(self, image: KernelImage, mem: PhysMem):
        check_abi(image)
        self.mem = mem
        self.boot_params = kernel_virt_to_phys(image.addr("boot_params"))
        self.requests = kernel_virt_to_phys(image.addr("host_requests"))
        self.cpu_data_va = image.addr("cpu_data")
        self.task_list_va = image.addr("task_list")
        self.hpet = kernel_virt_to_phys(image.addr("hpet_regs"))
        self.layout = TaskLayout(*struct.unpack("<11Q", image.read(image.addr("host_task_layout"), 88)))

    def percpu_va(self, cpu: int) -> int:
        return self.cpu_data_va + cpu * self.layout.percpu_size

    def percpu_pa(self, cpu: int) -> int:
        return kernel_virt_to_phys(self.percpu_va(cpu))

    def write_boot_params(self, nr_cpus: int, ram_size: int, seed: int | None, workload: str,
                          boot_realtime_ns: int, pool: PerfPool | None = None) -> None:
        self.mem.write(self.boot_params, struct.pack(
            "<10Q", BOOT_MAGIC, nr_cpus, ram_size, seed is not None, (seed or 0) & (2**64 - 1),
            WORKLOADS[workload], boot_realtime_ns, pool.base if pool else 0, pool.count if pool else 0,
            pool.region_size if pool else 0))
        # the pool's big regions, after its boot_monotonic_ns (set_boot_clocks())
        self.mem.write(self.boot_params + BOOT_POOL_BIG_OFF, struct.pack(
            "<2Q", pool.big_count if pool else 0, pool.big_size if pool else 0))
        for cpu in range(nr_cpus):
            pa = self.percpu_pa(cpu)
            self.mem.put_u64(pa + CPU_SELF, self.percpu_va(cpu))
            self.mem.put_u64(pa + CPU_ID, cpu)
            self.mem.put_u64(pa + CPU_NEXT_EVENT, 2**64 - 1)

    def set_boot_clocks(self, monotonic_ns: int, boottime_ns: int) -> None:
        """The live clock's origin, the host's CLOCK_MONOTONIC and CLOCK_BOOTTIME at its 0:
        boot_params.boot_monotonic_ns and boot_boottime_ns."""
        self.mem.put_u64(self.boot_params + BOOT_MONOTONIC_OFF, monotonic_ns)
        self.mem.put_u64(self.boot_params + BOOT_BOOTTIME_OFF, boottime_ns)

    def set_now(self, cpu: int, now_ns: int) -> None:
        self.mem.put_u64(self.percpu_pa(cpu) + CPU_NOW_NS, now_ns)
        # no TSC here: reads within the slice step (the native loop gives the live one's)
        self.mem.put_u64(self.percpu_pa(cpu) + CPU_NOW_TSC, 0)

    def set_trace_clock_step(self, cpu: int, step_ns: int) -> None:
        self.mem.put_u64(self.percpu_pa(cpu) + self.layout.percpu_trace_clock_step, step_ns)

    def next_event(self, cpu: int) -> int:
        return self.mem.u64(self.percpu_pa(cpu) + CPU_NEXT_EVENT)

    def lapic_timer_fire(self, cpu: int, now_ns: int) -> bool:
        """The CPU's local APIC timer at now_ns (TSC-deadline mode): True if its deadline
        passed -- it fires once, and disarms."""
        pa = self.percpu_pa(cpu) + CPU_NEXT_EVENT
        if now_ns < self.mem.u64(pa):
            return False
        self.mem.put_u64(pa, HPET_DISARMED)
        return True

    def hpet_deadline(self) -> int:
        return self.mem.u64(self.hpet + HPET_DEADLINE)

    def hpet_fire(self, now_ns: int) -> tuple[int, int] | None:
        """The HPET's comparator at now_ns: if its deadline passed, it disarms and its
        interrupt is due -- (cpu, vector) of the IO-APIC entry it goes through."""
        if now_ns < self.hpet_deadline():
            return None
        self.mem.put_u64(self.hpet + HPET_DEADLINE, HPET_DISARMED)
        return self.mem.u64(self.hpet + HPET_CPU), self.mem.u64(self.hpet + HPET_VECTOR)

    def top_of_stack(self, cpu: int) -> int:
        return self.mem.u64(self.percpu_pa(cpu) + CPU_TOP_OF_STACK)

    def doorbell_args(self, cpu: int) -> tuple[int, int, int, int]:
        return struct.unpack_from("<4Q", self.mem.buf, self.percpu_pa(cpu) + CPU_DB_ARG)

    def read_kernel(self, vaddr: int, size: int) -> bytes:
        return self.mem.read(kernel_virt_to_phys(vaddr), size)

    def post_request(self, req_id: int, argv: list[str], host_stdin: bool = False) -> bool:
        """Queue a spawn request (host_stdin: the program's stdin comes from post_input);
        False if the mailbox is full."""
        packed = b"".join(a.encode() + b"\0" for a in argv)
        if len(packed) > HOST_REQ_ARGV:
            raise OSError(7, "Argument list too long")  # E2BIG
        return self._post(req_id, HOST_REQ_SPAWN, len(argv), packed, HOST_SPAWN_STDIN if host_stdin else 0)

    def post_input(self, req_id: int, data: bytes) -> bool:
        """Queue what program req_id reads next on its stdin (b"": the end); False if the
        mailbox is full."""
        assert len(data) <= HOST_REQ_ARGV
        return self._post(req_id, HOST_REQ_STDIN, 0, data, 0)

    def post_trace_slot(self, seq: int, slot: int, alloc: bool) -> bool:
        """Queue a request to allocate (alloc) or free a trace instance's buffers in the slot; its
        answer comes at PORT_REPLY with seq. False if the mailbox is full."""
        return self._post(seq, HOST_REQ_TRACE_SLOT, slot, b"", int(alloc))

    def post_trace_marker(self, seq: int, slot: int, pid: int, count: int) -> bool:
        """Queue a request to run the triggers of slot's print event on a write of count bytes
        (the text in trace_marker_text) by pid to its trace_marker; its answer comes at
        PORT_REPLY with seq. False if the mailbox is full."""
        return self._post_sized(seq, HOST_REQ_TRACE_MARKER, slot, b"", count, pid)

    def post_sysctl(self, seq: int, sysctl: int, value: int) -> bool:
        """Queue the store of value (an int, parsed and range-checked) to the kernel's sysctl
        (enum host_sysctl); its answer comes at PORT_REPLY with seq. False if the mailbox is full."""
        return self._post(seq, HOST_REQ_SYSCTL, sysctl, b"", value & 0xFFFFFFFF)

    def post_blk_trace_attr(self, seq: int, dev: int, attr: int, store_count: int | None) -> bool:
        """Queue a show (store_count None) or a store of store_count bytes (already in the kernel's
        blk_trace_attr_buf) of the blktrace attribute attr of the disk dev; its answer comes at
        PORT_REPLY with seq. False if the mailbox is full."""
        flags = attr | (0 if store_count is None else HOST_BLK_TRACE_STORE)
        return self._post_sized(seq, HOST_REQ_BLK_TRACE_ATTR, dev, b"", store_count or 0, flags)

    def _post(self, req_id: int, kind: int, argc: int, payload: bytes, flags: int) -> bool:
        return self._post_sized(req_id, kind, argc, payload, len(payload), flags)

    def _post_sized(self, req_id: int, kind: int, argc: int, payload: bytes, length: int, flags: int) -> bool:
        """A request whose len is length (its payload's, or what it says of data elsewhere)."""
        head, tail = struct.unpack_from("<II", self.mem.buf, self.requests)
        if head - tail >= HOST_REQ_SLOTS:
            return False
        slot = self.requests + 16 + (head % HOST_REQ_SLOTS) * HOST_REQ_SIZE
        self.mem.write(slot, struct.pack("<QIIII", req_id, argc, length, kind, flags) +
                       payload.ljust(HOST_REQ_ARGV, b"\0"))
        struct.pack_into("<I", self.mem.buf, self.requests, (head + 1) & 0xFFFFFFFF)
        return True
