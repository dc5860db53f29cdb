"""Histogram triggers (kernel/trace/trace_events_hist.c): `hist:keys=...[:vals=...][:sort=...]
[:size=N][:name=NAME][:pause|:cont|:clear] [if FILTER]` on an event's trigger file, the map
it aggregates into (in the guest, machine.contract.HistMapOps: the event's writer updates it,
no Python runs per event), and the event's `hist` file, printed from a read of the map.

Keys (at most 3) are the event's fields with the modifiers .hex .sym .sym-offset .execname
(common_pid only) .syscall .log2 .buckets=N, common_cpu (cpu, CPU); values (hitcount and at
most 2 more) its numeric fields, .hex .percent .graph; either may be what the guest computes
at the event from expression steps, as variables are: an expression, a constant,
common_timestamp, another trigger's $var (values only); sort= at most 2 of them, .ascending or
.descending.  Errors are 6.1's: the errno, and for what 6.1 reports with hist_err() an
error_log entry `hist:SYS:EVENT: error: ...` with the caret under the first occurrence of the
bad token in the command, as its errpos() finds it.

Variables (`NAME=EXPR`) are set in each element from an expression of fields,
`common_timestamp[.usecs]`, `cpu`, numeric constants, `$var` references (to this trigger's
variables or another hist trigger's of the trace array, read in the element of the same key)
and `+ - * /` and `-(...)`; actions `onmatch(SYS.EVENT).SYNTH(args)` / `.trace(SYNTH,args)`,
`onmax($var)` and `onchange($var)` with `.save(fields)`, `.snapshot()` or `.trace()` run in
the guest after the element is updated, as 6.1's hist_trigger_actions().

A named trigger (`name=NAME`) whose name another has already (on any event, in any trace
array) must match it and then aggregates into its map, as 6.1's set_named_trigger_data().

A `stacktrace` key is the stack of the event's caller (16 return addresses at most, walked in
the guest from the event's writer), printed one frame a line.
"""

from __future__ import annotations

import errno
import struct
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from dataclasses import dataclass, field as dataclass_field, replace

from ..lib.kstrtox import kstrtoull, or_none
from ..machine.contract import (HistAction, HistEntry, HistExprStep, HistField, HistMapOps, HistMapSpec,
                                HistParam, HistSnapshot, HistVarRef)
from .events import COMMON_FIELDS, TraceEvent
from .fields import FieldLike

if TYPE_CHECKING:  # (synthetic events are what a hist action traces)
    from .trace_synth import SynthEvent

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
ERR_DUPLICATE_VAR = "Variable already defined"
ERR_VAR_NOT_UNIQUE = "Variable name not unique, need to use fully qualified name (subsys.event.var) for variable"
ERR_TOO_MANY_VARS = "Too many variables defined"
ERR_MALFORMED_ASSIGNMENT = "Malformed assignment"
ERR_TOO_MANY_SUBEXPR = "Too many subexpressions (3 max)"
ERR_TIMESTAMP_MISMATCH = "Timestamp units in expression don't match"
ERR_SYNTH_EVENT_NOT_FOUND = "Couldn't find synthetic event"
ERR_SYNTH_COUNT_MISMATCH = "Param count doesn't match synthetic event field count"
ERR_SYNTH_TYPE_MISMATCH = "Param type doesn't match synthetic event field type"
ERR_ONX_NOT_VAR = "For onmax(x) or onchange(x), x must be a variable"
ERR_ONX_VAR_NOT_FOUND = "Couldn't find onmax or onchange variable"
ERR_TOO_MANY_PARAMS = "Too many action params"
ERR_PARAM_NOT_FOUND = "Couldn't find param"
ERR_INVALID_PARAM = "Invalid action param"
ERR_ACTION_NOT_FOUND = "No action found"
ERR_ACTION_MISMATCH = "Handler doesn't support action"
ERR_NO_CLOSING_PAREN = "No closing paren found"
ERR_SUBSYS_NOT_FOUND = "Missing subsystem"
ERR_INVALID_SUBSYS_EVENT = "Invalid subsystem or event name"
ERR_INVALID_REF_KEY = "Using variable references in keys not supported"
ERR_VAR_NOT_FOUND = "Couldn't find variable"
ERR_INVALID_STR_OPERAND = "String type can not be an operand in expression"
ERR_UNARY_MINUS_SUBEXPR = "Unary minus not supported in sub-expressions"
ERR_DIVISION_BY_ZERO = "Division by zero"
ERR_EVENT_FILE_NOT_FOUND = "Event file not found"
ERR_SET_CLOCK_FAIL = "Couldn't set trace_clock"
ERR_NAMED_MISMATCH = "Named hist trigger doesn't match existing named trigger (includes variables)"
ERR_HIST_NOT_FOUND = "Matching event histogram not found"
ERR_HIST_CREATE_FAIL = "Couldn't create histogram for field"
ERR_FIELD_VAR_PARSE_FAIL = "Couldn't parse field variable"
ERR_FIELD_VAR_CREATE_FAIL = "Couldn't create field variable"
VARS_MAX, ACTIONS_MAX, PARAMS_MAX = 16, 2, 8     # TRACING_MAP_VARS_MAX; the guest's hist_action

# modifiers of values that only keys may have, and of keys that only values may have
_KEY_ONLY = ("buckets", "log2", "sym", "sym-offset", "syscall")
_VAL_ONLY = ("percent", "graph")
_GENERIC_CPU = ("cpu", "CPU", "common_cpu")


class HistError(Exception):
    """A hist command refused: errno, and (message, the text whose first occurrence in the
    command the caret points at) when 6.1 logs it."""

    def __init__(self, err: int, message: str | None = None, at: str | None = None,
                 more: Sequence[tuple[str, str | None]] = ()):
        super().__init__(message or "hist command refused")
        self.errno = err
        self.message = message
        self.at = at
        self.more = tuple(more)     # further error_log entries 6.1 adds, (message, at) each

    @property
    def entries(self) -> list[tuple[str, str | None]]:
        return ([(self.message, self.at)] if self.message is not None else []) + list(self.more)


