"""The kernel's requests to the host's kprobe engine (kernel_model/include/trace/kprobe_perf.h,
PORT_KPROBE): a perf event of the kprobe PMU registers a probe of its own, a tracepoint perf
event of a kprobe event arms that event's probes for perf, and the engine that arms probes is
the host's; and a BPF trampoline has the ftrace sites call it (DIRECT), as the host patches the
sites.  The kernel posts a struct kprobe_host_req and sleeps; the request is
answered here on a thread of its own (arming stops every CPU, which the CPU thread that rang
cannot wait for), its result and `done` written, and the call-function vector raised so that
the kernel wakes the requester.  One request at a time: the kernel serialises them."""

from __future__ import annotations

import errno
import queue
import struct
import threading
from collections.abc import Callable

from .contract import DirectCall, KprobeEventAnswer, KprobeRequest, KprobeService, UprobeRequest
from .image import KernelImage
from .paging import PhysMem, kernel_virt_to_phys




class KprobeRequests:
    """Takes the kernel's requests (post(), on the CPU thread that rang) and answers them with
    the service the probe layer gives (serve()); -ENOENT without one, as a kernel whose kprobe
    PMU finds no symbol."""

    def __init__(self, image: KernelImage, raise_irq: Callable[[], None]):
        a = image.abi_value
        self._off = {name: a(f"kprobe_host_req.{name}") for name in
                     ("op", "is_return", "addr", "offset", "probe", "result", "done", "func", "fields")}
        self._func_len, self._fields_len = a("KPROBE_FUNC_LEN"), a("KPROBE_FIELDS_LEN")
        self._ops = a("KPROBE_REQ_REGISTER"), a("KPROBE_REQ_UNREGISTER"), a("KPROBE_REQ_PERF_OPEN"), \
            a("KPROBE_REQ_PERF_CLOSE")
        self._direct = a("KPROBE_REQ_DIRECT")
        self._uprobe_ops = a("KPROBE_REQ_UPROBE_REGISTER"), a("KPROBE_REQ_UPROBE_UNREGISTER")
        self._raise_irq = raise_irq
        self._service: KprobeService | None = None
        self._mem: PhysMem | None = None
        self._queue: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def serve(self, service: KprobeService | None) -> None:
        self._service = service

    def attach(self, mem: PhysMem) -> None:
        self._mem = mem

    def post(self, req_va: int) -> None:
        """PORT_KPROBE: the request at req_va (kernel virtual) is answered on the worker."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kprobe-requests", daemon=True)
            self._thread.start()
        self._queue.put(req_va)

    def stop(self) -> None:
        if self._thread is not None:
            self._queue.put(None)

    def _run(self) -> None:
        while True:
            req_va = self._queue.get()
            if req_va is None:
                return
            mem = self._mem
            if mem is None:
                continue
            pa = kernel_virt_to_phys(req_va)
            req = self._decode(mem, pa)
            try:
                answer = self._answer(req)
            except Exception:  # the kernel must get an answer whatever happened here
                answer = -errno.EINVAL
            result = answer if isinstance(answer, int) else self._write_event(mem, pa, answer)
            mem.write(pa + self._off["result"], struct.pack("<i", result))
            mem.write(pa + self._off["done"], struct.pack("<I", 1))
            try:
                self._raise_irq()
            except Exception:  # the machine stopped meanwhile: nobody waits any more
                return

    def _write_event(self, mem: PhysMem, pa: int, answer: KprobeEventAnswer) -> int:
        """PERF_OPEN's answer: the probes' indexes over func, the fields' lines in fields (more
        than it holds: none, and filters find no field of the event); the number of probes
        (more than func holds: the kernel gives them back)."""
        n = len(answer.probes)
        if n > self._func_len // 4:
            return n
        text = "".join(f"{t}\t{name}\t{off}\t{size}\t{int(signed)}\n"
                       for t, name, off, size, signed in answer.fields).encode("latin-1")
        if len(text) >= self._fields_len:
            text = b""
        mem.write(pa + self._off["func"], struct.pack(f"<{n}I", *answer.probes))
        mem.write(pa + self._off["fields"], text + b"\0")
        return n

    def _answer(self, req: KprobeRequest | DirectCall | UprobeRequest | None) -> int | KprobeEventAnswer:
        service = self._service
        if req is None:
            return -errno.EINVAL
        if service is None:
            if isinstance(req, UprobeRequest):
                return -errno.ENOENT if req.register else 0
            if not isinstance(req, KprobeRequest):
                return -errno.EBUSY
            if req.perf_event:
                return -errno.EINVAL if req.register else 0
            return -errno.ENOENT if req.register else 0
        return service(req)

    def _decode(self, mem: PhysMem, pa: int) -> KprobeRequest | DirectCall | UprobeRequest | None:
        o = self._off
        op, is_return = struct.unpack_from("<II", mem.buf, pa + o["op"])
        addr, offset = struct.unpack_from("<QQ", mem.buf, pa + o["addr"])
        (probe,) = struct.unpack_from("<I", mem.buf, pa + o["probe"])
        raw = bytes(mem.buf[pa + o["func"]:pa + o["func"] + self._func_len])
        name = raw.split(b"\0", 1)[0].decode("latin-1")
        if op == self._direct:
            return DirectCall(addr, offset, is_return, name)
        if op in self._uprobe_ops:  # the path in fields, the inode number over func
            path = bytes(mem.buf[pa + o["fields"]:pa + o["fields"] + self._fields_len]).split(b"\0", 1)[0]
            (ino,) = struct.unpack_from("<Q", raw)
            return UprobeRequest(op == self._uprobe_ops[0], path.decode("utf-8", "surrogateescape"), ino, offset,
                                 addr, bool(is_return), probe)
        if op not in self._ops:
            return None
        if op in self._ops[2:]:  # a kprobe event's id, for perf
            return KprobeRequest(op == self._ops[2], "", 0, 0, False, 0, perf_event=probe)
        return KprobeRequest(op == self._ops[0], raw.split(b"\0", 1)[0].decode("latin-1"), addr, offset,
                             bool(is_return), probe)
