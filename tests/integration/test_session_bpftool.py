"""Debian's bpftool (7.1, libbpf 1.1), unmodified, in a session: what it lists of the emulated
kernel's BPF objects (BPF_*_GET_NEXT_ID, BPF_*_GET_FD_BY_ID, BPF_OBJ_GET_INFO_BY_FD), with what
bpftrace loaded there; the real 6.1 prints the same lines for the same program (checked with
real-tracefs, bpftrace and bpftool chrooted into the host's tree)."""

import datetime
import json
import os
import re
import shutil

import pytest
from simtest import NOTIFY_ATTACHED, SESSION_TIMEOUT, tracefs_sim, until_attached

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("bpftrace") is None or shutil.which("bpftool") is None,
                       reason="bpftrace or bpftool is not installed"),
]


def while_bpftrace(tmp_path, program: str, commands: str) -> str:
    """COMMANDS (their stdout) while bpftrace runs PROGRAM in a session."""
    log = tmp_path / "bt.log"
    script = (f"{NOTIFY_ATTACHED}=1 bpftrace -e '{program}' >{log} 2>&1 & t=$!; {until_attached(log)}"
              f"{commands}; kill -INT $t; wait $t; echo bpftrace exited $?")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0 and "bpftrace exited 0" in result.stdout, \
        result.stdout + result.stderr + log.read_text()
    return result.stdout


def test_links_of_fentry_and_fexit_programs(tmp_path):
    """`bpftool link show` walks the kernel's links by id: bpftrace's kfunc/kretfunc programs'
    tracing links (BPF_LINK_TYPE_TRACING, their attach types), and `show id N` opens one by id"""
    out = while_bpftrace(tmp_path, "kfunc:vfs_read { @x = count(); } kretfunc:vfs_write { @y = count(); }",
                         "bpftool link show; echo ==; bpftool -j link show; echo; echo ==; bpftool link show id 2; "
                         "echo ==; bpftool link show id 99")
    plain, as_json, by_id, missing = out.split("==\n")[:4]
    # the real 6.1's (bpftrace attaches kretfunc first)
    assert re.fullmatch(r"1: tracing  prog (\d+)  \n\tprog_type tracing  attach_type trace_fexit  \n"
                        r"2: tracing  prog (\d+)  \n\tprog_type tracing  attach_type trace_fentry  \n", plain), out
    links = json.loads(as_json)
    assert [(link["id"], link["type"], link["attach_type"]) for link in links] == \
        [(1, "tracing", "trace_fexit"), (2, "tracing", "trace_fentry")], out
    assert by_id.startswith("2: tracing  prog ") and "trace_fentry" in by_id, out
    assert "bpftrace exited" in missing and "tracing" not in missing, out


def test_programs_and_maps_with_their_load_time(tmp_path):
    """`bpftool prog show`'s loaded_at: the load time on the boot clock (6.1's
    ktime_get_boottime_ns()), which bpftool turns into a date with the host's REALTIME - BOOTTIME;
    `bpftool map dump` reads the map bpftrace counts into"""
    out = while_bpftrace(tmp_path, "kprobe:vfs_read { @[comm] = count(); }",
                         "date -u +%s; bpftool -j prog show; echo; bpftool map show; bpftool map dump id 1")
    lines = out.splitlines()
    now = int(lines[0])
    progs = json.loads(lines[1])
    assert [p["type"] for p in progs] == ["kprobe"], out
    assert abs(progs[0]["loaded_at"] - now) < 120, (datetime.datetime.fromtimestamp(progs[0]["loaded_at"]), out)
    assert progs[0]["map_ids"] == [1] and progs[0]["jited"], out
    assert re.search(r"^1: percpu_hash  .*flags 0x0\n\tkey 16B  value 8B  max_entries 4096$", out, re.M), out
    # a key is a comm, 16 bytes; its value one count per cpu
    assert re.search(r"^key:\n([0-9a-f]{2} ){7}[0-9a-f]{2}  ([0-9a-f]{2} ){7}[0-9a-f]{2}\n"
                     r"value \(CPU 00\): ", out, re.M), out


