"""KernelImage: symbols, mcount sites, jump labels, event formats, programs."""
import re
from pathlib import Path

import pytest

FORMATS = [Path(__file__).resolve().parents[1] / "data" / "linux-6.1-formats.txt",
           Path(__file__).resolve().parents[1] / "data" / "linux-6.1-syscalls-formats.txt"]
NOP5 = bytes.fromhex("0f1f440000")


def real_formats() -> dict[str, str]:
    """'system/name' -> the format text after the common fields, up to print fmt."""
    text = "".join(f.read_text() for f in FORMATS)
    out = {}
    for block in re.split(r"^=== ", text, flags=re.M)[1:]:
        header, _, body = block.partition("\n")
        if "\nformat:\n" not in "\n" + body:
            continue
        fmt = body.split("format:\n", 1)[1]
        fields = fmt.split("\n\n", 1)[1]  # skip common_* fields
        own, _, rest = fields.partition("\n\nprint fmt: ")
        out[header.strip()] = own.rstrip("\n") + "\n\nprint fmt: " + rest.split("\n", 1)[0]
    return out


def render(ev) -> str:
    """Linux's print_event_fields(): arrays print as `type name[N]`."""
    lines = []
    for f in ev.fields:
        if "[" in f.type and not f.type.startswith("__data_loc"):
            base, arr = f.type.split("[", 1)
            decl = f"{base} {f.name}[{arr}"
        else:
            decl = f"{f.type} {f.name}"
        lines.append(f"\tfield:{decl};\toffset:{f.offset};\tsize:{f.size};\tsigned:{int(f.is_signed)};")
    return "\n".join(lines) + "\n\nprint fmt: " + ev.print_fmt


def test_symbols_sorted_and_typed(image):
    addrs = [s.addr for s in image.symbols]
    assert addrs == sorted(addrs)
    assert image.lookup("_stext").addr == 0xFFFFFFFF81000000
    assert image.lookup("vfs_read").type == "T"
    assert image.lookup("jiffies").type in "DB"
    assert image.lookup("sys_call_table").type == "D"  # .rodata is data to kallsyms, as in 6.1
    assert image.lookup("does_not_exist") is None


def test_symbolize(image):
    vfs_read = image.lookup("vfs_read")
    assert image.symbolize(vfs_read.addr + 7) == (vfs_read, 7)
    assert image.symbolize(0x1000) is None


def test_kallsyms_lookup_counts_sizes_to_the_next_symbol(image):
    """As Linux's kallsyms (vfs_read+0x0/0x310 there): a function's size runs up to the next
    symbol, over the padding its ELF size leaves out, and an address in that padding is still
    the function's."""
    padded = next(s for s in image.symbols if s.name.startswith("vfs_") and (s.addr + s.size) % 16)
    following = min(s.addr for s in image.symbols if s.addr > padded.addr)
    assert following > padded.addr + padded.size
    assert image.kallsyms_lookup(padded.addr) == (padded, 0, following - padded.addr)
    assert image.kallsyms_lookup(padded.addr + padded.size) == (padded, padded.size, following - padded.addr)
    label = image.lookup("entry_SYSCALL_64_after_hwframe")   # an asm label: up to the next one
    assert image.kallsyms_lookup(label.addr)[2] == image.addr("restore_regs_and_return_to_usermode") - label.addr
    start, _ = image.text_range
    assert image.kallsyms_lookup(start - 1) is None
    # the function tracers' trampoline is named by no lookup, as Linux's dynamic copies
    tramp = image.lookup("ftrace_caller")
    assert image.kallsyms_lookup(tramp.addr) is None and image.kallsyms_lookup(tramp.addr + 0x10) is None
    assert image.kallsyms_lookup(image.addr("ftrace_regs_caller"))[0].name == "ftrace_regs_caller"


@pytest.mark.parametrize("chain", [
    ["entry_SYSCALL_64", "do_syscall_64", "__x64_sys_read", "ksys_read", "vfs_read", "rw_verify_area"],
    ["__x64_sys_write", "ksys_write", "vfs_write"],
    ["__x64_sys_open", "do_sys_open", "do_sys_openat2", "getname", "get_unused_fd_flags",
     "do_filp_open", "fd_install", "__x64_sys_openat", "__x64_sys_close", "close_fd"],
    ["__x64_sys_getuid", "__x64_sys_getpid", "__x64_sys_nanosleep", "hrtimer_nanosleep",
     "__x64_sys_epoll_wait", "do_epoll_wait", "schedule_hrtimeout_range"],
    ["schedule", "__schedule", "try_to_wake_up", "scheduler_tick", "__kmalloc", "kmalloc_trace", "kfree",
     "kernel_clone", "__x64_sys_clone", "__x64_sys_execve", "__x64_sys_exit_group",
     "do_group_exit", "do_exit", "asm_sysvec_apic_timer_interrupt"],
])
def test_linux_call_chain_names_exist(image, chain):
    missing = [n for n in chain if image.lookup(n) is None]
    assert not missing


