"""Saved command lines and tgids: the pid -> comm (and pid -> tgid) maps the output uses to name
the task of each record (trace_save_cmdline, __trace_find_cmdline, tgid_map in trace.c).

One map for the whole tracing core, shared by all trace arrays, as in Linux.
"""

import errno
import threading

from ..lib.kstrtox import kstrtoul_from_user

PID_MAX_DEFAULT = 0x8000
TASK_COMM_LEN = 16
SAVED_CMDLINES_DEFAULT = 128
# The buffer is one page allocation: a pid map of PID_MAX_DEFAULT+1 unsigneds, a pointer,
# cmdline_num, cmdline_idx; then per slot a comm and a pid (allocate_cmdlines_buffer).
_HEADER_SIZE = 4 * (PID_MAX_DEFAULT + 1) + 4 + 8 + 4 + 4   # with the pointer's alignment pad
_SLOT_SIZE = TASK_COMM_LEN + 4
_PAGE_SIZE = 4096


def _slots_for(requested: int) -> int:
    """Linux rounds the allocation up to a power-of-two number of pages and uses all of it."""
    size = _PAGE_SIZE
    while size < _HEADER_SIZE + requested * _SLOT_SIZE:
        size <<= 1
    return (size - _HEADER_SIZE) // _SLOT_SIZE


class SavedCmdlines:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tgids: dict[int, int] = {}
        # Bumped whenever what find() or find_tgid() answers may change: output caches the
        # task names it printed while the generation stays the same.
        self.generation = 0
        self._allocate(_slots_for(SAVED_CMDLINES_DEFAULT))

    def _allocate(self, slots: int) -> None:
        self._changed()
        self._num = slots
        self._idx = 0
        self._slot_of: dict[int, int] = {}          # pid & (PID_MAX_DEFAULT-1) -> slot
        self._pid_in: list[int | None] = [None] * slots
        self._comm_in: list[bytes] = [b""] * slots

    def save_tgid(self, pid: int, tgid: int) -> None:
        """record-tgid: remember the tgid of a task that recorded an event."""
        with self._lock:
            if self._tgids.get(pid) != tgid:
                self._tgids[pid] = tgid
                self._changed()

    def _changed(self) -> None:
        self.generation += 1

    def save(self, pid: int, comm: bytes) -> None:
        """Remember a task that recorded an event (pid 0, the idle task, is never saved)."""
        if pid <= 0:
            return
        comm = comm[:TASK_COMM_LEN - 1]
        with self._lock:
            key = pid & (PID_MAX_DEFAULT - 1)
            slot = self._slot_of.get(key)
            if slot is not None and self._pid_in[slot] == pid and self._comm_in[slot] == comm:
                return   # already saved as it is
            self._changed()
            if slot is None:
                # Take the next slot round-robin, evicting whoever held it.
                slot = (self._idx + 1) % self._num
                old = self._pid_in[slot]
                if old is not None:
                    self._slot_of.pop(old & (PID_MAX_DEFAULT - 1), None)
                self._slot_of[key] = slot
                self._idx = slot
            self._pid_in[slot] = pid
            self._comm_in[slot] = comm

    def find(self, pid: int) -> bytes:
        """The comm the output prints for pid: <idle> for 0, <...> when not saved."""
        if pid == 0:
            return b"<idle>"
        if pid < 0:
            return b"<XXX>"
        with self._lock:
            slot = self._slot_of.get(pid & (PID_MAX_DEFAULT - 1))
            if slot is not None and self._pid_in[slot] == pid:
                return self._comm_in[slot]
        return b"<...>"

    def find_tgid(self, pid: int) -> int:
        with self._lock:
            return self._tgids.get(pid, 0)

    # saved_cmdlines, saved_cmdlines_size, saved_tgids
    def read_saved_cmdlines(self) -> bytes:
        with self._lock:
            return b"".join(b"%d %s\n" % (pid, self._comm_in[slot])
                            for slot, pid in enumerate(self._pid_in) if pid is not None)

    def read_size(self) -> bytes:
        with self._lock:
            return b"%d\n" % self._num

    def write_size(self, data: bytes) -> None:
        value = kstrtoul_from_user(data)
        if not value or value > PID_MAX_DEFAULT:
            raise OSError(errno.EINVAL, "saved_cmdlines_size out of range")
        with self._lock:
            # Resizing starts an empty buffer (tracing_resize_saved_cmdlines frees the old one).
            self._allocate(_slots_for(value))

    def read_saved_tgids(self) -> bytes:
        with self._lock:
            return b"".join(b"%d %d\n" % (pid, tgid) for pid, tgid in sorted(self._tgids.items()) if tgid)
