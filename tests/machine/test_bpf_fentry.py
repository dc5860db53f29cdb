"""fentry/fexit programs (BPF_PROG_TYPE_TRACING) through BPF trampolines: BPF_PROG_LOAD checks the
target by its BTF id as 6.1's bpf_check_attach_target() does, and the context as btf_ctx_access();
BPF_RAW_TRACEPOINT_OPEN with no name writes a trampoline into a page of guest text
(kernel/bpf/trampoline.c) and has the host make the function's ftrace site call it (a direct
call, machine/kernel_requests.py -> probes/ftrace.py); closing the link gives the site back.
The guest program is bpftest (kernel_model/user/bpftest.c)."""
from __future__ import annotations

import struct
import time

import pytest

from bpf_asm import (ADD, DW, FN_map_lookup_elem, JEQ, MAP_ARRAY, MAP_HASH, R0, R1, R2, R7, R10, W, alu64_imm, atomic,
                     call, exit_, jmp_imm, ld_map_fd, ldx, mov64_imm, mov64_reg, prog, st, stx)
from test_bpf_trace import count_into
from test_kprobe_pmu import bpftest, by_comm, count, key, stacked  # noqa: F401 (the module's fixture)

EINVAL, ENOENT, EACCES, EBUSY = 22, 2, 13, 16
PROG_TRACING = 26
FENTRY, FEXIT = 24, 25
NOP5 = bytes([0x0F, 0x1F, 0x44, 0x00, 0x00])
KIND_FUNC, KIND_STRUCT = 12, 4


def btf_types(data: bytes) -> tuple[list[tuple[int, int, int, int]], bytes]:
    """(name_off, kind, vlen, type) of each type by id (0: void), and the strings"""
    _, _, _, hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<HBBIIIII", data)
    types = [(0, 0, 0, 0)]
    p, end = hdr_len + type_off, hdr_len + type_off + type_len
    extra = {1: lambda v: 4, 3: lambda v: 12, 4: lambda v: 12 * v, 5: lambda v: 12 * v, 6: lambda v: 8 * v,
             13: lambda v: 8 * v, 14: lambda v: 4, 15: lambda v: 12 * v, 17: lambda v: 4, 19: lambda v: 12 * v}
    while p < end:
        name_off, info, size_type = struct.unpack_from("<III", data, p)
        kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
        types.append((name_off, kind, vlen, size_type))
        p += 12 + extra.get(kind, lambda v: 0)(vlen)
    return types, data[hdr_len + str_off:hdr_len + str_off + str_len]


@pytest.fixture(scope="module")
def btf_ids(stacked):
    machine, _ = stacked
    types, strings = btf_types(machine.image.btf())

    def name(off: int) -> str:
        return strings[off:strings.index(b"\0", off)].decode()
    ids: dict[tuple[int, str], int] = {}
    for i, (off, kind, _, _) in enumerate(types):
        ids.setdefault((kind, name(off)), i)
    return ids, len(types)


def site_of(stack, func: str) -> int:
    return stack.ftrace_sites.address(func)


def wait_for_site(machine, site: int, nop: bool) -> bytes:
    deadline = time.monotonic() + 30
    while (machine.read_memory(site, 5) == NOP5) != nop and time.monotonic() < deadline:
        time.sleep(0.05)
    return machine.read_memory(site, 5)


