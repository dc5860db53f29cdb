"""pyfuse3 Operations over a Tree: lookups, attributes, and reads/writes routed to the bound
callables. Errors surface as FUSEError(errno); nothing a client does can end the daemon.
"""

import errno
import functools
import logging
import os
import select
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import pyfuse3
import trio

from .process import opened_nonblocking
from .signals import signal_pending
from .tree import DirNode, FileNode, FileSession, Node, PageReader, PageSource, PipeSource, Tree, Waiters

P = ParamSpec("P")
R = TypeVar("R")

log = logging.getLogger(__name__)

# How often a blocked reader's pending signals are checked.
SIGNAL_POLL_SECONDS = 0.05
# How often stopping checks whether the pipe readers have gone.
_READERS_GONE_POLL_SECONDS = 0.01
# A poll of a file without a poll operation of its own (DEFAULT_POLLMASK), and a readable pipe's
_DEFAULT_POLLMASK = select.POLLIN | select.POLLOUT | select.POLLRDNORM | select.POLLWRNORM
_READABLE = select.POLLIN | select.POLLRDNORM


def _fuse_errors(handler: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Turn OSError into its errno and any other failure into EIO, logged: a bug in one
    request must not take the mount down."""

    @functools.wraps(handler)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await handler(*args, **kwargs)
        except pyfuse3.FUSEError:
            raise
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno or errno.EIO) from None
        except Exception:
            log.exception("%s failed", handler.__name__)
            raise pyfuse3.FUSEError(errno.EIO) from None

    return wrapper


def _end_session(step: Callable[[], None]) -> None:
    """A session's release(): the last close() does not fail on what the file does then
    (Linux's release of these files returns 0), but a bug is logged."""
    try:
        step()
    except Exception:
        log.exception("closing a control file failed")


@dataclass(eq=False)
class OpenFile:
    node: FileNode
    pid: int                    # the opener, whose signals interrupt a blocked read
    nonblock: bool
    content: bytes | None = None
    open_token: object = None   # what node.opened() returned, for node.released()
    has_read: bool = False      # a pipe reader that got data ends when tracing is off
    page_reader: PageReader | None = None  # a trace_pipe_raw reader's own page and position
    released: bool = False      # node.released() has run (at the first flush, or release)
    session: FileSession | None = None  # what node.session() made for this open file
    # a poll that found the pipe not ready: the wake-up that will notify its handle, and where
    # it waits (one at a time: a new poll of the file replaces it)
    poll_wake: Callable[[], None] | None = None
    poll_waiters: Waiters | None = None


@dataclass(frozen=True)
class SessionSync:
    """A session's processes run on the host and the kernel replays what they do a little
    later: before one of them opens, reads or writes a tracefs file, the kernel must have done
    what they did before (so `ls; cat trace` shows ls, and `echo 1 > enable` does not record
    calls made before it). behind(): whether it has not (cheap); wait(): until it has (bounded,
    blocking)."""
    behind: Callable[[], bool]
    wait: Callable[[], object]


class TracefsOperations(pyfuse3.Operations):
    def __init__(self, tree: Tree, catch_up: Callable[[], object] | None = None,
                 session_sync: SessionSync | None = None):
        """catch_up(): moves what the guest has recorded so far into the buffers (run in a
        worker thread before a read of a file's start, or when a consuming read finds its
        buffer empty, so a read after an event sees it, as on Linux where the writer puts it
        in the buffer itself). session_sync: see SessionSync."""
        super().__init__()
        self.tree = tree
        self._catch_up = catch_up
        self._session_sync = session_sync
        self._open_files: dict[int, OpenFile] = {}
        self._next_fh = 1
        self._waits: set[trio.CancelScope] = set()
        self._ending = False
        self._pipe_reads = 0                 # pipe reads in progress
        self._told_eof: set[int] = set()     # handles whose read got EOF from end_waits()

    def end_waits(self) -> None:
        """Answer every pipe read, blocked or new, with EOF: the FUSE loop cannot end while a
        request is in progress, so the daemon calls this when it stops. EOF (not EINTR) lets
        readers such as cat end cleanly instead of retrying into a vanishing mount."""
        self._ending = True
        for scope in self._waits:
            scope.cancel()
        for handle in self._open_files.values():   # pollers poll again: readable, then EOF
            if handle.poll_wake is not None:
                handle.poll_wake()

    async def wait_pipe_readers_gone(self) -> None:
        """Return once no pipe read is in progress and every reader told EOF has closed its
        file. The daemon waits for this (bounded) before ending the FUSE loop: a request left
        unanswered then, a read or the FLUSH of close(), fails with ECONNABORTED."""
        while self._pipe_reads or self._told_eof & self._open_files.keys():
            await trio.sleep(_READERS_GONE_POLL_SECONDS)

    def _node(self, inode: int) -> Node:
        node = self.tree.get(inode)
        if node is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        return node

    def _dir(self, inode: int) -> DirNode:
        node = self._node(inode)
        if not isinstance(node, DirNode):
            raise pyfuse3.FUSEError(errno.ENOTDIR)
        return node

    @_fuse_errors
    async def lookup(self, parent_inode: int, name: bytes,
                     ctx: pyfuse3.RequestContext | None = None) -> pyfuse3.EntryAttributes:
        parent = self._dir(parent_inode)
        child = parent.children.get(os.fsdecode(name))
        if child is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        return child.attributes()

    @_fuse_errors
    async def getattr(self, inode: int, ctx: pyfuse3.RequestContext | None = None) -> pyfuse3.EntryAttributes:
        return self._node(inode).attributes()

    @_fuse_errors
    async def setattr(self, inode: int, attr: pyfuse3.EntryAttributes, fields: pyfuse3.SetattrFields,
                      fh: int | None, ctx: pyfuse3.RequestContext) -> pyfuse3.EntryAttributes:
        node = self._node(inode)
        # As simple_setattr on tracefs: attributes change, contents do not (truncating to 0
        # is how a shell's `>` may arrive, and is a no-op for control files).
        if fields.update_size:
            node.size = attr.st_size
        if fields.update_mode:
            node.mode = attr.st_mode & 0o7777
        if fields.update_uid:
            node.uid = attr.st_uid
        if fields.update_gid:
            node.gid = attr.st_gid
        if fields.update_atime:
            node.atime_ns = attr.st_atime_ns
        if fields.update_mtime:
            node.mtime_ns = attr.st_mtime_ns
        return node.attributes()

    @_fuse_errors
    async def opendir(self, inode: int, ctx: pyfuse3.RequestContext) -> int:
        self._dir(inode)
        return inode

    @_fuse_errors
    async def readdir(self, fh: int, start_id: int, token: pyfuse3.ReaddirToken) -> None:
        directory = self._dir(fh)
        entries: list[tuple[str, Node]] = [(".", directory), ("..", self.tree.parent_of(directory))]
        entries += sorted((name, child) for name, child in directory.children.items() if not child.hidden)
        for index in range(start_id, len(entries)):
            name, node = entries[index]
            if not pyfuse3.readdir_reply(token, os.fsencode(name), node.attributes(), index + 1):
                return

    async def releasedir(self, fh: int) -> None:
        pass

    async def _session_caught_up(self) -> None:
        sync = self._session_sync
        if sync is not None and sync.behind():
            await trio.to_thread.run_sync(sync.wait)

    @_fuse_errors
    async def open(self, inode: int, flags: int, ctx: pyfuse3.RequestContext) -> pyfuse3.FileInfo:
        node = self._node(inode)
        if not isinstance(node, FileNode):
            raise pyfuse3.FUSEError(errno.EISDIR)
        writing = flags & os.O_ACCMODE != os.O_RDONLY
        consuming = node.pipe is not None or node.pages is not None
        # A settled file's text does not wait for the replay, nor does opening a pipe (its
        # reads wait): a tool's reader that opens late must not miss its stop signal (a
        # trace-cmd recorder that gets it before its open returns records nothing).
        if writing or not (node.settled or consuming):
            await self._session_caught_up()
        if writing and flags & os.O_TRUNC and node.truncate is not None:
            node.truncate()
        handle = OpenFile(node, ctx.pid, bool(flags & os.O_NONBLOCK))
        if node.session is not None:
            handle.session = node.session(readable=flags & os.O_ACCMODE != os.O_WRONLY, writable=writing,
                                          truncate=writing and bool(flags & os.O_TRUNC))
        if node.opened is not None:
            handle.open_token = node.opened()
        if node.pages is not None:
            handle.page_reader = node.pages.open_reader()
        fh = self._next_fh
        self._next_fh += 1
        self._open_files[fh] = handle
        is_pipe = node.pipe is not None or node.pages is not None
        # direct_io: size-0 files must still be read to their end, and never from page cache.
        return pyfuse3.FileInfo(fh=fh, direct_io=True, keep_cache=False, nonseekable=is_pipe)

    @_fuse_errors
    async def read(self, fh: int, off: int, size: int) -> bytes:
        handle = self._open_files[fh]
        node = handle.node
        consuming = node.pipe is not None or node.pages is not None
        if (off == 0 or consuming) and not node.settled:
            await self._session_caught_up()
        if not (consuming or node.settled) and (off == 0 or handle.content is None):
            await self._caught_up()
        if node.pipe is not None:
            self._pipe_reads += 1
            try:
                data = await self._read_pipe(handle, node.pipe, size)
            finally:
                self._pipe_reads -= 1
            if not data and self._ending:
                self._told_eof.add(fh)
            return data
        if node.pages is not None:
            self._pipe_reads += 1
            try:
                data = await self._read_pages(handle, node.pages, size)
            finally:
                self._pipe_reads -= 1
            if not data and self._ending:
                self._told_eof.add(fh)
            return data
        read: Callable[[], bytes] | None = handle.session.read if handle.session is not None else node.read
        if node.read_as is not None:
            read_as, opener = node.read_as, handle.pid
            read = lambda: read_as(opener)  # noqa: E731
        if read is None:
            raise pyfuse3.FUSEError(errno.EINVAL)     # a file without a read operation
        # Generate on a read from the start (a fresh read or a rewind), then serve the rest of
        # that same text, so one `cat` sees one consistent snapshot.
        if off == 0 or handle.content is None:
            handle.content = read()
        return handle.content[off:off + size]

    async def _caught_up(self) -> None:
        """Move what the guest recorded since its last doorbell into the buffers. A consuming
        read does this only when its buffer is empty: the drain thread keeps the buffers
        filled, and a thread round trip per read would cost more than the read itself."""
        if self._catch_up is None:
            return
        try:
            await trio.to_thread.run_sync(self._catch_up)
        except Exception:
            # The drain loop retries; the read serves what the buffers hold.
            log.exception("catching up with the guest failed")

    async def _read_pipe(self, handle: OpenFile, pipe: PipeSource, size: int) -> bytes:
        """A consuming read: blocks while the buffer is empty (tracing_wait_pipe); once a
        reader has had data, tracing off ends its read with EOF; so does the daemon ending."""
        caught_up = False
        while not self._ending:
            data = pipe.consume(size)
            if data:
                handle.has_read = True
                return data
            if not caught_up:
                await self._caught_up()
                caught_up = True
                continue
            if handle.has_read and not pipe.recording():
                return b""
            if self._nonblocking(handle):
                raise pyfuse3.FUSEError(errno.EAGAIN)
            await self._wait(pipe.waiters, handle.pid)
            caught_up = False
        return b""

    async def _read_pages(self, handle: OpenFile, pages: PageSource, size: int) -> bytes:
        """tracing_buffers_read: blocks while the CPU buffer is empty, whether tracing is on
        or not (unlike trace_pipe, a raw reader never gets EOF from tracing off)."""
        caught_up = False
        reader = handle.page_reader
        if reader is None:
            raise pyfuse3.FUSEError(errno.EBADF)
        while not self._ending:
            data = reader.read(size)
            if data is not None:
                return data
            if not caught_up:
                await self._caught_up()
                caught_up = True
                continue
            if self._nonblocking(handle):
                raise pyfuse3.FUSEError(errno.EAGAIN)
            await self._wait(pages.waiters, handle.pid)
            caught_up = False
        return b""

    @_fuse_errors
    async def poll(self, inode: int, fh: int, poll_handle: pyfuse3.PollHandle | None,
                   ctx: pyfuse3.RequestContext) -> int:
        """A trace pipe's poll (trace_poll()): readable when its source says so (after what the
        guest recorded so far came in); else, with a handle, the next wake-up of its wait queue
        notifies it, and the kernel polls again. Other files have no poll of their own, as in
        6.1: readable and writable."""
        handle = self._open_files.get(fh)
        if handle is None:
            raise pyfuse3.FUSEError(errno.EBADF)
        source = handle.node.pipe or handle.node.pages
        if source is None:
            return _DEFAULT_POLLMASK
        await self._session_caught_up()
        await self._caught_up()
        if self._ending or source.ready():
            return _READABLE
        if poll_handle is not None:
            self._arm_poll(handle, source.waiters, poll_handle)
            if source.ready():   # (data that came in before the waiter was added)
                self._disarm_poll(handle)
                return _READABLE
        return 0

    def _arm_poll(self, handle: OpenFile, waiters: Waiters, poll_handle: pyfuse3.PollHandle) -> None:
        self._disarm_poll(handle)
        token = trio.lowlevel.current_trio_token()

        def notify() -> None:   # in the trio thread
            if handle.poll_wake is wake:
                self._disarm_poll(handle)
                poll_handle.notify()

        def wake() -> None:   # may run in a machine thread
            try:
                token.run_sync_soon(notify)
            except trio.RunFinishedError:
                pass

        handle.poll_wake, handle.poll_waiters = wake, waiters
        waiters.add(wake)

    @staticmethod
    def _disarm_poll(handle: OpenFile) -> None:
        if handle.poll_wake is not None and handle.poll_waiters is not None:
            handle.poll_waiters.remove(handle.poll_wake)
        handle.poll_wake = handle.poll_waiters = None

    def _nonblocking(self, handle: OpenFile) -> bool:
        """O_NONBLOCK as the file has it now: given at open, or set since with fcntl."""
        return handle.nonblock or opened_nonblocking(handle.pid, handle.node.inode, self.tree.path_of(handle.node))

    async def _wait(self, waiters: Waiters, pid: int) -> None:
        """Return when the wait queue is woken, a signal-poll interval has passed or the daemon
        is ending (the caller re-checks, which also covers a wake-up that came before the
        waiter was added); FUSEError(EINTR) when the reader has a signal."""
        token = trio.lowlevel.current_trio_token()
        woken = trio.Event()

        def wake() -> None:   # may run in a machine thread
            try:
                token.run_sync_soon(woken.set)
            except trio.RunFinishedError:
                pass

        waiters.add(wake)
        scope = trio.CancelScope()
        if self._ending:
            scope.cancel()
        self._waits.add(scope)
        try:
            with scope:
                with trio.move_on_after(SIGNAL_POLL_SECONDS):
                    await woken.wait()
                if not woken.is_set() and signal_pending(pid):
                    raise pyfuse3.FUSEError(errno.EINTR)
        finally:
            self._waits.discard(scope)
            waiters.remove(wake)

    @_fuse_errors
    async def write(self, fh: int, off: int, buf: bytes) -> int:
        handle = self._open_files[fh]
        node = handle.node
        await self._session_caught_up()
        # Control files parse each write() on its own, whatever the offset (as in Linux).
        if handle.session is not None:
            taken = handle.session.write(bytes(buf))
        elif node.write_as is not None:
            taken = node.write_as(bytes(buf), handle.pid)
        elif node.write_at is not None:
            taken = node.write_at(bytes(buf), off)
        elif node.write is not None:
            taken = node.write(bytes(buf))
        else:
            raise pyfuse3.FUSEError(errno.EINVAL)     # a file without a write operation
        return len(buf) if taken is None else taken

    @_fuse_errors
    async def release(self, fh: int) -> None:
        handle = self._open_files.pop(fh, None)
        self._told_eof.discard(fh)
        if handle is not None:
            self._disarm_poll(handle)
            self._undo_open(handle)
            if handle.session is not None:
                _end_session(handle.session.release)

    async def flush(self, fh: int) -> None:
        # FUSE sends RELEASE after close() has returned, but FLUSH before: undoing what open
        # did (a `trace` reader's pause of tracing) here makes it done when close() returns, as
        # on Linux, so the next command sees tracing on again. (A dup()ed descriptor's first
        # close ends it early; Linux waits for the last.)
        handle = self._open_files.get(fh)
        if handle is not None:
            self._undo_open(handle)

    @staticmethod
    def _undo_open(handle: OpenFile) -> None:
        if handle.node.released is not None and not handle.released:
            handle.released = True
            handle.node.released(handle.open_token)

    async def forget(self, inode_list: Sequence[tuple[int, int]]) -> None:
        pass   # inodes live as long as the mount

    @_fuse_errors
    async def statfs(self, ctx: pyfuse3.RequestContext) -> pyfuse3.StatvfsData:
        stat = pyfuse3.StatvfsData()
        stat.f_bsize = stat.f_frsize = 4096
        stat.f_namemax = 255
        return stat

    # tracefs directories have no create: a new file is refused with EACCES, and mknod,
    # mkdir, unlink, rmdir, rename, link, symlink with EPERM, as the VFS answers Linux's.
    async def create(self, parent_inode: int, name: bytes, mode: int, flags: int,
                     ctx: pyfuse3.RequestContext) -> tuple[pyfuse3.FileInfo, pyfuse3.EntryAttributes]:
        raise pyfuse3.FUSEError(errno.EACCES)

    async def mknod(self, parent_inode: int, name: bytes, mode: int, rdev: int,
                    ctx: pyfuse3.RequestContext) -> pyfuse3.EntryAttributes:
        raise pyfuse3.FUSEError(errno.EPERM)

    @_fuse_errors
    async def mkdir(self, parent_inode: int, name: bytes, mode: int,
                    ctx: pyfuse3.RequestContext) -> pyfuse3.EntryAttributes:
        parent = self._dir(parent_inode)
        if parent.make_child is None:
            raise pyfuse3.FUSEError(errno.EPERM)
        text = os.fsdecode(name)
        if text in parent.children:
            raise pyfuse3.FUSEError(errno.EEXIST)
        parent.make_child(text)
        return parent.children[text].attributes()

    async def unlink(self, parent_inode: int, name: bytes, ctx: pyfuse3.RequestContext) -> None:
        raise pyfuse3.FUSEError(errno.EPERM)

    @_fuse_errors
    async def rmdir(self, parent_inode: int, name: bytes, ctx: pyfuse3.RequestContext) -> None:
        parent = self._dir(parent_inode)
        if parent.remove_child is None:
            raise pyfuse3.FUSEError(errno.EPERM)
        child = parent.children.get(os.fsdecode(name))
        if child is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        if isinstance(child, DirNode) and any(self.tree.is_under(h.node, child) for h in self._open_files.values()):
            raise pyfuse3.FUSEError(errno.EBUSY)   # a file of the instance is open (tr->ref)
        parent.remove_child(child.name)

    async def rename(self, parent_inode_old: int, name_old: bytes, parent_inode_new: int, name_new: bytes,
                     flags: int, ctx: pyfuse3.RequestContext) -> None:
        raise pyfuse3.FUSEError(errno.EPERM)

    async def link(self, inode: int, new_parent_inode: int, new_name: bytes,
                   ctx: pyfuse3.RequestContext) -> pyfuse3.EntryAttributes:
        raise pyfuse3.FUSEError(errno.EPERM)

    async def symlink(self, parent_inode: int, name: bytes, target: bytes,
                      ctx: pyfuse3.RequestContext) -> pyfuse3.EntryAttributes:
        raise pyfuse3.FUSEError(errno.EPERM)
