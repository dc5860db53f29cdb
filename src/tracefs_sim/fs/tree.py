"""The inode tree the FUSE layer serves: directories and files whose contents are callables
bound to trace-core objects. No tracing logic lives here.
"""

import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypedDict, TypeVar, Unpack

import pyfuse3

# tracefs modes (fs/tracefs/inode.c and the callers' trace_create_file modes).
MODE_TOP_DIR = 0o700        # the mount root: drwx------
MODE_DIR = 0o750            # every other directory: drwxr-x---
MODE_READ_ONLY = 0o440      # TRACE_MODE_READ: -r--r-----
MODE_READ_WRITE = 0o640     # TRACE_MODE_WRITE: -rw-r-----
MODE_WRITE_ONLY = 0o200     # free_buffer: --w-------
MODE_MARKER = 0o220         # trace_marker: --w--w----
# How long the kernel may keep a name that cannot vanish on its own (Node.volatile).
STABLE_ENTRY_S = 3600.0


@dataclass(eq=False)
class Node:
    inode: int
    name: str
    mode: int               # permission bits only; the type comes from the node class
    mtime_ns: int
    uid: int = 0
    gid: int = 0
    size: int = 0           # tracefs files have size 0 unless someone truncates them to a size
    atime_ns: int = 0
    ctime_ns: int = 0
    hidden: bool = False    # found by lookup, never listed by readdir (the daemon's side door)
    # May vanish while its parent stays (a dynamic event's directory): the kernel must look
    # its name up each time. Every other name lives as long as its directory (an instance's
    # files go with the instance's rmdir, which drops the cached names itself), so the
    # kernel may keep it: a path walk then costs no FUSE lookups.
    volatile: bool = False

    file_type = 0

    def __post_init__(self) -> None:
        self.atime_ns = self.ctime_ns = self.mtime_ns

    def nlink(self) -> int:
        return 1

    def attributes(self) -> pyfuse3.EntryAttributes:
        attr = pyfuse3.EntryAttributes()
        attr.st_ino = self.inode
        attr.st_mode = self.file_type | self.mode
        attr.st_nlink = self.nlink()
        attr.st_uid = self.uid
        attr.st_gid = self.gid
        attr.st_size = self.size
        attr.st_blksize = 4096
        attr.st_blocks = 0
        attr.st_atime_ns = self.atime_ns
        attr.st_mtime_ns = self.mtime_ns
        attr.st_ctime_ns = self.ctime_ns
        # Contents change behind the kernel's back; never let it cache what a node is.
        attr.attr_timeout = 0
        attr.entry_timeout = 0 if self.volatile else STABLE_ENTRY_S
        return attr


@dataclass(eq=False)
class DirNode(Node):
    """make_child(name) / remove_child(name), when set, serve mkdir / rmdir inside it (the
    instances directory); they raise OSError with Linux's errno."""

    children: dict[str, Node] = field(default_factory=dict)
    make_child: Callable[[str], None] | None = None
    remove_child: Callable[[str], None] | None = None

    file_type = stat.S_IFDIR

    def nlink(self) -> int:
        return 2 + sum(isinstance(child, DirNode) for child in self.children.values())


class Waiters(Protocol):
    """Where a blocked reader waits for data (a trace array's buffer.waiters): add(callback)
    has callback() run, in the waker's thread, at each wake-up until remove(callback)."""

    def add(self, callback: Callable[[], None]) -> None: ...
    def remove(self, callback: Callable[[], None]) -> None: ...


@dataclass(frozen=True)
class PipeSource:
    """What a consuming, blocking file (trace_pipe) reads from: consume(max_bytes) takes text
    (b"" when empty), waiters wake when data arrives, recording() says whether more may come,
    ready() whether a poll finds it readable."""

    consume: Callable[[int], bytes]
    waiters: Waiters
    recording: Callable[[], bool]
    ready: Callable[[], bool]


class PageReader(Protocol):
    def read(self, count: int) -> bytes | None: ...


class FileSession(Protocol):
    """An open file's own state (FileNode.session): what it reads and writes, and its close."""

    def read(self) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...
    def release(self) -> None: ...


@dataclass(frozen=True)
class PageSource:
    """What a consuming read of binary pages (trace_pipe_raw) reads from: open_reader() gives
    each open file its reader, whose read(count) returns bytes, or None while the buffer is
    empty; waiters wake when data arrives; ready() whether a poll finds it readable."""

    open_reader: Callable[[], PageReader]
    waiters: Waiters
    ready: Callable[[], bool]


