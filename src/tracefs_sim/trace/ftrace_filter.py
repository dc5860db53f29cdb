"""The function-list files of ftrace: set_ftrace_filter, set_ftrace_notrace (ftrace_regex_open,
ftrace_regex_write, ftrace_process_regex, match_records, ftrace_regex_release in ftrace.c) and
set_graph_function, set_graph_notrace (ftrace_graph_open, ftrace_graph_write,
ftrace_graph_set_hash, ftrace_graph_release).

As in Linux, each open file has its own parser and working copy:

- a write() takes one whitespace-separated token (trace_get_user(): the call returns how much
  it consumed, so a shell's `echo a b` makes one write per token; a token may be split over
  several writes, and one left unfinished is applied when the file is closed); a token longer
  than the parser's buffer fails, and the parser then ignores the rest of what is written;
- a token is a name, a glob (`vfs_*`, `*read*`, `vfs_rea?`, `[...]`, `\\` escapes), `!` in
  front to remove what it matches, or (ftrace filter files only) a number: the 1-based line of
  available_filter_functions; in set_ftrace_filter / set_ftrace_notrace `glob:mod:module`
  names the functions of a module (there are none here: the entry is kept for a module that
  has not been loaded, listed, and a filter holding one traces nothing), and in
  set_ftrace_filter `glob:command[:param]` is a function command (function_commands.py);
- the working copy starts empty with O_TRUNC, as a copy of the file's set otherwise, and
  becomes the file's set when the file is closed, whatever the writes returned (so
  `echo nosuch > set_ftrace_filter` fails and leaves the filter empty, as on Linux).
  Reading a file open for writing shows its working copy (set_ftrace_*; the graph files show
  their set), read-only it shows the set as it was at open.

The FUSE layer hears of the last close() of an open file as RELEASE, which the kernel queues
before close() returns, so the next command's requests come after it: the working copy is
committed then (FLUSH comes at every close() of any descriptor of the file, a shell's dup2()ed
one or a forked child's too, and so does not say the writer is done).
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from .ftrace_hash import DEFAULT_BITS, FtraceHash
from .glob import glob_match
from ..lib.kstrtox import simple_strtoull

if TYPE_CHECKING:  # (the commands' module matches functions with this one's globs)
    from .function_commands import FunctionCommands

# FTRACE_BUFF_MAX (KSYM_SYMBOL_LEN + 4): a token is at most one byte less.
FTRACE_BUFF_MAX = 670
# The kernel's isspace() (lib/ctype.c): Latin-1's no-break space counts too.
_SPACE = frozenset(b" \t\n\v\f\r\xa0")

ALL_ENABLED = b"#### all functions enabled ####\n"
NONE_DISABLED = b"#### no functions disabled ####\n"


class TraceParser:
    """struct trace_parser and trace_get_user(): the token being read by one open file."""

    def __init__(self, size: int = FTRACE_BUFF_MAX):
        self._size = size
        self._buffer = bytearray()
        self._cont = False      # the token goes on in the next write
        self._fail = False      # a token overflowed: nothing more is applied
        self._pos = 0           # bytes consumed so far (the file position)

    def feed(self, data: bytes) -> int:
        """Consume what one write() call takes of data (non-empty): leading spaces and one
        token, or the rest of a token begun in an earlier write; returns the count.
        OSError(EINVAL) when the token does not fit."""
        if not self._pos:
            self._cont = False
            self._buffer.clear()
        ch, read = data[0], 1
        if not self._cont:
            while read < len(data) and ch in _SPACE:
                ch, read = data[read], read + 1
            self._buffer.clear()
            if ch in _SPACE or not ch:      # only spaces (or a NUL)
                self._pos += read
                return read
        while read < len(data) and ch not in _SPACE and ch:
            self._store(ch)
            ch, read = data[read], read + 1
        if ch in _SPACE or not ch:
            self._cont = False
        else:
            self._store(ch)
            self._cont = True
        self._pos += read
        return read

    def _store(self, ch: int) -> None:
        if len(self._buffer) >= self._size - 1:
            self._fail = True
            raise OSError(errno.EINVAL, "token too long")
        self._buffer.append(ch)

    def _loaded(self) -> bool:
        return not self._fail and bool(self._buffer)

    def take(self) -> str | None:
        """The token a write has just completed, if any (and the parser cleared for the next)."""
        if not self._loaded() or self._cont:
            return None
        token = self._buffer.decode("latin-1")
        self._cont = False
        self._buffer.clear()
        return token

    def take_rest(self) -> str | None:
        """At close: the token still in the buffer, finished or not."""
        if not self._loaded():
            return None
        token = self._buffer.decode("latin-1")
        self._buffer.clear()
        self._cont = False
        return token


def parse_regex(token: str) -> tuple[str, str, bool]:
    """filter_parse_regex(): (kind, search, not) with kind one of full, front, middle, end,
    glob, index: a leading and/or trailing `*` alone are plain prefix/suffix/substring
    matches; `?`, `[`, `\\` or an inner `*` make it a glob; a leading digit an index."""
    negate = token.startswith("!")
    buff = token[1:] if negate else token
    if buff[:1].isascii() and buff[:1].isdigit():
        return "index", buff, negate
    kind = "full"
    for i, char in enumerate(buff):
        if char == "*":
            if i == 0:
                kind = "end"
            elif i == len(buff) - 1:
                kind = "middle" if kind == "end" else "front"
                buff = buff[:i]
                break
            else:
                return "glob", buff, negate
        elif char in "[?\\":
            return "glob", buff, negate
    if buff.startswith("*"):
        buff = buff[1:]
    return kind, buff, negate


def _matcher(kind: str, search: str) -> Callable[[str], bool]:
    """ftrace_match() for one kind of search (an index matches no name)."""
    if kind == "full":
        return lambda name: name == search
    if kind == "front":
        return lambda name: name.startswith(search)
    if kind == "middle":
        return lambda name: search in name
    if kind == "end":
        return lambda name: name.endswith(search)
    if kind == "glob":
        pattern = search.encode("latin-1")
        return lambda name: glob_match(pattern, name.encode("latin-1"))
    return lambda name: False


def compile_match(search: str) -> Callable[[str], bool]:
    """A name matcher for a search without its `!` (filter_parse_regex + ftrace_match)."""
    kind, core, _ = parse_regex(search)
    return _matcher(kind, core)


def match_functions(functions: Sequence[str], search: str, *, by_index: bool) -> list[str]:
    """match_records() without a module: the functions a name, glob or (by_index) 1-based
    line number selects, in address order (search without its `!`)."""
    kind, core, _ = parse_regex(search)
    if kind == "index":
        if not by_index:
            return []
        index = simple_strtoull(core)[0] - 1
        return [functions[index]] if 0 <= index < len(functions) else []
    match = _matcher(kind, core)
    return [name for name in functions if match(name)]


class FunctionFilter:
    """set_ftrace_filter or set_ftrace_notrace of one trace array: the functions it holds (its
    ftrace_hash), the `:mod:` entries kept for modules not loaded (tr->mod_trace or
    mod_notrace), and, for set_ftrace_filter, the array's function commands."""

    def __init__(self, functions: Sequence[str], empty_text: bytes, on_change: Callable[[], None], *,
                 commands: FunctionCommands | None = None, enable: bool = True, orphan_commands: Sequence[str] = ()):
        """functions: the traceable functions in address order (available_filter_functions);
        empty_text: what reading an empty set shows; on_change(): the set changed;
        commands: set_ftrace_filter's FunctionCommands; enable: set_ftrace_filter (False:
        set_ftrace_notrace, where commands are refused and `:mod:` entries trace nothing);
        orphan_commands: without `commands`, the function commands that exist but have no trace
        array to act on here (ENODEV: stack_trace_filter's)."""
        self._commands = commands
        self._functions = functions
        self._order = {name: i for i, name in enumerate(functions)}
        self._empty_text = empty_text
        self._on_change = on_change
        self._enable = enable
        self._orphan_commands = frozenset(orphan_commands)
        self.names: frozenset[str] = frozenset()
        self.mod_flag = False                      # FTRACE_HASH_FL_MOD of the set
        self.mods: list[tuple[str, str]] = []     # (func, module), the newest first

    @property
    def selects_all(self) -> bool:
        """An empty filter (ftrace_hash_empty()): every function passes."""
        return not self.names and not self.mod_flag

    def open(self, *, readable: bool = True, writable: bool = False, truncate: bool = False) -> "FilterSession":
        return FilterSession(self, readable, writable, truncate)

    # one-shot forms, as `cat`, `echo ... >>` and `echo ... >` do them
    def read(self) -> bytes:
        return self.open().read()

    def write(self, data: bytes) -> None:
        _write_all(self.open(readable=False, writable=True), data)

    def clear(self) -> None:
        self.open(readable=False, writable=True, truncate=True).release()

    # what a session shows and commits
    def _text(self, names: Iterable[str], flag: bool) -> bytes:
        if not names and not flag:
            text = self._empty_text
        else:
            text = "".join(f"{name}\n" for name in sorted(names, key=self._order.__getitem__)).encode()
        text += "".join(f"{func}:mod:{module}\n" for func, module in self.mods).encode("latin-1")
        if self._commands is not None:
            text += self._commands.lines()
        return text

    def _commit(self, names: set[str], flag: bool) -> None:
        if self._enable:
            flag = bool(self.mods)   # ftrace_regex_release(): FL_MOD while entries wait
        frozen = frozenset(names)
        if frozen != self.names or flag != self.mod_flag:
            self.names, self.mod_flag = frozen, flag
            self._on_change()

    def _process(self, token: str, names: set[str]) -> None:
        """ftrace_process_regex() on the working copy."""
        func, has_command, rest = token.partition(":")
        if not has_command:
            if not self._match_into(names, func, None):
                raise OSError(errno.EINVAL, f"no function matches {token!r}")
            return
        command, has_param, param = rest.partition(":")
        if command == "mod":
            self._mod(names, func, param if has_param else None)
        elif self._commands is not None:
            self._commands.run(token)  # the glob keeps its `!`: it unregisters
        elif command in self._orphan_commands:
            # a filter of no trace array (stack_trace_filter): the command has none to act on
            raise OSError(errno.ENODEV, f"{command!r} needs a trace array")
        else:
            raise OSError(errno.EINVAL, f"no command {command!r} here")

    def _match_into(self, names: set[str], func: str, module: str | None) -> bool:
        """match_records(): add (or with `!` remove) what func selects, among the functions
        of module when one is given; whether any function matched."""
        kind, search, negate = parse_regex(func)
        if kind == "index":
            matched = match_functions(self._functions, search, by_index=True)
        elif module is not None:
            # Every function here is the core kernel's (no modules): `!name` (all but a
            # module) and `!` alone select them, any other module name selects none.
            if not module.startswith("!"):
                return False
            name = func[1:] if negate else func
            matched = list(self._functions) if not search else match_functions(self._functions, name, by_index=False)
        else:
            matched = match_functions(self._functions, func[1:] if negate else func, by_index=False)
        if negate:
            names.difference_update(matched)
        else:
            names.update(matched)
        return bool(matched)

    def _mod(self, names: set[str], func: str, module: str | None) -> None:
        """ftrace_mod_callback(): the functions of the module, or an entry kept for it."""
        if self._match_into(names, func, module):
            return
        if module is None:   # cache_mod() with no module: nothing can be kept
            raise OSError(errno.EINVAL if func.startswith("!") else errno.ENOMEM, "no module")
        if func.startswith("!"):
            # `!func:mod:module` removes the kept entries (all of the module's for `*`)
            name = func[1:]
            kept = [entry for entry in self.mods if entry[1] != module or (name != "*" and entry[0] != name)]
            if len(kept) == len(self.mods):
                raise OSError(errno.EINVAL, f"no {func[1:]}:mod:{module} entry")
            self.mods[:] = kept
            return
        self.mods.insert(0, (func, module))   # no module of that name is loaded: keep it


