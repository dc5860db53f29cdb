"""BPF_BTF_LOAD cases run as `bpftest ARGS...` both in the emulated kernel and on the real Linux 6.1:
`python3 tests/machine/bpf_btf_load_cases.py` captures what 6.1 answers (errnos, logs) into
tests/data/bpf/btf_load_reference.txt through ../shared/tools/real-tracefs.  The blobs are built
here type by type (valid ones and one fault each), and from clang's .BTF of
tests/data/bpf/btf_prog.c (`clang -g -O2 -target bpf`: tests/data/bpf/btf_prog.btf as clang wrote it,
btf_prog.libbpf.btf with the DATASECs libbpf fills in; `--clang` makes them again)."""
from __future__ import annotations

import struct
import sys
from pathlib import Path

from bpf_cases import parse  # noqa: F401 (for the test)

(UNKN, INT, PTR, ARRAY, STRUCT, UNION, ENUM, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FUNC_PROTO, VAR,
 DATASEC, FLOAT, DECL_TAG, TYPE_TAG, ENUM64) = range(20)
SIGNED, CHAR, BOOL = 1, 2, 4
BTF_LOAD = 18
DATA = Path(__file__).resolve().parents[1] / "data/bpf"
CLANG_BTF = DATA / "btf_prog.btf"  # the .BTF section as clang wrote it
LIBBPF_BTF = DATA / "btf_prog.libbpf.btf"  # as libbpf loads it: each DATASEC's size and offsets set


class Strings:
    """a string section: "" first, each name once; .off(name) its offset"""

    def __init__(self, *names: str) -> None:
        self.data = b"\0"
        self.offs: dict[str, int] = {"": 0}
        for n in names:
            self.off(n)

    def off(self, name: str) -> int:
        if name not in self.offs:
            self.offs[name] = len(self.data)
            self.data += name.encode() + b"\0"
        return self.offs[name]


def t(name_off: int, kind: int, vlen: int = 0, kflag: int = 0, size_type: int = 0, info: int | None = None) -> bytes:
    """struct btf_type"""
    if info is None:
        info = kflag << 31 | kind << 24 | vlen
    return struct.pack("<III", name_off, info, size_type)


def u32s(*v: int) -> bytes:
    return struct.pack(f"<{len(v)}I", *[x & 0xffffffff for x in v])


def int_t(name_off: int, size: int = 4, bits: int = 32, enc: int = SIGNED, offset: int = 0, **kw) -> bytes:
    return t(name_off, INT, size_type=size, **kw) + u32s(enc << 24 | offset << 16 | bits)


def blob(types: bytes, strings: bytes, *, magic: int = 0xeb9f, version: int = 1, flags: int = 0, hdr_len: int = 24,
         type_off: int = 0, type_len: int | None = None, str_off: int | None = None, str_len: int | None = None,
         extra_hdr: bytes = b"", tail: bytes = b"", strings_first: bool = False) -> str:
    """a BTF blob in hex: header, types, strings (or strings, types)"""
    type_len = len(types) if type_len is None else type_len
    str_len = len(strings) if str_len is None else str_len
    if str_off is None:
        str_off = 0 if strings_first else type_off + len(types)
    if strings_first and type_off == 0:
        type_off = len(strings)
    hdr = struct.pack("<HBBIIIII", magic, version, flags, hdr_len, type_off, type_len, str_off, str_len) + extra_hdr
    body = strings + types if strings_first else types + strings
    return (hdr + body + tail).hex()


S = Strings("int", "char", "s", "a", "b", "u", "f", "main", "x", "v", ".data", "E", "A", "B", "float", "T", "tag",
            "long", "bad-name", "p")
INT_T = int_t(S.off("int"))  # [1] int
CHAR_T = int_t(S.off("char"), 1, 8, 0)


def one(*types: bytes, strings: Strings = S, **kw) -> str:
    return blob(b"".join(types), strings.data, **kw)


def member(name: str, type_id: int, offset: int) -> bytes:
    return u32s(S.off(name), type_id, offset)


def load(hexblob: str, level: int = 1, size: int | None = None) -> list[str]:
    return ["btf", hexblob, str(level)] + ([str(size)] if size is not None else [])


def attr(btf: int = 0, log_buf: int = 0, btf_size: int = 0, log_size: int = 0, log_level: int = 0,
         tail: bytes = b"") -> str:
    return (struct.pack("<QQIII", btf, log_buf, btf_size, log_size, log_level) + tail).hex()


