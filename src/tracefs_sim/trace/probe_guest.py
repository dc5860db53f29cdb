"""A probe event's fetch arguments compiled for the guest: each FetchInsn program (probe_args)
becomes the guest's struct kg_arg (probes.kprobes.guest.GuestFetchArg), which the guest's
kernel/trace_probe.c runs at a hit as Linux's process_fetch_insn() does: an enabled probe
event runs no Python.

What the guest interpreter covers: register, $argN, $stackN, $stack, $retval, @SYM and
immediate loads, $comm, dereference chains (kernel and user), numeric stores and bitfields,
string, ustring and symstr (the kernel's own kallsyms names the symbol), arrays of numbers and
of strings, immediate strings; for a uprobe (every read a copy from user memory) all of those,
$stackN from the user stack and @+OFFSET in the probed file: every argument Linux accepts
(KG_MAX_DEREF is its most dereferences).  A probe event the guest's tables have no room for is
ENOMEM.  tests/probes/test_kprobe_guest.py and test_uprobe_guest.py check the guest's records
byte for byte against the tests' reference interpreter (tests/probe_fetch_reference.py: Linux's
process_fetch_insn() and store_trace_args() as plain code)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ..probes.kprobes.guest import (
    KG_MAX_DEREF, LOAD_COMM, LOAD_DATA, LOAD_FIELD, LOAD_FOFFS, LOAD_IMM, LOAD_IP, LOAD_REG, LOAD_STACK, LOAD_USTACK,
    ST_MEM, ST_RAW, ST_STRING,
    ST_SYMSTR, ST_UMEM, ST_USTRING, GuestFetchArg, GuestRecord,
)
from ..probes.kprobes.regs import PT_REGS
from .probe_args import ARGUMENT_REGISTERS, ProbeArg

_STORES = {"st_raw": ST_RAW, "st_mem": ST_MEM, "st_umem": ST_UMEM, "st_string": ST_STRING,
           "st_ustring": ST_USTRING, "st_symstr": ST_SYMSTR}


_M64 = (1 << 64) - 1


def _unparsed(arg: ProbeArg) -> ValueError:
    return ValueError(f"not a fetch program the parser makes: {[insn.op for insn in arg.code]}")


def _compile_arg(arg: ProbeArg, user: bool, probe_offset: int) -> GuestFetchArg:
    """One argument's program for the guest.  user: a uprobe's, whose every read is a copy
    from user memory (a kernel address faults), probed at probe_offset in its file."""
    code = arg.code
    i = 1 if code[0].op == "symbol" else 0
    first = code[i]
    param = imm = 0
    op = first.op
    if (op == "comm" and arg.type.is_string and code[i + 1].op == "st_string") or op == "data":
        text = cast(bytes, first.data).split(b"\0", 1)[0] if op == "data" else b""
        if not arg.type.is_string or arg.count or len(text) >= 8 * KG_MAX_DEREF:
            raise _unparsed(arg)
        return GuestFetchArg(LOAD_COMM if op == "comm" else LOAD_DATA, ST_STRING, 4, arg.offset, data=text)
    if op == "comm":  # an eprobe's $comm as a number or dereferenced: current->comm's address
        load = LOAD_COMM
    elif op == "tp_arg":  # an eprobe's $FIELD: param the field's offset, imm its kind
        load, param, imm = LOAD_FIELD, first.param, first.immediate
    elif op == "reg":
        load = LOAD_IP if first.data == "ip" else LOAD_REG
        param = PT_REGS.index(first.data) if load == LOAD_REG else 0
    elif op == "arg" and not user:  # (a function's entry in the kernel only)
        if first.param < len(ARGUMENT_REGISTERS):
            load, param = LOAD_REG, PT_REGS.index(ARGUMENT_REGISTERS[first.param])
        else:
            load, param = LOAD_STACK, first.param - len(ARGUMENT_REGISTERS) + 1
    elif op == "stack":  # a uprobe's: get_user_stack_nth(), a copy from the user stack
        load, param = LOAD_USTACK if user else LOAD_STACK, first.param
    elif op == "stackp":
        load, param = LOAD_REG, PT_REGS.index("sp")
    elif op == "retval":  # regs_return_value(): the trampoline's regs
        load, param = LOAD_REG, PT_REGS.index("ax")
    elif op == "imm":
        load, imm = LOAD_IMM, first.immediate
    elif op == "foffs":  # translate_user_vaddr(): the probed address less its file offset, plus this one
        load, imm = LOAD_FOFFS, (first.immediate - probe_offset) & _M64
    else:
        raise _unparsed(arg)
    i += 1
    derefs: list[int] = []
    user_mask = 0
    while code[i].op in ("deref", "uderef"):
        if code[i].op == "uderef" or user:
            user_mask |= 1 << len(derefs)
        derefs.append(code[i].offset)
        i += 1
    st = code[i]
    store = _STORES.get(st.op)
    if store is None or len(derefs) > KG_MAX_DEREF:
        raise _unparsed(arg)
    if user:
        store = {ST_MEM: ST_UMEM, ST_STRING: ST_USTRING}.get(store, store)
    basesize = lshift = rshift = 0
    mod = code[i + 1]
    if mod.op == "mod_bf":
        basesize, lshift, rshift = mod.basesize, mod.lshift, mod.rshift
    size = 4 if store >= ST_STRING else st.size
    return GuestFetchArg(load, store, size, arg.offset, param=param, imm=imm, derefs=tuple(derefs),
                         user_mask=user_mask, basesize=basesize, lshift=lshift, rshift=rshift,
                         count=arg.count, st_offset=st.offset)


def compile_args(event_type: int, args: Sequence[ProbeArg], *, user: bool = False,
                 probe_offset: int = 0) -> GuestRecord:
    """A kprobe, kretprobe, eprobe or (user) uprobe event's record program (a uprobe's probed
    at probe_offset in its file): every argument the parser accepts compiles."""
    return GuestRecord(event_type, tuple(_compile_arg(a, user, probe_offset) for a in args),
                       sum(a.size for a in args))
