"""Fetch arguments: compiled programs, their execution against registers and memory (the
tests' reference interpreter, probe_fetch_reference.py), records and printing (the parts the
real-kernel replay in test_kprobe_spec.py cannot see: register and stack values, user memory,
faults in the middle of a chain)."""

from __future__ import annotations

import errno
import struct

import pytest

from tracefs_sim.trace.probe_args import (
    MAX_STRING_SIZE,
    TASK_SIZE,
    ArgFlags,
    ProbeError,
    ProbeLog,
    decode_args,
    format_args,
    parse_probe_arg,
    print_fmt,
    sprint_symbol,
)
from tests import probe_fetch_reference as reference
from tests.probe_fetch_reference import MemoryContext

KERNEL = ArgFlags.KERNEL
ENTRY = ArgFlags.KERNEL | ArgFlags.FENTRY
RETURN = ArgFlags.KERNEL | ArgFlags.FENTRY | ArgFlags.RETURN

K = 0xFFFF_8880_0000_1000  # a kernel data address
U = 0x0000_7FFF_F000_0000  # a user address


def compile_args(*texts, flags=ENTRY):
    argv = ["p:ev", "vfs_read", *texts]
    log = ProbeLog(argv)
    args = []
    size = 0
    for i, text in enumerate(texts):
        log.index = i + 2
        a = parse_probe_arg(text, i, args, size, flags, log)
        args.append(a)
        size += a.size
    return args


def q(*words):
    return b"".join(struct.pack("<Q", w) for w in words)


fetch = reference.fetch


def record(args, ctx):
    """The whole record of a kprobe hit (a zero common header)."""
    return bytes(8) + reference.record_body(args, 16, ctx, ctx.ip)


def test_registers_and_function_arguments():
    ctx = MemoryContext(regs={"di": 1, "si": 2, "dx": 3, "cx": 4, "r8": 5, "r9": 6, "ax": 99, "sp": K},
              stack=[0xAAAA, 7, 8])
    args = compile_args("%di", "$arg2", "$arg6", "$arg7", "$arg8", "$stack", "$stack0", "%ax:s8")
    assert [fetch(a, ctx) for a in args] == [1, 2, 6, 7, 8, K, 0xAAAA, 99]
    assert [a.name for a in args] == [f"arg{i}" for i in range(1, 9)]


def test_retval_reads_ax_and_only_on_return_probes():
    (a,) = compile_args("$retval:s32", flags=RETURN)
    assert fetch(a, MemoryContext(regs={"ax": 0xFFFFFFFF_FFFFFFF2})) == 0xFFFFFFF2
    assert format_args([a], [0xFFFFFFF2], MemoryContext().symbolize) == " arg1=-14"
    with pytest.raises(ProbeError) as e:
        compile_args("$retval")
    assert e.value.message == "$retval is not available on probe" and e.value.pos == 14


def test_dereference_chain_reads_kernel_then_user_memory():
    ctx = MemoryContext(regs={"di": K, "si": U}, kmem={K: q(0, K + 8, 0xDEADBEEF)}, umem={U: q(0x1122)})
    (a, b, c) = compile_args("+8(+8(%di)):u32", "+u0(%si):u16", "+0(%si):u8")
    assert fetch(a, ctx) == 0xDEADBEEF
    assert fetch(b, ctx) == 0x1122
    # A "kernel" dereference of an address below TASK_SIZE reads user memory on x86.
    assert fetch(c, ctx) == 0x22 and ctx.reads[-1] == ("u", U, 1)


def test_a_fault_anywhere_in_the_chain_gives_none():
    ctx = MemoryContext(regs={"di": K}, kmem={K: q(0x1234)})
    (a, b, s) = compile_args("+0(+0(%di))", "+64(%di):u8", "+0(+0(%di)):string")
    assert fetch(a, ctx) is None and fetch(b, ctx) is None and fetch(s, ctx) is None
    args = [a, b, s]
    assert format_args(args, decode_args(args, record(args, ctx), 16), ctx.symbolize) == \
        " arg1=0x0 arg2=0 arg3=(fault)"


def test_strings_kernel_user_comm_immediate():
    ctx = MemoryContext(regs={"di": K, "si": U}, kmem={K: q(K + 8) + b"kernel\0"},
              umem={U: b"/etc/passwd\0"}, comm=b"bash")
    args = compile_args("k=+0(+0(%di)):string", "u=+0(%si):ustring", "s=+0(%si):string",
                        "c=$comm", 'i=\\"imm"')
    assert [fetch(a, ctx) for a in args] == [b"kernel", b"/etc/passwd", b"/etc/passwd",
                                            b"bash", b"imm"]
    assert ("us", U) in ctx.reads  # the plain string below TASK_SIZE was read as user memory


def test_string_is_cut_at_the_kernel_limit():
    ctx = MemoryContext(regs={"di": K}, kmem={K: b"x" * 5000 + b"\0"})
    (a,) = compile_args("+0(%di):string")
    assert fetch(a, ctx) == b"x" * (MAX_STRING_SIZE - 1)


