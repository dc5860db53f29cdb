"""Histogram triggers (kernel/trace/trace_events_hist.c): `hist:keys=...[:vals=...][:sort=...]
[:size=N][:name=NAME][:pause|:cont|:clear] [if FILTER]` on an event's trigger file, the map
it aggregates into (in the guest, machine.contract.HistMapOps: the event's writer updates it,
no Python runs per event), and the event's `hist` file, printed from a read of the map.

Keys (at most 3) are the event's fields with the modifiers .hex .sym .sym-offset .execname
(common_pid only) .syscall .log2 .buckets=N, common_cpu (cpu, CPU); values (hitcount and at
most 2 more) its numeric fields, .hex .percent .graph; sort= at most 2 of them, .ascending or
.descending.  Errors are 6.1's: the errno, and for what 6.1 reports with hist_err() an
error_log entry `hist:SYS:EVENT: error: ...` with the caret under the first occurrence of the
bad token in the command, as its errpos() finds it.

Not here yet: variables and expressions (`$var`, `common_timestamp`, `+ - * /`), actions
(onmatch/onmax/onchange), stacktrace keys; those commands fail with EINVAL.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field as dataclass_field

from ..lib.kstrtox import kstrtoull, or_none
from ..machine.contract import HistEntry, HistField, HistMapOps, HistMapSpec, HistSnapshot
from .events import COMMON_FIELDS, TraceEvent

MAP_BITS_DEFAULT, MAP_BITS_MIN, MAP_BITS_MAX = 11, 7, 17
KEYS_MAX, VALS_MAX, SORT_KEYS_MAX = 3, 3, 2
MAX_FILTER_STR_VAL = 256
KEY_SIZE_MAX = MAX_FILTER_STR_VAL + 16 * 8     # HIST_KEY_SIZE_MAX: a string and a stack trace

ERR_EMPTY_ASSIGNMENT = "Empty assignment"
ERR_BAD_FIELD_MODIFIER = "Invalid field modifier"
ERR_FIELD_NOT_FOUND = "Couldn't find field"
ERR_INVALID_SORT_MODIFIER = "Invalid sort modifier"
ERR_EMPTY_SORT_FIELD = "Empty sort field"
ERR_TOO_MANY_SORT_FIELDS = "Too many sort fields (Max = 2)"
ERR_INVALID_SORT_FIELD = "Sort field must be a key or a val"
ERR_TRIGGER_EEXIST = "Hist trigger already exists"
ERR_TRIGGER_ENOENT_CLEAR = "Can't clear or continue a nonexistent hist trigger"

# modifiers of values that only keys may have, and of keys that only values may have
_KEY_ONLY = ("buckets", "log2", "sym", "sym-offset", "syscall")
_VAL_ONLY = ("percent", "graph")
_GENERIC_CPU = ("cpu", "CPU", "common_cpu")


class HistError(Exception):
    """A hist command refused: errno, and (message, the text whose first occurrence in the
    command the caret points at) when 6.1 logs it."""

    def __init__(self, err: int, message: str | None = None, at: str | None = None):
        super().__init__(message or "hist command refused")
        self.errno = err
        self.message = message
        self.at = at


@dataclass(frozen=True)
class HistFieldDef:
    """struct hist_field of a key or value."""

    name: str                   # hist_field_name(): the field's name (cpu, CPU: the generic field's)
    kind: str                   # "num" "cpu" "str" "dyn_str" "hitcount"
    modifier: str | None = None
    buckets: int = 0
    offset: int = 0
    size: int = 0
    is_signed: bool = False
    key_offset: int = 0
    key_size: int = 0

    def text(self) -> str:
        """hist_field_print(): the cpu is common_cpu, however it was named."""
        out = ("common_cpu" if self.kind == "cpu" else self.name) + (f".{self.modifier}" if self.modifier else "")
        return out + (f"={self.buckets}" if self.buckets else "")

    def same(self, other: HistFieldDef) -> bool:
        """hist_field_match()."""
        return (self.name, self.kind, self.modifier, self.buckets, self.size) == \
            (other.name, other.kind, other.modifier, other.buckets, other.size)


HITCOUNT = HistFieldDef("hitcount", "hitcount")


@dataclass
class HistSpec:
    """A parsed hist command (hist_trigger_attrs + hist_trigger_data)."""

    keys: list[HistFieldDef]
    vals: list[HistFieldDef]                # vals[0] is hitcount
    sort: list[tuple[int, bool]]            # (field index: vals, then keys; descending)
    map_bits: int = MAP_BITS_DEFAULT
    name: str | None = None
    pause: bool = False
    cont: bool = False
    clear: bool = False

    @property
    def key_size(self) -> int:
        return sum(k.key_size for k in self.keys)

    def field(self, index: int) -> HistFieldDef:
        return self.vals[index] if index < len(self.vals) else self.keys[index - len(self.vals)]

    def print_text(self, filter_text: bytes | None, paused: bool) -> bytes:
        """event_hist_trigger_print()."""
        out = "hist:" + (f"{self.name}:" if self.name else "")
        out += "keys=" + ",".join(k.text() for k in self.keys)
        out += ":vals=" + ",".join(["hitcount"] + [v.text() for v in self.vals[1:]])
        out += ":sort=" + ",".join((self.field(i).text() if i else "hitcount") + (".descending" if d else "")
                                   for i, d in self.sort)
        out += f":size={1 << self.map_bits}"
        text = out.encode()
        if filter_text is not None:
            text += b" if " + filter_text
        return text + (b" [paused]\n" if paused else b" [active]\n")

    def matches(self, other: HistSpec) -> bool:
        """hist_trigger_match() less the filter and name (the callers compare those)."""
        return len(self.keys) == len(other.keys) and len(self.vals) == len(other.vals) and \
            all(a.same(b) for a, b in zip(self.keys + self.vals, other.keys + other.vals)) and \
            self.sort == other.sort

    def map_spec(self) -> HistMapSpec:
        keys = tuple(HistField(k.kind, k.offset, k.size, k.is_signed, k.modifier == "log2", k.buckets,
                               k.key_offset, k.key_size) for k in self.keys)
        vals = tuple(HistField(v.kind, v.offset, v.size, v.is_signed) for v in self.vals)
        return HistMapSpec(self.map_bits, self.key_size, keys, vals,
                           comm=any(k.modifier == "execname" for k in self.keys))


def _strsep(text: str, delim: str) -> tuple[str, str | None]:
    head, sep, tail = text.partition(delim)
    return head, (tail if sep else None)


def split_filter(param_and_filter: str) -> tuple[str, str | None]:
    """event_hist_trigger_parse(): the `if` that starts the filter is a word of its own."""
    p = 0
    while True:
        p = param_and_filter.find("if", p)
        if p < 0:
            return param_and_filter, None
        if p == 0:
            raise HistError(errno.EINVAL)
        if param_and_filter[p - 1] not in " \t":
            p += 1
            continue
        if p >= len(param_and_filter) - 2 - 1:
            raise HistError(errno.EINVAL)
        if param_and_filter[p + 2] not in " \t":
            p += 1
            continue
        return param_and_filter[:p - 1].strip(), param_and_filter[p:].strip()


def parse(param: str, event: TraceEvent, remove: bool = False) -> HistSpec:
    """parse_hist_trigger_attrs() and create_hist_data() of the text after `hist:` (the filter
    split off)."""
    param = param.replace(".sym-offset", ".symXoffset")
    keys_str = vals_str = sort_str = name = None
    map_bits = 0
    pause = cont = clear = False
    rest: str | None = param
    while rest is not None:
        part, rest = _strsep(rest, ":")
        eq = part.find("=")
        if eq >= 0:
            if not part[eq + 1:]:
                raise HistError(errno.EINVAL, ERR_EMPTY_ASSIGNMENT, part)
            lhs = part[:eq + 1]
            value = part[eq + 1:]
            if lhs in ("key=", "keys="):
                keys_str = value
            elif lhs in ("val=", "vals=", "values="):
                vals_str = value
            elif lhs == "sort=":
                sort_str = value
            elif lhs == "name=":
                name = value
            elif lhs == "size=":
                size = or_none(kstrtoull, value)
                if size is None or size >= 1 << 64:
                    raise HistError(errno.EINVAL)
                bits = max(size - 1, 0).bit_length() if size else 64
                if not MAP_BITS_MIN <= bits <= MAP_BITS_MAX:
                    raise HistError(errno.EINVAL)
                map_bits = bits
            else:
                # clock= and variables: not implemented here
                raise HistError(errno.EINVAL)
        elif part == "pause":
            pause = True
        elif part in ("cont", "continue"):
            cont = True
        elif part == "clear":
            clear = True
        else:
            raise HistError(errno.EINVAL)   # actions (onmatch, onmax, onchange): not here yet
    if keys_str is None:
        raise HistError(errno.EINVAL)
    fields = {f.name: f for f in (*COMMON_FIELDS, *event.desc.fields)}
    vals = [HITCOUNT]
    if vals_str is not None:
        rest = vals_str
        for _ in range(VALS_MAX):          # (create_val_fields(): hitcount parts count too)
            if len(vals) >= VALS_MAX or rest is None:
                break
            part, rest = _strsep(rest, ",")
            if part == "hitcount":
                continue
            vals.append(_field(part, fields, key=False))
        if rest is not None and rest != "hitcount":
            raise HistError(errno.EINVAL)
    keys: list[HistFieldDef] = []
    rest = keys_str
    offset = 0
    while len(keys) < KEYS_MAX and rest is not None:
        part, rest = _strsep(rest, ",")
        key = _field(part, fields, key=True)
        size = (key.key_size + 7) & ~7
        key = HistFieldDef(key.name, key.kind, key.modifier, key.buckets, key.offset, key.size, key.is_signed,
                           offset, size)
        offset += size
        if offset > KEY_SIZE_MAX:
            raise HistError(errno.EINVAL)
        keys.append(key)
    if rest is not None:
        raise HistError(errno.EINVAL)
    spec = HistSpec(keys, vals, _sort_keys(sort_str, vals, keys), map_bits or MAP_BITS_DEFAULT, name,
                    pause, cont, clear)
    return spec


def _field(text: str, fields: dict, key: bool) -> HistFieldDef:
    """parse_field() and the checks of create_key_field() / __create_val_field()."""
    name, modifier = _strsep(text, ".")
    buckets = 0
    if modifier is not None:
        ok = modifier in ("hex", "sym", "symXoffset", "syscall", "log2")
        ok |= modifier == "execname" and name == "common_pid"
        if modifier.startswith("bucket"):
            tail = modifier[6:]
            tail = tail[1:] if tail.startswith("s") else tail
            value = or_none(kstrtoull, tail[1:]) if tail.startswith("=") else None
            if not value or value >= 1 << 64:   # (the caret: where the modifier was read up to)
                raise HistError(errno.EINVAL, ERR_BAD_FIELD_MODIFIER, tail[1:] if tail.startswith("=") else tail)
            buckets, modifier, ok = value, "buckets", True
        elif modifier.startswith("percent") or modifier.startswith("graph"):
            if key:
                raise HistError(errno.EINVAL, ERR_BAD_FIELD_MODIFIER, modifier)
            modifier, ok = ("percent" if modifier.startswith("percent") else "graph"), True
        if not ok:
            raise HistError(errno.EINVAL, ERR_BAD_FIELD_MODIFIER, modifier)
        if modifier == "symXoffset":
            modifier = "sym-offset"
    if name in _GENERIC_CPU and name not in fields:
        made = HistFieldDef(name, "cpu", modifier, buckets, 0, 4, False, 0, 8)
    else:
        f = fields.get(name)
        if f is None or not f.size:
            raise HistError(errno.EINVAL, ERR_FIELD_NOT_FOUND, name)
        if "__data_loc" in f.type and "char" in f.type:
            made = HistFieldDef(name, "dyn_str", modifier, buckets, f.offset, f.size, False, 0, MAX_FILTER_STR_VAL)
        elif "[" in f.type and "char" in f.type:     # (a static string's key is the array's size)
            made = HistFieldDef(name, "str", modifier, buckets, f.offset, f.size, False, 0, f.size)
        elif f.size in (1, 2, 4, 8):
            made = HistFieldDef(name, "num", modifier, buckets, f.offset, f.size, bool(f.is_signed), 0, f.size)
        else:
            raise HistError(errno.EINVAL, ERR_FIELD_NOT_FOUND, name)
    if not key and modifier in _KEY_ONLY:
        raise HistError(errno.EINVAL, ERR_BAD_FIELD_MODIFIER, text)
    return made


def _sort_keys(text: str | None, vals: list[HistFieldDef], keys: list[HistFieldDef]) -> list[tuple[int, bool]]:
    """create_sort_keys(): hitcount ascending unless told."""
    if text is None:
        return [(0, False)]
    out: list[tuple[int, bool]] = []
    rest: str | None = text
    for i in range(SORT_KEYS_MAX):
        if rest is None:
            break
        part, rest = _strsep(rest, ",")
        if not part:
            raise HistError(errno.EINVAL, ERR_EMPTY_SORT_FIELD, "sort=")
        if i == SORT_KEYS_MAX - 1 and rest is not None:
            raise HistError(errno.EINVAL, ERR_TOO_MANY_SORT_FIELDS, "sort=")
        name, modifier = _strsep(part, ".")
        if not name:
            raise HistError(errno.EINVAL, ERR_EMPTY_SORT_FIELD, "sort=")
        if modifier is not None and modifier not in ("descending", "ascending"):
            if name == "hitcount" or any(f.name == name for f in vals[1:] + keys):
                raise HistError(errno.EINVAL, ERR_INVALID_SORT_MODIFIER, modifier)
        descending = modifier == "descending"
        if name == "hitcount":
            out.append((0, descending))
            continue
        index = next((j for j, f in enumerate(vals[1:] + keys, start=1) if f.name == name), None)
        if index is None:
            raise HistError(errno.EINVAL, ERR_INVALID_SORT_FIELD, name)
        out.append((index, descending))
    return out


# ---- the hist file ----

def sort_entries(spec: HistSpec, entries: Sequence[HistEntry]) -> list[HistEntry]:
    """tracing_map_sort_entries(): lib/sort.c's heapsort on the primary key, then each run of
    equal primaries sorted on the secondary, as 6.1 does (ties keep the order that gives)."""
    entries = list(entries)
    if len(entries) < 2:
        return entries
    primary = _comparator(spec, *spec.sort[0])
    _heapsort(entries, primary)
    if len(spec.sort) > 1:
        secondary = _comparator(spec, *spec.sort[1])
        start, n_sub, n = 0, 1, len(entries)
        for i in range(n - 1):
            if primary(entries[i], entries[i + 1]) == 0:
                n_sub += 1
                if i < n - 2:
                    continue
            if n_sub < 2:
                start, n_sub = i + 1, 1
                continue
            run = entries[start:start + n_sub]
            _heapsort(run, secondary)
            entries[start:start + n_sub] = run
            start, n_sub = i + 1, 1
    return entries


def _comparator(spec: HistSpec, index: int, descending: bool) -> Callable[[HistEntry, HistEntry], int]:
    sign = -1 if descending else 1
    if index < len(spec.vals):
        def by_sum(a: HistEntry, b: HistEntry) -> int:
            x, y = a.sums[index], b.sums[index]
            return sign * ((x > y) - (x < y))
        return by_sum
    key = spec.keys[index - len(spec.vals)]
    lo, hi = key.key_offset, key.key_offset + key.key_size
    if key.kind in ("str", "dyn_str"):
        def by_string(a: HistEntry, b: HistEntry) -> int:
            x, y = a.key[lo:hi].split(b"\0", 1)[0], b.key[lo:hi].split(b"\0", 1)[0]
            return sign * ((x > y) - (x < y))
        return by_string
    signed = key.is_signed and key.modifier not in ("log2", "buckets")

    def by_key(a: HistEntry, b: HistEntry) -> int:
        x = int.from_bytes(a.key[lo:lo + 8], "little", signed=signed)
        y = int.from_bytes(b.key[lo:lo + 8], "little", signed=signed)
        return sign * ((x > y) - (x < y))
    return by_key


def _heapsort(items: list, cmp: Callable) -> None:
    """lib/sort.c sort_r(), on a list: the bottom-up heapsort, comparisons as its."""
    num = len(items)
    n, a = num, num // 2
    if not a:
        return

    def parent(i: int) -> int:
        i -= 1
        i -= i & 1
        return i // 2

    while True:
        if a:
            a -= 1
        else:
            n -= 1
            if not n:
                break
            items[0], items[n] = items[n], items[0]
        b = a
        while True:
            c = 2 * b + 1
            d = c + 1
            if d >= n:
                break
            b = c if cmp(items[c], items[d]) >= 0 else d
        if d == n:
            b = c
        while b != a and cmp(items[a], items[b]) >= 0:
            b = parent(b)
        c = b
        while b != a:
            b = parent(b)
            items[b], items[c] = items[c], items[b]


@dataclass
class HistContext:
    """What printing keys needs: kallsyms_lookup() and the syscalls' names."""

    symbolize: Callable[[int], tuple[str, int, int] | None]
    syscall_names: dict[int, str] = dataclass_field(default_factory=dict)