class _Session:
    """What every open filter file does with its writes (struct ftrace_iterator's parser):
    one token a write() taken into the file's working copy, the token left unfinished taken at
    the last close, then the copy committed. Subclasses say how a token applies and how the
    copy is committed."""

    def __init__(self, writable: bool):
        self._writable = writable
        self._parser = TraceParser() if writable else None

    def write(self, data: bytes) -> int:
        if not data:
            return 0
        if self._parser is None:
            raise OSError(errno.EBADF, "not open for writing")
        count = self._parser.feed(data)
        token = self._parser.take()
        if token is not None:
            self._apply(token)
        return count

    def release(self) -> None:
        if self._parser is None:
            return
        rest = self._parser.take_rest()
        if rest is not None:
            try:
                self._apply(rest)
            except OSError:
                pass   # ftrace_regex_release() ignores it
        self._commit()

    def _apply(self, token: str) -> None:
        raise NotImplementedError

    def _commit(self) -> None:
        raise NotImplementedError


class FilterSession(_Session):
    """One open set_ftrace_filter / set_ftrace_notrace (struct ftrace_iterator)."""

    def __init__(self, owner: FunctionFilter, readable: bool, writable: bool, truncate: bool):
        super().__init__(writable)
        self._owner = owner
        if writable and truncate:
            self._names: set[str] = set()
            self._flag = False
            owner.mods.clear()     # clear_ftrace_mod_list() at open
        else:
            self._names = set(owner.names)
            self._flag = owner.mod_flag

    def read(self) -> bytes:
        return self._owner._text(self._names, self._flag)

    def _apply(self, token: str) -> None:
        self._owner._process(token, self._names)

    def _commit(self) -> None:
        self._owner._commit(self._names, self._flag)


