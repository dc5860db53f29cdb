"""print fmt evaluation against a real Linux 6.1 kernel (tests/data/linux-6.1-print-cases.txt)."""

import ast
import bisect
import re
from pathlib import Path

import pytest

from tracefs_sim.machine import FieldDesc
from tracefs_sim.trace.print_fmt import PrintFmtError, compile_print_fmt

DATA = Path(__file__).resolve().parents[1] / "data"




def load_formats():
    """'system/event' -> (fields including common_*, print fmt), from the real format files."""
    events = {}
    for block in (DATA / "linux-6.1-formats.txt").read_text().split("=== ")[1:]:
        key = block.split("\n", 1)[0].strip()
        m = re.search(r"^print fmt: (.*)$", block, flags=re.M)
        if not m:
            continue
        fields = []
        for f in re.finditer(r"\tfield:(.*?) (\w+)(\[\d*\])?;\toffset:(\d+);\tsize:(\d+);\tsigned:(\d+);", block):
            type_, name, array, offset, size, signed = f.groups()
            fields.append(FieldDesc(type_ + (array or ""), name, int(offset), int(size), signed == "1"))
        events[key] = (tuple(fields), m.group(1))
    return events


FORMATS = load_formats()


def decode(record: bytes, fields) -> dict:
    """A record's fields as the trace core hands them over: ints, bytes, lists."""
    out = {}
    for f in fields:
        raw = record[f.offset : f.offset + f.size]
        if f.type.startswith("__data_loc"):
            loc = int.from_bytes(raw, "little")
            out[f.name] = record[loc & 0xFFFF : (loc & 0xFFFF) + (loc >> 16)]
        elif "[" in f.type and f.type.startswith("char"):
            out[f.name] = raw
        elif "[" in f.type:
            n = int(f.type[f.type.index("[") + 1 : -1])
            step = f.size // n
            out[f.name] = [int.from_bytes(raw[i : i + step], "little") for i in range(0, f.size, step)]
        else:
            out[f.name] = int.from_bytes(raw, "little", signed=f.is_signed)
    return out


def load_cases():
    text = (DATA / "linux-6.1-print-cases.txt").read_text()
    body = text[text.index("\n### KALLSYMS\n") + 1 :]
    ksyms_text, rest = body.split("\n### CASE ", 1)
    symbols = sorted(
        {(int(addr, 16), name) for addr, _, name in (l.split() for l in ksyms_text.splitlines()[1:])}
    )
    cases = []
    for chunk in ("### CASE " + rest).split("### CASE ")[1:]:
        head, line = chunk.split("\n", 1)
        event, hexrec = head.split()
        cases.append((event, bytes.fromhex(hexrec), line.rstrip("\n")))
    return symbols, cases


SYMBOLS, CASES = load_cases()


def symbolize(addr):
    """kallsyms lookup over the captured symbols: the size runs to the next symbol."""
    i = bisect.bisect_right(SYMBOLS, (addr, "\xff")) - 1
    if i < 0 or i + 1 >= len(SYMBOLS):
        return None
    start, name = SYMBOLS[i]
    end = SYMBOLS[i + 1][0]
    return (name, addr - start, end - start) if addr < end else None


COMPILED = {key: compile_print_fmt(pf, fields) for key, (fields, pf) in FORMATS.items()}


def test_every_print_fmt_compiles_and_cases_cover_the_modelled_text_events():
    assert set(COMPILED) == set(FORMATS)
    assert {c[0] for c in CASES} == {k for k in FORMATS if k.split("/")[0] in ("sched", "kmem", "raw_syscalls")}
    assert len(CASES) >= 300


@pytest.mark.parametrize("event,record,text", CASES, ids=[f"{i}:{c[0]}" for i, c in enumerate(CASES)])
def test_output_like_linux(event, record, text):
    fields, _ = FORMATS[event]
    assert COMPILED[event].format(decode(record, fields), symbolize=symbolize) == text


# ---------------------------------------------------------------------------------------------
# Events whose trace lines Linux does not print through the print fmt (ftrace's own records,
# syscalls): the print fmt still has to say what C would, as libtraceevent users read it.


def syms(table):
    def look(addr):
        for name, start, size in table:
            if start <= addr < start + size:
                return name, addr - start, size
        return None

    return look


KSYMS = syms([("vfs_read", 0xFFFFFFFF81200000, 0x120), ("ksys_read", 0xFFFFFFFF81200200, 0x80)])


def fmt(event, rec, **kw):
    return COMPILED[event].format(rec, **kw)