def test_mcount_sites_are_nops_at_entry(image):
    sites = image.mcount_sites
    assert len(sites) > 100
    for name in ("vfs_read", "ksys_read", "schedule", "try_to_wake_up", "__kmalloc", "ksys_write"):
        assert sites[name] == image.lookup(name).addr
        assert image.read(sites[name], 5) == NOP5
    # the scheduler core and the trace machinery are notrace, as in Linux
    for name in ("__schedule", "trace_event_raw_event_sched_switch", "ktime_get", "do_syscall_64", "irqentry_exit"):
        assert name not in sites


def test_every_hlt_is_a_halt_resume_site(image, vmlinux):
    """The run loop knows a halted cpu by the kernel's list (HALT_RESUME_SITE): every `hlt` in
    the text must be on it, as a disassembly of each function finds them."""
    from capstone import CS_ARCH_X86, CS_MODE_64, Cs
    from elftools.elf.elffile import ELFFile

    with open(vmlinux, "rb") as f:
        text = ELFFile(f).get_section_by_name(".text")
        data, base = text.data(), text["sh_addr"]
    md = Cs(CS_ARCH_X86, CS_MODE_64)
    md.skipdata = True
    starts = sorted({base} | {s.addr for s in image.symbols if s.is_text and base < s.addr < base + len(data)})
    found = set()
    for start, end in zip(starts, [*starts[1:], base + len(data)]):
        piece = data[start - base:end - base]
        if b"\xf4" in piece:
            found.update(a + size for a, size, mnemonic, _ in md.disasm_lite(piece, start) if mnemonic == "hlt")
    assert found and image.halt_resume_sites == found


def test_jump_labels_point_at_nops_and_keys(image):
    # the host's: the events' keys, and the one that saves comms while any event is on; the
    # kernel's own (include/jump_label.h): each tracepoint's kernel_key, perf's software and
    # scheduler hooks, the PMU's user/kernel split (x86_pmu.c)
    keys = {ev.key_addr for ev in image.events} | {image.addr("trace_cmdline_key")}
    holders = [image.lookup(f"__tracepoint_{ev.name}") for ev in image.events if ev.syscall_nr is None]
    holders += [image.lookup(key) for key in ("perf_sched_events", "perf_swevent_enabled", "pmu_mode_split")]
    assert image.jump_entries
    for entry in image.jump_entries:
        assert image.read(entry.code, 5) == NOP5
        assert entry.key in keys or any(h.addr <= entry.key < h.addr + h.size for h in holders)
        assert image.symbolize(entry.target)[0] == image.symbolize(entry.code)[0]
    switch = next(e for e in image.events if e.name == "sched_switch")
    assert image.jump_sites(switch.key_addr)


def test_event_formats_match_linux(image):
    real = real_formats()
    events = {f"{e.system}/{e.name}": e for e in image.events}
    expected = [k for k in real if k.split("/")[0] in ("sched", "raw_syscalls", "kmem", "syscalls", "bpf_trace")]
    assert set(expected) <= set(events), set(expected) - set(events)
    for key in expected:
        assert render(events[key]) == real[key], key


def test_syscall_events_carry_their_number(image):
    ev = {e.name: e for e in image.events}
    assert ev["sys_enter_read"].syscall_nr == 0
    assert ev["sys_exit_getuid"].syscall_nr == 102
    assert ev["sys_enter_read"].key_addr == ev["sys_enter"].key_addr
    assert ev["sched_switch"].syscall_nr is None


def test_programs(image):
    names = {p.name for p in image.programs if not p.internal}
    assert {"cat", "getuid-loop", "sleep", "dd", "echo", "true"} <= names
    assert "init" not in names