class GraphFilter:
    """set_graph_function or set_graph_notrace: the functions (ftrace_graph_hash or
    ftrace_graph_notrace_hash, listed in its hash order)."""

    def __init__(self, functions: Sequence[str], address: Callable[[str], int], empty_text: bytes,
                 on_change: Callable[[], None]):
        self._functions = functions
        self._address = address
        self._name = {address(name): name for name in functions}
        self._empty_text = empty_text
        self._on_change = on_change
        self.hash = FtraceHash(0)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._name[ip] for ip in self.hash)

    def open(self, *, readable: bool = True, writable: bool = False, truncate: bool = False) -> "GraphSession":
        return GraphSession(self, writable, truncate)

    def read(self) -> bytes:
        """g_show(): the set as it is now, in its hash's order."""
        if not len(self.hash):
            return self._empty_text
        return "".join(f"{self._name[ip]}\n" for ip in self.hash).encode()

    def write(self, data: bytes) -> None:
        _write_all(self.open(readable=False, writable=True), data)

    def clear(self) -> None:
        self.open(readable=False, writable=True, truncate=True).release()

    def _set_hash(self, new: FtraceHash, token: str) -> None:
        """ftrace_graph_set_hash(): EINVAL unless something was added, found already there, or
        removed (a number matches nothing here)."""
        kind, search, negate = parse_regex(token)
        match = _matcher(kind, search)
        found = False
        for name in self._functions:
            if not match(name):
                continue
            ip = self._address(name)
            if not negate:
                found = True
                if ip not in new:
                    new.add(ip)
            elif ip in new:
                new.remove(ip)
                found = True
        if not found:
            raise OSError(errno.EINVAL, f"no function matches {token!r}")

    def _commit(self, new: FtraceHash) -> None:
        old = self.names
        self.hash = new.moved()
        if self.names != old:
            self._on_change()


class GraphSession(_Session):
    """One open set_graph_function / set_graph_notrace (struct ftrace_graph_data)."""

    def __init__(self, owner: GraphFilter, writable: bool, truncate: bool):
        super().__init__(writable)
        self._owner = owner
        self._new = None
        if writable:
            self._new = FtraceHash(DEFAULT_BITS) if truncate else owner.hash.copy(DEFAULT_BITS)

    def read(self) -> bytes:
        return self._owner.read()

    def _apply(self, token: str) -> None:
        self._owner._set_hash(self._working(), token)

    def _commit(self) -> None:
        self._owner._commit(self._working())

    def _working(self) -> FtraceHash:
        if self._new is None:
            raise OSError(errno.EBADF, "not open for writing")
        return self._new


def _write_all(session: _Session, data: bytes) -> None:
    """What a writer that retries short writes does (a shell's echo), then close(); the first
    failing write ends it with its error, after the close."""
    error = None
    try:
        while data:
            count = session.write(data)
            data = data[count:]
    except OSError as failed:
        error = failed
    session.release()
    if error is not None:
        raise error