def test_load_checks_the_target_as_6_1(stacked, btf_ids):
    """6.1's errnos and log lines: no btf id, an id past the types, a type that is no function, a
    program type that takes no btf id; __do_sys_getpid has one argument here (SYSCALL_DEFINE0's
    regs): fexit reads the return value after it, fentry cannot; a 4-byte read at 4 is no
    multiple of 8, vfs_read has no 6th slot even for fexit, writes to the context are refused,
    and the struct file pointer is 6.1's PTR_TO_BTF_ID line (at log level 2: a load that passes
    resets a level 1 log).  Each line as the real 6.1 printed it for the same program (bpftest
    -DHOST in real-tracefs, the BTF ids its own)."""
    machine, _ = stacked
    ids, nr_types = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    vfs_read = ids[(KIND_FUNC, "vfs_read")]
    file_id = ids[(KIND_STRUCT, "file")]
    ok = prog(mov64_imm(R0, 0), exit_())
    read_ret = prog(ldx(DW, R0, R1, 8), exit_())
    loads = [(PROG_TRACING, ok, 1, f"A={FENTRY}:0"), (PROG_TRACING, ok, 1, f"A={FENTRY}:{nr_types + 5}"),
             (PROG_TRACING, ok, 1, f"A={FENTRY}:{file_id}"), (2, ok, 1, f"A={FENTRY}:{getpid}"),
             (PROG_TRACING, read_ret, 1, f"A={FENTRY}:{getpid}"), (PROG_TRACING, read_ret, 0, f"A={FEXIT}:{getpid}"),
             (PROG_TRACING, prog(ldx(W, R0, R1, 4), exit_()), 1, f"A={FENTRY}:{vfs_read}"),
             (PROG_TRACING, prog(ldx(DW, R0, R1, 40), exit_()), 1, f"A={FEXIT}:{vfs_read}"),
             (PROG_TRACING, prog(mov64_imm(R2, 1), stx(DW, R1, R2, 0), mov64_imm(R0, 0), exit_()), 1,
              f"A={FENTRY}:{vfs_read}"),
             (PROG_TRACING, prog(ldx(DW, R0, R1, 0), mov64_imm(R0, 0), exit_()), 2, f"A={FENTRY}:{vfs_read}"),
             (PROG_TRACING, read_ret, 1, f"A={FEXIT}:{getpid}"),
             (PROG_TRACING, prog(mov64_imm(R0, 7), exit_()), 1, f"A={FEXIT}:{getpid}")]
    out = [line for args in loads for line in bpftest(machine, "load", *args)]
    stats = "| processed 0 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0"
    assert out[:9] == [f"load: -{EINVAL}", "| Tracing programs must provide btf_id", stats,
                       f"load: -{EINVAL}", f"| attach_btf_id {nr_types + 5} is invalid", stats,
                       f"load: -{EINVAL}", f"| attach_btf_id {file_id} is not a function", stats], out
    assert out[9] == f"load: -{EINVAL}", out          # a kprobe program with a btf id: no log
    rest = out[10:]

    def failure(line: str) -> None:
        assert line in rest, out
        i = rest.index(line)
        assert rest[i + 1] == "| invalid bpf_context access " + ("off=8 size=8" if "getpid" in line else
                                                                 "off=4 size=4" if "offset 4" in line else
                                                                 "off=40 size=8"), out
    failure("| func '__do_sys_getpid' doesn't have 2-th argument")
    failure("| func 'vfs_read' offset 4 is not multiple of 8")
    failure("| func 'vfs_read' doesn't have 6-th argument")
    loads = [line for line in rest if line.startswith("load: ")]
    # fexit reads the return value, but a fentry/fexit program must return 0 (check_return_code)
    assert loads[0] == f"load: -{EACCES}" and loads[1] == f"load: -{EINVAL}", out
    assert loads[2:5] == [f"load: -{EACCES}"] * 3, out
    assert "| invalid bpf_context access off=0 size=8" in rest, out    # the write
    assert int(loads[5].split()[1]) > 0, out
    assert f"| func 'vfs_read' arg0 has btf_id {file_id} type STRUCT 'file'" in rest, out
    assert loads[6:] == [f"load: -{EINVAL}"] * 2, out
    assert "| At program exit the register R0 has unknown scalar value should have been in (0x0; 0x0)" in rest, out
    assert "| At program exit the register R0 has value (0x7; 0x0) should have been in (0x0; 0x0)" in rest, out


def test_fentry_counts_the_calls_through_a_trampoline(stacked, btf_ids):
    """the site calls a trampoline in bpf_tramp_area while the link is open, its nop again after;
    the program ran once a call"""
    machine, stack = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    site = site_of(stack, "__do_sys_getpid")
    area = machine.image.addr("bpf_tramp_area")
    assert machine.read_memory(site, 5) == NOP5
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_TRACING, by_comm(3), 0, f"A={FENTRY}:{getpid}",
                  "rawtp", 4, "-", "calls", 37, "get", 3, key(0), "sleep", 1)
    assert out[:4] == ["map: 3", "load: 4", "rawtp: 5", "calls: 37"], out
    assert count(out[4]) == 37
    assert wait_for_site(machine, site, nop=True) == NOP5
    # while attached: hold the link open and look at the site
    proc_out: list[bytes] = []
    proc = machine.spawn(["bpftest", *map(str, ["map", MAP_HASH, 4, 8, 64, "load", PROG_TRACING, by_comm(3), 0,
                                                f"A={FENTRY}:{getpid}", "rawtp", 4, "-", "sleep", 3000])],
                         proc_out.append)
    try:
        patched = wait_for_site(machine, site, nop=False)
        assert patched[0] == 0xE8, patched.hex()
        target = site + 5 + struct.unpack("<i", patched[1:])[0]
        assert area <= target < area + 32 * 4096
        assert machine.read_memory(target, 4) == bytes([0x55, 0x48, 0x89, 0xE5])   # push rbp; mov rbp, rsp
    finally:
        assert proc.wait(60) == 0, b"".join(proc_out)
    assert wait_for_site(machine, site, nop=True) == NOP5


