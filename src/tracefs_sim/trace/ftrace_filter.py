"""The function-list files of ftrace: set_ftrace_filter, set_ftrace_notrace, set_graph_function
and set_graph_notrace (ftrace_regex_write, match_records, ftrace_graph_set_hash in ftrace.c).

A write is a list of whitespace-separated tokens, each applied in turn: a name, a glob
(`vfs_*`, `*read*`, `*_open`, `vfs_rea?`), `!` in front to remove what it matches, and (filter
files only) a number, the 1-based line of available_filter_functions. A token matching nothing
fails with EINVAL; as in Linux, the tokens before it stay applied (the kernel commits its
working copy when the file is closed, whatever the write returned).
"""

import errno
import fnmatch
from collections.abc import Callable, Sequence

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


def _strtoul_prefix(text: str) -> int:
    """simple_strtoul(s, NULL, 0): the leading number, 0x hex / 0 octal / decimal."""
    base, digits = 10, text
    if text[:2].lower() == "0x":
        base, digits = 16, text[2:]
    elif text.startswith("0"):
        base = 8
    value = 0
    for char in digits:
        digit = int(char, 36) if char.isalnum() else 99
        if digit >= base:
            break
        value = value * base + digit
    return value


class FunctionFilter:
    """One of the files: the set of function names it holds, applied to the kernel through
    on_change() after each write that changed it."""

    def __init__(self, functions: Sequence[str], empty_text: bytes, on_change: Callable[[], None], *,
                 by_index: bool = True):
        """functions: the traceable functions in address order (available_filter_functions);
        empty_text: what reading the empty file shows; by_index: numbers select by line."""
        self._functions = functions
        self._order = {name: i for i, name in enumerate(functions)}
        self._empty_text = empty_text
        self._on_change = on_change
        self._by_index = by_index
        self.names: frozenset[str] = frozenset()

    def read(self) -> bytes:
        if not self.names:
            return self._empty_text
        return "".join(f"{name}\n" for name in sorted(self.names, key=self._order.__getitem__)).encode()

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
        if ":" in search:
            # `func:command[:param]`: no command (mod, traceon, traceoff, stacktrace,
            # enable_event, ...) is registered here, so every one is unknown.
            raise OSError(errno.EINVAL, f"no ftrace command in {token!r}")
        if search[:1].isdigit():
            matched = self._by_index_match(search)
        else:
            match = compile_match(search)
            matched = [name for name in self._functions if match(name)]
        if not matched:
            raise OSError(errno.EINVAL, f"no function matches {token!r}")
        if remove:
            names.difference_update(matched)
        else:
            names.update(matched)

    def _by_index_match(self, search: str) -> list[str]:
        """MATCH_INDEX: the Nth function (from 1); graph files have no index form and match
        nothing."""
        if not self._by_index:
            return []
        index = _strtoul_prefix(search) - 1
        if 0 <= index < len(self._functions):
            return [self._functions[index]]
        return []