GOOD = one(INT_T, t(0, PTR, size_type=1), t(0, ARRAY, size_type=0) + u32s(1, 1, 4),
           t(S.off("s"), STRUCT, vlen=2, size_type=16) + member("a", 1, 0) + member("p", 2, 64),
           t(S.off("u"), UNION, vlen=2, size_type=16) + member("a", 1, 0) + member("b", 3, 0),
           t(S.off("E"), ENUM, vlen=2, size_type=4) + u32s(S.off("A"), 0, S.off("B"), 0xffffffff),
           t(S.off("f"), FWD, kflag=1), t(S.off("T"), TYPEDEF, size_type=4), t(0, VOLATILE, size_type=1),
           t(0, CONST, size_type=9), t(0, RESTRICT, size_type=2),
           t(0, FUNC_PROTO, vlen=2, size_type=1) + u32s(S.off("a"), 1, S.off("b"), 2),  # [12]
           t(S.off("main"), FUNC, vlen=1, size_type=12),
           t(S.off("x"), VAR, size_type=1) + u32s(1),  # [14]
           t(S.off(".data"), DATASEC, vlen=1, size_type=8) + u32s(14, 0, 4),
           t(S.off("float"), FLOAT, size_type=8),
           t(S.off("tag"), DECL_TAG, size_type=13) + u32s(0xffffffff),
           t(S.off("tag"), TYPE_TAG, size_type=1),
           t(S.off("E"), ENUM64, vlen=2, kflag=1, size_type=8) + u32s(S.off("A"), 0xffffffff, 0xffffffff,
                                                                        S.off("B"), 5, 1))


def chain(n: int, kind: int = CONST) -> bytes:
    """[1] int, then n modifiers each of the one before"""
    return INT_T + b"".join(t(0, kind, size_type=i + 1) for i in range(n))


def map_attr(map_type: int, key_size: int, value_size: int, max_entries: int, btf_fd: int, key_id: int,
             value_id: int) -> str:
    """BPF_MAP_CREATE's attr with a BTF"""
    return struct.pack("<7I16s5IQ", map_type, key_size, value_size, max_entries, 0, 0, 0, b"", 0, btf_fd, key_id,
                       value_id, 0, 0).hex()


HASH, ARRAY_MAP, PERCPU_ARRAY, PERF_EVENT_ARRAY, STACK_TRACE, LRU_HASH, RINGBUF = 1, 2, 6, 4, 7, 9, 27


def map_cases() -> dict[str, list[str]]:
    """maps with GOOD's types (fd 3): [1] int, [4] struct s (16 bytes), [6] enum (4), [7] fwd,
    [8] typedef of s, [9] volatile int, [12] func proto, [15] DATASEC .data (8 bytes)"""
    info = ["mbtf", "4"]
    # name: (the map: type, key size, value size, max entries, btf fd, key type, value type; what
    # follows its creation)
    table: dict[str, tuple[tuple[int, ...], list[str]]] = {
        "btf_map_hash": ((HASH, 4, 16, 4, 3, 1, 4), info),
        "btf_map_hash_value_size": ((HASH, 4, 4, 4, 3, 1, 4), []),
        "btf_map_hash_key_size": ((HASH, 8, 16, 4, 3, 1, 4), []),
        "btf_map_hash_keyless": ((HASH, 4, 16, 4, 3, 0, 4), []),
        "btf_map_hash_key_fwd": ((HASH, 4, 16, 4, 3, 7, 4), []),
        "btf_map_hash_key_proto": ((HASH, 4, 16, 4, 3, 12, 4), []),
        "btf_map_hash_key_missing": ((HASH, 4, 16, 4, 3, 99, 4), []),
        "btf_map_hash_modifiers": ((HASH, 4, 16, 4, 3, 9, 8), info),
        "btf_map_hash_key_only": ((HASH, 4, 16, 4, 3, 1, 0), []),
        "btf_map_hash_fd_only": ((HASH, 4, 16, 4, 3, 0, 0), info),
        "btf_map_lru_hash": ((LRU_HASH, 4, 4, 4, 3, 6, 1), info),
        "btf_map_array": ((ARRAY_MAP, 4, 16, 4, 3, 1, 5), info),
        "btf_map_array_key_enum": ((ARRAY_MAP, 4, 16, 4, 3, 6, 5), []),
        "btf_map_array_key_volatile": ((ARRAY_MAP, 4, 4, 4, 3, 9, 1), []),
        "btf_map_array_datasec": ((ARRAY_MAP, 4, 8, 1, 3, 0, 15), info),
        "btf_map_array_datasec_two": ((ARRAY_MAP, 4, 8, 2, 3, 0, 15), []),
        "btf_map_array_keyless_int": ((ARRAY_MAP, 4, 4, 1, 3, 0, 1), []),
        "btf_map_percpu_array": ((PERCPU_ARRAY, 4, 4, 4, 3, 1, 1), info),
        "btf_map_percpu_array_keyless": ((PERCPU_ARRAY, 4, 8, 1, 3, 0, 15), []),
        "btf_map_perf_event_array": ((PERF_EVENT_ARRAY, 4, 4, 4, 3, 1, 1), []),
        "btf_map_stack_trace": ((STACK_TRACE, 4, 16, 4, 3, 1, 4), []),
        "btf_map_ringbuf": ((RINGBUF, 0, 0, 4096, 3, 0, 1), []),
        "btf_map_not_btf_fd": ((HASH, 4, 16, 4, 0, 1, 4), []),
        "btf_map_bad_fd": ((HASH, 4, 16, 4, 99, 1, 4), []),
        # the map keeps its BTF: gone with the map's last fd, not the BTF's
        "btf_map_holds_btf": ((HASH, 4, 16, 4, 3, 1, 4), info + ["close", "3", "bfdlast", "close", "3", "close", "4",
                                                                 "bfdlast"]),
    }
    c = {name: load(GOOD, 0) + ["raw", "0", map_attr(*attr)] + after for name, (attr, after) in table.items()}
    # vmlinux's BTF (opened as fd 4): EACCES
    c["btf_map_vmlinux_btf"] = load(GOOD, 0) + ["bfd", "1", "raw", "0", map_attr(HASH, 4, 16, 4, 4, 1, 4)]
    return c