@dataclass(frozen=True)
class HistFieldDef:
    """struct hist_field of a key or value."""

    name: str                   # hist_field_name(): the field's name (cpu, CPU: the generic field's)
    # "num" "cpu" "str" "dyn_str" "hitcount" "stacktrace"; computed at the event from steps:
    # "expr" (an operator: its name the expression's text, a value of it not shown), "const"
    # (no name), "ts" (common_timestamp), "ref" (another trigger's $var: its name the variable's)
    kind: str
    modifier: str | None = None
    buckets: int = 0
    offset: int = 0
    size: int = 0
    is_signed: bool = False
    key_offset: int = 0
    key_size: int = 0
    steps: tuple[HistExprStep, ...] = ()
    type: str = ""              # an expression's type (its first operand's)

    def text(self) -> str:
        """hist_field_print(): the cpu is common_cpu, however it was named; a constant its
        value, a reference $NAME, an expression as parsed (its operands' modifiers in it)."""
        if self.kind == "const":
            return str(self.steps[0].val)
        if self.kind in ("ref", "expr"):
            return ("$" if self.kind == "ref" else "") + self.name
        out = ("common_cpu" if self.kind == "cpu" else self.name) + (f".{self.modifier}" if self.modifier else "")
        return out + (f"={self.buckets}" if self.buckets else "")

    @property
    def computed(self) -> bool:
        """The guest computes it from its steps (HF_EXPR)."""
        return self.kind in ("expr", "const", "ts", "ref")

    def same(self, other: HistFieldDef) -> bool:
        """hist_field_match()."""
        return (self.name, self.kind, self.modifier, self.buckets, self.size) == \
            (other.name, other.kind, other.modifier, other.buckets, other.size)


HITCOUNT = HistFieldDef("hitcount", "hitcount")
HIST_STACKTRACE_DEPTH = 16
STACKTRACE = HistFieldDef("stacktrace", "stacktrace", key_size=8 * HIST_STACKTRACE_DEPTH)


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
    vars: list[HistVar] = dataclass_field(default_factory=list)
    refs: list[VarRef] = dataclass_field(default_factory=list)
    actions: list[Action] = dataclass_field(default_factory=list)
    timestamps: bool = False        # hist_data->enable_timestamps: clock= is shown, and set
    clock: str = "global"
    # the variables of hist triggers its actions made on other events (SYSTEM, EVENT, NAME)
    field_var_hists: list[tuple[str, str, str]] = dataclass_field(default_factory=list)

    @property
    def key_size(self) -> int:
        return sum(k.key_size for k in self.keys)

    def field(self, index: int) -> HistFieldDef:
        return self.vals[index] if index < len(self.vals) else self.keys[index - len(self.vals)]

    def print_text(self, filter_text: bytes | None, paused: bool) -> bytes:
        """event_hist_trigger_print()."""
        out = "hist:" + (f"name={self.name}:" if self.name else "")
        out += "keys=" + ",".join(k.text() for k in self.keys)
        out += ":vals=" + ",".join(["hitcount"] + [v.text() for v in self.vals[1:]])
        if self.vars:
            out += ":" + ",".join(f"{v.name}={v.expr.text}" for v in self.vars)
        out += ":sort=" + ",".join((self.field(i).text() if i else "hitcount") + (".descending" if d else "")
                                   for i, d in self.sort)
        out += f":size={1 << self.map_bits}"
        if self.timestamps:
            out += f":clock={self.clock}"
        out += "".join(":" + a.text for a in self.actions)
        text = out.encode()
        if filter_text is not None:
            text += b" if " + filter_text
        return text + (b" [paused]\n" if paused else b" [active]\n")

    def matches(self, other: HistSpec) -> bool:
        """hist_trigger_match() less the filter and name (the callers compare those)."""
        return len(self.keys) == len(other.keys) and len(self.vals) == len(other.vals) and \
            all(a.same(b) for a, b in zip(self.keys + self.vals, other.keys + other.vals)) and \
            self.sort == other.sort and [(v.name, v.expr.text) for v in self.vars] == \
            [(v.name, v.expr.text) for v in other.vars] and [a.text for a in self.actions] == \
            [a.text for a in other.actions]

    def map_spec(self) -> HistMapSpec:
        keys = tuple(HistField("expr" if k.computed else k.kind, k.offset, k.size, k.is_signed, k.modifier == "log2",
                               k.buckets, k.key_offset, k.key_size, k.steps) for k in self.keys)
        vals = tuple(HistField("expr" if v.computed else v.kind, v.offset, v.size, v.is_signed, steps=v.steps)
                     for v in self.vals)
        return HistMapSpec(self.map_bits, self.key_size, keys, vals,
                           comm=any(k.modifier == "execname" for k in self.keys),
                           vars=tuple(v.expr.steps for v in self.vars),
                           refs=tuple(HistVarRef(0 if r.owner is self else r.owner_map(), r.var, r.read_once)
                                      for r in self.refs),
                           actions=tuple(a.guest for a in self.actions))

    def find_var(self, name: str) -> int | None:
        return next((i for i, v in enumerate(self.vars) if v.name == name), None)


def key_types(keys: Sequence[HistFieldDef], event: TraceEvent) -> list[tuple[str, int, bool]]:
    """compatible_keys()'s view of a histogram's keys: each one's type, size and sign (its
    field's type; the generic cpu's `unsigned int`, a stack's `unsigned long[]`)."""
    fields = {f.name: f for f in (*COMMON_FIELDS, *event.desc.fields)}
    def type_of(key: HistFieldDef) -> str:
        if key.kind == "cpu":
            return "unsigned int"
        if key.kind == "stacktrace":
            return "unsigned long[]"
        if key.computed:
            return key.type or "u64"
        return fields[key.name].type
    return [(type_of(k), k.size, k.is_signed) for k in keys]


