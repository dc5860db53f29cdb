"""The kernel ELF as data: symbols, mcount sites, tracepoint metadata, programs.

Everything here is read statically, nothing needs a running machine: the ELF's headers by
struct (at every start, where importing pyelftools and its parsing cost more than the reads),
its DWARF with pyelftools.
"""
from __future__ import annotations

import bisect
import mmap
import struct
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from . import kallsyms as kallsyms_module, start_cache
from .kallsyms import Kallsyms, read_table

# ELF symbol table values (elf.h)
STB_LOCAL, STB_WEAK = 0, 2
STT_SECTION, STT_FILE = 3, 4
SHN_LORESERVE = 0xFF00

if TYPE_CHECKING:
    from .contract import EventName

_SHF_ALLOC = 0x2
_SHT_NOBITS = 8
_PT_LOAD = 1
# Elf64_Ehdr's fields from e_phoff on; Elf64_Shdr up to sh_link; Elf64_Phdr up to p_memsz
_EHDR = struct.Struct("<QQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQI")
_PHDR = struct.Struct("<IIQQQQQ")
# struct host_abi_entry of kernel/host_abi.c: a NUL-padded name, then the value
_HOST_ABI_ENTRY = struct.Struct("<56sQ")

KERNEL_MAP = 0xFFFFFFFF80000000  # __START_KERNEL_map: virtual = physical + this
PAGE_OFFSET = 0xFFFF888000000000  # direct map of all RAM


@dataclass(frozen=True)
class Symbol:
    name: str
    addr: int
    size: int
    type: str  # kallsyms type letter

    @property
    def is_text(self) -> bool:
        return self.type in "tTW"


@dataclass(frozen=True)
class FieldDesc:
    type: str  # Linux's internal form: "char[16]" for arrays, "__data_loc char[]" for strings
    name: str
    offset: int
    size: int
    is_signed: bool


@dataclass(frozen=True)
class EventDesc:
    system: str
    name: str
    fields: tuple[FieldDesc, ...]
    print_fmt: str
    key_addr: int
    syscall_nr: int | None = None  # syscalls:* events ride on raw_syscalls' key, filtered by nr
    # enum constants the print fmt names that its printer resolves (TRACE_PRINT_ENUM)
    print_names: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class JumpEntry:
    code: int  # address of the 5-byte nop
    target: int  # where the jmp goes when the key is enabled
    key: int  # address of the static key


@dataclass(frozen=True)
class Program:
    name: str
    internal: bool  # started by the kernel itself (init), not on demand


@dataclass(frozen=True)
class Segment:
    vaddr: int
    data: bytes
    memsz: int


@dataclass(frozen=True)
class _Section:
    """An ELF section header (Elf64_Shdr), as much of it as the image uses."""
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int


@dataclass(frozen=True)
class _Placed:
    """An allocated section: where it lives in the guest and where its bytes are in the file
    (a list of them, searched by read(): the image is read by address in many small reads)."""
    start: int
    end: int
    offset: int
    nobits: bool  # .bss-like: zeros in the guest, nothing in the file


def update_event_printk(print_fmt: str, eval_string: str, value: int) -> str:
    """update_event_printk() of kernel/trace/trace_events.c, as trace_event_eval_update() runs
    it at boot for each TRACE_DEFINE_ENUM of the event's system: every eval_string outside
    string literals that stands as a word of its own (not a number's tail, not a member after
    `.` or `->`) becomes its value in decimal."""
    out = []
    i, n, quote = 0, len(print_fmt), False
    while i < n:
        c = print_fmt[i]
        if c == "\\":
            out.append(print_fmt[i:i + 2])
            i += 2
            continue
        if c == '"':
            quote = not quote
        if quote or c == '"' or not (c.isalnum() or c == "_"):
            out.append(c)
            i += 1
            continue
        if c.isdigit():  # a number and its suffix, then the delimiter after it, as they are
            j = i + 1
            while j < n and print_fmt[j].isalnum():
                j += 1
            out.append(print_fmt[i:j + 1])
            i = j + 1
            continue
        j = i
        while j < n and (print_fmt[j].isalnum() or print_fmt[j] == "_"):
            j += 1
        if print_fmt[i:j] == eval_string:  # the value, then the character after it as it is
            out.append(str(value) + print_fmt[j:j + 1])
            i = j + 1
            continue
        # a name, and the members that follow it, then the delimiter after them, as they are
        while j < n and (print_fmt[j] == "." or print_fmt.startswith("->", j)):
            j += 1 if print_fmt[j] == "." else 2
            while j < n and (print_fmt[j].isalnum() or print_fmt[j] == "_"):
                j += 1
        out.append(print_fmt[i:j + 1])
        i = j + 1
    return "".join(out)