def cases() -> dict[str, list[str]]:
    c: dict[str, list[str]] = {
        # the object: an fd, its info, its id listed and opened, gone with its last fd
        "btf_object": load(GOOD, 0) + ["bdata", "3", "bid", "3", "close", "3", "bfdlast", "close", "3", "close", "4",
                                       "bfdlast"],
        "btf_good_log": load(GOOD),
        "btf_good_log_level2": load(GOOD, 2),
        "btf_good_log_full": load(GOOD, 1, 300),
        # bpf_attr and the log's attributes
        "btf_log_small": load(GOOD, 1, 127),
        "btf_log_level_bad": load(GOOD, 8),
        "btf_log_level_stats": load(GOOD, 4),
        "btf_attr_tail": ["raw", str(BTF_LOAD), attr(tail=b"\0\0\0\0\1\0\0\0")],
        "btf_too_big": ["raw", str(BTF_LOAD), attr(btf_size=16 * 1024 * 1024 + 1)],
        "btf_fault": ["raw", str(BTF_LOAD), attr(btf=8, btf_size=64)],
        "btf_log_no_buf": ["raw", str(BTF_LOAD), attr(log_level=1, log_size=4096)],
        "btf_log_size_no_level": ["raw", str(BTF_LOAD), attr(log_size=4096)],
        "btf_zero": ["raw", str(BTF_LOAD), attr()],
        # the header
        "btf_hdr_short": load("9feb0100180000"),
        "btf_hdr_len_past": load("9feb0100ff00000000000000"),
        "btf_hdr_long_nonzero": load(one(INT_T, hdr_len=32, extra_hdr=b"\0\0\0\0\0\0\1\0")),
        "btf_hdr_long_zero": load(one(INT_T, hdr_len=32, extra_hdr=bytes(8))),
        "btf_hdr_short_len": load(one(INT_T, hdr_len=20)[:-2 * 4]),
        "btf_magic": load(one(INT_T, magic=0x9feb)),
        "btf_version": load(one(INT_T, version=2)),
        "btf_flags": load(one(INT_T, flags=1)),
        "btf_no_data": load(blob(b"", b"", type_len=0, str_len=0)),
        "btf_sec_offset": load(one(INT_T, str_off=4096)),
        "btf_sec_gap": load(one(INT_T, type_off=4, str_off=4 + len(INT_T), tail=b"")),
        "btf_sec_overlap": load(one(INT_T, str_off=len(INT_T) - 4)),
        "btf_sec_too_long": load(one(INT_T, str_len=len(S.data) + 4)),
        "btf_sec_trailing": load(one(INT_T, tail=b"\0\0\0\0")),
        "btf_str_not_at_end": load(blob(INT_T, S.data, strings_first=True)),
        "btf_str_not_nul_ended": load(blob(INT_T, S.data[:-1] + b"x")),
        "btf_str_first_not_empty": load(blob(INT_T, b"x" + S.data[1:])),
        "btf_str_empty": load(blob(INT_T, b"", str_len=0)),
        "btf_type_unaligned": load(blob(b"\0\0" + INT_T, S.data, type_off=2, type_len=len(INT_T),
                                        str_off=2 + len(INT_T))),
        "btf_no_types": load(blob(b"", S.data, type_len=0)),
        # btf_check_meta
        "btf_meta_short": load(one(INT_T, b"\0\0\0\0")),
        "btf_info_bad": load(one(t(0, INT, info=1 << 30))),
        "btf_kind_unknown": load(one(t(0, 20))),
        "btf_kind_zero": load(one(t(0, UNKN))),
        "btf_name_off_bad": load(one(t(4096, INT, size_type=4) + u32s(32))),
        # INT
        "btf_int_short": load(one(t(S.off("int"), INT, size_type=4))),
        "btf_int_vlen": load(one(t(S.off("int"), INT, vlen=1, size_type=4) + u32s(32))),
        "btf_int_kflag": load(one(t(S.off("int"), INT, kflag=1, size_type=4) + u32s(32))),
        "btf_int_data": load(one(t(S.off("int"), INT, size_type=4) + u32s(0x10000020))),
        "btf_int_bits_128": load(one(int_t(S.off("int"), 16, 120, 0, 9))),
        "btf_int_bits_size": load(one(int_t(S.off("int"), 4, 33))),
        "btf_int_encoding": load(one(int_t(S.off("int"), 4, 32, 3))),
        "btf_int_kinds": load(one(int_t(S.off("int"), 16, 128, 0), int_t(S.off("char"), 1, 8, CHAR),
                                  int_t(S.off("b"), 1, 1, BOOL), int_t(S.off("a"), 4, 3, 0, 5))),
        # PTR and the modifiers
        "btf_ptr_name": load(one(INT_T, t(S.off("p"), PTR, size_type=1))),
        "btf_ptr_vlen": load(one(INT_T, t(0, PTR, vlen=1, size_type=1))),
        "btf_ptr_kflag": load(one(INT_T, t(0, PTR, kflag=1, size_type=1))),
        "btf_ptr_type_bad": load(one(INT_T, t(0, PTR, size_type=0x100000))),
        "btf_ptr_missing": load(one(INT_T, t(0, PTR, size_type=5))),
        "btf_ptr_void_fwd_proto": load(one(INT_T, t(0, PTR), t(S.off("f"), FWD), t(0, PTR, size_type=3),
                                           t(0, FUNC_PROTO), t(0, PTR, size_type=5))),
        "btf_ptr_loop": load(one(INT_T, t(0, PTR, size_type=3), t(0, CONST, size_type=2))),
        "btf_ptr_self": load(one(t(0, PTR, size_type=1))),
        "btf_typedef_no_name": load(one(INT_T, t(0, TYPEDEF, size_type=1))),
        "btf_typedef_bad_name": load(one(INT_T, t(S.off("bad-name"), TYPEDEF, size_type=1))),
        "btf_const_name": load(one(INT_T, t(S.off("a"), CONST, size_type=1))),
        "btf_const_void": load(one(INT_T, t(0, CONST), t(0, VOLATILE, size_type=2))),
        "btf_const_loop": load(one(INT_T, t(0, CONST, size_type=3), t(0, VOLATILE, size_type=2))),
        "btf_const_of_var": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0), t(0, CONST, size_type=2))),
        "btf_const_of_func": load(one(INT_T, t(0, FUNC_PROTO, size_type=1), t(S.off("main"), FUNC, size_type=2),
                                      t(0, CONST, size_type=3))),
        "btf_chain_31": load(one(chain(31))),
        "btf_chain_32": load(one(chain(32))),
        "btf_chain_33": load(one(chain(33))),
        "btf_type_tag_empty": load(one(INT_T, t(0, TYPE_TAG, size_type=1))),
        "btf_type_tag_after_const": load(one(INT_T, t(0, CONST, size_type=1), t(S.off("tag"), TYPE_TAG, size_type=2))),
        "btf_type_tag_before_const": load(one(INT_T, t(S.off("tag"), TYPE_TAG, size_type=3), t(0, CONST, size_type=1),
                                              t(0, PTR, size_type=2))),
        "btf_type_tag_ptr_loop": load(one(INT_T, t(S.off("tag"), TYPE_TAG, size_type=3), t(0, PTR, size_type=2))),
        # ARRAY
        "btf_array_short": load(one(INT_T, t(0, ARRAY) + u32s(1, 1))),
        "btf_array_name": load(one(INT_T, t(S.off("a"), ARRAY) + u32s(1, 1, 2))),
        "btf_array_vlen": load(one(INT_T, t(0, ARRAY, vlen=1) + u32s(1, 1, 2))),
        "btf_array_size": load(one(INT_T, t(0, ARRAY, size_type=8) + u32s(1, 1, 2))),
        "btf_array_elem_void": load(one(INT_T, t(0, ARRAY) + u32s(0, 1, 2))),
        "btf_array_index_void": load(one(INT_T, t(0, ARRAY) + u32s(1, 0, 2))),
        "btf_array_index_ptr": load(one(INT_T, t(0, PTR, size_type=1), t(0, ARRAY) + u32s(1, 2, 2))),
        "btf_array_index_bitfield": load(one(INT_T, int_t(S.off("a"), 4, 3), t(0, ARRAY) + u32s(1, 2, 2))),
        "btf_array_elem_bitfield": load(one(INT_T, int_t(S.off("a"), 4, 3), t(0, ARRAY) + u32s(2, 1, 2))),
        "btf_array_elem_fwd": load(one(INT_T, t(S.off("f"), FWD), t(0, ARRAY) + u32s(2, 1, 2))),
        "btf_array_overflow": load(one(INT_T, t(0, ARRAY) + u32s(1, 1, 0x40000000))),
        "btf_array_of_arrays": load(one(INT_T, t(0, ARRAY) + u32s(1, 1, 3), t(0, ARRAY) + u32s(2, 1, 5),
                                        t(S.off("s"), STRUCT, vlen=1, size_type=60) + member("a", 3, 0))),
        "btf_array_loop": load(one(INT_T, t(0, ARRAY) + u32s(3, 1, 2), t(0, CONST, size_type=2))),
        # STRUCT, UNION
        "btf_struct_short": load(one(INT_T, t(S.off("s"), STRUCT, vlen=2, size_type=8) + member("a", 1, 0))),
        "btf_struct_bad_name": load(one(INT_T, t(S.off("bad-name"), STRUCT, size_type=8))),
        "btf_struct_member_name_off": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, size_type=8) + u32s(4096, 1, 0))),
        "btf_struct_member_bad_name": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, size_type=8)
                                               + member("bad-name", 1, 0))),
        "btf_struct_member_void": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, size_type=8) + member("a", 0, 0))),
        "btf_struct_member_order": load(one(INT_T, t(S.off("s"), STRUCT, vlen=2, size_type=8) + member("a", 1, 32)
                                            + member("b", 1, 0))),
        "btf_struct_member_past": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, size_type=8) + member("a", 1, 72))),
        "btf_struct_member_exceeds": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, size_type=8)
                                              + member("a", 1, 40))),
        "btf_struct_member_missing": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, size_type=8) + member("a", 9, 0))),
        "btf_struct_member_fwd": load(one(t(S.off("f"), FWD), t(S.off("s"), STRUCT, vlen=1, size_type=8)
                                          + member("a", 1, 0))),
        "btf_struct_member_func_proto": load(one(t(0, FUNC_PROTO), t(S.off("s"), STRUCT, vlen=1, size_type=8)
                                                 + member("a", 1, 0))),
        "btf_struct_ptr_unaligned": load(one(INT_T, t(0, PTR, size_type=1), t(S.off("s"), STRUCT, vlen=1, size_type=16)
                                             + member("a", 2, 4))),
        "btf_struct_ptr_exceeds": load(one(INT_T, t(0, PTR, size_type=1), t(S.off("s"), STRUCT, vlen=1, size_type=12)
                                           + member("a", 2, 32))),
        "btf_struct_int_bitfield": load(one(int_t(S.off("int"), 4, 3, 0, 5),
                                            t(S.off("s"), STRUCT, vlen=2, size_type=4) + member("a", 1, 0)
                                            + member("b", 1, 24))),
        "btf_struct_int_exceeds": load(one(int_t(S.off("int"), 4, 3, 0, 5),
                                           t(S.off("s"), STRUCT, vlen=1, size_type=1) + member("a", 1, 1))),
        "btf_struct_kflag_bitfields": load(one(INT_T, t(S.off("E"), ENUM, vlen=0, size_type=4),
                                               t(S.off("s"), STRUCT, vlen=3, kflag=1, size_type=8)
                                               + member("a", 1, 3 << 24 | 0) + member("b", 2, 5 << 24 | 3)
                                               + member("u", 1, 32))),
        "btf_struct_kflag_too_wide": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, kflag=1, size_type=8)
                                              + member("a", 1, 33 << 24))),
        "btf_struct_kflag_unaligned": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, kflag=1, size_type=8)
                                               + member("a", 1, 3))),
        "btf_struct_kflag_base": load(one(int_t(S.off("int"), 4, 3), t(S.off("s"), STRUCT, vlen=1, kflag=1,
                                                                          size_type=8) + member("a", 1, 2 << 24))),
        "btf_struct_kflag_ptr_bitfield": load(one(INT_T, t(0, PTR, size_type=1),
                                                  t(S.off("s"), STRUCT, vlen=1, kflag=1, size_type=8)
                                                  + member("a", 2, 1 << 24))),
        "btf_struct_kflag_enum_wide": load(one(t(S.off("E"), ENUM, size_type=4), t(S.off("s"), STRUCT, vlen=1,
                                                                                   kflag=1, size_type=8)
                                               + member("a", 1, 33 << 24))),
        "btf_struct_kflag_typedef": load(one(INT_T, t(S.off("T"), TYPEDEF, size_type=1),
                                             t(S.off("s"), STRUCT, vlen=1, kflag=1, size_type=8)
                                             + member("a", 2, 4 << 24 | 60))),
        "btf_struct_kflag_fwd": load(one(t(S.off("f"), FWD), t(S.off("T"), TYPEDEF, size_type=1),
                                         t(S.off("s"), STRUCT, vlen=1, kflag=1, size_type=8) + member("a", 2, 0))),
        "btf_struct_enum_unaligned": load(one(t(S.off("E"), ENUM, size_type=4), t(S.off("s"), STRUCT, vlen=1,
                                                                                  size_type=8) + member("a", 1, 4))),
        "btf_struct_self": load(one(t(S.off("s"), STRUCT, vlen=1, size_type=8) + member("a", 1, 0))),
        "btf_struct_self_ptr": load(one(t(S.off("s"), STRUCT, vlen=1, size_type=8) + member("a", 2, 0),
                                        t(0, PTR, size_type=1))),
        "btf_struct_nested_exceeds": load(one(INT_T, t(S.off("a"), STRUCT, vlen=1, size_type=8) + member("a", 1, 0),
                                              t(S.off("s"), STRUCT, vlen=1, size_type=8) + member("b", 2, 8))),
        "btf_union_offset": load(one(INT_T, t(S.off("u"), UNION, vlen=1, size_type=8) + member("a", 1, 8))),
        "btf_struct_float": load(one(t(S.off("float"), FLOAT, size_type=8), t(S.off("s"), STRUCT, vlen=2,
                                                                              size_type=16)
                                     + member("a", 1, 0) + member("b", 1, 64))),
        "btf_struct_float_unaligned": load(one(t(S.off("float"), FLOAT, size_type=4),
                                               t(S.off("s"), STRUCT, vlen=1, size_type=16) + member("a", 1, 16))),
        "btf_struct_float_exceeds": load(one(t(S.off("float"), FLOAT, size_type=16),
                                             t(S.off("s"), STRUCT, vlen=1, size_type=16) + member("a", 1, 64))),
        # ENUM, ENUM64
        "btf_enum_size": load(one(t(S.off("E"), ENUM, size_type=3))),
        "btf_enum_size_16": load(one(t(S.off("E"), ENUM, size_type=16))),
        "btf_enum_short": load(one(t(S.off("E"), ENUM, vlen=2, size_type=4) + u32s(S.off("A"), 0))),
        "btf_enum_value_no_name": load(one(t(S.off("E"), ENUM, vlen=1, size_type=4) + u32s(0, 0))),
        "btf_enum_value_name_off": load(one(t(S.off("E"), ENUM, vlen=1, size_type=4) + u32s(4096, 0))),
        "btf_enum_signed": load(one(t(S.off("E"), ENUM, vlen=2, kflag=1, size_type=1)
                                    + u32s(S.off("A"), -5, S.off("B"), 7))),
        "btf_enum64_size": load(one(t(S.off("E"), ENUM64, size_type=0))),
        "btf_enum64_bad_name": load(one(t(S.off("E"), ENUM64, vlen=1, size_type=8) + u32s(S.off("bad-name"), 1, 2))),
        # FWD
        "btf_fwd_vlen": load(one(t(S.off("f"), FWD, vlen=1))),
        "btf_fwd_type": load(one(t(S.off("f"), FWD, size_type=1))),
        "btf_fwd_no_name": load(one(t(0, FWD))),
        # FUNC, FUNC_PROTO
        "btf_func_no_name": load(one(INT_T, t(0, FUNC_PROTO, size_type=1), t(0, FUNC, size_type=2))),
        "btf_func_linkage": load(one(INT_T, t(0, FUNC_PROTO, size_type=1), t(S.off("main"), FUNC, vlen=2,
                                                                             size_type=2))),
        "btf_func_kflag": load(one(INT_T, t(0, FUNC_PROTO, size_type=1), t(S.off("main"), FUNC, kflag=1,
                                                                           size_type=2))),
        "btf_func_not_proto": load(one(INT_T, t(S.off("main"), FUNC, size_type=1))),
        "btf_func_arg_no_name": load(one(INT_T, t(0, FUNC_PROTO, vlen=1, size_type=1) + u32s(0, 1),
                                         t(S.off("main"), FUNC, size_type=2))),
        "btf_func_global_vararg": load(one(INT_T, t(0, FUNC_PROTO, vlen=2, size_type=1) + u32s(S.off("a"), 1, 0, 0),
                                           t(S.off("main"), FUNC, vlen=1, size_type=2))),
        "btf_proto_name": load(one(INT_T, t(S.off("p"), FUNC_PROTO, size_type=1))),
        "btf_proto_kflag": load(one(INT_T, t(0, FUNC_PROTO, kflag=1, size_type=1))),
        "btf_proto_short": load(one(INT_T, t(0, FUNC_PROTO, vlen=1, size_type=1))),
        "btf_proto_ret_missing": load(one(INT_T, t(0, FUNC_PROTO, size_type=7))),
        "btf_proto_ret_var": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0),
                                      t(0, FUNC_PROTO, size_type=2))),
        "btf_proto_ret_fwd": load(one(t(S.off("f"), FWD), t(0, FUNC_PROTO, size_type=1))),
        "btf_proto_ret_loop": load(one(INT_T, t(0, FUNC_PROTO, size_type=3), t(0, CONST, size_type=4),
                                       t(0, CONST, size_type=3))),
        "btf_proto_arg_missing": load(one(INT_T, t(0, FUNC_PROTO, vlen=2, size_type=1)
                                          + u32s(S.off("a"), 1, S.off("b"), 9))),
        "btf_proto_arg_bad_name": load(one(INT_T, t(0, FUNC_PROTO, vlen=1, size_type=1)
                                           + u32s(S.off("bad-name"), 1))),
        "btf_proto_arg_void_mid": load(one(INT_T, t(0, FUNC_PROTO, vlen=2, size_type=1)
                                           + u32s(S.off("a"), 0, S.off("b"), 1))),
        "btf_proto_vararg_named": load(one(INT_T, t(0, FUNC_PROTO, vlen=2, size_type=1)
                                           + u32s(S.off("a"), 1, S.off("b"), 0))),
        "btf_proto_varargs_log": load(one(INT_T, t(0, FUNC_PROTO, vlen=1) + u32s(0, 0),
                                          t(0, FUNC_PROTO, vlen=3, size_type=1) + u32s(S.off("a"), 1, 0, 1, 0, 0))),
        "btf_proto_arg_fwd": load(one(t(S.off("f"), FWD), t(0, FUNC_PROTO, vlen=1) + u32s(S.off("a"), 1))),
        # VAR, DATASEC
        "btf_var_short": load(one(INT_T, t(S.off("x"), VAR, size_type=1))),
        "btf_var_vlen": load(one(INT_T, t(S.off("x"), VAR, vlen=1, size_type=1) + u32s(0))),
        "btf_var_no_name": load(one(INT_T, t(0, VAR, size_type=1) + u32s(0))),
        "btf_var_dot_name": load(one(INT_T, t(S.off(".data"), VAR, size_type=1) + u32s(1))),
        "btf_var_void": load(one(INT_T, t(S.off("x"), VAR) + u32s(0))),
        "btf_var_linkage": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(2))),
        "btf_var_fwd": load(one(t(S.off("f"), FWD), t(S.off("x"), VAR, size_type=1) + u32s(0))),
        "btf_var_of_var": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0),
                                   t(S.off("v"), VAR, size_type=2) + u32s(0))),
        "btf_datasec_size0": load(one(INT_T, t(S.off(".data"), DATASEC))),
        "btf_datasec_kflag": load(one(INT_T, t(S.off(".data"), DATASEC, kflag=1, size_type=4))),
        "btf_datasec_no_name": load(one(INT_T, t(0, DATASEC, size_type=4))),
        "btf_datasec_short": load(one(INT_T, t(S.off(".data"), DATASEC, vlen=1, size_type=4))),
        "btf_datasec_vsi_void": load(one(INT_T, t(S.off(".data"), DATASEC, vlen=1, size_type=4) + u32s(0, 0, 4))),
        "btf_datasec_vsi_offset": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0),
                                           t(S.off(".data"), DATASEC, vlen=1, size_type=4) + u32s(2, 4, 4))),
        "btf_datasec_vsi_size": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0),
                                         t(S.off(".data"), DATASEC, vlen=1, size_type=4) + u32s(2, 0, 0))),
        "btf_datasec_vsi_end": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0),
                                        t(S.off(".data"), DATASEC, vlen=1, size_type=6) + u32s(2, 4, 4))),
        "btf_datasec_vsi_order": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0),
                                          t(S.off(".data"), DATASEC, vlen=2, size_type=8)
                                          + u32s(2, 4, 4) + u32s(2, 0, 4))),
        "btf_datasec_not_var": load(one(INT_T, t(S.off(".data"), DATASEC, vlen=1, size_type=4) + u32s(1, 0, 4))),
        "btf_datasec_small": load(one(t(S.off("long"), INT, size_type=8) + u32s(64),
                                      t(S.off("x"), VAR, size_type=1) + u32s(1),
                                      t(S.off(".data"), DATASEC, vlen=1, size_type=8) + u32s(2, 0, 4))),
        "btf_datasec_two": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0),
                                    t(S.off("v"), VAR, size_type=1) + u32s(1),
                                    t(S.off(".data"), DATASEC, vlen=2, size_type=8) + u32s(2, 0, 4) + u32s(3, 4, 4))),
        # FLOAT
        "btf_float_size": load(one(t(S.off("float"), FLOAT, size_type=3))),
        "btf_float_sizes": load(one(*[t(S.off("float"), FLOAT, size_type=n) for n in (2, 4, 8, 12, 16)])),
        "btf_float_vlen": load(one(t(S.off("float"), FLOAT, vlen=1, size_type=4))),
        # DECL_TAG
        "btf_decl_tag_empty": load(one(INT_T, t(0, DECL_TAG, size_type=1) + u32s(0xffffffff))),
        "btf_decl_tag_short": load(one(INT_T, t(S.off("tag"), DECL_TAG, size_type=1))),
        "btf_decl_tag_component": load(one(INT_T, t(S.off("tag"), DECL_TAG, size_type=1) + u32s(-2))),
        "btf_decl_tag_on_int": load(one(INT_T, t(S.off("tag"), DECL_TAG, size_type=1) + u32s(-1))),
        "btf_decl_tag_on_member": load(one(INT_T, t(S.off("s"), STRUCT, vlen=1, size_type=4) + member("a", 1, 0),
                                           t(S.off("tag"), DECL_TAG, size_type=2) + u32s(0),
                                           t(S.off("tag"), DECL_TAG, size_type=2) + u32s(1))),
        "btf_decl_tag_on_arg": load(one(INT_T, t(0, FUNC_PROTO, vlen=1, size_type=1) + u32s(S.off("a"), 1),
                                        t(S.off("main"), FUNC, size_type=2),
                                        t(S.off("tag"), DECL_TAG, size_type=3) + u32s(0),
                                        t(S.off("tag"), DECL_TAG, size_type=3) + u32s(1))),
        "btf_decl_tag_on_var_component": load(one(INT_T, t(S.off("x"), VAR, size_type=1) + u32s(0),
                                                  t(S.off("tag"), DECL_TAG, size_type=2) + u32s(0))),
        "btf_decl_tag_on_typedef": load(one(INT_T, t(S.off("T"), TYPEDEF, size_type=1),
                                            t(S.off("tag"), DECL_TAG, size_type=2) + u32s(-1),
                                            t(S.off("tag"), DECL_TAG, size_type=2) + u32s(0))),
    }
    c.update(map_cases())
    libbpf = LIBBPF_BTF.read_bytes().hex()
    c["btf_clang_as_libbpf"] = load(libbpf) + ["bdata", "3"]
    c["btf_clang_as_libbpf_nolog"] = load(libbpf, 0) + ["bdata", "3"]
    c["btf_clang_raw"] = load(CLANG_BTF.read_bytes().hex())
    return c