@dataclass
class Expr:
    """A parsed expression (a struct hist_field tree): its text as 6.1 prints it, its steps
    for the guest."""

    text: str
    steps: tuple[HistExprStep, ...]
    usecs: bool = False         # HIST_FIELD_FL_TIMESTAMP_USECS
    is_string: bool = False
    const: int | None = None    # HIST_FIELD_FL_CONST
    var: HistVar | None = None  # a reference: the variable
    is_signed: bool = False     # its first operand's
    type: str = "u64"


@dataclass
class HistVar:
    name: str
    expr: Expr


@dataclass
class VarRef:
    """A $var reference: variable `var` of the hist trigger `owner` (whose map is at
    owner_map())."""

    name: str
    owner: HistSpec
    var: int
    owner_map: Callable[[], int]
    read_once: bool = False
    system: str | None = None   # a fully qualified reference (SYSTEM.EVENT.$var): as written
    event: str | None = None

    @property
    def text_name(self) -> str:
        """hist_field_name() of the reference: SYSTEM.EVENT.var when it was qualified."""
        return f"{self.system}.{self.event}.{self.name}" if self.system is not None else self.name


@dataclass
class Action:
    """An action of a hist trigger: its text as print_actions_spec() shows it, what the guest
    runs, and for the hist file the names of what it saves."""

    text: str
    guest: HistAction
    handler: str
    save_names: list[tuple[str, bool]] = dataclass_field(default_factory=list)   # (name, is_string)
    synth: SynthEvent | None = None  # the synthetic event it names (its ref taken)
    track: str = ""                  # onmax / onchange: what it tracks, as written (track_data.var_str)


@dataclass
class HistEnv:
    """What parsing a hist command with variables and actions looks up: find_var(name,
    system, event) the hist triggers of the trace array having that variable (those of the
    event SYSTEM.EVENT only, when given), as [(spec, map address getter)];
    find_event(system, event); find_synth(name) -> (event, its guest address) or None."""

    find_var: Callable[[str, str | None, str | None], list[tuple[HistSpec, Callable[[], int]]]]
    find_own_var: Callable[[str], bool]     # a hist trigger of this event has it
    find_event: Callable[[str, str], TraceEvent | None]
    find_synth: Callable[[str], tuple[SynthEvent, int] | None]
    # create_field_var_hist(system, event, field, the target's key types): a hist trigger on
    # that event with the keys of its histogram compatible with the target's and the variable
    # synthetic_FIELD=FIELD, registered (HistError: none compatible, or its command failed)
    make_field_var_hist: Callable[[str, str, str, list[tuple[str, int, bool]]], None]
    log: Callable[[str, str], None]         # hist_err() of an error the command then gets past


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


def parse(param: str, event: TraceEvent, remove: bool = False, env: HistEnv | None = None) -> HistSpec:
    """parse_hist_trigger_attrs() and create_hist_data() of the text after `hist:` (the filter
    split off)."""
    param = param.replace(".sym-offset", ".symXoffset")
    assignments: list[str] = []
    action_strs: list[str] = []
    clock = "global"
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
            elif lhs == "clock=":
                clock = value
            else:
                if len(assignments) >= VARS_MAX:
                    raise HistError(errno.EINVAL, ERR_TOO_MANY_VARS, part)
                assignments.append(part)
        elif part == "pause":
            pause = True
        elif part in ("cont", "continue"):
            cont = True
        elif part == "clear":
            clear = True
        elif part.startswith(("onmatch(", "onmax(", "onchange(")) and len(action_strs) < ACTIONS_MAX:
            action_strs.append(part)
        else:
            raise HistError(errno.EINVAL)
    if keys_str is None:
        raise HistError(errno.EINVAL)
    var_defs: list[tuple[str, str]] = []
    for assignment in assignments:      # parse_var_defs(): each NAME=EXPR of NAME=EXPR,NAME=EXPR...
        for text in assignment.split(","):
            var_name, sep, expr_text = text.partition("=")
            if not sep:
                raise HistError(errno.EINVAL, ERR_MALFORMED_ASSIGNMENT, var_name)
            if len(var_defs) >= VARS_MAX:
                raise HistError(errno.EINVAL, ERR_TOO_MANY_VARS, var_name)
            var_defs.append((var_name, expr_text))
    fields = {f.name: f for f in (*COMMON_FIELDS, *event.desc.fields)}

    def local_field(text: str, system: str | None = None, event_name: str | None = None) -> str | None:
        """local_field_var_ref() / field_name_from_var(): `$NAME` (or this event's
        SYSTEM.EVENT.$NAME) of this command's variable defined as a plain field (no operator,
        no reference) is that field; None: it is not one."""
        if system is not None and (system, event_name) != (event.system, event.name):
            return None
        if text.startswith("$"):
            for var_name, expr_text in var_defs:
                if var_name == text[1:] and _contains_operator(expr_text)[0] is None and \
                        not expr_text.startswith("$"):
                    return expr_text
        return None

    def is_var(var_name: str, system: str | None, event_name: str | None) -> bool:
        """find_event_var(): a registered hist trigger has it."""
        return env is not None and bool(env.find_var(var_name, system, event_name))
    vals = [HITCOUNT]
    spec = HistSpec([], vals, [], map_bits or MAP_BITS_DEFAULT, name, pause, cont, clear)
    spec.clock = clock
    parser = _ExprParser(spec, fields, env, remove, event, local_field)
    if vals_str is not None:
        rest = vals_str
        for _ in range(VALS_MAX):          # (create_val_fields(): hitcount parts count too)
            if len(vals) >= VALS_MAX or rest is None:
                break
            part, rest = _strsep(rest, ",")
            if part == "hitcount":
                continue
            vals.append(_key_or_val(part, fields, False, local_field, is_var, parser))
        if rest is not None and rest != "hitcount":
            raise HistError(errno.EINVAL)
    keys: list[HistFieldDef] = []
    rest = keys_str
    offset = 0
    while len(keys) < KEYS_MAX and rest is not None:
        part, rest = _strsep(rest, ",")
        # create_key_field(): `stacktrace` as it is, the event's caller's stack
        key = STACKTRACE if part == "stacktrace" else _key_or_val(part, fields, True, local_field, is_var, parser)
        size = (key.key_size + 7) & ~7
        key = replace(key, key_offset=offset, key_size=size)
        offset += size
        if offset > KEY_SIZE_MAX:
            raise HistError(errno.EINVAL)
        keys.append(key)
    if rest is not None:
        raise HistError(errno.EINVAL)
    spec.keys = keys
    spec.sort = _sort_keys(sort_str, vals, keys)
    if (var_defs or action_strs) and env is None:
        raise HistError(errno.EINVAL)
    for var_name, text in var_defs:        # create_var_fields(): unique among the event's
        if spec.find_var(var_name) is not None or (not remove and env is not None and env.find_own_var(var_name)):
            raise HistError(errno.EINVAL, ERR_DUPLICATE_VAR, var_name)
        expr = parser.parse(text, [0], var_def=True)
        if expr.steps and expr.steps[0].op in ("str", "dyn_str"):   # a string field: its slot in the element
            slot = sum(1 for v in spec.vars if v.expr.steps and v.expr.steps[0].op in ("str", "dyn_str"))
            expr.steps = (replace(expr.steps[0], val=slot),)
        spec.vars.append(HistVar(var_name, expr))
    for text in action_strs:
        spec.actions.append(parser.action(text, event))
    _ts_in_usecs(spec)
    return spec