def test_the_host_abi_comes_with_the_image(image):
    """kernel/host_abi.c's table: the layout constants the host reaches the kernel's tables
    by, in a section that is not loaded (no address of the image depends on it)."""
    from elftools.elf.elffile import ELFFile

    from tracefs_sim.trace import _entry

    abi = image.abi
    assert abi["TRACE_SLOTS"] == 64 * abi["TRACE_SLOT_WORDS"] and abi["MCOUNT_INSN_SIZE"] == 5
    assert abi["TRACE_SLOT_EXT"] == abi["TRACE_WORD_SLOTS"] - 1 == 63   # word 0's summary bit
    assert abi["sizeof(trace_ring)"] == abi["trace_ring.page_lost"] + 8 * abi["TRACE_RING_PAGES"]
    # the guest writes the pages the host's ring buffer reads
    assert abi["BUF_PAGE_HDR_SIZE"] == _entry.BUF_PAGE_HDR_SIZE
    assert abi["sizeof(buffer_data_page)"] == _entry.PAGE_SIZE
    with open(image.path, "rb") as f:
        section = ELFFile(f).get_section_by_name(".host_abi")
        assert section is not None and not section["sh_flags"] & 0x2   # SHF_ALLOC
    assert not any(s.name.startswith("host_abi_") for s in image.symbols)
    with pytest.raises(KeyError, match="NO_SUCH_CONSTANT"):
        image.abi_value("NO_SUCH_CONSTANT")


def test_a_shared_table_is_checked_against_the_host_abi(image):
    table = image.abi_table("trace_pid_control")  # sizeof(struct trace_pid_control), by default
    assert table == image.lookup("trace_pid_control") and table.size == image.abi_value("sizeof(trace_pid_control)")
    events = image.abi_value("SYNTH_EVENTS_MAX") * image.abi_value("sizeof(synth_event)")
    assert image.abi_table("synth_events", events).size == events  # an array of them: its size given
    with pytest.raises(ValueError, match="trace_pid_control layout does not match its host ABI"):
        image.abi_table("trace_pid_control", table.size + 8)
    with pytest.raises(ValueError, match="no_such_table layout"):
        image.abi_table("no_such_table", 8)


def test_eval_maps_replace_enum_names_as_trace_event_eval_update():
    """update_event_printk(): a TRACE_DEFINE_ENUM name becomes its value where it stands as a
    word of its own, not inside a string, a member name or a number's suffix."""
    from tracefs_sim.machine.image import update_event_printk
    fmt = '"HI=%d", REC->HI, HI, { HI, "HI" }, HI_X, 0xHI, (HI)'
    assert update_event_printk(fmt, "HI", 0) == '"HI=%d", REC->HI, 0, { 0, "HI" }, HI_X, 0xHI, (0)'


def test_softirq_names_enter_the_format_by_eval_map(image):
    softirq = next(e for e in image.events if e.name == "softirq_entry")
    assert '{ 0, "HI" }, { 1, "TIMER" }' in softirq.print_fmt and "_SOFTIRQ" not in softirq.print_fmt


def test_kallsyms_types_and_names_like_6_1s(image):
    """The kernel's own symbols as 6.1's /proc/kallsyms types them: .rodata is writable (its
    ro-after-init data lives there) so its symbols are data; gcc's clones keep their suffix
    where it makes 6.1's; the scheduling and lock functions have their sections."""
    types = {name: image.lookup(name).type for name in (
        "linux_banner", "linux_proc_banner", "jiffies", "jiffies_64", "vmemmap_base", "kmalloc_caches",
        "init_uts_ns", "__start_rodata", "__start___tracepoint_str", "__sched_text_start", "__lock_text_start")}
    assert types == {"linux_banner": "D", "linux_proc_banner": "D", "jiffies": "D", "jiffies_64": "D",
                     "vmemmap_base": "D", "kmalloc_caches": "D", "init_uts_ns": "D", "__start_rodata": "D",
                     "__start___tracepoint_str": "D", "__sched_text_start": "T", "__lock_text_start": "T"}
    for clone in ("__mutex_lock.constprop.0", "__mutex_unlock_slowpath.constprop.0", "__up.isra.0"):
        assert image.lookup(clone).type == "t" and clone in image.mcount_sites, clone
    start, end = image.addr("__sched_text_start"), image.addr("__sched_text_end")
    assert all(start <= image.addr(f) < end for f in ("schedule", "mutex_lock", "down", "do_nanosleep"))
    # a static function of the same name in two files (6.1 has seven find_next_bit)
    assert [s.type for s in image.symbols if s.name == "find_next_bit"] == ["t", "t"]