def btf_type_size(data: bytes, off: int) -> int:
    """the bytes of the type at off (struct btf_type and what follows)"""
    info = struct.unpack_from("<I", data, off + 4)[0]
    kind, vlen = info >> 24 & 0x1f, info & 0xffff
    extra = {INT: 4, VAR: 4, DECL_TAG: 4, ARRAY: 12, STRUCT: 12 * vlen, UNION: 12 * vlen, ENUM: 8 * vlen,
             FUNC_PROTO: 8 * vlen, DATASEC: 12 * vlen, ENUM64: 12 * vlen}
    return 12 + extra.get(kind, 0)


def libbpf_fixup(btf: bytes, obj: Path) -> bytes:
    """libbpf's btf_fixup_datasec(): a DATASEC's size is its ELF section's, each variable's offset
    its symbol's value (clang leaves both 0 in an object)"""
    from elftools.elf.elffile import ELFFile
    data = bytearray(btf)
    _, _, _, hdr_len, type_off, type_len, str_off, _ = struct.unpack_from("<HBBIIIII", data)
    strings = data[hdr_len + str_off:]

    def name(off: int) -> str:
        return strings[off:strings.index(b"\0", off)].decode()
    with open(obj, "rb") as f:
        elf = ELFFile(f)
        sizes = {s.name: s["sh_size"] for s in elf.iter_sections()}
        symbols = {sym.name: sym["st_value"] for sym in elf.get_section_by_name(".symtab").iter_symbols()}
    offsets, off = [], hdr_len + type_off
    while off < hdr_len + type_off + type_len:
        offsets.append(off)
        off += btf_type_size(data, off)
    for off in offsets:
        name_off, info = struct.unpack_from("<II", data, off)
        if info >> 24 & 0x1f != DATASEC:
            continue
        struct.pack_into("<I", data, off + 8, sizes[name(name_off)])
        for i in range(info & 0xffff):
            vsi = off + 12 + 12 * i
            var = offsets[struct.unpack_from("<I", data, vsi)[0] - 1]
            struct.pack_into("<I", data, vsi + 4, symbols[name(struct.unpack_from("<I", data, var)[0])])
    return bytes(data)


