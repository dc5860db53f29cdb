"""The function-list files of ftrace: set_ftrace_filter, set_ftrace_notrace, set_graph_function
and set_graph_notrace (ftrace_regex_write, match_records, ftrace_graph_set_hash in ftrace.c).

A write is a list of whitespace-separated tokens, each applied in turn: a name, a glob
(`vfs_*`, `*read*`, `*_open`, `vfs_rea?`), `!` in front to remove what it matches, and (filter
files only) a number, the 1-based line of available_filter_functions. A token matching nothing
fails with EINVAL; as in Linux, the tokens before it stay applied (the kernel commits its
working copy when the file is closed, whatever the write returned). In set_ftrace_filter a token
`glob:command[:param]` is a function command (function_commands.py), listed after the names.
"""

import errno
import fnmatch
from collections.abc import Callable, Sequence

from .probe_args import simple_strtoul

# FTRACE_BUFF_MAX (KSYM_SYMBOL_LEN): a longer token fails in trace_get_user().
_TOKEN_MAX = 511
_SPACE = b" \t\n\v\f\r"

ALL_ENABLED = b"#### all functions enabled ####\n"
NONE_DISABLED = b"#### no functions disabled ####\n"


def compile_match(search: str) -> Callable[[str], bool]:
    """filter_parse_regex() + ftrace_match(): a leading and/or trailing `*` alone are plain
    prefix/suffix/substring matches; `?`, `[`, `\\` or an inner `*` make it a full glob."""
    for i, char in enumerate(search):
        if char == "*" and 0 < i < len(search) - 1 or char in "[?\\":
            return lambda name: fnmatch.fnmatchcase(name, search)
    front, back = search.startswith("*"), search.endswith("*") and len(search) > 1
    core = search[1 if front else 0:len(search) - 1 if back else len(search)]
    if front and back:
        return lambda name: core in name
    if front:
        return lambda name: name.endswith(core)
    if back:
        return lambda name: name.startswith(core)
    return lambda name: name == core


def match_functions(functions: Sequence[str], search: str, *, by_index: bool) -> list[str]:
    """match_records(): the functions a name, glob or (by_index) 1-based line number selects,
    in address order."""
    if search[:1].isascii() and search[:1].isdigit():   # the kernel's isdigit(): ASCII only
        if not by_index:
            return []
        index = simple_strtoul(search)[0] - 1
        return [functions[index]] if 0 <= index < len(functions) else []
    match = compile_match(search)
    return [name for name in functions if match(name)]


class FunctionFilter:
    """One of the files: the set of function names it holds, applied to the kernel through
    on_change() after each write that changed it."""

    def __init__(self, functions: Sequence[str], empty_text: bytes, on_change: Callable[[], None], *,
                 by_index: bool = True, commands=None):
        """functions: the traceable functions in address order (available_filter_functions);
        empty_text: what reading the empty file shows; by_index: numbers select by line;
        commands: set_ftrace_filter's FunctionCommands (None: a token with `:` matches nothing)."""
        self._commands = commands
        self._functions = functions
        self._order = {name: i for i, name in enumerate(functions)}
        self._empty_text = empty_text
        self._on_change = on_change
        self._by_index = by_index
        self.names: frozenset[str] = frozenset()

    def read(self) -> bytes:
        probes = self._commands.lines() if self._commands is not None else b""
        if not self.names:
            return self._empty_text + probes
        return "".join(f"{name}\n" for name in sorted(self.names, key=self._order.__getitem__)).encode() + probes

    def clear(self) -> None:
        """An open with O_TRUNC starts from the empty set."""
        if self.names:
            self.names = frozenset()
            self._on_change()

    def write(self, data: bytes) -> None:
        names = set(self.names)
        error = None
        for raw in data.split(b"\0", 1)[0].split():
            try:
                self._apply(raw, names)
            except OSError as failed:
                error = failed
                break
        if names != self.names:
            self.names = frozenset(names)
            self._on_change()
        if error is not None:
            raise error

    def _apply(self, raw: bytes, names: set[str]) -> None:
        if len(raw) > _TOKEN_MAX:
            raise OSError(errno.EINVAL, "token too long")
        token = raw.decode("latin-1")
        remove = token.startswith("!")
        search = token[1:] if remove else token
        if ":" in token and self._commands is not None:
            self._commands.run(token)  # the glob keeps its `!`: it unregisters
            return
        matched = match_functions(self._functions, search, by_index=self._by_index)
        if not matched:
            raise OSError(errno.EINVAL, f"no function matches {token!r}")
        if remove:
            names.difference_update(matched)
        else:
            names.update(matched)