# `bpftool prog show; bpftool map show` on the real 6.1 (real-tracefs, the host's tree chrooted)
# while this bpftrace program ran, its load dates cut out: bpftrace's feature probes took
# program ids 1-4, and libbpf names programs and maps once its socket filter probe loads
REAL_61_LISTING = """\
5: tracing  name vfs_write  tag 03b3f5f931493a53  gpl
\tloaded_at DATE  uid 0
\txlated 176B  jited 104B  map_ids 2
6: kprobe  name vfs_open  tag 03b3f5f931493a53  gpl
\tloaded_at DATE  uid 0
\txlated 176B  jited 104B  map_ids 3
7: tracing  name vfs_read  tag 03b3f5f931493a53  gpl
\tloaded_at DATE  uid 0
\txlated 176B  jited 104B  map_ids 1
1: percpu_array  name AT_x  flags 0x0
\tkey 4B  value 8B  max_entries 1
2: percpu_array  name AT_y  flags 0x0
\tkey 4B  value 8B  max_entries 1
3: percpu_array  name AT_z  flags 0x0
\tkey 4B  value 8B  max_entries 1
4: perf_event_array  name printf  flags 0x0
\tkey 4B  value 4B  max_entries 2
"""


def test_the_same_listing_as_the_real_6_1(tmp_path):
    """The same bpftrace program gives the same program and map ids, types, names, tags, sizes
    and map ids as on the real 6.1"""
    out = while_bpftrace(tmp_path, "kfunc:vfs_read { @x = count(); } kretfunc:vfs_write { @y = count(); } "
                         "kprobe:vfs_open { @z = count(); }", "bpftool prog show; bpftool map show")
    listing = re.sub(r"loaded_at \S+", "loaded_at DATE", out.split("bpftrace exited")[0])
    assert listing == REAL_61_LISTING, listing


def _file_offset(path: str, symbol: str) -> int:
    """The file offset of SYMBOL's code in the ELF file at PATH (what a uprobe of it names)."""
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as f:
        elf = ELFFile(f)
        table = elf.get_section_by_name(".dynsym") or elf.get_section_by_name(".symtab")
        value = next(s["st_value"] for s in table.iter_symbols() if s.name == symbol)
        segment = next(s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"
                       and s["p_vaddr"] <= value < s["p_vaddr"] + s["p_memsz"])
        return value - segment["p_vaddr"] + segment["p_offset"]


def test_perf_show_lists_what_each_program_is_attached_to(tmp_path):
    """`bpftool perf show` (BPF_TASK_FD_QUERY of every fd of every process, as 6.1's
    bpf_task_fd_query(): ENOTSUPP for a file that is no tracing perf event or raw tracepoint
    link, which bpftool's support check expects of "/"): bpftrace's perf events with their
    programs, a kprobe's function and offset, a kretprobe's, a syscalls: and a sched:
    tracepoint by name, a uprobe's file and file offset"""
    program = ("kprobe:vfs_read { @a = count(); } kretprobe:vfs_write { @b = count(); } "
               "tracepoint:syscalls:sys_enter_getppid { @c = count(); } tracepoint:sched:sched_switch { @d = count(); } "
               "uprobe:/bin/bash:readline { @e = count(); }")
    out = while_bpftrace(tmp_path, program, "echo $t; echo ==; bpftool -j perf show; echo ==; bpftool -j prog show; echo ==")
    parts = out.split("==\n")
    pid, shown, progs = int(parts[0]), json.loads(parts[1]), json.loads(parts[2])
    entries = sorted((e["fd_type"], e.get("func") or e.get("tracepoint") or e.get("filename"), e.get("offset"))
                     for e in shown)
    assert entries == sorted([("kprobe", "vfs_read", 0), ("kretprobe", "vfs_write", 0),
                              ("tracepoint", "sys_enter_getppid", None), ("tracepoint", "sched_switch", None),
                              ("uprobe", "/bin/bash", _file_offset("/bin/bash", "readline"))]), out
    assert {e["pid"] for e in shown} == {pid}, out
    assert sorted(e["prog_id"] for e in shown) == sorted(p["id"] for p in progs), out