def test_fexit_reads_the_return_value(stacked, btf_ids):
    """fexit on __do_sys_getpid(regs): ctx[1] is its return value, bpftest's pid: counts[ret]++"""
    machine, _ = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    by_ret = count_into(3, ldx(W, R7, R1, 8), stx(W, R10, R7, -4))
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_TRACING, by_ret, 0, f"A={FEXIT}:{getpid}",
                  "rawtp", 4, "-", "calls", 20, "pid", "next", 3, "-")
    assert out[:4] == ["map: 3", "load: 4", "rawtp: 5", "calls: 20"], out
    pid = int(out[4].split()[1])
    assert out[5] == f"next: 0 {key(pid)}", out


def bump(map_fd: int, slot: int) -> str:
    """counts[slot]++ in an array map (a short program: a session's argv is small)"""
    return prog(st(W, R10, -4, slot), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4), ld_map_fd(R1, map_fd),
                call(FN_map_lookup_elem), jmp_imm(JEQ, R0, 0, 2), mov64_imm(R1, 1), atomic(DW, ADD, R0, R1, 0),
                mov64_imm(R0, 0), exit_())


def test_fentry_and_fexit_together_and_the_function_still_works(stacked, btf_ids):
    """both kinds on one function (one trampoline that calls the body): each counts every call
    (no other task calls getpid here), and getpid() still returns the pid: the body ran once a
    call and its return value was passed on"""
    machine, _ = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    out = bpftest(machine, "map", MAP_ARRAY, 4, 8, 2, "load", PROG_TRACING, bump(3, 0), 0, f"A={FENTRY}:{getpid}",
                  "rawtp", 4, "-", "load", PROG_TRACING, bump(3, 1), 0, f"A={FEXIT}:{getpid}", "rawtp", 6, "-",
                  "calls", 30, "pid", "get", 3, key(0), "get", 3, key(1))
    assert out[:6] == ["map: 3", "load: 4", "rawtp: 5", "load: 6", "rawtp: 7", "calls: 30"], out
    assert int(out[6].split()[1]) > 0, out
    assert count(out[7]) == 31 and count(out[8]) == 31, out


def test_attach_errors(stacked, btf_ids):
    """a name with a tracing program EINVAL; the same program twice EBUSY; a function with no
    ftrace site (notrace) EBUSY, as bpf_arch_text_poke() finds no nop there"""
    machine, _ = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    ok = prog(mov64_imm(R0, 0), exit_())
    out = bpftest(machine, "load", PROG_TRACING, ok, 0, f"A={FENTRY}:{getpid}",
                  "rawtp", 3, "sys_enter", "rawtp", 3, "-", "rawtp", 3, "-")
    assert out == ["load: 3", f"rawtp: -{EINVAL}", "rawtp: 4", f"rawtp: -{EBUSY}"], out


def call_target(machine, site: int) -> int | None:
    code = machine.read_memory(site, 5)
    return None if code == NOP5 else site + 5 + struct.unpack("<i", code[1:])[0]


