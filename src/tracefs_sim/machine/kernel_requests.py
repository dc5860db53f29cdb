"""The kernel's requests to the host (kernel_model/include/kernel_request.h, PORT_KERNEL_REQ):
what the kernel needs done by machinery that is the host's.  A perf event of the kprobe or
uprobe PMU registers a probe of its own and a tracepoint perf event of a kprobe event arms that
event's probes for perf, and the engines that arm probes are the host's; a BPF trampoline has
an ftrace site call it (FTRACE_DIRECT), as the host patches the sites; and trace_set_clr_event()
enables events, whose files are the host's (EVENT_ENABLE).  The kernel posts a struct
kernel_req and sleeps; the request is answered here on a thread of its own (arming stops every
CPU, which the CPU thread that rang cannot wait for), its result and `done` written, and the
call-function vector raised so that the kernel wakes the requester.  One request at a time: the
kernel serialises them."""

from __future__ import annotations

import errno
import queue
import struct
import threading
from collections.abc import Callable

from .contract import DirectCall, EventEnable, KernelRequest, KprobeEventAnswer, KprobeRequest, KernelRequestService, UprobeRequest
from .image import KernelImage
from .paging import PhysMem, kernel_virt_to_phys




class KernelRequests:
    """Takes the kernel's requests (post(), on the CPU thread that rang) and answers them with
    the service the layers above give (serve()); without one, as a kernel whose kprobe PMU
    finds no symbol (-ENOENT)."""

    def __init__(self, image: KernelImage, raise_irq: Callable[[], None]):
        a = image.abi_value
        self._off = {name: a(f"kernel_req.{name}") for name in
                     ("op", "is_return", "addr", "offset", "probe", "result", "done", "name", "text")}
        self._name_len, self._text_len = a("KERNEL_REQ_NAME_LEN"), a("KERNEL_REQ_TEXT_LEN")
        self._ops = a("KERNEL_REQ_KPROBE_REGISTER"), a("KERNEL_REQ_KPROBE_UNREGISTER"), \
            a("KERNEL_REQ_KPROBE_PERF_OPEN"), a("KERNEL_REQ_KPROBE_PERF_CLOSE")
        self._direct, self._event_enable = a("KERNEL_REQ_FTRACE_DIRECT"), a("KERNEL_REQ_EVENT_ENABLE")
        self._uprobe_ops = a("KERNEL_REQ_UPROBE_REGISTER"), a("KERNEL_REQ_UPROBE_UNREGISTER")
        self._raise_irq = raise_irq
        self._service: KernelRequestService | None = None
        self._mem: PhysMem | None = None
        self._queue: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def serve(self, service: KernelRequestService | None) -> None:
        self._service = service

    def attach(self, mem: PhysMem) -> None:
        self._mem = mem

    def post(self, req_va: int) -> None:
        """PORT_KERNEL_REQ: the request at req_va (kernel virtual) is answered on the worker."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kernel-requests", daemon=True)
            self._thread.start()
        self._queue.put(req_va)

    def stop(self) -> None:
        if self._thread is not None:
            self._queue.put(None)

    def answer(self, req_va: int) -> bool:
        """The request at req_va answered: its result and `done` written (False: no memory
        attached, nothing done).  Seeded, on the run-loop thread between two rounds of slices
        (a point the guest's own progress fixes); live, on the worker."""
        mem = self._mem
        if mem is None:
            return False
        pa = kernel_virt_to_phys(req_va)
        req = self._decode(mem, pa)
        try:
            answer = self._answer(req)
        except Exception:  # the kernel must get an answer whatever happened here
            answer = -errno.EINVAL
        result = answer if isinstance(answer, int) else self._write_event(mem, pa, answer)
        mem.write(pa + self._off["result"], struct.pack("<i", result))
        mem.write(pa + self._off["done"], struct.pack("<I", 1))
        return True

    def _run(self) -> None:
        while True:
            req_va = self._queue.get()
            if req_va is None:
                return
            if not self.answer(req_va):
                continue
            try:
                self._raise_irq()
            except Exception:  # the machine stopped meanwhile: nobody waits any more
                return

    def _write_event(self, mem: PhysMem, pa: int, answer: KprobeEventAnswer) -> int:
        """KPROBE_PERF_OPEN's answer: the probes' indexes over name, the fields' lines in text
        (more than it holds: none, and filters find no field of the event) and after their NUL
        the first probe's function (none: its address in addr), its offset in offset, a
        kretprobe's in is_return; the number of probes (more than name holds: the kernel gives
        them back)."""
        n = len(answer.probes)
        if n > self._name_len // 4:
            return n
        text = "".join(f"{t}\t{name}\t{off}\t{size}\t{int(signed)}\n"
                       for t, name, off, size, signed in answer.fields).encode("latin-1")
        symbol = (answer.symbol or "").encode("latin-1")
        if len(text) + len(symbol) + 2 > self._text_len:
            text = b""
        mem.write(pa + self._off["name"], struct.pack(f"<{n}I", *answer.probes))
        mem.write(pa + self._off["text"], text + b"\0" + symbol + b"\0")
        mem.write(pa + self._off["is_return"], struct.pack("<I", int(answer.is_return)))
        mem.write(pa + self._off["addr"], struct.pack("<Q", answer.addr))
        mem.write(pa + self._off["offset"], struct.pack("<Q", answer.offset))
        return n

    def _answer(self, req: KernelRequest | None) -> int | KprobeEventAnswer:
        service = self._service
        if req is None:
            return -errno.EINVAL
        if service is None:
            if isinstance(req, UprobeRequest):
                return -errno.ENOENT if req.register else 0
            if isinstance(req, EventEnable):
                return -errno.ENODEV   # trace_set_clr_event() without a top-level array
            if not isinstance(req, KprobeRequest):
                return -errno.EBUSY
            if req.perf_event:
                return -errno.EINVAL if req.register else 0
            return -errno.ENOENT if req.register else 0
        return service(req)

    def _decode(self, mem: PhysMem, pa: int) -> KernelRequest | None:
        o = self._off
        op, is_return = struct.unpack_from("<II", mem.buf, pa + o["op"])
        addr, offset = struct.unpack_from("<QQ", mem.buf, pa + o["addr"])
        (probe,) = struct.unpack_from("<I", mem.buf, pa + o["probe"])
        raw = bytes(mem.buf[pa + o["name"]:pa + o["name"] + self._name_len])
        name = raw.split(b"\0", 1)[0].decode("latin-1")
        if op == self._direct:
            return DirectCall(addr, offset, is_return, name)
        if op == self._event_enable:  # "system\0event"
            system, _, event = raw.partition(b"\0")
            return EventEnable(system.decode("latin-1"), event.split(b"\0", 1)[0].decode("latin-1"), bool(is_return))
        if op in self._uprobe_ops:  # the path in text, the inode number over name
            path = bytes(mem.buf[pa + o["text"]:pa + o["text"] + self._text_len]).split(b"\0", 1)[0]
            (ino,) = struct.unpack_from("<Q", raw)
            return UprobeRequest(op == self._uprobe_ops[0], path.decode("utf-8", "surrogateescape"), ino, offset,
                                 addr, bool(is_return), probe)
        if op not in self._ops:
            return None
        if op in self._ops[2:]:  # a kprobe event's id, for perf
            return KprobeRequest(op == self._ops[2], "", 0, 0, False, 0, perf_event=probe)
        return KprobeRequest(op == self._ops[0], raw.split(b"\0", 1)[0].decode("latin-1"), addr, offset,
                             bool(is_return), probe)