def test_ftrace_formats():
    assert fmt("ftrace/function", {"ip": 0xFFFFFFFF81200004, "parent_ip": 0xFFFFFFFF81200230}, symbolize=KSYMS) == (
        " vfs_read <-- ksys_read"
    )
    assert fmt("ftrace/funcgraph_entry", {"func": 0xFFFFFFFF81200000, "depth": 3}, symbolize=KSYMS) == "--> vfs_read (3)"
    rec = {"func": 0xFFFFFFFF81200000, "depth": -1, "overrun": 0, "calltime": 0x1234, "rettime": 0xABCDEF}
    assert fmt("ftrace/funcgraph_exit", rec, symbolize=KSYMS) == (
        "<-- vfs_read (-1) (start: 1234  end: abcdef) over: -1"
    )
    assert fmt("ftrace/print", {"ip": 0xFFFFFFFF81300000, "buf": b"hello\n\0\0"}, symbolize=KSYMS) == (
        "0xffffffff81300000: hello\n"
    )
    # (REC)->field, and a shift wider than the field it starts from
    rec = {"ip": 0xFFFFFFFF81200004, "parent_ip": 0xFFFFFFFF81200230, "count": 19, "top_delta_ts": 1,
           "bottom_delta_ts": 4936844}
    assert fmt("ftrace/func_repeats", rec, symbolize=KSYMS) == (
        f" vfs_read <-ksys_read\t(repeats:19  delta: -{1 << 32 | 4936844})")


def test_syscall_formats():
    rec = {"__syscall_nr": 257, "dfd": 2**64 - 100, "filename": 0x7FFC1234, "flags": 0x80241, "mode": 0o644}
    assert fmt("syscalls/sys_enter_openat", rec) == (
        "dfd: 0xffffffffffffff9c, filename: 0x7ffc1234, flags: 0x00080241, mode: 0x000001a4"
    )
    assert fmt("syscalls/sys_exit_openat", {"__syscall_nr": 257, "ret": -2}) == "0xfffffffffffffffe"
    assert fmt("syscalls/sys_enter_getuid", {"__syscall_nr": 102}) == ""


def test_pointers_symbols_and_hashing():
    rec = {"call_site": 0xFFFFFFFF81200010, "ptr": 0xFFFF888003A0B000}
    assert fmt("kmem/kfree", rec, symbolize=KSYMS) == "call_site=vfs_read+0x10/0x120 ptr=(____ptrval____)"
    hashed = fmt("kmem/kfree", rec, symbolize=KSYMS, hash_pointer=lambda a: a >> 12)
    assert hashed == "call_site=vfs_read+0x10/0x120 ptr=000ffff888003a0b"
    # No symbol: the address in hex.  NULL and error pointers are never hashed.
    assert fmt("kmem/kfree", {"call_site": 0x1000, "ptr": 0}) == "call_site=0x1000 ptr=0000000000000000"
    assert fmt("kmem/kfree", {"call_site": 0, "ptr": 2**64 - 12}) == "call_site=0x0 ptr=fffffffffffffff4"
    table = [FieldDesc("unsigned long", "a", 8, 8, False)]
    back = compile_print_fmt('"%pB|%px|%pK|%-12ps|%pS", REC->a, REC->a, REC->a, REC->a, REC->a', table)
    # %pB looks up the address before (a return address), then adds the 1 back.
    assert back.format({"a": 0xFFFFFFFF81200210}, symbolize=KSYMS) == (
        "ksys_read+0x10/0x80|ffffffff81200210|(____ptrval____)|ksys_read   |ksys_read+0x10/0x80"
    )
    assert back.format({"a": 0xFFFFFFFF81200200}, symbolize=KSYMS) == (
        "0xffffffff81200200|ffffffff81200200|(____ptrval____)|ksys_read   |ksys_read+0x0/0x80"
    )