def test_the_function_tracer_on_the_same_function(stacked, btf_ids):
    """register_ftrace_direct() with the function tracer on the site too: the site calls
    ftrace_regs_caller, which records and then goes into the trampoline (its direct call); the
    program counts every call and getpid() still works; the link closed, the site calls
    ftrace_caller for the function tracer alone, and its nop once that is off"""
    machine, stack = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    sites = stack.ftrace_sites
    site = site_of(stack, "__do_sys_getpid")
    image = machine.image
    sites.set_function(0, frozenset({"__do_sys_getpid"}))
    try:
        assert call_target(machine, site) == image.addr("ftrace_caller")
        holder: list[bytes] = []
        proc = machine.spawn(["bpftest", *map(str, ["map", MAP_ARRAY, 4, 8, 2, "load", PROG_TRACING, bump(3, 0), 0,
                                                    f"A={FEXIT}:{getpid}", "rawtp", 4, "-", "sleep", 1500,
                                                    "calls", 25, "pid", "get", 3, key(0)])], holder.append)
        deadline = time.monotonic() + 30
        while call_target(machine, site) != image.addr("ftrace_regs_caller") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert call_target(machine, site) == image.addr("ftrace_regs_caller")
        enabled = {name: flags for name, _, flags in sites.enabled()}
        assert enabled["__do_sys_getpid"] == " R   D", enabled["__do_sys_getpid"]
        assert proc.wait(60) == 0, b"".join(holder)
        out = b"".join(holder).decode().splitlines()
        assert out[:5] == ["map: 3", "load: 4", "rawtp: 5", "sleep: 0", "calls: 25"], out
        assert int(out[5].split()[1]) > 0 and count(out[6]) == 26, out
        deadline = time.monotonic() + 30
        while call_target(machine, site) != image.addr("ftrace_caller") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert call_target(machine, site) == image.addr("ftrace_caller")
    finally:
        sites.set_function(0, None)
    assert call_target(machine, site) is None


def test_link_create_attaches_too(stacked, btf_ids):
    """BPF_LINK_CREATE with the program's own attach type is the other way to the trampoline (an
    other type: EINVAL); the program twice, by either call, EBUSY; once the link is closed it can
    be attached again (as the real 6.1 answered)"""
    machine, _ = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    ok = prog(mov64_imm(R0, 0), exit_())
    out = bpftest(machine, "load", PROG_TRACING, ok, 0, f"A={FENTRY}:{getpid}", "link", 3, FEXIT, "link", 3, FENTRY,
                  "link", 3, FENTRY, "rawtp", 3, "-", "close", 4, "link", 3, FENTRY)
    assert out == ["load: 3", f"link: -{EINVAL}", "link: 4", f"link: -{EBUSY}", f"rawtp: -{EBUSY}", "close: 0",
                   "link: 4"], out


def test_program_info_names_the_target(stacked, btf_ids):
    """BPF_OBJ_GET_INFO_BY_FD of a tracing program: its target's BTF id and the id of the BTF
    object holding it (vmlinux's, 1, as on 6.1); other programs show none (bpftest prints them
    only when set)"""
    machine, _ = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    ok = prog(mov64_imm(R0, 0), exit_())
    out = bpftest(machine, "load", PROG_TRACING, ok, 0, f"A={FENTRY}:{getpid}", "pinfo", 3)
    assert out[0] == "load: 3" and out[1].startswith("pinfo: 0 type 26 "), out
    assert out[1].endswith(f" attach_btf_obj_id 1 attach_btf_id {getpid}"), out


def test_a_kprobe_and_fentry_on_one_function(stacked, btf_ids):
    """a kprobe PMU probe (an ftrace-based kprobe: the site calls ftrace_regs_caller) and a fexit
    program on the same function: the kprobe handler runs, then the trampoline as the site's
    direct call; both count every call into one counter (a guest program's argv is short)"""
    from test_kprobe_pmu import PERF_TYPE_KPROBE
    machine, _ = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    out = bpftest(machine, "map", MAP_ARRAY, 4, 8, 2, "load", PROG_TRACING, bump(3, 0), 0, f"A={FEXIT}:{getpid}",
                  "rawtp", 4, "-", "load", 2, bump(3, 0), 0, "kpev", PERF_TYPE_KPROBE, "__do_sys_getpid", 0, 0,
                  "setbpf", 7, 6, "calls", 20, "get", 3, key(0))
    assert out[:7] == ["map: 3", "load: 4", "rawtp: 5", "load: 6", "kpev: 7", "setbpf: 0", "calls: 20"], out
    assert count(out[7]) == 40, out   # 20 calls, each counted by both programs