def _sym(ctx: HistContext, addr: int, offset: bool) -> str:
    """%ps / %pS."""
    found = ctx.symbolize(addr)
    if found is None:
        return f"0x{addr:x}"
    name, off, size = found
    return f"{name}+0x{off:x}/0x{size:x}" if offset else name


def _key_text(spec: HistSpec, entry: HistEntry, ctx: HistContext) -> str:
    """hist_trigger_print_key()."""
    parts = []
    for k in spec.keys:
        raw = entry.key[k.key_offset:k.key_offset + k.key_size]
        if k.kind in ("str", "dyn_str"):
            text = raw.split(b"\0", 1)[0].decode("latin-1")
            parts.append(f"{k.name}: {text:<50}")
            continue
        uval = int.from_bytes(raw[:8], "little")
        m = k.modifier
        if m == "hex":
            parts.append(f"{k.name}: {uval:x}")
        elif m == "sym":
            parts.append(f"{k.name}: [{uval:x}] {_sym(ctx, uval, False):<45}")
        elif m == "sym-offset":
            parts.append(f"{k.name}: [{uval:x}] {_sym(ctx, uval, True):<55}")
        elif m == "execname":
            comm = entry.comm.split(b"\0", 1)[0].decode("latin-1")
            parts.append(f"{k.name}: {comm:<16}[{uval:10d}]")
        elif m == "syscall":
            parts.append(f"{k.name}: {ctx.syscall_names.get(uval, 'unknown_syscall'):<30}[{uval:3d}]")
        elif m == "log2":
            parts.append(f"{k.name}: ~ 2^{uval:<2d}")
        elif k.buckets:
            parts.append(f"{k.name}: ~ {uval}-{(uval + k.buckets - 1) & 0xFFFFFFFFFFFFFFFF}")
        else:
            parts.append(f"{k.name}: {uval:10d}")
    return "{ " + ", ".join(parts) + " }"


