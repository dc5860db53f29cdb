"""The event filter language against a real Linux 6.1 kernel (tests/data/linux-6.1-filter-cases.txt)."""

import errno
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from tracefs_sim.machine import FieldDesc
from tracefs_sim.trace.filter import (
    ERROR_LOG_LOCATION,
    NO_FILTER_TEXT,
    SUBSYSTEM_FILTER_TEXT,
    EventFilter,
    FilterParseError,
    parse_event_filter,
    parse_subsystem_filter,
)

DATA = Path(__file__).resolve().parents[1] / "data"
STRERROR = {os.strerror(e): e for e in (errno.EINVAL, errno.EPERM, errno.ENOENT, errno.ESRCH)}




def load_formats() -> dict[str, tuple[FieldDesc, ...]]:
    """'system/event' -> the event's own fields, from the real format files."""
    events: dict[str, tuple[FieldDesc, ...]] = {}
    for block in (DATA / "linux-6.1-formats.txt").read_text().split("=== ")[1:]:
        key = block.split("\n", 1)[0].strip()
        fields = []
        for m in re.finditer(r"\tfield:(.*?) (\w+)(\[\d*\])?;\toffset:(\d+);\tsize:(\d+);\tsigned:(\d+);", block):
            type_, name, array, offset, size, signed = m.groups()
            if not name.startswith("common_"):
                fields.append(FieldDesc(type_ + (array or ""), name, int(offset), int(size), signed == "1"))
        events[key] = tuple(fields)
    return events


FORMATS = load_formats()


def strip_timestamps(log: str) -> str:
    return re.sub(r"^\[[ \d]+\.\d{6}\] ", "", log, flags=re.M)


def error_log_body(err: FilterParseError) -> str:
    """An error_log entry as tracing_err_log_seq_show() prints it, without the timestamp."""
    return (
        f"{ERROR_LOG_LOCATION}: error: {err.error_log_message}\n"
        f"  Command: {err.text.decode()}\n" + " " * (len("  Command: ") + err.error_log_pos) + "^\n"
    )


def split_sections(block: str) -> dict[str, str]:
    out: dict[str, str] = {}
    key = None
    for line in block.splitlines(keepends=True):
        m = re.match(r"### (RC|FILTER-FILE|ERROR-LOG|SUBSYS-FILE|EVENT-FILE)( (.*))?\n", line)
        if m:
            key = m.group(1) + (":" + m.group(3) if m.group(1) == "EVENT-FILE" else "")
            out[key] = m.group(3) or "" if m.group(1) == "RC" else ""
            continue
        if key is not None:
            out[key] += line
        elif "write error: " in line:
            out["errno"] = line.split("write error: ", 1)[1].strip()
    return out


def load_cases():
    text = (DATA / "linux-6.1-filter-cases.txt").read_text()
    text = text[text.index("\n### CASE ") + 1 :]  # skip the header (the script)
    body, evals = text.split("### EVAL-ALL\n", 1)
    cases, subsys = [], []
    for chunk in re.split(r"^(?=### (?:CASE|SUBSYS) )", body, flags=re.M):
        if not chunk.strip():
            continue
        head, filt, rest = chunk.split("\n", 2)
        assert filt.startswith("### FILTER ")
        sections = split_sections(rest)
        if head.startswith("### CASE "):
            cases.append((head[len("### CASE ") :], filt[len("### FILTER ") :], sections))
        else:
            subsys.append((head[len("### SUBSYS ") :], filt[len("### FILTER ") :], sections))
    return cases, subsys, evals


CASES, SUBSYS, EVALS = load_cases()


def test_data_covers_every_parse_error_message():
    messages = set()
    for _, _, sec in CASES:
        messages.update(re.findall(r"^parse_error: (.*)$", sec["FILTER-FILE"], flags=re.M))
    assert len(CASES) >= 40
    assert messages >= {
        "Invalid operator",
        "Too many '('",
        "Too few '('",
        "Missing matching quote",
        "Operand too long",
        "Expecting string field",
        "Expecting numeric field",
        "Illegal operation for field type",
        "Field not found",
        "Illegal integer value",
        "Too many terms in predicate expression",
        "Meaningless filter expression",
        "Invalid value (did you forget quotes)?",
        "No filter found",
    }


@pytest.mark.parametrize("event,text,sec", CASES, ids=[f"{i}:{c[1][:40]}" for i, c in enumerate(CASES)])
def test_event_filter_like_linux(event, text, sec):
    written = (text + "\n").encode()  # the script wrote with echo
    if sec["RC"] == "0":
        result = parse_event_filter(written, FORMATS[event])
        if sec["FILTER-FILE"] == NO_FILTER_TEXT.decode():
            assert result is None
        else:
            assert isinstance(result, EventFilter)
            assert result.filter_file_text().decode() == sec["FILTER-FILE"]
        assert sec["ERROR-LOG"] == ""
        return
    with pytest.raises(FilterParseError) as info:
        parse_event_filter(written, FORMATS[event])
    err = info.value
    assert err.errno == STRERROR[sec["errno"]]
    assert err.filter_file_text().decode() == sec["FILTER-FILE"]
    assert error_log_body(err) == strip_timestamps(sec["ERROR-LOG"])


