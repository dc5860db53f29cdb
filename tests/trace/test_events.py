import pytest
from fakes import EventDesc, FieldDesc, real_event_descs, real_format_sections

from tracefs_sim.trace.events import FIRST_EVENT_ID, EventRegistry
from tracefs_sim.trace.ftrace_records import FTRACE_RECORDS
from tracefs_sim.trace.ring_buffer import entry_header_format, page_header_format

REAL = real_format_sections()


def _with_id(text: str, event_id: int) -> str:
    lines = text.splitlines(keepends=True)
    assert lines[1].startswith("ID: ")
    lines[1] = f"ID: {event_id}\n"
    return "".join(lines)


@pytest.mark.parametrize("desc", real_event_descs(), ids=lambda d: f"{d.system}/{d.name}")
def test_format_is_byte_exact_with_linux(desc):
    registry = EventRegistry([desc])
    event = registry.get(desc.system, desc.name)
    # Ids are ours (registration order); everything else must be Linux 6.1's text.
    assert event.format_text() == _with_id(REAL[f"{desc.system}/{desc.name}"], event.id)


@pytest.mark.parametrize("event_id", sorted(i for i, d in FTRACE_RECORDS.items() if f"ftrace/{d.name}" in REAL))
def test_ftrace_record_formats_are_linuxs(event_id):
    # ftrace's own records keep Linux's ids (enum trace_type) too
    event = EventRegistry([]).by_id(event_id)
    assert event.format_text() == REAL[f"ftrace/{event.name}"]


def test_the_captured_set_covers_the_issue_events():
    names = {(d.system, d.name) for d in real_event_descs()}
    assert {("sched", "sched_switch"), ("raw_syscalls", "sys_enter"), ("kmem", "kfree"),
            ("syscalls", "sys_enter_getuid")} <= names


def test_ids_follow_registration_order_after_ftrace_types():
    descs = real_event_descs()
    registry = EventRegistry(descs)
    ids = [registry.get(d.system, d.name).id for d in descs]
    assert ids == list(range(FIRST_EVENT_ID, FIRST_EVENT_ID + len(descs)))
    event = registry.get(descs[0].system, descs[0].name)
    assert event.id_text() == f"{FIRST_EVENT_ID}\n"
    assert event.format_text().splitlines()[1] == f"ID: {FIRST_EVENT_ID}"


def test_systems_and_events_are_listed_sorted():
    registry = EventRegistry(real_event_descs())
    assert registry.systems() == ["ftrace", "kmem", "raw_syscalls", "sched", "syscalls"]
    sched = [e.name for e in registry.events("sched")]
    assert sched == sorted(sched) and "sched_switch" in sched
    assert registry.get("sched", "nosuch") is None and registry.get("nosuch", "x") is None


def test_duplicate_event_is_refused():
    desc = EventDesc("s", "e", (), '""', key_addr=0)
    with pytest.raises(ValueError):
        EventRegistry([desc, desc])


def test_array_field_spellings():
    # The kernel spells an array's type `char[16]`; the file shows `char comm[16]`. A dynamic
    # array keeps its type in front; a flexible array shows `[]` after the name.
    fields = (FieldDesc("char[16]", "comm", 8, 16, True),
              FieldDesc("__data_loc char[]", "filename", 24, 4, True),
              FieldDesc("char[]", "buf", 28, 0, True))
    text = EventRegistry([EventDesc("s", "e", fields, '"%s"', key_addr=0)]).get("s", "e").format_text()
    assert "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n" in text
    assert "\tfield:__data_loc char[] filename;\toffset:24;\tsize:4;\tsigned:1;\n" in text
    assert "\tfield:char buf[];\toffset:28;\tsize:0;\tsigned:1;\n" in text


def test_header_page_and_header_event_are_linux_text():
    assert page_header_format() == REAL["header_page"]
    assert entry_header_format() == REAL["header_event"]
