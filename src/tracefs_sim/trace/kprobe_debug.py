"""The kprobe engine's views outside tracefs: the /proc/sys/debug/kprobes-optimization sysctl
and debugfs's kprobes/list and kprobes/blacklist (kernel/kprobes.c).  Plain functions of the
file contents, for whatever serves those paths (the namespace, through the daemon)."""

from __future__ import annotations

import errno
import re

# proc_dointvec_minmax() of one int: optional blanks, a decimal integer (sign allowed) ended by
# " \t\n" or the end; what follows is not looked at.
_INT = re.compile(rb"[ \t\n\v\f\r]*([-+]?[0-9]+)(?:[ \t\n]|$)")


class KprobeDebugViews:
    def __init__(self, engine):
        """engine: a probes.kprobes.KprobeEngine."""
        self._engine = engine

    def read_optimization(self) -> bytes:
        return b"%d\n" % int(bool(self._engine.optimization))

    def write_optimization(self, data: bytes) -> None:
        """proc_kprobes_optimization_handler(): 0 or 1 (extra1/extra2 bound it); turning it
        off unoptimizes every optimized probe, on optimizes those that can be."""
        match = _INT.match(data)
        if match is None:
            raise OSError(errno.EINVAL, "not an integer")
        value = int(match.group(1))
        if value not in (0, 1):
            raise OSError(errno.EINVAL, "kprobes-optimization is 0 or 1")
        self._engine.optimization = bool(value)

    def read_list(self) -> bytes:
        return self._engine.list_text().encode()

    def read_blacklist(self) -> bytes:
        return self._engine.blacklist_text().encode()