# What every start computes from the image the same way (attributes and cached properties of
# KernelImage), kept in its start_cache file after the first (debug_comp_dir: pyelftools reads all
# of the DWARF's sections for that one attribute, ~25 ms)
_START_CACHED = ("symbols", "kallsyms", "_event_files", "events", "mcount_sites", "debug_comp_dir")


class KernelImage:
    def btf(self) -> bytes | None:
        """The kernel's BTF (its .BTF section, pahole's from its DWARF), which Linux shows as
        /sys/kernel/btf/vmlinux; None for an image without it."""
        return self._section(".BTF")[1] or None

    def notes(self) -> bytes | None:
        """The kernel's ELF notes (its .notes section: the linker's GNU build-id), which Linux
        shows as /sys/kernel/notes; None for an image without them."""
        return self._section(".notes")[1] or None

    def release(self) -> str:
        """UTS_RELEASE (what `uname -r` says), from the kernel's linux_banner."""
        return self.cstring(self.addr("linux_banner")).split()[2]

    @cached_property
    def debug_comp_dir(self) -> str | None:
        """The directory the DWARF names its sources under (DW_AT_comp_dir of the first unit);
        None for an image without DWARF."""
        from elftools.elf.elffile import ELFFile

        elf = ELFFile(self._raw)  # type: ignore[arg-type]  # (an mmap reads and seeks as a file does)
        if not elf.has_dwarf_info():
            return None
        unit = next(elf.get_dwarf_info().iter_CUs(), None)
        if unit is None:
            return None
        comp_dir = unit.get_top_DIE().attributes.get("DW_AT_comp_dir")
        return None if comp_dir is None else comp_dir.value.decode()

    def __init__(self, path: str):
        self.path = path
        # Mapped, not read: most of the file (its DWARF, its BTF) is not read at all at start
        with open(path, "rb") as f:
            self._raw = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if self._raw[:5] != b"\x7fELF\x02":
            raise ValueError(f"{path}: not a 64-bit ELF file")
        phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, shstrndx = _EHDR.unpack_from(self._raw, 32)
        headers = [_SHDR.unpack_from(self._raw, shoff + i * shentsize) for i in range(shnum)]
        names_at = headers[shstrndx][4]
        self._sections = [_Section(self._raw[names_at + name:self._raw.find(b"\0", names_at + name)].decode(), *rest)
                          for name, *rest in headers]
        self._section_by_name = {sec.name: sec for sec in self._sections}
        self._placed = [
            _Placed(sec.addr, sec.addr + sec.size, sec.offset, sec.type == _SHT_NOBITS)
            for sec in self._sections
            if sec.addr
        ]
        # Keyed by the notes (the build-id hashes what the linker wrote; none: no cache) and
        # __mcount_loc (scripts/sorttable.py sorts it after the link)
        notes, cache_path = self.notes(), path + start_cache.IMAGE_SUFFIX
        made_from = None if notes is None else start_cache.key(
            (notes, self._section("__mcount_loc")[1]), (__file__, kallsyms_module.__file__))
        cached = None if made_from is None else start_cache.load(cache_path, made_from)
        if cached is not None:
            self.__dict__.update(cached)  # the symbols, and the cached properties' values
        else:
            self.symbols: list[Symbol] = self._read_symbols()
        self._by_name = {s.name: s for s in self.symbols}
        # Aliases (SYSCALL_DEFINE0's __x64_sys_X = __do_sys_X) in kallsyms' order: symbolize()
        # names an address as a kallsyms lookup does.
        self._text_syms = [s for s in self.kallsyms.table if s.is_text]
        self._text_addrs = [s.addr for s in self._text_syms]
        self.segments = [
            Segment(vaddr, self._raw[offset:offset + filesz], memsz)
            for p_type, _, offset, vaddr, _, filesz, memsz in (
                _PHDR.unpack_from(self._raw, phoff + i * phentsize) for i in range(phnum))
            if p_type == _PT_LOAD
        ]
        if cached is None and made_from is not None:
            start_cache.store(cache_path, made_from, {name: getattr(self, name) for name in _START_CACHED})

    # ---- memory of the image (static contents) ----
    def _placed_at(self, addr: int, size: int) -> _Placed:
        for sec in self._placed:
            if sec.start <= addr and addr + size <= sec.end:
                return sec
        raise ValueError(f"address {addr:#x} not in the image")

    def read(self, addr: int, size: int) -> bytes:
        sec = self._placed_at(addr, size)
        if sec.nobits:
            return bytes(size)
        off = sec.offset + addr - sec.start
        return self._raw[off : off + size]

    def u64(self, addr: int) -> int:
        value: int = struct.unpack("<Q", self.read(addr, 8))[0]
        return value

    def cstring(self, addr: int) -> str:
        sec = self._placed_at(addr, 1)
        if sec.nobits:
            return ""
        off = sec.offset + addr - sec.start
        end = self._raw.find(b"\0", off, sec.offset + sec.end - sec.start)
        if end < 0:
            raise ValueError(f"string at {addr:#x} is not terminated within its section")
        return self._raw[off:end].decode()

    # ---- symbols ----
    def _read_symbols(self) -> list[Symbol]:
        # Elf64_Sym rows unpacked here: pyelftools takes ~50 us a symbol, and the kernel has
        # thousands (each syscall's entry points and event metadata).
        symtab = self._section_by_name.get(".symtab")
        assert symtab is not None, "vmlinux has no symbol table"
        names = self._section_data(self._sections[symtab.link])
        letters = [self._section_letter(sec) for sec in self._sections]
        loaded = [bool(sec.flags & _SHF_ALLOC) for sec in self._sections]
        out = []
        for name, info, _, shndx, value, size in struct.iter_unpack("<IBBHQQ", self._section_data(symtab)):
            if not name or info & 0xF in (STT_SECTION, STT_FILE) or not 0 < shndx < SHN_LORESERVE:
                continue  # unnamed, a section or file, absolute or undefined
            if not loaded[shndx]:
                continue  # not loaded (the host ABI table): no kernel address
            out.append(Symbol(names[name:names.index(b"\0", name)].decode(), value, size,
                              self._type_letter(letters[shndx], info >> 4)))
        out.sort(key=lambda s: (s.addr, s.name))
        return out

    @staticmethod
    def _section_letter(section: _Section) -> str:
        flags = section.flags
        if flags & 0x4:  # SHF_EXECINSTR
            return "t"
        if section.type == _SHT_NOBITS:
            return "b"
        return "d" if flags & 0x1 else "r"  # SHF_WRITE

    @staticmethod
    def _type_letter(letter: str, bind: int) -> str:
        """nm's letter for a symbol of a section of that letter: upper case when global, W/V
        when weak."""
        if bind == STB_WEAK:
            return "W" if letter == "t" else "V"
        return letter if bind == STB_LOCAL else letter.upper()

    def lookup(self, name: str) -> Symbol | None:
        return self._by_name.get(name)

    def symbol(self, name: str) -> Symbol:
        sym = self._by_name.get(name)
        if sym is None:
            raise KeyError(f"kernel symbol {name} missing")
        return sym

    def addr(self, name: str) -> int:
        return self.symbol(name).addr

    @cached_property
    def kallsyms(self) -> Kallsyms[Symbol]:
        """The kernel's kallsyms table (what /proc/kallsyms lists and the kernel's lookups use),
        read from the image (kernel/kallsyms.c's), each entry the image's symbol."""
        by_place = {(s.addr, s.name): s for s in self.symbols}
        table = [by_place[addr, name] for addr, _, name in read_table(self.read, self.addr)]
        # ftrace_caller, linked apart (vmlinux.lds), stands for Linux's dynamic trampolines:
        # memory outside the image, which no lookup names
        start, end = self.lookup("__ftrace_tramp_start"), self.lookup("__ftrace_tramp_end")
        unnamed = (start.addr, end.addr) if start is not None and end is not None else None
        return Kallsyms(table, self.addr("_stext"), self.addr("_end"), unnamed)

    def kallsyms_lookup(self, addr: int) -> tuple[Symbol, int, int] | None:
        """kallsyms_lookup_size_offset(): (symbol, offset, size) as Linux reports them -- the
        size runs to the next symbol, data symbols count -- for the kernel's own views of an
        address (trace output, kprobes).  symbolize() is the compiler's view (ELF sizes, text
        only), for decoding functions."""
        return self.kallsyms.lookup(addr)

    def symbolize(self, addr: int) -> tuple[Symbol, int] | None:
        i = bisect.bisect_right(self._text_addrs, addr) - 1
        if i < 0:
            return None
        sym = self._text_syms[bisect.bisect_left(self._text_addrs, self._text_addrs[i])]
        if sym.size:
            end = sym.addr + sym.size
        else:  # asm labels without .size extend to the next symbol
            end = self._text_addrs[i + 1] if i + 1 < len(self._text_addrs) else self.text_range[1]
        return (sym, addr - sym.addr) if addr < end else None

    def _section(self, name: str) -> tuple[int, bytes]:
        sec = self._section_by_name.get(name)
        if sec is None:
            return 0, b""
        return sec.addr, self._section_data(sec)

    def _section_data(self, sec: _Section) -> bytes:
        return b"" if sec.type == _SHT_NOBITS else self._raw[sec.offset:sec.offset + sec.size]

    # ---- the host ABI: the layout constants of the tables the host shares with the kernel ----
    @cached_property
    def abi(self) -> dict[str, int]:
        """name -> value of every constant kernel/host_abi.c lists: a header's #define by its
        name (TRACE_SLOTS), sizeof(struct x) as "sizeof(x)", offsetof(struct x, f) as "x.f".
        Read from the image's .host_abi section (not loaded), so the host uses the values
        this very build has, never a hand-kept mirror of the headers."""
        _, data = self._section(".host_abi")
        out = {}
        for raw, value in _HOST_ABI_ENTRY.iter_unpack(data):
            out[raw.split(b"\0", 1)[0].decode()] = value
        return out

    def abi_value(self, name: str) -> int:
        """One constant of the host ABI; KeyError naming it for a kernel built without it."""
        try:
            return self.abi[name]
        except KeyError:
            raise KeyError(f"kernel image's host ABI has no {name} (kernel/host_abi.c)") from None

    def abi_table(self, name: str, size: int | None = None) -> Symbol:
        """The kernel's table ``name`` (a structure it shares with the host), checked against
        the host ABI: it exists and takes ``size`` bytes, by default sizeof(struct name) as
        kernel/host_abi.c lists it; ValueError naming it otherwise."""
        sym = self._by_name.get(name)
        if sym is None or sym.size != (self.abi_value(f"sizeof({name})") if size is None else size):
            raise ValueError(f"kernel image's {name} layout does not match its host ABI")
        return sym

    # ---- ftrace: the 5-byte nops recorded by -mrecord-mcount ----
    @cached_property
    def mcount_sites(self) -> dict[str, int]:
        """The traceable functions' sites, as ftrace keeps them after the boot: those of the
        init text are gone (ftrace_free_init_mem())."""
        _, data = self._section("__mcount_loc")
        init_start, init_end = self.init_text_range
        sites = {}
        for (addr,) in struct.iter_unpack("<Q", data):
            hit = self.symbolize(addr)
            if hit is not None and not init_start <= addr < init_end:
                sites[hit[0].name] = addr
        return sites

    # ---- static keys and tracepoints ----
    @cached_property
    def jump_entries(self) -> list[JumpEntry]:
        _, data = self._section("__jump_table")
        return [JumpEntry(*t) for t in struct.iter_unpack("<QQQ", data)]

    def jump_sites(self, key_addr: int) -> list[int]:
        return [e.code for e in self.jump_entries if e.key == key_addr]

    @cached_property
    def events(self) -> list[EventDesc]:
        return sorted((e for e, _ in self._event_files.values()), key=lambda e: (e.system, e.name))

    @cached_property
    def _eval_maps(self) -> list[tuple[str, str, int, bool]]:
        """(system, name, value, in_format) of each struct trace_eval_map."""
        _, data = self._section("_ftrace_eval_map")
        return [(self.cstring(system), self.cstring(name), value, bool(in_format))
                for system, name, value, in_format in struct.iter_unpack("<QQQQ", data)]

    @cached_property
    def _event_files(self) -> dict[tuple[str, str], tuple[EventDesc, int]]:
        # struct trace_event_meta { system, name, print_fmt, key, fields, nr_fields, syscall_nr, file }
        _, data = self._section("_ftrace_events")
        # The ~700 syscalls:* events share their strings (the linker merges equal literals)
        # and the exit events one field table: each is read once.
        strings: dict[int, str] = {}
        field_tables: dict[tuple[int, int], tuple[FieldDesc, ...]] = {}

        def string(addr: int) -> str:
            text = strings.get(addr)
            if text is None:
                text = strings[addr] = self.cstring(addr)
            return text

        def field_table(addr: int, count: int) -> tuple[FieldDesc, ...]:
            table = field_tables.get((addr, count))
            if table is None:
                rows = struct.iter_unpack("<QQIIII", self.read(addr, 32 * count)) if count else ()
                table = field_tables[(addr, count)] = tuple(
                    FieldDesc(string(ftype), string(fname), off, size, bool(signed))
                    for ftype, fname, off, size, signed, _ in rows)
            return table

        events = {}
        for system, name, fmt, key, fields, nr, scnr, file in struct.iter_unpack("<QQQQQQqQ", data):
            system_name = string(system)
            print_fmt = string(fmt)
            names = []
            for map_system, eval_string, value, in_format in self._eval_maps:
                if map_system != system_name:
                    continue
                if in_format:  # printed as a long, as eval_replace() does
                    if eval_string in print_fmt:  # (most are not: the scan is the start-up's cost)
                        print_fmt = update_event_printk(print_fmt, eval_string, value - (value >> 63 << 64))
                else:
                    names.append((eval_string, value))
            desc = EventDesc(system_name, string(name), field_table(fields, nr), print_fmt, key,
                             None if scnr < 0 else scnr, tuple(names))
            events[(desc.system, desc.name)] = (desc, file)
        return events

    @cached_property
    def tracepoint_strings(self) -> dict[int, str]:
        """The constant strings events record by address (tracepoint_string(), the
        __tracepoint_str section's pointers): address -> text, in the section's order."""
        start, stop = self.lookup("__start___tracepoint_str"), self.lookup("__stop___tracepoint_str")
        if start is None or stop is None:
            return {}
        pointers = struct.unpack(f"<{(stop.addr - start.addr) // 8}Q", self.read(start.addr, stop.addr - start.addr))
        return {addr: self.cstring(addr) for addr in pointers}

    def event_desc(self, system: str, name: str) -> EventDesc:
        """A tracepoint of this kernel (KeyError: none of that name)."""
        return self._event_files[(system, name)][0]

    def event_file(self, event: EventName) -> int:
        """Address of the event's struct trace_event_file (enable bits, id) in the guest."""
        return self._event_files[(event.system, event.name)][1]

    # ---- embedded user programs ----
    @cached_property
    def programs(self) -> list[Program]:
        table = self.addr("user_programs")
        count = self.u64(self.addr("nr_user_programs"))
        out = []
        entry = struct.Struct("<4Q")  # struct user_program in kernel_model/include/binfmts.h
        for i in range(count):
            name, _img, _size, flags = entry.unpack(
                self.read(table + entry.size * i, entry.size))
            out.append(Program(self.cstring(name), bool(flags & 1)))
        return out

    # ---- code facts the run loop needs ----
    @cached_property
    def halt_resume_sites(self) -> frozenset[int]:
        """Addresses right after each `hlt`: where a halted cpu stopped. The kernel lists them
        (HALT_RESUME_SITE in its hostif.h) in its __halt_resume_sites section."""
        start, stop = self.addr("__start___halt_resume_sites"), self.addr("__stop___halt_resume_sites")
        return frozenset(struct.unpack(f"<{(stop - start) // 8}Q", self.read(start, stop - start)))

    @cached_property
    def text_range(self) -> tuple[int, int]:
        return self.addr("_stext"), self.addr("_etext")

    @cached_property
    def init_text_range(self) -> tuple[int, int]:
        """The __init functions' text (empty for an image without one)."""
        start, end = self.lookup("_sinittext"), self.lookup("_einittext")
        return (start.addr, end.addr) if start is not None and end is not None else (0, 0)