def test_init_functions_are_named_but_not_traceable_after_boot(image):
    """6.1's __init functions keep their kallsyms names, but their ftrace records go with the
    boot (ftrace_free_init_mem()): none of them is a site here."""
    lines = (Path(__file__).resolve().parents[1] / "data" / "linux-6.1-init-functions.txt").read_text().splitlines()
    init_functions = {line for line in lines if line and not line.startswith("#")}
    start, end = image.init_text_range
    assert start < end and image.lookup("start_kernel").addr in range(start, end)
    assert not init_functions & set(image.mcount_sites)
    # those this kernel has are in its init text, named as 6.1 names them
    ours = [name for name in init_functions if image.lookup(name) is not None and image.lookup(name).type in "Tt"]
    assert len(ours) > 30 and all(start <= image.addr(name) < end for name in ours), ours


def test_lsm_functions_are_traceable_under_6_1s_names(image):
    """The LSM layer's functions (security/security.c's hooks, commoncap.c's cap_*) that are
    ftrace sites here are 6.1's traceable ones by name; the helpers 6.1 inlines (kill_ok_by_cred,
    mmap_prot, file_free, bprm_creds_from_file, search_binary_handler) are no site."""
    lines = (Path(__file__).resolve().parents[1] / "data" / "linux-6.1-lsm-functions.txt").read_text().splitlines()
    traceable_61 = {line for line in lines if line and not line.startswith("#")}
    ours = {name for name in image.mcount_sites if name.startswith(("security_", "cap_"))}
    assert len(ours) > 60 and ours <= traceable_61, ours - traceable_61
    assert {"security_inode_create", "security_file_open", "security_capable", "cap_capable",
            "cap_mmap_addr", "security_task_kill", "security_socket_connect"} <= ours
    inlined = {"kill_ok_by_cred", "mmap_prot", "file_free", "bprm_creds_from_file", "search_binary_handler",
               "exec_binprm"}
    assert not inlined & set(image.mcount_sites)


def test_a_traceable_function_is_always_called(image, vmlinux):
    """Every call of a function with an ftrace site goes through that site: gcc inlined no copy
    of it into a caller (its DWARF has no inlined_subroutine of it) and split none (a `.part`
    clone is called past the head its callers inline).  Else the function tracer, kprobes on
    the function and the graph tracer miss those calls, where 6.1 sees them (kernel_clone from a
    fork was one)."""
    from elftools.elf.elffile import ELFFile

    sites = set(image.mcount_sites)
    assert not [name for name in sites if ".part." in name and not name.startswith("link_path_walk.part.0")]
    inlined: set[str] = set()
    with open(vmlinux, "rb") as f:
        for cu in ELFFile(f).get_dwarf_info().iter_CUs():
            for die in cu.iter_DIEs():
                if die.tag != "DW_TAG_inlined_subroutine":
                    continue
                origin = die.get_DIE_from_attribute("DW_AT_abstract_origin")
                while "DW_AT_name" not in origin.attributes and "DW_AT_abstract_origin" in origin.attributes:
                    origin = origin.get_DIE_from_attribute("DW_AT_abstract_origin")
                name = origin.attributes.get("DW_AT_name")
                if name is not None and name.value.decode() in sites:
                    inlined.add(name.value.decode())
    assert not inlined, sorted(inlined)


def test_gfp_flag_names_are_the_kernels_table(image):
    """mm/debug.c's gfpflag_names, as the host reads it for a synthetic event's gfp_t field
    (print_synth_event(): the value, then trace_print_flags_seq() of it in parentheses)."""
    from types import SimpleNamespace

    from tracefs_sim.trace.core import print_flags_table
    from tracefs_sim.trace.print_fmt import print_flags_seq

    table = print_flags_table(SimpleNamespace(image=image, read_memory=image.read), "gfpflag_names")
    assert table[0][1] == "GFP_TRANSHUGE" and table[-1] == (0x800000, "__GFP_ZEROTAGS") and len(table) == 36
    assert print_flags_seq(0x400cc0, table) == "GFP_KERNEL_ACCOUNT"
    assert print_flags_seq(0xcc0 | 0x100, table) == "GFP_KERNEL|__GFP_ZERO"
    assert print_flags_seq(0x1000000, table) == "0x1000000" and print_flags_seq(0, table) == ""


def test_a_file_that_is_not_a_64_bit_elf_is_a_value_error(tmp_path):
    from tracefs_sim.machine import KernelImage
    path = tmp_path / "vmlinux"
    path.write_bytes(b"\x7fELF\x01" + bytes(100))   # a 32-bit one
    with pytest.raises(ValueError, match="not a 64-bit ELF file"):
        KernelImage(str(path))
