"""The kprobe command grammar of Linux 6.1 (the create/parse half of kernel/trace/trace_kprobe.c).

    p[:[GRP/][EVENT]] [MOD:]SYM[+OFFS]|ADDR [FETCHARGS]        a kprobe
    r[MAXACTIVE][:[GRP/][EVENT]] [MOD:]SYM[+0] [FETCHARGS]      a kretprobe
    p[:[GRP/][EVENT]] [MOD:]SYM[+0]%return [FETCHARGS]          a kretprobe too
    -:[GRP/][EVENT] [SYM[+OFFS]|ADDR [NAME=FETCHARG ...]]       remove what matches

Parsing gives a ``KprobeSpec`` (what ``struct trace_kprobe`` holds before registration);
failures raise ``ProbeError`` with Linux's errno, error_log text and caret.  The spec knows its
read-back line, its format-file fields and print fmt, and prints its records.  A removal is
parsed by dynevent.parse_release(); ``trace_kprobe_match`` says which probes it names.

What happens at registration is split the way the kernel splits it, so the registry
(trace_kprobe.py) and the probe engine call in order: ``check_existing`` (same group/event
already there: append or refuse), ``event_exists_error`` (the name belongs to another event)
-- both trace_probe.ProbeCommand's, shared with uprobes --,
``KprobeSpec.resolve_args`` (``@SYM`` addresses) and the engine's own arming, whose errno
``registration_error`` turns into Linux's answer (an instruction-boundary refusal is EILSEQ,
a symbol not there is ENOENT -- accepted, unarmed, when it names a module or an address).
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Protocol

from ..lib.kstrtox import kstrtoull, kstrtouint, or_none
from .dynevent import argv_split
from .ftrace_records import SymFlags, print_ip_sym
from .probe_args import (
    MAX_ARGSTR_LEN,
    ArgValue,
    ArgFlags,
    ProbeArg,
    Symbolizer,
    format_args,
    split_symbol_offset,
)
from .probe_log import ProbeError, ProbeLog
from .trace_probe import MAX_EVENT_NAME_LEN, ProbeCommand, parse_event_name, parse_probe_args

__all__ = [
    "KPROBE_EVENT_SYSTEM",
    "KernelSymbols",
    "PointerHash",
    "KprobeSpec",
    "create_kprobe",
    "trace_kprobe_match",
    "registration_error",
]

KPROBE_EVENT_SYSTEM = "kprobes"
KRETPROBE_MAXACTIVE_MAX = 4096
UINT_MAX = 0xFFFFFFFF
_ENDBR64 = b"\xf3\x0f\x1e\xfa"

# addr -> the value %p prints (hashed), or None while the hash key is not ready: Linux then
# prints "(____ptrval____)" -- a fresh QEMU boot without entropy shows exactly that.
PointerHash = Callable[[int], "int | None"]


class KernelSymbols(Protocol):
    """The emulated kernel's symbol table as the kprobe parser needs it."""

    def lookup(self, name: str) -> int | None: ...  # kallsyms_lookup_name(); "MOD:sym" too
    def count(self, name: str) -> int: ...  # how many symbols have this name
    def symbolize(self, addr: int) -> "tuple[str, int, int] | None": ...  # (name, offs, size)
    def read_kernel(self, addr: int, size: int) -> bytes | None: ...  # kernel text/data


def _hashed(hash_pointer: PointerHash, addr: int) -> str:
    """"0x%p": the hashed pointer, or (____ptrval____) before the hash key exists."""
    h = hash_pointer(addr)
    return "0x(____ptrval____)" if h is None else f"0x{h:016x}"


# ---------------------------------------------------------------------------------------------
# The parsed probe