@pytest.mark.parametrize("system,text,sec", SUBSYS, ids=[c[1] for c in SUBSYS])
def test_subsystem_filter_like_linux(system, text, sec):
    events = {key.split("/")[1]: fields for key, fields in FORMATS.items() if key.startswith(system + "/")}
    result = parse_subsystem_filter((text + "\n").encode(), events)
    assert sec["RC"] == "0"
    assert SUBSYSTEM_FILTER_TEXT.decode() == sec["SUBSYS-FILE"]
    real_log = strip_timestamps(sec["ERROR-LOG"])
    for key, expected in sec.items():
        if not key.startswith("EVENT-FILE:"):
            continue
        got = result.filters[key.split(":", 1)[1]]
        if got is None:
            assert expected == NO_FILTER_TEXT.decode()
        else:
            assert got.filter_file_text().decode() == expected
    for err in result.errors:
        assert error_log_body(err) in real_log
    # The real system has more events than the modelled ones: every real entry is one of ours.
    entries = re.findall(r"^event filter parse error.*\n.*\n.*\n", real_log, flags=re.M)
    assert len(entries) >= len(result.errors)
    assert set(entries) <= {error_log_body(e) for e in result.errors}


def test_subsystem_without_events_is_enodev():
    with pytest.raises(OSError) as info:
        parse_subsystem_filter(b"pid == 1\n", {})
    assert info.value.errno == errno.ENODEV


# ---------------------------------------------------------------------------------------------
# Matching: the real kernel's filtered buffers against our filter on the unfiltered records.

LINE = re.compile(
    r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\] \S+\s+(?P<ts>\d+\.\d+): (?P<event>\w+): (?P<body>.*)$"
)
SWITCH = re.compile(
    r"prev_comm=(.*) prev_pid=(\d+) prev_prio=(\d+) prev_state=(\S+) ==> "
    r"next_comm=(.*) next_pid=(\d+) next_prio=(\d+)$"
)
STATE_BITS = {"S": 0x1, "D": 0x2, "T": 0x4, "t": 0x8, "X": 0x10, "Z": 0x20, "P": 0x40, "I": 0x80, "R": 0}


def parse_buffer(text: str):
    lines = [m for m in map(LINE.match, text.splitlines()) if m]
    start = next(float(m["ts"]) for m in lines if m["body"] == "START")
    end = next(float(m["ts"]) for m in lines if m["body"] == "END")
    return [m for m in lines if m["event"] == "sched_switch"], start, end


def switch_record(m):
    prev_comm, prev_pid, prev_prio, state, next_comm, next_pid, next_prio = SWITCH.match(m["body"]).groups()
    bits = 0x100 if state.endswith("+") else 0
    for letter in state.rstrip("+").split("|"):
        bits |= STATE_BITS[letter]
    rec = {
        "common_pid": int(m["pid"]),
        "prev_comm": prev_comm.encode(),
        "prev_pid": int(prev_pid),
        "prev_prio": int(prev_prio),
        "prev_state": bits,
        "next_comm": next_comm.encode(),
        "next_pid": int(next_pid),
        "next_prio": int(next_prio),
    }
    return rec, int(m["cpu"]), prev_comm.encode()  # current is the previous task


def test_filters_keep_what_linux_keeps():
    blocks = re.split(r"^### EVAL (.*)\n", EVALS, flags=re.M)
    buffers = {"": parse_buffer(blocks[0])}
    for i in range(1, len(blocks), 2):
        buffers[blocks[i]] = parse_buffer(blocks[i + 1])
    lo = max(b[1] for b in buffers.values())
    hi = min(b[2] for b in buffers.values())

    def key(m):
        return (m["cpu"], m["task"], m["pid"], m["body"])

    everything = [m for m in buffers.pop("")[0] if lo < float(m["ts"]) < hi]
    assert len(everything) > 20
    fields = FORMATS["sched/sched_switch"]
    for text, (lines, _, _) in buffers.items():
        flt = parse_event_filter(text.encode(), fields)
        kept = Counter(key(m) for m in everything if flt.matches(*switch_record(m)))
        real = Counter(key(m) for m in lines if lo < float(m["ts"]) < hi)
        assert kept == real, text


# ---------------------------------------------------------------------------------------------
# Behaviour the captured cases cannot show directly.


def fields_of(event):
    return FORMATS[event]


def matches(text, event, rec, **kw):
    return parse_event_filter(text, fields_of(event)).matches(rec, **kw)


def test_numbers_compare_at_the_field_width():
    rec = {"bytes_req": 2**64 - 1, "bytes_alloc": 8, "node": -1}
    assert matches("bytes_req == 18446744073709551615", "kmem/kmalloc", rec)
    assert matches("bytes_req > 0x7fffffffffffffff", "kmem/kmalloc", rec)  # unsigned compare
    assert matches("node < 0 && node == 0xffffffff", "kmem/kmalloc", rec)  # signed int, 32 bits
    assert not matches("node > 0", "kmem/kmalloc", rec)
    assert matches("bytes_alloc & 0xc", "kmem/kmalloc", rec)
    assert not matches("bytes_alloc & 7", "kmem/kmalloc", rec)
    assert matches("bytes_alloc == 010 && bytes_alloc <= 8 && bytes_alloc >= 8", "kmem/kmalloc", rec)