def build_clang_btf() -> None:
    """btf_prog.c's .BTF, as clang writes it and as libbpf loads it (needs clang-14)"""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        obj = Path(d, "btf_prog.o")
        subprocess.run(["clang-14", "-g", "-O2", "-target", "bpf", "-c", str(DATA / "btf_prog.c"), "-o", str(obj)],
                       check=True)
        subprocess.run(["llvm-objcopy-14", f"--dump-section=.BTF={CLANG_BTF}", str(obj)], check=True)
        LIBBPF_BTF.write_bytes(libbpf_fixup(CLANG_BTF.read_bytes(), obj))


def with_stdin(args: list[str]) -> tuple[list[str], str | None]:
    """the case's arguments with its long blob (one a case at most) as "-", and that blob: what
    bpftest reads from its stdin (the emulated kernel's spawn takes 1000 bytes of arguments)"""
    for i, a in enumerate(args):
        if len(a) > 400:
            return args[:i] + ["-"] + args[i + 1:], a
    return args, None


def script(cases: dict[str, list[str]], binary: str) -> str:
    """reference_script's, each long blob piped in"""
    lines = []
    for name, args in cases.items():
        args, stdin = with_stdin(args)
        quoted = " ".join("'" + a + "'" for a in args)
        pipe = f"echo '{stdin}' | " if stdin else ""
        lines.append(f"echo '=== {name}'; {pipe}{binary} {quoted}; echo \"=== rc $?\"")
    return "\n".join(lines) + "\n"


def capture(cases: dict[str, list[str]], reference: str) -> None:
    """run the cases with bpftest built for the host on the real 6.1 (real-tracefs), their output
    into tests/data/bpf/REFERENCE"""
    import subprocess
    import tempfile
    repo = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["gcc", "-static", "-O1", "-DHOST", "-o", f"{d}/bpftest",
                        str(repo / "kernel_model/user/bpftest.c")], check=True)
        Path(d, "run.sh").write_text(script(cases, "/mnt/host/bpftest"))
        res = subprocess.run(["/work/shared/tools/real-tracefs", "-s", f"{d}:/mnt/host", "-t", "300",
                              "-c", "sh /mnt/host/run.sh"], capture_output=True, text=True, timeout=400)
    (DATA / reference).write_text(res.stdout)
    print(res.stdout[-3000:], res.stderr[-2000:], file=sys.stderr)


if __name__ == "__main__":
    if "--clang" in sys.argv:
        build_clang_btf()
    capture(cases(), "btf_load_reference.txt")