def _ts_in_usecs(spec: HistSpec) -> None:
    """hist_field_timestamp(): one common_timestamp.usecs anywhere in the command
    (attrs->ts_in_usecs) makes every common_timestamp of it microseconds."""
    def usecs(steps: tuple[HistExprStep, ...]) -> tuple[HistExprStep, ...]:
        return tuple(replace(e, op="ts_usecs") if e.op == "ts" else e for e in steps)
    fields = spec.keys + spec.vals
    if not any(e.op == "ts_usecs" for steps in [f.steps for f in fields] + [v.expr.steps for v in spec.vars]
               for e in steps):
        return
    spec.keys = [replace(k, steps=usecs(k.steps)) for k in spec.keys]
    spec.vals[:] = [replace(v, steps=usecs(v.steps)) for v in spec.vals]
    for var in spec.vars:
        var.expr.steps = usecs(var.expr.steps)


_OPS = {"-": "minus", "+": "plus", "/": "div", "*": "mult"}


def _contains_operator(text: str) -> tuple[str | None, int]:
    """contains_operator(): the root operator (the rightmost of the lowest precedence)."""
    minus, plus = text.rfind("-"), text.rfind("+")
    if minus == 0:
        return "neg", 0
    if minus >= 0 or plus >= 0:
        return ("+", plus) if plus > minus else ("-", minus)
    div, mult = text.rfind("/"), text.rfind("*")
    if div >= 0 or mult >= 0:
        return ("*", mult) if mult > div else ("/", div)
    return None, -1