@dataclass(frozen=True)
class KprobeSpec(ProbeCommand):
    LOCATION: ClassVar[str] = "trace_kprobe"

    group: str
    event: str
    is_return: bool
    maxactive: int  # 0: not given (registration gives the engine's default pool)
    symbol: str | None  # "[MOD:]SYM" without offset and suffix; None for an address probe
    offset: int
    addr: int | None  # the probed address of an address probe
    args: tuple[ProbeArg, ...]
    on_func_entry: bool  # the symbol+offset is a function entry ($argN allowed)
    argv: tuple[str, ...] = ()  # the command's words, for errors logged at registration

    def target_text(self, hash_pointer: PointerHash) -> str:
        """The probe point as read back: ``SYM``, ``SYM+OFFS`` or ``0x<hashed addr>``."""
        if self.symbol is None:
            return _hashed(hash_pointer, self.addr or 0)
        if self.offset:
            return f"{self.symbol}+{self.offset}"
        return self.symbol

    def command_text(self, hash_pointer: PointerHash) -> str:
        """trace_kprobe_show(): the line kprobe_events and dynamic_events read back."""
        head = "r" if self.is_return else "p"
        if self.is_return and self.maxactive:
            head += str(self.maxactive)
        return self.command_line(head, self.target_text(hash_pointer))

    def same_point(self, other: ProbeCommand) -> bool:
        """trace_kprobe_has_same_kprobe(): the same symbol (an address probe's is "unknown")
        and offset."""
        assert isinstance(other, KprobeSpec)
        return (other.symbol or "unknown") == (self.symbol or "unknown") and other.offset == self.offset

    def print_record(self, payload: bytes, symbolize: Symbolizer, sym_flags: SymFlags) -> str:
        """A record's trace line (trace_probe.RecordPrinter): its ip (and ret_ip) and arguments
        read back from the payload, then format_record()."""
        ip, ret_ip, values = self.decode_record(payload)
        return self.format_record(ip, ret_ip, values, symbolize, sym_flags)

    def format_record(self, ip: int, ret_ip: int, values: Sequence[ArgValue],
                      symbolize: Symbolizer, sym_flags: SymFlags = SymFlags()) -> str:
        """print_kprobe_event()/print_kretprobe_event(): the trace line after the context
        columns.  ``ip`` is the probed address (kretprobe: the function), ``ret_ip`` the
        return address (kretprobes only).  The probe point is printed with sym-offset forced
        on (the function of a kretprobe: forced off); sym-addr applies to both."""
        with_offset = replace(sym_flags, sym_offset=True)
        if self.is_return:
            where = (print_ip_sym(ret_ip, symbolize, with_offset) + b" <- "
                     + print_ip_sym(ip, symbolize, replace(sym_flags, sym_offset=False)))
        else:
            where = print_ip_sym(ip, symbolize, with_offset)
        return f"{self.event}: ({where.decode()}){format_args(self.args, values, symbolize)}\n"

    def resolve_args(self, lookup: Callable[[str], int | None]) -> "KprobeSpec | int":
        """traceprobe_update_arg() for every argument: the spec with @SYM addresses filled in,
        or a negative errno for registration_error()."""
        args = []
        for a in self.args:
            r = a.resolve(lookup)
            if isinstance(r, int):
                return r
            args.append(r)
        return replace(self, args=tuple(args))


# ---------------------------------------------------------------------------------------------
# Parsing


def _on_func_entry(symbols: KernelSymbols, symbol: str, offset: int) -> int:
    """kprobe_on_func_entry(NULL, symbol, offset): 0, -ENOENT or -EINVAL (x86's
    arch_adjust_kprobe_addr: an endbr64 at the entry makes +4 the entry as well)."""
    addr = symbols.lookup(symbol)
    if not addr:
        return -errno.ENOENT
    found = symbols.symbolize(addr + offset)
    if found is None:
        return -errno.ENOENT
    start = addr + offset - found[1]
    insn = symbols.read_kernel(start, 4)
    if insn is None:
        return -errno.EINVAL
    on_entry = found[1] in (0, 4) if insn == _ENDBR64 else found[1] == 0
    return 0 if on_entry else -errno.EINVAL


def _sanitize_event_name(name: str) -> str:
    # sanitize_event_name() never looks at the first character.
    return name[:1] + name[1:].replace(":", "_").replace(".", "_")