def test_printf_conversions_follow_the_kernel():
    f = [FieldDesc("long", "v", 8, 8, True), FieldDesc("char[8]", "s", 16, 8, True)]

    def out(spec, v=0, s=b""):
        return compile_print_fmt(f'"{spec}", REC->v', f).format({"v": v, "s": s})

    assert out("%d", 2**32 + 5) == "5"
    assert out("%d", -1) == "-1"
    assert out("%u", -1) == "4294967295"
    assert out("%lu", -1) == "18446744073709551615"
    assert out("%hx", 0x12345) == "2345"
    assert out("%hhd", 0xFF) == "-1"
    assert out("%#x", 0) == "0x0"
    assert out("%#o", 8) == "010"
    assert out("%#o", 0) == "0"
    assert out("%08lx", 0xBEEF) == "0000beef"
    assert out("%-6d|", 42) == "42    |"
    assert out("%+d", 3) == "+3"
    assert out("% d", 3) == " 3"
    assert out("%06d", -42) == "-00042"
    assert out("%.0d", 0) == "0"
    assert out("%5.3d", 7) == "  007"
    assert out("%#X", 255) == "0XFF"
    assert out("%c", 0x41) == "A"
    assert out("%3c", 0x41) == "  A"
    assert out("%%%d", 1) == "%1"
    s = compile_print_fmt('"[%-6s][%4s][%.2s]", REC->s, REC->s, REC->s', f)
    assert s.format({"v": 0, "s": b"abc\0zz\0\0"}) == "[abc   ][ abc][ab]"


def test_expressions_follow_c():
    f = [FieldDesc("int", "a", 8, 4, True), FieldDesc("unsigned int", "b", 12, 4, False)]

    def ev(expr, a=0, b=0):
        return compile_print_fmt(f'"%lld", (long long)({expr})', f).format({"a": a, "b": b})

    assert ev("REC->a - 1", a=0) == "-1"
    assert ev("REC->b - 1", b=0) == "4294967295"  # unsigned int arithmetic wraps at 32 bits
    assert ev("REC->a < REC->b", a=-1, b=0) == "0"  # -1 converts to unsigned
    assert ev("REC->a / 2", a=-7) == "-3"
    assert ev("REC->a % 4", a=-7) == "-3"
    assert ev("~0u") == "4294967295"
    assert ev("~0ul") == "-1"
    assert ev("1 << 31") == "-2147483648"
    assert ev("0xffffffff + 1") == "0"  # 0xffffffff is unsigned int
    assert ev("(unsigned char)(REC->a)", a=0x1FF) == "255"
    assert ev("(bool)REC->a", a=4) == "1"
    assert ev("REC->a ? REC->a * 2 : 7", a=0) == "7"
    assert ev("!REC->a && (REC->b | 6) == 7", a=0, b=1) == "1"


def test_builtin_expect_and_kernel_variables():
    """mmap's vm_unmapped_area tests IS_ERR_VALUE() (unlikely(): __builtin_expect) of a
    (void *) cast; writeback's inode ages read the kernel's jiffies when the record prints."""
    f = [FieldDesc("unsigned long", "addr", 8, 8, False), FieldDesc("unsigned long", "when", 16, 8, False)]
    err = compile_print_fmt('"addr=0x%lx err=%ld", __builtin_expect(!!((unsigned long)(void *)(REC->addr) >= '
                            '(unsigned long)-4095), 0) ? 0 : REC->addr, __builtin_expect(!!((unsigned long)'
                            '(void *)(REC->addr) >= (unsigned long)-4095), 0) ? REC->addr : 0', f)
    assert err.format({"addr": 0x7F0000000000, "when": 0}) == "addr=0x7f0000000000 err=0"
    assert err.format({"addr": 2**64 - 12, "when": 0}) == "addr=0x0 err=-12"
    now = [1000]
    age = compile_print_fmt('"age=%lu", (jiffies - REC->when) / 250', f, variables={"jiffies": lambda: now[0]})
    assert age.format({"addr": 0, "when": 500}) == "age=2"
    now[0] = 1500
    assert age.format({"addr": 0, "when": 500}) == "age=4"   # read at each print, not compiled in
    with pytest.raises(PrintFmtError):
        compile_print_fmt('"age=%lu", (jiffies - REC->when) / 250', f)


def test_helpers():
    f = [
        FieldDesc("unsigned long", "flags", 8, 8, False),
        FieldDesc("__data_loc u8[]", "buf", 16, 4, False),
        FieldDesc("unsigned int[3]", "arr", 20, 12, False),
    ]
    flags = compile_print_fmt('"%s", __print_flags(REC->flags, "|", { 1, "A" }, { 6, "BC" }, { 2, "B" })', f)
    assert flags.format({"flags": 0}) == ""
    assert flags.format({"flags": 7}) == "A|BC"
    assert flags.format({"flags": 0x13}) == "A|B|0x10"
    sym = compile_print_fmt('"%s", __print_symbolic(REC->flags, { 1, "one" }, { 2, "two" })', f)
    assert sym.format({"flags": 2}) == "two"
    assert sym.format({"flags": 9}) == "0x9"
    hexf = compile_print_fmt(
        '"%s|%s|%d", __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)), '
        "__print_hex_str(__get_dynamic_array(buf), 3), __get_dynamic_array_len(buf)",
        f,
    )
    data = bytes(range(18))
    assert hexf.format({"buf": data}) == (
        "00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f10 11|000102|18"
    )
    arr = compile_print_fmt('"%s %s", __print_array(REC->arr, 3, 4), __print_array(__get_dynamic_array(buf), 2, 2)', f)
    assert arr.format({"arr": [1, 0x20, 0xFFFFFFFF], "buf": b"\x01\x02\x03\x04"}) == "{0x1,0x20,0xffffffff} {0x201,0x403}"