class _ExprParser:
    """parse_expr() / parse_atom() / the actions' parsers of one hist command."""

    def _env(self) -> HistEnv:
        if self.env is None:  # (parse_hist() refuses variables and actions without one)
            raise HistError(errno.EINVAL)
        return self.env

    def __init__(self, spec: HistSpec, fields: dict[str, FieldLike], env: HistEnv | None, remove: bool,
                 event: TraceEvent, local_field: Callable[[str, str | None, str | None], str | None]):
        """local_field(text, system, event): a $var of this command defined as a plain field,
        that field (else None)."""
        self.spec, self.fields, self.env, self.remove, self.event = spec, fields, env, remove, event
        self.local_field = local_field

    def parse(self, text: str, n_subexprs: list[int], var_def: bool = False) -> Expr:
        """parse_expr(); var_def: the whole of a variable's expression (HIST_FIELD_FL_VAR: not its
        operands)."""
        if n_subexprs[0] > 3:
            raise HistError(errno.EINVAL, ERR_TOO_MANY_SUBEXPR, text)
        op, at = _contains_operator(text)
        if op is None:
            return self._atom(text, read_once=False, var_def=var_def)
        n_subexprs[0] += 1
        if op == "neg":
            if n_subexprs[0] > 3:
                raise HistError(errno.EINVAL, ERR_TOO_MANY_SUBEXPR, text)
            inner = text[1:]
            close = inner.rfind(")")
            if not inner.startswith("(") or close < 0:
                raise HistError(errno.EINVAL)
            if close != len(inner) - 1:
                raise HistError(errno.EINVAL, ERR_UNARY_MINUS_SUBEXPR, inner[1:])
            sub = self.parse(inner[1:close], n_subexprs)
            if sub.is_string:
                raise HistError(errno.EINVAL, ERR_INVALID_STR_OPERAND, inner[1:])
            return Expr(f"-({sub.text})", sub.steps + (HistExprStep("neg"),), sub.usecs, is_signed=sub.is_signed,
                        type=sub.type)
        left, right = text[:at], text[at + 1:]
        if not left or not right:
            raise HistError(errno.EINVAL)
        a = self.parse(left, n_subexprs)
        if a.is_string:
            raise HistError(errno.EINVAL, ERR_INVALID_STR_OPERAND, left)
        b = self.parse(right, n_subexprs)
        if b.is_string:
            raise HistError(errno.EINVAL, ERR_INVALID_STR_OPERAND, right)
        for operand in (a, b):      # expression operands are read once
            if operand.var is not None and operand.steps[-1].op == "ref":
                ref = self.spec.refs[operand.steps[-1].offset]
                ref.read_once = True
        ua = a.var.expr.usecs if a.var is not None else a.usecs
        ub = b.var.expr.usecs if b.var is not None else b.usecs
        if ua != ub:
            raise HistError(errno.EINVAL, ERR_TIMESTAMP_MISMATCH, "")
        name = _OPS[op]
        ca = a.var.expr.const if a.var is not None else a.const
        cb = b.var.expr.const if b.var is not None else b.const
        if name == "div" and cb is not None and not cb:
            raise HistError(errno.EDOM, ERR_DIVISION_BY_ZERO, right)
        text_out = f"{a.text}{op}{b.text}"
        if ca is not None and cb is not None:    # collapsed to a constant, named by its value
            value = _apply(name, ca, cb)
            return Expr(str(value), (HistExprStep("const", val=value),), a.usecs, const=value)
        step = HistExprStep(name, val=cb if name == "div" and cb is not None else 0)
        return Expr(text_out, a.steps + b.steps + (step,), a.usecs, is_signed=a.is_signed, type=a.type)

    def _atom(self, text: str, read_once: bool, var_def: bool = False) -> Expr:
        """parse_atom(): a $var (or SYSTEM.EVENT.$var), a constant, common_timestamp, cpu or a
        field (SYSTEM.EVENT.field: the field, of whatever event); var_def: the whole of a variable's
        expression."""
        system = event = None
        if not text[:1].isdigit():
            system, event, text = _split_ref(text)
            local = self.local_field(text, system, event)     # local_field_var_ref()
            if local is not None:
                text, system, event = local, None, None
        if text.startswith("$"):
            var_name = text[1:]
            ref = self.var_ref(var_name, read_once, system, event)
            if ref is None:     # (parse_var_ref(), then parse_atom() tries it as a field)
                raise HistError(errno.EINVAL, ERR_VAR_NOT_FOUND, var_name, [(ERR_FIELD_NOT_FOUND, text)])
            index = self.spec.refs.index(ref)
            var = ref.owner.vars[ref.var]
            # (6.1 does not flag a reference to a string variable a string: it may be an operand)
            return Expr(f"${ref.text_name}", (HistExprStep("ref", offset=index),), var.expr.usecs, var=var,
                        is_signed=var.expr.is_signed, type=var.expr.type)
        if text[:1].isdigit():
            value = or_none(kstrtoull, text)
            if value is None or value >= 1 << 64:
                raise HistError(errno.EINVAL, "Expecting numeric literal", text)
            return Expr(str(value), (HistExprStep("const", val=value),), const=value)
        name, modifier = _strsep(text, ".")
        if name == "common_timestamp":
            shown = _display_modifier(modifier, var_def)    # (an operand's .percent / .graph: no effect)
            if modifier not in (None, "usecs", "hex") and shown is None:
                raise HistError(errno.EINVAL, ERR_BAD_FIELD_MODIFIER, modifier)
            self.spec.timestamps = True
            usecs = modifier == "usecs"
            text = name + (f".{shown or modifier}" if modifier else "")
            return Expr(text, (HistExprStep("ts_usecs" if usecs else "ts"),), usecs)
        # an operand may have a key's modifiers (parse_expr() gives it no flags to check them
        # against): .log2 and .buckets=N apply to its value
        f = _field(text, self.fields, key=False, usecs=True, var_def=var_def, operand=not var_def)
        shape = (HistExprStep("log2"),) if f.modifier == "log2" else \
            (HistExprStep("buckets", val=f.buckets),) if f.buckets else ()
        # expr_field_str() of an operand: the cpu as written, .buckets without its size; the
        # whole of a variable as hist_field_print() (common_cpu)
        text = f.text() if var_def else f.name + (f".{f.modifier}" if f.modifier else "")
        usecs = f.modifier == "usecs"       # (HIST_FIELD_FL_TIMESTAMP_USECS, on any field)
        if f.kind == "cpu":
            return Expr(text, (HistExprStep("cpu"),) + shape, usecs, type="unsigned int")
        if f.kind in ("str", "dyn_str"):    # (a string variable's value; no operand)
            return Expr(f.text(), (HistExprStep(f.kind, f.offset, f.size),), is_string=True)
        return Expr(text, (HistExprStep("field", f.offset, f.size, f.is_signed),) + shape, usecs,
                    is_signed=f.is_signed, type=self.fields[f.name].type)

    def var_ref(self, var_name: str, read_once: bool = False, system: str | None = None,
                event: str | None = None) -> VarRef | None:
        """find_event_var() and create_var_ref(): one reference per variable (the first one
        made says whether it was qualified).  SYSTEM.EVENT given: that event's registered hist
        triggers' variable."""
        own = self.spec.find_var(var_name) if system is None else None
        if own is not None:
            owner, getter, index = self.spec, (lambda: 0), own
        else:
            found = self.env.find_var(var_name, system, event) if self.env is not None else []
            if len(found) > 1:
                raise HistError(errno.EINVAL, ERR_VAR_NOT_UNIQUE, var_name)
            if not found:
                return None
            owner, getter = found[0]
            theirs = owner.find_var(var_name)
            if theirs is None:  # (find_var() found it there)
                return None
            index = theirs
        for ref in self.spec.refs:
            if ref.owner is owner and ref.var == index:
                return ref
        ref = VarRef(var_name, owner, index, getter, read_once, system, event)
        self.spec.refs.append(ref)
        return ref

    def _param(self, text: str, match: tuple[str, str] | None = None) -> tuple[HistParam, bool]:
        """An action's argument: a $var (a reference) or a field of the event (a field var),
        either maybe qualified: SYSTEM.EVENT.$var, SYSTEM.EVENT.field (trace_action_create());
        match: onmatch()'s event, where a field this event lacks is looked for."""
        system = event = None
        if "." in text:
            system, _, rest = text.partition(".")
            event, dot, text = rest.partition(".")
            if not dot:
                raise HistError(errno.EINVAL)
            if (system, event) == (self.event.system, self.event.name) and not text.startswith("$"):
                system = event = None       # create_target_field_var(): a field of this event
        if text.startswith("$"):
            ref = self.var_ref(text[1:], system=system, event=event)
            if ref is None:
                raise HistError(errno.EINVAL, ERR_PARAM_NOT_FOUND, text)
            return HistParam("ref", self.spec.refs.index(ref)), ref.owner.vars[ref.var].expr.is_string
        f = self.fields.get(text) if system is None else None   # (another event's field: not here)
        if f is None or not f.size:
            return self._other_event_field(text, system, event, match)
        made = _field(text, self.fields, key=False)
        if made.kind in ("str", "dyn_str"):
            return HistParam(made.kind, made.offset, made.size), True
        if made.kind == "cpu":
            raise HistError(errno.EINVAL, ERR_PARAM_NOT_FOUND, text)
        return HistParam("num", made.offset, made.size, made.is_signed), False

    def _other_event_field(self, field: str, system: str | None, event: str | None,
                           match: tuple[str, str] | None) -> tuple[HistParam, bool]:
        """trace_action_create_field_var() past create_target_field_var(): the field of another
        event (the one named, else onmatch()'s), read from the variable synthetic_FIELD of a hist
        trigger made on that event for it (create_field_var_hist(), which the trigger's
        removal takes away)."""
        env = self._env()
        if system is None:
            if match is None:       # onmax()/onchange(): no other event to look at
                raise HistError(errno.EINVAL, ERR_FIELD_VAR_CREATE_FAIL, field)
            if not self.remove:     # (create_target_field_var() logged why this event has none)
                env.log(ERR_FIELD_NOT_FOUND, field)
                env.log(ERR_FIELD_VAR_PARSE_FAIL, field)
            system, event = match
        assert event is not None
        var_name = f"synthetic_{field}"
        made = (system, event, var_name)
        # find_synthetic_field_var(): this command made it already. A removal (or a pause,
        # continue or clear of a trigger there is) names the one its trigger made.
        spec = self.spec
        ref = None
        if made in spec.field_var_hists or self.remove or spec.pause or spec.cont or spec.clear:
            ref = self.var_ref(var_name, system=system, event=event)
        if ref is None and not self.remove:
            env.make_field_var_hist(system, event, field, key_types(spec.keys, self.event))
            spec.field_var_hists.append(made)
            ref = self.var_ref(var_name, system=system, event=event)
        if ref is None:
            raise HistError(errno.EINVAL, ERR_HIST_CREATE_FAIL, field)
        return HistParam("ref", self.spec.refs.index(ref)), ref.owner.vars[ref.var].expr.is_string

    def action(self, text: str, event: TraceEvent) -> Action:
        """onmatch_parse() / track_data_parse() and action_parse()."""
        handler = text[:text.index("(")]
        rest = text[len(handler) + 1:]
        close = rest.find(")")
        if close < 0:
            raise HistError(errno.EINVAL, ERR_NO_CLOSING_PAREN, rest)
        target, rest = rest[:close], rest[close + 1:]
        if not rest.startswith("."):
            raise HistError(errno.EINVAL, ERR_ACTION_NOT_FOUND, rest)
        rest = rest[1:]
        paren = rest.find("(")
        if paren < 0 or not rest.endswith(")"):
            raise HistError(errno.EINVAL, ERR_NO_CLOSING_PAREN if paren >= 0 else ERR_ACTION_NOT_FOUND, rest)
        action_name, params_str = rest[:paren], rest[paren + 1:-1]
        params = [p.strip() for p in params_str.split(",")] if params_str.strip() else []
        if len(params) > PARAMS_MAX:
            raise HistError(errno.EINVAL, ERR_TOO_MANY_PARAMS, params_str)
        track_ref = 0
        match: tuple[str, str] | None = None
        if handler == "onmatch":
            system, dot, match_event = target.partition(".")
            if not dot or not system:
                raise HistError(errno.EINVAL, ERR_SUBSYS_NOT_FOUND, target)
            if not match_event or self._env().find_event(system, match_event) is None:
                raise HistError(errno.EINVAL, ERR_INVALID_SUBSYS_EVENT, match_event or target)
            head = f"onmatch({system}.{match_event})"
            match = (system, match_event)
        else:
            if not target.startswith("$"):
                raise HistError(errno.EINVAL, ERR_ONX_NOT_VAR, target)
            ref = self.var_ref(target[1:])
            if ref is None:
                raise HistError(errno.EINVAL, ERR_ONX_VAR_NOT_FOUND, target[1:])
            track_ref = self.spec.refs.index(ref)
            head = f"{handler}({target})"
        if action_name == "save":
            if handler == "onmatch":
                raise HistError(errno.EINVAL, ERR_ACTION_MISMATCH, rest)
            if not params:
                raise HistError(errno.EINVAL, ERR_INVALID_PARAM, "")
            made = [self._param(p) for p in params]
            guest = HistAction(handler, "save", tuple(m for m, _ in made), track_ref)
            return Action(f"{head}.save({','.join(params)})", guest, handler,
                          [(p, string) for p, (_, string) in zip(params, made)])
        if action_name == "snapshot":
            if handler == "onmatch":
                raise HistError(errno.EINVAL, ERR_ACTION_MISMATCH, rest)
            guest = HistAction(handler, "snapshot", (), track_ref)
            return Action(f"{head}.snapshot()", guest, handler, track=target)
        use_trace = action_name == "trace"
        if use_trace:
            if not params:
                raise HistError(errno.EINVAL, ERR_SYNTH_EVENT_NOT_FOUND, params_str)
            synth_name, params = params[0], params[1:]
        else:
            synth_name = action_name
        found = self._env().find_synth(synth_name)
        if found is None:
            raise HistError(errno.EINVAL, ERR_SYNTH_EVENT_NOT_FOUND, synth_name)
        synth, address = found
        if len(params) != len(synth.fields):
            raise HistError(errno.EINVAL, ERR_SYNTH_COUNT_MISMATCH, synth_name)
        trace_params = []
        for p, f in zip(params, synth.fields):
            param, is_string = self._param(p, match)
            if is_string != bool(f.is_string):
                raise HistError(errno.EINVAL, ERR_SYNTH_TYPE_MISMATCH, p)
            trace_params.append(param)
        guest = HistAction(handler, "trace", tuple(trace_params), track_ref, address)
        body = ",".join(([synth_name] if use_trace else []) + params)
        return Action(f"{head}.{action_name}({body})", guest, handler, synth=synth)


