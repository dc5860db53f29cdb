"""Recording tracepoints of a running machine and decoding them by their formats, for the
tests that check an event fires for its real cause in the guest."""
from __future__ import annotations

import time
from dataclasses import dataclass

from tests.rb_page_reference import decode_page
from tracefs_sim.trace.records import RecordDecoder

COMMON = ("common_type", "common_flags", "common_preempt_count", "common_pid")


def number_events(machine) -> dict[str, int]:
    """Ids for every event, as the trace core numbers them (100, 101, ... over the image's
    list): name -> id."""
    ids = {}
    for i, desc in enumerate(machine.image.events):
        machine.tracing.set_event_id(desc, 100 + i)
        ids[desc.name] = 100 + i
    return ids


@dataclass(frozen=True)
class Record:
    event: str  # "system:name"
    cpu: int
    ts: int
    fields: dict  # the common fields and the event's own, decoded as filters see them


class EventCapture:
    """Ids for every event (as the trace core numbers them), then enable() and records()."""

    SLOT = 0

    def __init__(self, machine):
        self.machine = machine
        self._by_id = {}
        self._by_name = {}
        number_events(machine)
        for i, desc in enumerate(machine.image.events):
            self._by_id[100 + i] = desc
            self._by_name[f"{desc.system}:{desc.name}"] = desc
        self._decoders = {}
        # A drain hands back the page being written each time, grown; how many of each
        # page's events were returned already, so that each record is returned once.
        self._taken: dict[tuple[int, int], int] = {}
        self._seen: list[Record] = []
        machine.tracing.set_recording(self.SLOT, True)

    def enable(self, *names: str) -> None:
        for name in names:
            self.machine.tracing.enable_event(self._by_name[name], self.SLOT, True)

    def disable(self, *names: str) -> None:
        for name in names:
            self.machine.tracing.enable_event(self._by_name[name], self.SLOT, False)

    def records(self) -> list[Record]:
        """Everything the guest committed since the capture began, oldest first."""
        for _ in range(2):  # the round in progress commits what it ran (see test_tracing.settle)
            self.machine.read_memory(self.machine.image.text_range[0], 1)
        pages = {}
        for page in self.machine.tracing.drain(self.SLOT):
            pages[(page.cpu, page.seq)] = page
        out = self._seen
        for (cpu, seq), page in sorted(pages.items()):
            events = decode_page(page.data).events
            taken = self._taken.get((cpu, seq), 0)
            self._taken[(cpu, seq)] = len(events)
            for e in events[taken:]:
                payload = bytes(e.payload)
                type_ = int.from_bytes(payload[:2], "little")
                desc = self._by_id[type_]
                out.append(Record(f"{desc.system}:{desc.name}", cpu, e.timestamp, self._decode(desc, payload)))
        out.sort(key=lambda r: r.ts)
        return list(out)

    def wait_for(self, name: str, timeout: float = 10.0, where=lambda r: True) -> list[Record]:
        """Records gathered until one of event `name` satisfying where() came (or the timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            seen = self.records()
            if any(r.event == name and where(r) for r in seen) or time.monotonic() > deadline:
                return seen
            time.sleep(0.05)

    def _decode(self, desc, payload: bytes) -> dict:
        decoder = self._decoders.get(desc.name)
        if decoder is None:
            from tracefs_sim.trace.events import COMMON_FIELDS
            decoder = self._decoders[desc.name] = RecordDecoder((*COMMON_FIELDS, *desc.fields))
        return decoder.decode(payload)