@dataclass(eq=False)
class FileNode(Node):
    """A control file. read() builds the whole text (read_as(pid) when it depends on who opened
    the file); write(data) handles one write() call
    (OSError with Linux's errno rejects it; it may return how many bytes it took), or
    write_as(data, pid) when the writer's pid matters, or write_at(data, offset) when the
    file position does (a sysctl ignores writes past 0); truncate() runs on open with O_TRUNC;
    opened() runs on every open and its result goes to released(result) on close; a node with
    `session` gives each open file its own state: session(readable=, writable=, truncate=)
    returns an object whose read() and write(data) serve that file, and whose release() runs
    when its last descriptor is closed (FUSE RELEASE, queued before that close() returns);
    a node
    with `pipe` (text) or `pages` (binary pages) is a consuming read that blocks until data
    or a signal. `settled`: what it shows is control state that only its writers change
    (an event's format, enable, filter...), so reading it waits neither for the session's
    replay nor for a drain (trace-cmd stat reads thousands of them); writes still wait."""

    read: Callable[[], bytes] | None = None
    read_as: Callable[[int], bytes] | None = None
    write: Callable[[bytes], int | None] | None = None
    write_as: Callable[[bytes, int], int | None] | None = None
    write_at: Callable[[bytes, int], int | None] | None = None
    truncate: Callable[[], None] | None = None
    opened: Callable[[], object] | None = None
    released: Callable[[object], None] | None = None
    session: Callable[..., FileSession] | None = None
    pipe: PipeSource | None = None
    pages: PageSource | None = None
    settled: bool = False

    file_type = stat.S_IFREG


class FileBindings(TypedDict, total=False):
    """What add_file() binds a FileNode to (its fields of the same names)."""

    read: Callable[[], bytes]
    read_as: Callable[[int], bytes]
    write: Callable[[bytes], int | None]
    write_as: Callable[[bytes, int], int | None]
    write_at: Callable[[bytes, int], int | None]
    truncate: Callable[[], None]
    opened: Callable[[], object]
    released: Callable[[object], None]
    session: Callable[..., FileSession]
    pipe: PipeSource
    pages: PageSource
    settled: bool


N = TypeVar("N", bound=Node)


class Tree:
    """Inode table of one mount."""

    def __init__(self) -> None:
        self.created_ns = time.time_ns()
        self.root = DirNode(pyfuse3.ROOT_INODE, "", MODE_TOP_DIR, self.created_ns)
        self._nodes: dict[int, Node] = {self.root.inode: self.root}
        self._parents: dict[int, DirNode] = {self.root.inode: self.root}
        self._last_inode = pyfuse3.ROOT_INODE

    def _next_inode(self) -> int:
        # Never reused: a removed instance's inodes must not name new nodes.
        self._last_inode += 1
        return self._last_inode

    def mkdir(self, parent: DirNode, name: str, mode: int = MODE_DIR, *, hidden: bool = False,
              volatile: bool = False) -> DirNode:
        node = DirNode(self._next_inode(), name, mode, self.created_ns, hidden=hidden, volatile=volatile)
        return self._attach(parent, node)

    def add_file(self, parent: DirNode, name: str, mode: int, **bindings: Unpack[FileBindings]) -> FileNode:
        node = FileNode(self._next_inode(), name, mode, self.created_ns, **bindings)
        return self._attach(parent, node)

    def _attach(self, parent: DirNode, node: N) -> N:
        if node.name in parent.children:
            raise ValueError(f"{node.name} already in directory inode {parent.inode}")
        parent.children[node.name] = node
        self._nodes[node.inode] = node
        self._parents[node.inode] = parent
        return node

    def remove(self, parent: DirNode, name: str) -> None:
        """Detach a node and everything under it."""
        node = parent.children.pop(name)
        stack = [node]
        while stack:
            each = stack.pop()
            self._nodes.pop(each.inode, None)
            self._parents.pop(each.inode, None)
            if isinstance(each, DirNode):
                stack.extend(each.children.values())

    def is_under(self, node: Node, directory: DirNode) -> bool:
        """Whether node is directory or lies below it (while both are in the tree)."""
        while node.inode in self._parents:
            if node is directory:
                return True
            if node is self.root:
                return False
            node = self._parents[node.inode]
        return False

    def get(self, inode: int) -> Node | None:
        return self._nodes.get(inode)

    def walk(self, path: str) -> Node | None:
        """The node at a '/'-separated path from the root (for tests and tools)."""
        node: Node = self.root
        for part in filter(None, path.split("/")):
            if not isinstance(node, DirNode) or part not in node.children:
                return None
            node = node.children[part]
        return node

    def path_of(self, node: Node) -> str:
        """The '/'-separated path of a node from the root ("" for the root)."""
        parts = []
        while node is not self.root:
            parts.append(node.name)
            node = self._parents[node.inode]
        return "/".join(reversed(parts))

    def parent_of(self, node: Node) -> DirNode:
        """The directory holding node; the root is its own parent inside the mount."""
        return self._parents[node.inode]

    def __iter__(self) -> Iterator[Node]:
        return iter(self._nodes.values())