def _apply(op: str, a: int, b: int) -> int:
    """The value of a constant expression (hist_fn_call() at parse time)."""
    mask = (1 << 64) - 1
    if op == "plus":
        return (a + b) & mask
    if op == "minus":
        return (a - b) & mask
    if op == "mult":
        return (a * b) & mask
    return a // b if b else mask


def _split_ref(text: str) -> tuple[str | None, str | None, str]:
    """parse_atom(): a text with two dots or more is SYSTEM.EVENT.REST, REST a $var of that
    event or else a field parsed on its own (so `a.b.field` is field, and `field.hex.percent`
    the field `percent`)."""
    parts = text.split(".", 2)
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else (None, None, text)


def _display_modifier(modifier: str | None, refused: bool) -> str | None:
    """parse_field()'s .percent / .graph (6.1 compares only their first letters: `.percentage`
    is .percent); refused (a key or a variable): Invalid field modifier."""
    if modifier is None or not modifier.startswith(_VAL_ONLY):
        return None
    if refused:
        raise HistError(errno.EINVAL, ERR_BAD_FIELD_MODIFIER, modifier)
    return "percent" if modifier.startswith("percent") else "graph"


def _key_or_val(text: str, fields: dict[str, FieldLike], key: bool,
                local_field: Callable[[str, str | None, str | None], str | None],
                is_var: Callable[[str, str | None, str | None], bool], parser: _ExprParser) -> HistFieldDef:
    """parse_expr() of a key or value (create_key_field(), create_val_field()): a field,
    SYSTEM.EVENT.field, a $var of this command standing for a field; else what the guest
    computes (an expression, a constant, common_timestamp, another trigger's $var) from the
    parser's steps.  is_var(name, system, event): parse_var_ref() would find it."""
    if _contains_operator(text)[0] is not None or text[:1].isdigit():
        return _computed(text, key, parser)
    system, event_name, rest = _split_ref(text)
    local = local_field(rest, system, event_name)
    if local is not None:
        return _field(local, fields, key)
    if rest.partition(".")[0] == "common_timestamp" and "common_timestamp" not in fields:
        return _computed(text, key, parser)
    if not rest.startswith("$"):
        return _field(rest, fields, key)
    if is_var(rest[1:], system, event_name):
        if key:
            raise HistError(errno.EINVAL, ERR_INVALID_REF_KEY, text)
        return _computed(text, key, parser)
    try:        # parse_var_ref() logged that it found none; parse_field() of the text follows
        _field(rest, fields, key)
    except HistError as refused:
        raise HistError(refused.errno, ERR_VAR_NOT_FOUND, rest[1:], refused.entries) from None
    raise HistError(errno.EINVAL, ERR_VAR_NOT_FOUND, rest[1:])