def test_a_perf_link_attaches_a_kprobe_program_while_open(stacked):
    """BPF_LINK_CREATE of a kprobe program on a kprobe PMU event (BPF_PERF_EVENT, libbpf's way):
    it counts the function's calls while the link's fd is open, none once it is closed (the
    event stays open), and the event takes a program again after"""
    from test_kprobe_pmu import PERF_TYPE_KPROBE
    machine, _ = stacked
    link = "".join(struct.pack("<I", v).hex() for v in (4, 5, 41, 0))
    out = bpftest(machine, "map", MAP_ARRAY, 4, 8, 2, "load", 2, bump(3, 0), "kpev", PERF_TYPE_KPROBE,
                  "__do_sys_getpid", 0, 0, "raw", 28, link, "calls", 7, "close", 6, "calls", 5,
                  "get", 3, key(0), "setbpf", 5, 4, "calls", 3, "get", 3, key(0))
    assert out[:7] == ["map: 3", "load: 4", "kpev: 5", "raw: 6", "calls: 7", "close: 0", "calls: 5"], out
    assert count(out[7]) == 7, out
    assert out[8:10] == ["setbpf: 0", "calls: 3"] and count(out[10]) == 10, out


# BTF-enabled raw tracepoints (tp_btf): a tracing program of attach type BPF_TRACE_RAW_TP names
# its tracepoint by the typedef of its probes' prototype, btf_trace_<name>
RAW_TP, KIND_TYPEDEF = 23, 8


def test_tp_btf_counts_sys_enter_by_its_typed_arguments(stacked, btf_ids):
    """tp_btf/sys_enter: its context is the tracepoint's arguments after btf_trace_sys_enter's
    `void *__data` (regs at 0, id at 8), as a raw tracepoint program's; BPF_RAW_TRACEPOINT_OPEN
    without a name attaches it to the tracepoint the program names, and its close detaches it"""
    machine, _ = stacked
    ids, _ = btf_ids
    sys_enter = ids[(KIND_TYPEDEF, "btf_trace_sys_enter")]
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64,
                  "load", PROG_TRACING, count_into(3, ldx(W, R7, R1, 8), stx(W, R10, R7, -4)), 0,
                  f"A={RAW_TP}:{sys_enter}", "rawtp", 4, "-", "calls", 37, "get", 3, key(39),
                  "close", 5, "calls", 10, "get", 3, key(39))
    assert out[:4] == ["map: 3", "load: 4", "rawtp: 5", "calls: 37"], out
    # getpid() 37 times, and none counted after the close
    assert count(out[4]) >= 37 and count(out[7]) == count(out[4]), out


def test_tp_btf_load_checks_as_6_1(stacked, btf_ids):
    """6.1's bpf_check_attach_target() for BPF_TRACE_RAW_TP: the id must be a typedef named
    btf_trace_*; btf_ctx_access() past the tracepoint's arguments (sys_enter has two) and a task
    pointer argument as PTR_TO_BTF_ID (sched_switch's prev)"""
    machine, _ = stacked
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    u32 = ids[(KIND_TYPEDEF, "u32")]
    sys_enter = ids[(KIND_TYPEDEF, "btf_trace_sys_enter")]
    switch = ids[(KIND_TYPEDEF, "btf_trace_sched_switch")]
    task = ids[(KIND_STRUCT, "task_struct")]
    ok = prog(mov64_imm(R0, 0), exit_())
    out = [line for args in [(PROG_TRACING, ok, 1, f"A={RAW_TP}:{getpid}"), (PROG_TRACING, ok, 1, f"A={RAW_TP}:{u32}"),
                             (PROG_TRACING, prog(ldx(DW, R0, R1, 16), exit_()), 1, f"A={RAW_TP}:{sys_enter}"),
                             (PROG_TRACING, prog(ldx(DW, R0, R1, 8), mov64_imm(R0, 0), exit_()), 2,
                              f"A={RAW_TP}:{switch}")]
           for line in bpftest(machine, "load", *args)]
    assert out[:2] == [f"load: -{EINVAL}", f"| attach_btf_id {getpid} is not a typedef"], out
    assert out[3:5] == [f"load: -{EINVAL}", f"| attach_btf_id {u32} points to wrong type name u32"], out
    assert f"| func 'sys_enter' doesn't have 3-th argument" in out, out
    assert f"| func 'sched_switch' arg1 has btf_id {task} type STRUCT 'task_struct'" in out, out
    loads = [line for line in out if line.startswith("load: ")]
    assert loads[2] == f"load: -{EACCES}" and not loads[3].startswith("load: -"), out