def test_ip_addresses_as_vsprintf_prints_them():
    """%pI4 / %pi4 / %pI6 / %pI6c of an array field (lib/vsprintf.c): the v4-mapped form the
    sock and tcp events store for an IPv4 socket, the longest run of zero words compressed."""
    f = [FieldDesc("__u8[4]", "a4", 8, 4, False), FieldDesc("__u8[16]", "a6", 12, 16, False)]
    pf = compile_print_fmt('"%pI4 %pi4 %pI6c|%pI6", REC->a4, REC->a4, REC->a6, REC->a6', f)
    mapped = [0] * 10 + [0xFF, 0xFF, 127, 0, 0, 1]
    assert pf.format({"a4": [127, 0, 0, 1], "a6": mapped}) == (
        "127.0.0.1 127.000.000.001 ::ffff:127.0.0.1|0000:0000:0000:0000:0000:ffff:7f00:0001")
    six = compile_print_fmt('"%pI6c", REC->a6', f)
    assert six.format({"a6": bytes(16)}) == "::"
    assert six.format({"a6": bytes.fromhex("20010db8000000000001000000000001")}) == "2001:db8::1:0:0:1"
    assert six.format({"a6": bytes.fromhex("20010db8000100000001000100010001")}) == "2001:db8:1:0:1:1:1:1"
    assert six.format({"a6": bytes.fromhex("fe800000000000000200" "5efe0a000001")}) == "fe80::200:5efe:10.0.0.1"


def test_socket_addresses_as_vsprintf_prints_them():
    """%pISpc of a sockaddr_in or sockaddr_in6 in an array field (tcp_probe's saddr/daddr):
    the family decides; a v6 address is bracketed before its port and compressed with 'c'."""
    f = [FieldDesc("__u8[28]", "sa", 8, 28, False)]
    pf = compile_print_fmt('"%pISpc|%pIS|%piSp", REC->sa, REC->sa, REC->sa', f)
    v4 = (2).to_bytes(2, "little") + (8080).to_bytes(2, "big") + bytes([127, 0, 0, 1]) + bytes(20)
    assert pf.format({"sa": v4}) == "127.0.0.1:8080|127.0.0.1|127.000.000.001:8080"
    v6 = (10).to_bytes(2, "little") + (443).to_bytes(2, "big") + bytes(4) + bytes(15) + b"\x01" + bytes(4)
    assert pf.format({"sa": v6}) == "[::1]:443|0000:0000:0000:0000:0000:0000:0000:0001|[00000000000000000000000000000001]:443"
    assert pf.format({"sa": bytes(28)}) == "(einval)|(einval)|(einval)"


def test_an_array_declared_with_an_expression_takes_its_element_from_the_base_type():
    """A format prints an array's length as the event wrote it (`__u8 saddr[sizeof(struct
    sockaddr_in6)]`, tcp_probe's in 6.1's source): not a number, so the element's size comes
    from the base type."""
    f = [FieldDesc("__u8[sizeof(struct sockaddr_in6)]", "sa", 8, 28, False)]
    pf = compile_print_fmt('"%pISpc %d", REC->sa, REC->sa[4]', f)
    v4 = (2).to_bytes(2, "little") + (8080).to_bytes(2, "big") + bytes([127, 0, 0, 1]) + bytes(20)
    assert pf.format({"sa": v4}) == "127.0.0.1:8080 127"


@pytest.mark.parametrize(
    "bad",
    [
        'REC->x',  # no format string
        '"%d"',  # a conversion without an argument
        '"%d", REC->a, REC->a',  # an argument too many
        '"%s", REC->a',  # %s of a number
        '"%pM", REC->a',  # an unsupported %p extension
        '"%pI4", REC->a',  # an address of a number
        '"%d", REC->nosuch',
        '"%d", __no_such_helper(REC->a)',
        '"%n", REC->a',
        '"%d", REC->a +',
    ],
)
def test_unsupported_print_fmts_fail_at_compile_time(bad):
    with pytest.raises(PrintFmtError):
        compile_print_fmt(bad, [FieldDesc("int", "a", 8, 4, True)])