def _computed(text: str, key: bool, parser: _ExprParser) -> HistFieldDef:
    """A key or value that parse_expr() makes other than a field: an expression (a key of one
    may not read a $var), a constant, common_timestamp[.usecs], a $var of another trigger.
    (A key's .percent / .graph is refused as a variable's: on the whole, not its operands.)"""
    expr = parser.parse(text, [0], var_def=key)
    steps = expr.steps
    if key and any(e.op == "ref" for e in steps):   # field_has_hist_vars()
        raise HistError(errno.EINVAL, ERR_INVALID_REF_KEY, text)
    if expr.const is not None:
        return HistFieldDef("", "const", size=8, key_size=8, steps=steps, type="u64")
    if len(steps) == 1 and steps[0].op in ("ts", "ts_usecs"):
        modifier = expr.text.partition(".")[2] or None
        return HistFieldDef("common_timestamp", "ts", modifier, size=8, key_size=8, steps=steps, type="u64")
    if len(steps) == 1 and steps[0].op == "ref":
        ref = parser.spec.refs[steps[0].offset]
        return HistFieldDef(ref.text_name, "ref", size=8, is_signed=expr.is_signed, key_size=8, steps=steps,
                            type=expr.type)
    return HistFieldDef(expr.text, "expr", size=8, is_signed=expr.is_signed, key_size=8, steps=steps,
                        type=expr.type)


def _field(text: str, fields: dict[str, FieldLike], key: bool, usecs: bool = False,
           var_def: bool = False, operand: bool = False) -> HistFieldDef:
    """parse_field() and the checks of create_key_field() / __create_val_field(); usecs: the
    modifier is allowed (variables' fields); var_def: the whole of a variable's expression;
    operand: an operand of an expression (any modifier, as a key's)."""
    name, modifier = _strsep(text, ".")
    buckets = 0
    if modifier is not None:
        ok = modifier in ("hex", "sym", "symXoffset", "syscall", "log2") or (usecs and modifier == "usecs")
        ok |= modifier == "execname" and name == "common_pid"
        if modifier.startswith("bucket"):
            tail = modifier[6:]
            tail = tail[1:] if tail.startswith("s") else tail
            value = or_none(kstrtoull, tail[1:]) if tail.startswith("=") else None
            if not value or value >= 1 << 64:   # (the caret: where the modifier was read up to)
                raise HistError(errno.EINVAL, ERR_BAD_FIELD_MODIFIER, tail[1:] if tail.startswith("=") else tail)
            buckets, modifier, ok = value, "buckets", True
        elif modifier.startswith(_VAL_ONLY):
            modifier, ok = _display_modifier(modifier, key or var_def), True
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
    if not key and not operand and modifier in _KEY_ONLY:
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