def create_kprobe(command: str, symbols: KernelSymbols, *,
                  hash_pointer: PointerHash = lambda addr: None) -> KprobeSpec | None:
    """__trace_kprobe_create(): the spec of a ``p``/``r`` command.  ProbeError(ECANCELED)
    means "not a kprobe command" (dynamic_events then asks the other event types).
    ``hash_pointer`` names address probes (``p_0x<hash>``).  None for a blank command."""
    argv = argv_split(command)
    if not argv:
        return None
    kind = argv[0][0]
    if kind not in "pr" or len(argv) < 2:
        raise ProbeError(errno.ECANCELED)
    is_return = kind == "r"
    log = ProbeLog(argv)
    head = argv[0]
    colon = head.find(":", 1)
    event: str | None = head[colon + 1:] if colon >= 0 else None
    maxactive = 0
    if head[1:2] and head[1] in "0123456789":
        if not is_return:
            raise log.error(1, "MAXACT_NO_KPROBE")
        text = head[1:colon] if colon >= 0 else head[1:]
        if len(text) > MAX_EVENT_NAME_LEN - 1:
            raise log.error(1, "BAD_MAXACT")
        n = or_none(kstrtouint, text)
        if not n:
            raise log.error(1, "BAD_MAXACT")
        if n > KRETPROBE_MAXACTIVE_MAX:
            raise log.error(1, "MAXACT_TOO_BIG")
        maxactive = n

    flags = ArgFlags.KERNEL
    symbol = None
    offset = 0
    addr = or_none(kstrtoull, argv[1])
    if addr is None:
        log.index = 1
        if "/" in argv[1] and ":" in argv[1]:
            raise ProbeError(errno.ECANCELED)  # a uprobe (PATH:OFFSET)
        symbol = argv[1]
        pct = symbol.find("%")
        if pct >= 0:
            if symbol[pct:] != "%return":
                raise log.error(pct, "BAD_ADDR_SUFFIX")
            symbol = symbol[:pct]
            is_return = True
        split = split_symbol_offset(symbol)
        if split is None or not 0 <= split[1] <= UINT_MAX:
            raise log.error(0, "BAD_PROBE_ADDR")
        symbol, offset = split
        if is_return:
            flags |= ArgFlags.RETURN
        ret = _on_func_entry(symbols, symbol, offset)
        if ret == 0:
            flags |= ArgFlags.FENTRY
        elif ret == -errno.EINVAL and is_return:
            raise log.error(0, "BAD_RETPROBE")
        if ":" not in symbol:
            count = symbols.count(symbol)
            if count > 1:
                raise log.error(0, "NON_UNIQ_SYMBOL", errno.EADDRNOTAVAIL)
            if count == 0:
                raise log.error(0, "BAD_PROBE_ADDR", errno.ENOENT)

    log.index = 0
    group = KPROBE_EVENT_SYSTEM
    if event is not None:
        g, event = parse_event_name(event, colon + 1, log)
        group = g or group
    if event is None:
        if symbol is not None:
            name = f"{'r' if is_return else 'p'}_{symbol}_{offset}"
        else:
            assert addr is not None  # (no symbol: an address)
            name = f"{'r' if is_return else 'p'}_{_hashed(hash_pointer, addr)}"
        event = _sanitize_event_name(name[:MAX_EVENT_NAME_LEN - 1])

    args = parse_probe_args(argv[2:], flags, log)
    return KprobeSpec(group, event, is_return, maxactive, symbol, offset,
                      addr if symbol is None else None, args,
                      bool(flags & ArgFlags.FENTRY), tuple(argv))


# ---------------------------------------------------------------------------------------------
# Removal (trace_kprobe_match)


def trace_kprobe_match(spec: KprobeSpec, system: str | None, event: str, argv: Sequence[str],
                       hash_pointer: PointerHash) -> bool:
    """trace_kprobe_match(): whether a removal `-:[SYSTEM/]EVENT [POINT [NAME=FETCHARG...]]`
    names this probe (its point as it reads back, cut to MAX_ARGSTR_LEN)."""
    return spec.matches(system, event, argv, spec.target_text(hash_pointer)[:MAX_ARGSTR_LEN])


# ---------------------------------------------------------------------------------------------
# Registration (register_trace_kprobe)


def registration_error(spec: KprobeSpec, err: int) -> ProbeError | None:
    """What register_trace_kprobe() makes of a failure (negative errno) of resolve_args() or
    of arming the probe: None when the kernel keeps the probe unarmed and succeeds (a symbol
    not found in a module, or an address outside the kernel: it waits for a module)."""
    if err == -errno.ENOENT and (spec.symbol is None or ":" in spec.symbol):
        return None
    log = spec.log(1)
    if err == -errno.EILSEQ:
        return log.error(0, "BAD_INSN_BNDRY", errno.EILSEQ)
    if err == -errno.ENOENT:
        return log.error(0, "BAD_PROBE_ADDR", errno.ENOENT)
    if err in (-errno.ENOMEM, -errno.EEXIST):
        return ProbeError(-err)
    return log.error(0, "FAIL_REG_PROBE", -err)
