"""The kprobe engine's views outside tracefs: the /proc/sys/debug/kprobes-optimization sysctl
and debugfs's kprobes/list, kprobes/blacklist and kprobes/enabled (kernel/kprobes.c).  Plain
functions of the file contents, for whatever serves those paths (the daemon, bound into the
namespace)."""

from __future__ import annotations


from ...lib.kstrtox import kstrtobool
from ...lib.sysctl import parse_sysctl_int
from .core import KprobeEngine
from .point import OPTIMIZED

class KprobeDebugViews:
    def __init__(self, engine: KprobeEngine):
        self._engine = engine

    def read_optimization(self) -> bytes:
        return b"%d\n" % int(bool(self._engine.optimization))

    def write_optimization(self, data: bytes, offset: int = 0) -> int:
        """proc_kprobes_optimization_handler(): 0 or 1 (extra1/extra2 bound it); turning it
        off unoptimizes every optimized probe, on optimizes those that can be. Returns the
        bytes taken. A write past position 0 is ignored (sysctl_writes_strict, the default),
        so `echo "1 2"` sets 1 and its second write(), of what was left, changes nothing."""
        if offset:
            return len(data)
        value, taken = parse_sysctl_int(data, 0, 1)
        self._engine.optimization = bool(value)
        return taken

    def read_list(self) -> bytes:
        """kprobes/list (show_kprobe_addr()): by hash bucket, newest first in one."""
        engine = self._engine
        image = engine.image
        sites = set(image.mcount_sites.values())
        out = []
        with engine.lock:
            for point in engine.hash_order():
                found = image.kallsyms_lookup(point.addr)
                # (the module name, none here, between the offset's two blanks and one more)
                where = f"{found[0].name}+0x{found[1]:x}    " if found else f"0x{point.addr:x} "
                flags = (("[OPTIMIZED]" if point.kind == OPTIMIZED else "")
                         + ("[FTRACE]" if point.addr in sites else ""))
                for kp in point.probes:
                    out.append(f"{point.addr:016x}  {'r' if kp.is_return else 'k'}  {where}"
                               f"{'' if kp.enabled else '[DISABLED]'}{flags}\n")
        return "".join(out).encode()

    def read_blacklist(self) -> bytes:
        return self._engine.blacklist.text().encode()

    def read_enabled(self) -> bytes:
        return b"1\n" if self._engine.armed else b"0\n"

    def write_enabled(self, data: bytes) -> int:
        """write_enabled_file_bool(): arm_all_kprobes() or disarm_all_kprobes(); the whole
        write is taken (an insn-slot shortage re-arming a probe fails it with ENOMEM, the
        others armed, as arm_all_kprobes' best effort)."""
        self._engine.armed = kstrtobool(data)
        return len(data)