def _heapsort(items: list[Any], cmp: Callable[[Any, Any], int]) -> None:
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
    """What printing keys needs (kallsyms_lookup() and the syscalls' names), and the trace
    array's clock."""

    symbolize: Callable[[int], tuple[str, int, int] | None]
    syscall_names: dict[int, str] = dataclass_field(default_factory=dict)
    # tracing_set_clock() of the trace array (a trigger with timestamps sets its clock=); OSError
    # (EINVAL): no such clock
    set_clock: Callable[[str], None] | None = None


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
    multiline = False
    for k in spec.keys:
        raw = entry.key[k.key_offset:k.key_offset + k.key_size]
        if k.kind == "stacktrace":     # hist_trigger_stacktrace_print(): up to the first 0
            frames = []
            for (addr,) in struct.iter_unpack("<Q", raw):
                if not addr:
                    break
                frames.append(" " * 9 + _sym(ctx, addr, True) + "\n")
            parts.append("stacktrace:\n" + "".join(frames))
            multiline = True
            continue
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
    return "{ " + ", ".join(parts) + ("}" if multiline else " }")


U64_MASK, U32_MASK = (1 << 64) - 1, (1 << 32) - 1


def _percentage(val: int, total: int) -> int | None:
    """__get_percentage(): 100 times the percentage, cut to an unsigned int as 6.1's cast does
    (a column of negative sums, e.g. errno returns, goes past 100%); None for [ERROR], which is
    6.1's UINT_MAX (a total of 0 under a non-zero value)."""
    if total and val < U64_MASK // 10000:
        pc = val * 10000 // total & U32_MASK
    elif total // 10000:
        pc = val // (total // 10000) & U32_MASK
    else:
        pc = U32_MASK if val else 0
    return None if pc == U32_MASK else pc


def _val_text(v: HistFieldDef, val: int, total: int, top: int) -> str:
    """hist_trigger_print_val(); total and top: hist_val_stat's total (a u64: it wraps) and max
    of the column."""
    if v.modifier == "percent":
        pc = _percentage(val, total)
        return f" {v.name} (%):[ERROR]" if pc is None else f" {v.name} (%): {pc // 100:3d}.{pc % 100:02d}"
    if v.modifier == "graph":   # __fill_bar_str(): a bar of 20 scaled to the column's maximum
        pc = _percentage(val, top)
        if pc is None:
            bar = "[ERROR]"
        else:
            width = min((pc * 20 & U32_MASK) // 10000, 20)
            bar = "#" * width + " " * (20 - width)
        return f" {v.name}: {bar:>20}"
    if v.modifier == "hex":
        return f" {v.name}: {val:10x}"
    return f" {v.name}: {val:10d}"


def _tracked_text(spec: HistSpec, entry: HistEntry) -> str:
    """print_actions() / track_data_print(): each onmax / onchange value and what it saved."""
    out = ""
    tracked = iter(entry.tracked)
    for action in spec.actions:
        if action.handler == "onmatch":
            continue
        value, saved = next(tracked, (0, b""))
        if action.guest.action == "snapshot":
            continue
        out += f"\n\t{'max' if action.handler == 'onmax' else 'changed'}: {value:10d}"
        if action.guest.action != "save":
            continue
        at = 0
        for (name, is_string), param in zip(action.save_names, action.guest.params):
            raw = saved[at:at + param.saved_size]
            at += param.saved_size
            if is_string:
                text = raw.split(b"\0", 1)[0].decode("latin-1")
                out += f"  {name}: {text:<32}"
            else:
                out += f"  {name}: {int.from_bytes(raw[:8], 'little'):10d}"
    return out


def _cond_snapshot_text(spec: HistSpec, snapshot: HistSnapshot, ctx: HistContext) -> str:
    """track_data_snapshot_print(): once the trigger's snapshot action took a snapshot, the
    value that took it and the key of the element it was tracked in."""
    action = next((a for a in spec.actions if a.guest.action == "snapshot"), None)
    if action is None or snapshot.cond_snapshot is None:
        return ""
    value, entry = snapshot.cond_snapshot
    return (f"\nSnapshot taken (see tracing/snapshot).  Details:\n"
            f"\ttriggering value {{ {action.handler}({action.track}) }}: {value:10d}"
            f"\ttriggered by event with key: {_key_text(spec, entry, ctx)}\n")


def hist_text(spec: HistSpec, info: bytes, snapshot: HistSnapshot, ctx: HistContext) -> bytes:
    """hist_trigger_show() of one hist trigger (without the separator before a second)."""
    entries = sort_entries(spec, snapshot.entries)
    totals = [sum(e.sums[j] for e in entries) & U64_MASK for j in range(len(spec.vals))]
    tops = [max((e.sums[j] for e in entries), default=0) for j in range(len(spec.vals))]
    lines = []
    for e in entries:
        line = _key_text(spec, e, ctx) + _val_text(HITCOUNT, e.sums[0], totals[0], tops[0])
        for j, v in enumerate(spec.vals[1:], start=1):
            if v.kind != "expr":    # (an expression's value is not shown, though it may sort)
                line += " " + _val_text(v, e.sums[j], totals[j], tops[j])
        line += _tracked_text(spec, e)
        lines.append(line + "\n")
    head = b"# event histogram\n#\n# trigger info: " + info + b"#\n\n"
    lines.append(_cond_snapshot_text(spec, snapshot, ctx))
    tail = f"\nTotals:\n    Hits: {snapshot.hits}\n    Entries: {len(entries)}\n    Dropped: {snapshot.drops}\n"
    return head + "".join(lines).encode("latin-1") + tail.encode()


class HistMap:
    """A hist trigger's map in the guest."""

    def __init__(self, maps: HistMapOps, spec: HistSpec):
        self._maps = maps
        self.addr = maps.create(spec.map_spec())
        self.users = 1      # the triggers aggregating into it (named ones share it)

    def release(self) -> None:
        """A trigger using it is gone; the last one frees it."""
        self.users -= 1
        if not self.users:
            self.destroy()

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