def test_arrays_never_match():
    rec = {"id": 0, "args": 1}
    assert not matches("args == 1", "raw_syscalls/sys_enter", rec)
    assert not matches("args != 1", "raw_syscalls/sys_enter", rec)
    assert matches("args != 1 || id == 0", "raw_syscalls/sys_enter", rec)


def test_data_loc_strings_match_at_their_real_end():
    rec = {"filename": b"/bin/busybox", "pid": 5, "old_pid": 5}
    assert matches('filename ~ "*box"', "sched/sched_process_exec", rec)
    assert matches('filename ~ "/bin/*"', "sched/sched_process_exec", rec)
    assert matches('filename ~ "*bin*"', "sched/sched_process_exec", rec)
    assert matches('filename ~ "/b?n/[a-c]usy*"', "sched/sched_process_exec", rec)
    assert matches('filename == "/bin/busybox"', "sched/sched_process_exec", rec)
    assert not matches('filename == "/bin/busy"', "sched/sched_process_exec", rec)
    assert matches('filename != "/bin/*"', "sched/sched_process_exec", rec)  # '!=' is literal
    assert not matches('filename ~ "!/bin/*"', "sched/sched_process_exec", rec)


def test_char_arrays_end_match_looks_at_the_array_end():
    rec15 = {"comm": b"abcdefghijklmno", "pid": 1, "prio": 120, "target_cpu": 0}
    rec3 = {"comm": b"xsh", "pid": 1, "prio": 120, "target_cpu": 0}
    assert matches('comm ~ "*mno"', "sched/sched_wakeup", rec15)
    assert not matches('comm ~ "*sh"', "sched/sched_wakeup", rec3)
    assert matches('comm ~ "*s*"', "sched/sched_wakeup", rec3)


def test_pointer_strings_are_read_through_the_callback():
    rec = {"__syscall_nr": 257, "dfd": 2**64 - 100, "filename": 0x7FFC0000, "flags": 0, "mode": 0}
    calls = []

    def read(addr, user):
        calls.append((addr, user))
        return b"/etc/passwd\0junk" if user else None

    assert matches('filename.ustring ~ "/etc/*"', "syscalls/sys_enter_openat", rec, read_string=read)
    assert not matches('filename ~ "/etc/*"', "syscalls/sys_enter_openat", rec, read_string=read)
    # An unreadable string matches nothing, not even '!='.
    assert not matches('filename != "x"', "syscalls/sys_enter_openat", rec, read_string=read)
    assert calls == [(0x7FFC0000, True), (0x7FFC0000, False), (0x7FFC0000, False)]


def test_generic_fields_use_context():
    rec = {"comm": b"bash", "pid": 1, "prio": 120, "target_cpu": 0}
    assert matches("cpu == 3 && CPU > 2", "sched/sched_wakeup", rec, cpu=3)
    assert not matches("common_cpu != 3", "sched/sched_wakeup", rec, cpu=3)
    assert matches('COMM == "kworker/1:0"', "sched/sched_wakeup", rec, comm=b"kworker/1:0")
    # The event's own 'comm' field wins over the generic COMM.
    assert matches('comm == "bash"', "sched/sched_wakeup", rec, comm=b"other")


def test_logic_follows_precedence_and_negation():
    fields = fields_of("sched/sched_wakeup")
    flt = parse_event_filter("pid == 1 || pid == 2 && !(prio == 3 || !(target_cpu == 4))", fields)
    for pid in (1, 2, 5):
        for prio in (3, 7):
            for tcpu in (4, 9):
                rec = {"comm": b"", "pid": pid, "prio": prio, "target_cpu": tcpu}
                want = pid == 1 or (pid == 2 and not (prio == 3 or not tcpu == 4))
                assert flt.matches(rec) == want, rec


def test_text_is_kept_to_the_first_nul_and_strings_accepted():
    flt = parse_event_filter(b"pid == 1\0 garbage", fields_of("sched/sched_wakeup"))
    assert flt.filter_file_text() == b"pid == 1\n"
    assert parse_event_filter("pid == 1", fields_of("sched/sched_wakeup")).text == b"pid == 1"


def test_unsized_char_array_compares_the_string():
    fields = [FieldDesc("char[]", "buf", 16, 0, True)]
    rec = {"buf": b"hello world\n\0\0\0"}
    assert parse_event_filter('buf == "hello world\n"', fields).matches(rec)
    assert parse_event_filter('buf ~ "hello*"', fields).matches(rec)
    assert parse_event_filter('buf ~ "*wor*"', fields).matches(rec)
    assert not parse_event_filter('buf ~ "*world"', fields).matches(rec)  # the kernel's end match needs a length