def _names_outside(pf) -> set:
    """Names the generated code uses that are neither its parameters nor its own bindings,
    and attribute accesses (a way out of the namespace)."""
    tree = ast.parse(pf.code)
    bound = set(pf.function.__globals__) | {"r", "s", "h", "_print"}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    return (used - bound) | {"." + a for a in attrs}


def test_generated_code_names_only_its_own_bindings():
    for event, (fields, print_fmt) in FORMATS.items():
        pf = compile_print_fmt(print_fmt, fields)
        assert _names_outside(pf) == set(), event
        assert pf.function.__globals__["__builtins__"] == {}, event


def test_field_names_and_strings_cannot_inject_code():
    # A helper's argument token is taken as the field name as written, quotes included: a
    # field may be called anything, and its name must still only ever be a key.
    evil = "\"x'] + __import__('os').getcwd() + r['\""
    fields = (FieldDesc("char[8]", evil, 8, 8, False), FieldDesc("int", "n", 16, 4, True))
    pf = compile_print_fmt(
        '"%s|%s|%d", __get_str(' + evil + '), "\\" + __import__(\\"os\\").getcwd() + \\"", REC->n + 1', fields)
    assert _names_outside(pf) == set()
    assert pf.format({evil: b"'+r+'", "n": 41}) == "'+r+'|\" + __import__(\"os\").getcwd() + \"|42"


def test_generated_function_is_one_template_onto_the_fields():
    fields, print_fmt = FORMATS["raw_syscalls/sys_enter"]
    pf = compile_print_fmt(print_fmt, fields)
    # one function, one %, no helper calls: field reads and masks inlined
    assert pf.code.startswith("def _print(r, s, h):\n    return ") and pf.code.count(" % (") == 1
    assert not [n for n in ast.walk(ast.parse(pf.code)) if isinstance(n, ast.Call)]


@pytest.mark.parametrize("depth", [30, 60, 150])
def test_nesting_compiles_or_fails_at_compile_time(depth):
    fields = (FieldDesc("int", "n", 8, 4, True), FieldDesc("unsigned char", "c", 12, 1, False))
    expr = "REC->n"
    for _ in range(depth):
        expr = f"(REC->c ? {expr} + 1 : (u8)REC->n - REC->c)"
    if depth > 30:  # past what Python compiles (or parses recursively)
        with pytest.raises(PrintFmtError):
            compile_print_fmt('"%d", ' + expr, fields)
    else:
        pf = compile_print_fmt('"%d", ' + expr, fields)
        assert pf.format({"n": 5, "c": 1}) == str(5 + depth)
        assert pf.format({"n": 5, "c": 0}) == "5"


def test_enum_names_the_kernel_printer_knows():
    """hrtimer modes stay names in 6.1's format (no eval map): the printer resolves them from
    the kernel's enum constants, and refuses a name it was not given."""
    fields = [FieldDesc("enum hrtimer_mode", "mode", 8, 4, False)]
    fmt = '"mode=%s", __print_symbolic(REC->mode, { HRTIMER_MODE_ABS, "ABS" }, { HRTIMER_MODE_REL_PINNED_HARD, "REL|PINNED|HARD" })'
    names = {"HRTIMER_MODE_ABS": 0, "HRTIMER_MODE_REL_PINNED_HARD": 11}
    printer = compile_print_fmt(fmt, fields, names)
    assert printer.format({"mode": 11}) == "mode=REL|PINNED|HARD"
    assert printer.format({"mode": 0}) == "mode=ABS"
    with pytest.raises(PrintFmtError):
        compile_print_fmt(fmt, fields)


def test_a_string_recorded_by_address_prints_from_the_kernels_strings():
    """rcu_utilization's `const char *s`: %s prints the kernel's string at that address (its
    tracepoint_string()s); NULL prints "(null)", an address the host cannot read "(efault)"."""
    fields = [FieldDesc("const char *", "s", 8, 8, False)]
    printer = compile_print_fmt('"%s", REC->s', fields, strings={0xFFFFFFFF81020000: "Start RCU core"})
    assert printer.format({"s": 0xFFFFFFFF81020000}) == "Start RCU core"
    assert printer.format({"s": 0}) == "(null)"
    assert printer.format({"s": 0xFFFFFFFF81020001}) == "(efault)"
