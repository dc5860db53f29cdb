"""The inode tree the FUSE layer serves: directories and files whose contents are callables
bound to trace-core objects. No tracing logic lives here.
"""

import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pyfuse3

from ..trace.ring_buffer import WaitQueue

# tracefs modes (fs/tracefs/inode.c and the callers' trace_create_file modes).
MODE_TOP_DIR = 0o700        # the mount root: drwx------
MODE_DIR = 0o750            # every other directory: drwxr-x---
MODE_READ_ONLY = 0o440      # TRACE_MODE_READ: -r--r-----
MODE_READ_WRITE = 0o640     # TRACE_MODE_WRITE: -rw-r-----


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
        attr.entry_timeout = 0
        return attr


@dataclass(eq=False)
class DirNode(Node):
    children: dict[str, Node] = field(default_factory=dict)

    file_type = stat.S_IFDIR

    def nlink(self) -> int:
        return 2 + sum(isinstance(child, DirNode) for child in self.children.values())


@dataclass(eq=False)
class FileNode(Node):
    """A control file. read() builds the whole text; write(data) handles one write() call
    (OSError with Linux's errno rejects it); truncate() runs on open with O_TRUNC; a node
    with `pipe_waiters` is a consuming read that blocks until data or a signal."""

    read: Callable[[], bytes] | None = None
    write: Callable[[bytes], None] | None = None
    truncate: Callable[[], None] | None = None
    pipe_waiters: WaitQueue | None = None

    file_type = stat.S_IFREG


class Tree:
    """Inode table of one mount."""

    def __init__(self) -> None:
        self.created_ns = time.time_ns()
        self.root = DirNode(pyfuse3.ROOT_INODE, "", MODE_TOP_DIR, self.created_ns)
        self._nodes: dict[int, Node] = {self.root.inode: self.root}
        self._parents: dict[int, DirNode] = {self.root.inode: self.root}

    def _next_inode(self) -> int:
        return len(self._nodes) + pyfuse3.ROOT_INODE

    def mkdir(self, parent: DirNode, name: str, mode: int = MODE_DIR) -> DirNode:
        node = DirNode(self._next_inode(), name, mode, self.created_ns)
        return self._attach(parent, node)

    def add_file(self, parent: DirNode, name: str, mode: int, **bindings) -> FileNode:
        node = FileNode(self._next_inode(), name, mode, self.created_ns, **bindings)
        return self._attach(parent, node)

    def _attach(self, parent: DirNode, node: Node):
        if node.name in parent.children:
            raise ValueError(f"{node.name} already in directory inode {parent.inode}")
        parent.children[node.name] = node
        self._nodes[node.inode] = node
        self._parents[node.inode] = parent
        return node

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

    def parent_of(self, node: Node) -> DirNode:
        """The directory holding node; the root is its own parent inside the mount."""
        return self._parents[node.inode]

    def __iter__(self) -> Iterator[Node]:
        return iter(self._nodes.values())