def test_bitfields_and_signed_types():
    args = compile_args("a=%di:b4@4/8", "b=%di:b1@31/32", "c=%di:b64@0/64", "d=%di:s16",
                        "e=%di:x16")
    ctx = MemoryContext(regs={"di": 0x8000_00F5})
    values = [fetch(a, ctx) for a in args]
    assert values == [0xF, 1, 0x8000_00F5, 0xF5, 0xF5]
    assert format_args(args, values, ctx.symbolize) == " a=15 b=1 c=2147483893 d=245 e=0xf5"


def test_arrays_of_numbers_and_of_string_pointers():
    ctx = MemoryContext(regs={"di": K}, kmem={K: q(K + 32, K + 40) + struct.pack("<4I", 1, 2, 3, 4)
                                    + b"one\0\0\0\0\0two\0"})
    (n, s) = compile_args("n=+16(%di):u32[4]", "s=+0(%di):string[2]")
    assert fetch(n, ctx) == [1, 2, 3, 4]
    assert fetch(s, ctx) == [b"one", b"two"]
    assert format_args([n, s], decode_args([n, s], record([n, s], ctx), 16), ctx.symbolize) == \
        ' n={1,2,3,4} s={"one","two"}'


def test_record_layout_matches_the_kernel():
    args = compile_args("a=%di:u8", "s=+0(%si):string", "b=%dx:u16", "t=+0(%cx):string")
    ctx = MemoryContext(regs={"di": 7, "si": K, "dx": 0x1234, "cx": U}, kmem={K: b"ab\0"})  # (nothing at U)
    data = record(args, ctx)[16:]
    # u8 @16, data_loc @17, u16 @21, data_loc @23; strings from 27 (16 + 11).
    assert data[0] == 7
    assert struct.unpack_from("<I", data, 1)[0] == (3 << 16) | 27
    assert struct.unpack_from("<H", data, 5)[0] == 0x1234
    assert struct.unpack_from("<I", data, 7)[0] == 30  # a fault: length 0, next free offset
    assert data[11:] == b"ab\0"


def test_symstr_runs_into_the_next_string_as_in_linux():
    ctx = MemoryContext(regs={"di": 0xFFFFFFFF81000010})
    args = compile_args("a=%di:symstr", "b=%di:symstr")
    values = [fetch(a, ctx) for a in args]
    assert values == [b"f+0x10/0x100", b"f+0x10/0x100"]
    assert format_args(args, decode_args(args, record(args, ctx), 16), ctx.symbolize) == \
        ' a="f+0x10/0x100f+0x10/0x100" b="f+0x10/0x100"'


def test_symbol_printing():
    sym = MemoryContext().symbolize
    assert sprint_symbol(sym, 0xFFFFFFFF81000000) == "f+0x0/0x100"
    assert sprint_symbol(sym, 1) == "0x1"
    (a,) = compile_args("%ip:symbol")
    assert format_args([a], [0xFFFFFFFF81000005], sym) == " arg1=f+0x5/0x100"


def test_print_fmt_of_every_kind():
    args = compile_args("a=%di:u8", "b=+0(%si):string", "c=+0(%si):x16[2]", "d=+0(%si):string[2]")
    assert print_fmt(args, "(%lx)", ", REC->__probe_ip") == (
        '"(%lx) a=%u b=\\"%s\\" c={0x%x,0x%x} d={\\"%s\\",\\"%s\\"}", REC->__probe_ip, REC->a, '
        "__get_str(b), REC->c[0], REC->c[1], __get_str(d[0]), __get_str(d[1])")


def test_symbol_arguments_resolve_at_registration():
    (a, b) = compile_args("@jiffies+8", "@bad+x")
    assert a.code[0].op == "symbol" and a.code[0].data == "jiffies+8"
    resolved = a.resolve({"jiffies": K}.get)
    assert fetch(resolved, MemoryContext(kmem={K + 8: q(5)})) == 5
    assert a.resolve({}.get) == -errno.ENOENT
    assert b.resolve({"bad": K}.get) == -errno.EINVAL


@pytest.mark.parametrize("text,message,pos", [
    ("+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%ax)))))))))))))))",
     "Dereference is too much nested", 17),  # the outermost level overflows
    ("a=+u0(%zz)", "Invalid register name", 19),  # one column early, as Linux
    ("a=@+4", "File offset is not available with kprobe", 16),
    ("$arg7", "Invalid $-variable specified", 14),
])
def test_errors_and_carets(text, message, pos):
    flags = KERNEL if text == "$arg7" else ENTRY  # $argN needs a function entry
    with pytest.raises(ProbeError) as e:
        compile_args(text, flags=flags)
    assert (e.value.message, e.value.pos, e.value.errno) == (message, pos, errno.EINVAL)


def test_error_past_the_last_word_points_after_it():
    log = ProbeLog(["p:ev", "f", "a"])
    log.index = 3
    err = log.error(5, "DIFF_ARG_TYPE")
    assert err.pos == len("p:ev f a ") and err.command == "p:ev f a"


def test_task_size_is_x86_64s():
    assert TASK_SIZE == 0x7FFFFFFFF000