def _percentage(val: int, total: int) -> int | None:
    """__get_percentage(): 100 times the percentage; None for [ERROR]."""
    if not total:
        return None if val else 0
    if val < (1 << 64) // 10000:
        return min(val * 10000 // total, 0xFFFFFFFF)
    total //= 10000
    if not total:
        return None if val else 0
    return min(val // total, 0xFFFFFFFF)


def _val_text(v: HistFieldDef, val: int, total: int, top: int) -> str:
    """hist_trigger_print_val()."""
    if v.modifier == "percent":
        pc = _percentage(val, total)
        return f" {v.name} (%):[ERROR]" if pc is None else f" {v.name} (%): {pc // 100:3d}.{pc % 100:02d}"
    if v.modifier == "graph":
        pc = _percentage(val, top)
        if pc is None:
            bar = "[ERROR]"
        else:
            width = min(pc * 20 // 10000, 20)
            bar = "#" * width + " " * (20 - width)
        return f" {v.name}: {bar:>20}"
    if v.modifier == "hex":
        return f" {v.name}: {val:10x}"
    return f" {v.name}: {val:10d}"


def hist_text(spec: HistSpec, info: bytes, snapshot: HistSnapshot, ctx: HistContext) -> bytes:
    """hist_trigger_show() of one hist trigger (without the separator before a second)."""
    entries = sort_entries(spec, snapshot.entries)
    totals = [sum(e.sums[j] for e in entries) for j in range(len(spec.vals))]
    tops = [max((e.sums[j] for e in entries), default=0) for j in range(len(spec.vals))]
    lines = []
    for e in entries:
        line = _key_text(spec, e, ctx) + _val_text(HITCOUNT, e.sums[0], totals[0], tops[0])
        for j, v in enumerate(spec.vals[1:], start=1):
            line += " " + _val_text(v, e.sums[j], totals[j], tops[j])
        lines.append(line + "\n")
    head = b"# event histogram\n#\n# trigger info: " + info + b"#\n\n"
    tail = f"\nTotals:\n    Hits: {snapshot.hits}\n    Entries: {len(entries)}\n    Dropped: {snapshot.drops}\n"
    return head + "".join(lines).encode("latin-1") + tail.encode()


class HistMap:
    """A hist trigger's map in the guest."""

    def __init__(self, maps: HistMapOps, spec: HistSpec):
        self._maps = maps
        self.addr = maps.create(spec.map_spec())

    def read(self) -> HistSnapshot:
        return self._maps.read(self.addr)

    def clear(self) -> None:
        self._maps.clear(self.addr)

    @property
    def paused(self) -> bool:
        return self._maps.paused(self.addr)

    @paused.setter
    def paused(self, on: bool) -> None:
        self._maps.set_paused(self.addr, on)

    def destroy(self) -> None:
        self._maps.destroy(self.addr)
