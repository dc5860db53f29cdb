#!/usr/bin/env python3
"""Generate the emulated kernel's syscall tables from Linux 6.1's own definitions.

Run by hand when the model implements another syscall (CI has no kernel source); the output is
committed:

    kernel_model/scripts/gen_syscalls.py [--linux /usr/src/linux-source-6.1.tar.xz]
                                         [--kallsyms .../linux-6.1/full/kallsyms.txt]

Inputs, all Linux 6.1's:
- arch/x86/entry/syscalls/syscall_64.tbl, entries of the `common` and `64` ABIs: the x86-64
  numbers and entry points, as scripts/syscalltbl.sh reads them for asm/syscalls_64.h;
- every SYSCALL_DEFINEn(name, type, arg, ...) of the tree (other architectures, UML and the
  tools left out): a table entry's name, argument types and names.  A syscall defined more than
  once with different signatures (clone) is resolved by the #if around each definition, with the
  options x86-64 selects in arch/x86/Kconfig;
- the reference kernel's kallsyms: where gcc kept a `__do_sys_<name>` out of line.

Outputs (paths under kernel_model/):
- kernel/syscall_table.h   number -> entry point, holes and entries without one sys_ni_syscall;
- kernel/syscall_events.h  SCn(nr, name, type, arg, ...) for every entry with a SYSCALL_DEFINE:
                           6.1 registers syscalls:sys_enter_/sys_exit_<name> for exactly those
                           (SYSCALL_DEFINE emits the metadata; init_ftrace_syscalls() maps each
                           table entry to the metadata whose name matches its symbol, and an
                           event whose metadata no entry maps is dropped);
- include/syscalls_gen.h   what SYSCALL_DEFINE needs: the struct tags the prototypes name, and
                           __DO_SYS_<name>: out of line where 6.1's kallsyms has a
                           __do_sys_<name>, inlined elsewhere;
- kernel/sys_ni.c          the SYSCALL_DEFINEs of the syscalls the model does not implement
                           (their bodies return sys_ni_syscall()), and COND_SYSCALL for the
                           entries 6.1 defines nowhere (its weak __x64_sys_<name>);
- SYSCALLS.md              which syscalls the model implements and which return ENOSYS.

The syscalls the model implements are the SYSCALL_DEFINEs found in kernel_model/{kernel,kernel/events,kernel/bpf,fs,net,
fs/proc,drivers,mm,block}/*.c (other than the generated sys_ni.c); their signatures must be 6.1's.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MODEL = Path(__file__).resolve().parents[1]
DEFAULT_LINUX = "/work/linux-src/linux-source-6.1"
DEFAULT_KALLSYMS = "/work/shared/reference/linux-6.1/full/kallsyms.txt"
TABLE = "arch/x86/entry/syscalls/syscall_64.tbl"
TABLE_ABIS = ("common", "64")
GENERATED_NI = "sys_ni.c"
NI_ENTRY = "sys_ni_syscall"
NI_NAME = NI_ENTRY[len("sys_"):]
# Trees whose SYSCALL_DEFINEs an x86-64 kernel does not build.
# Where the model's own SYSCALL_DEFINEs are.
MODEL_SOURCE_DIRS = ("kernel", "kernel/sched", "kernel/events", "kernel/bpf", "fs", "fs/proc", "fs/notify/inotify", "drivers", "net", "mm", "block", "ipc")
SKIPPED_DIRS = ("Documentation/", "samples/", "scripts/", "tools/", "arch/x86/um/")


@dataclass(frozen=True)
class Param:
    type: str   # as the kernel's metadata stringifies it: `__user` gone, spaces normalised
    name: str


@dataclass(frozen=True)
class Definition:
    name: str
    params: tuple[Param, ...]
    path: str                   # where in the tree
    conditions: tuple[tuple[str, int, str], ...]   # (file:line of the #if, branch, expr) around it


@dataclass(frozen=True)
class Entry:
    nr: int
    name: str                   # the table's name (stat)
    entry: str | None           # its entry point (sys_newstat), None: none in the table


# ---- reading the tree (a directory or the Debian tarball) ----

def _wanted(rel: str) -> bool:
    if not rel.endswith((".c", ".h")) or rel.startswith(SKIPPED_DIRS):
        return False
    return not rel.startswith("arch/") or rel.startswith("arch/x86/")


def tree_files(linux: str) -> Iterator[tuple[str, str]]:
    """(path in the tree, text) of the syscall table, arch/x86/Kconfig, arch/Kconfig and every C
    file that may define a syscall."""
    extra = (TABLE, "arch/x86/Kconfig", "arch/Kconfig")
    if os.path.isdir(linux):
        for rel in extra:
            yield rel, Path(linux, rel).read_text()
        for dirpath, dirnames, filenames in os.walk(linux):
            dirnames.sort()
            for filename in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, filename), linux)
                if _wanted(rel):
                    text = Path(dirpath, filename).read_text(errors="replace")
                    if "SYSCALL_DEFINE" in text:
                        yield rel, text
        return
    with tarfile.open(linux) as tar:
        for member in tar:
            rel = member.name.split("/", 1)[1] if "/" in member.name else member.name
            if member.isfile() and (rel in extra or _wanted(rel)):
                text = tar.extractfile(member).read().decode(errors="replace")
                if rel in extra or "SYSCALL_DEFINE" in text:
                    yield rel, text


def parse_table(text: str) -> list[Entry]:
    entries = []
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 3 and fields[1] in TABLE_ABIS:
            entries.append(Entry(int(fields[0]), fields[2], fields[3] if len(fields) > 3 else None))
    return entries


# ---- SYSCALL_DEFINEn ----

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"\bSYSCALL_DEFINE([0-6])\s*\(")
_DIRECTIVE = re.compile(r"\s*#\s*(\w+)\s*(.*)")


def normalise_type(ctype: str) -> str:
    """The type as SYSCALL_METADATA's #t gives it: __user expands to nothing, and the
    stringification keeps one space where there was any."""
    return " ".join(re.sub(r"\b__user\b", " ", ctype).split())


def split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments of a macro call's text."""
    args, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
    args.append(text[start:].strip())
    return args


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first physical line number, text) with comments removed and continuations joined."""
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n") or " ", text)
    out, pending, first = [], "", 0
    for number, line in enumerate(text.split("\n"), 1):
        if not pending:
            first = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((first, pending + line))
        pending = ""
    return out


def find_definitions(rel: str, text: str) -> list[Definition]:
    """The SYSCALL_DEFINEs of one file, each with the #if/#elif/#else branches it sits in."""
    found = []
    stack: list[list] = []      # [where, branch index, [conditions of the branches so far]]
    body: list[tuple[tuple, str]] = []   # code lines with the stack they are under
    for number, line in _logical_lines(text):
        directive = _DIRECTIVE.match(line)
        if not directive:
            body.append((tuple((where, branch, conds[-1]) for where, branch, conds in stack), line))
            continue
        word, rest = directive.groups()
        if word in ("if", "ifdef", "ifndef"):
            expr = {"if": rest, "ifdef": f"defined({rest.strip()})", "ifndef": f"!defined({rest.strip()})"}[word]
            stack.append([f"{rel}:{number}", 0, [expr]])
        elif word in ("elif", "else") and stack:
            frame = stack[-1]
            previous = " && ".join(f"!({c})" for c in frame[2])
            frame[1] += 1
            frame[2] = frame[2] + [f"{previous} && ({rest})" if word == "elif" else previous]
        elif word == "endif" and stack:
            stack.pop()
    # A definition may span lines; it never spans a directive.
    runs: list[tuple[tuple, str]] = []
    for conds, line in body:
        if runs and runs[-1][0] == conds:
            runs[-1] = (conds, runs[-1][1] + "\n" + line)
        else:
            runs.append((conds, line))
    for conds, code in runs:
        for match in _DEFINE.finditer(code):
            depth, i = 1, match.end()
            while depth:
                depth += {"(": 1, ")": -1}.get(code[i], 0)
                i += 1
            name, *rest = split_args(code[match.end():i - 1])
            nargs = int(match.group(1))
            if len(rest) != 2 * nargs:
                raise SystemExit(f"{rel}: SYSCALL_DEFINE{nargs}({name}, ...) has {len(rest)} type/arg words")
            params = tuple(Param(normalise_type(t), a) for t, a in zip(rest[0::2], rest[1::2]))
            found.append(Definition(name, params, rel, conds))
    return found


# ---- x86-64's view of #if conditions, for syscalls defined more than once ----

def x86_64_selects(x86_kconfig: str) -> set[str]:
    """The options `config X86` and `config X86_64` select unconditionally."""
    selected, block = set(), None
    for line in x86_kconfig.splitlines():
        config = re.match(r"config\s+(\w+)", line)
        if config:
            block = config.group(1)
        select = re.match(r"\s+select\s+(\w+)\s*$", line)
        if select and block in ("X86", "X86_64"):
            selected.add(select.group(1))
    return selected | {"X86", "X86_64", "64BIT", "MMU"}


class Unknown(Exception):
    pass


def evaluate(expr: str, selected: set[str], arch_options: set[str]) -> bool:
    """A preprocessor condition made of CONFIG_ options: true if x86-64 selects the option,
    false if it is an architecture capability (arch/Kconfig) x86-64 does not select; anything
    else is Unknown."""
    def option(name: str) -> str:
        if not name.startswith("CONFIG_"):
            raise Unknown(name)
        name = name[len("CONFIG_"):]
        if name in selected:
            return "True"
        if name in arch_options:
            return "False"
        raise Unknown(name)

    python = re.sub(r"(?:defined|IS_ENABLED)\s*\(?\s*(\w+)\s*\)?", lambda m: option(m.group(1)), expr)
    python = python.replace("&&", " and ").replace("||", " or ")
    python = re.sub(r"!(?!=)", " not ", python)
    if re.search(r"\b(?!True\b|False\b|and\b|or\b|not\b)[A-Za-z_]\w*", python):
        raise Unknown(expr)
    return bool(eval(python, {"__builtins__": {}}))  # only True/False/and/or/not remain


def choose(definitions: list[Definition], selected: set[str], arch_options: set[str]) -> Definition:
    """The definition x86-64 builds among several with different signatures: the conditions
    they all share are left aside, the others must hold for exactly one."""
    shared = set.intersection(*(set(d.conditions) for d in definitions))
    built = []
    for definition in definitions:
        try:
            if all(evaluate(cond[2], selected, arch_options) for cond in definition.conditions
                   if cond not in shared):
                built.append(definition)
        except Unknown as unknown:
            raise SystemExit(f"{definition.path}: cannot tell whether x86-64 builds "
                             f"{definition.name}: {unknown}") from None
    if len(built) != 1:
        raise SystemExit(f"syscall {definitions[0].name}: {len(built)} definitions built for x86-64")
    return built[0]


def syscall_definitions(files: Iterator[tuple[str, str]]) -> tuple[list[Entry], dict[str, Definition]]:
    table, x86_kconfig, arch_kconfig = "", "", ""
    by_name: dict[str, list[Definition]] = {}
    for rel, text in files:
        if rel == TABLE:
            table = text
        elif rel == "arch/x86/Kconfig":
            x86_kconfig = text
        elif rel == "arch/Kconfig":
            arch_kconfig = text
        else:
            for definition in find_definitions(rel, text):
                by_name.setdefault(definition.name, []).append(definition)
    if not table:
        raise SystemExit(f"{TABLE} not found in the tree")
    selected = x86_64_selects(x86_kconfig)
    arch_options = set(re.findall(r"^config\s+(\w+)", arch_kconfig, re.M))
    entries = parse_table(table)
    chosen = {}
    for name in {e.entry[len("sys_"):] for e in entries if e.entry} & set(by_name):
        definitions = by_name[name]
        signatures = {d.params for d in definitions}
        chosen[name] = definitions[0] if len(signatures) == 1 else choose(definitions, selected, arch_options)
    return entries, chosen


# ---- the model's side ----

def model_implemented(model: Path) -> dict[str, Definition]:
    implemented = {}
    sources = [p for d in MODEL_SOURCE_DIRS for p in sorted((model / d).glob("*.c"))]
    for path in sources:
        if path.name == GENERATED_NI:
            continue
        rel = path.relative_to(model).as_posix()
        for definition in find_definitions(rel, path.read_text()):
            if definition.name == NI_NAME:
                continue    # the entry of numbers no syscall has, not a syscall
            if definition.name in implemented:
                raise SystemExit(f"{definition.path}: {definition.name} defined twice in the model")
            implemented[definition.name] = definition
    return implemented


def out_of_line_do_sys(kallsyms: str) -> set[str]:
    """Names whose __do_sys_<name> is a symbol of the reference kernel."""
    names = set()
    for line in Path(kallsyms).read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[2].startswith("__do_sys_"):
            names.add(parts[2][len("__do_sys_"):])
    return names


# ---- output ----

HEADER = ("/* Generated by kernel_model/scripts/gen_syscalls.py from Linux 6.1's {source}; do not edit:\n"
          " * change the generator or the model and run it again. */\n")


def sc_line(nr: int, definition: Definition) -> str:
    words = [str(nr), definition.name] + [w for p in definition.params for w in (p.type, p.name)]
    return f"SC{len(definition.params)}({', '.join(words)})\n"


def define_line(definition: Definition) -> str:
    words = [definition.name] + [w for p in definition.params for w in (p.type, p.name)]
    return f"SYSCALL_DEFINE{len(definition.params)}({', '.join(words)})"


def struct_names(definitions: list[Definition]) -> list[str]:
    """`struct X`/`union X` tags the prototypes name, for forward declarations."""
    tags = {m.group(0) for d in definitions for p in d.params
            for m in re.finditer(r"\b(?:struct|union)\s+\w+", p.type)}
    return sorted(tags)


def generate(entries: list[Entry], defined: dict[str, Definition], implemented: dict[str, Definition],
             do_sys_symbols: set[str]) -> dict[str, str]:
    numbered = {e.nr: e for e in entries}
    nr_syscalls = max(numbered) + 1
    table = [HEADER.format(source="arch/x86/entry/syscalls/syscall_64.tbl (abis common, 64)"),
             "/* number -> entry point, as scripts/syscalltbl.sh writes asm/syscalls_64.h: holes and\n"
             " * entries without an entry point go to sys_ni_syscall */\n"]
    events = [HEADER.format(source="syscall_64.tbl and SYSCALL_DEFINEs"),
              "/* The syscalls:* events: number, name, arguments as SYSCALL_DEFINE declares them */\n"]
    inline = ["/* __DO_SYS_<name>: how SYSCALL_DEFINEx builds __do_sys_<name> (syscalls.h): out of line\n"
              " * where 6.1's kallsyms has the symbol, inlined into __x64_sys_<name> elsewhere. */\n"]
    tags = [HEADER.format(source="SYSCALL_DEFINEs and its kernel's kallsyms"),
            "/* the struct and union tags the syscalls' prototypes name */\n"]
    ni = [HEADER.format(source="syscall_64.tbl and SYSCALL_DEFINEs"),
          "/*\n * The x86-64 syscalls of Linux 6.1 the model does not implement yet.  Each has 6.1's\n"
          " * entry point (__x64_sys_<name> from its SYSCALL_DEFINE, so its syscalls:* events too)\n"
          " * and fails with -ENOSYS through sys_ni_syscall(), as a syscall configured out does.\n"
          " * Entries 6.1 defines nowhere get COND_SYSCALL's weak entry and no events, as there.\n */\n"
          '#include "../include/syscalls.h"\n\n']
    status = ["# The x86-64 syscalls of the emulated kernel\n\n",
              "Generated by `kernel_model/scripts/gen_syscalls.py` from Linux 6.1's\n",
              "`arch/x86/entry/syscalls/syscall_64.tbl` and `SYSCALL_DEFINE`s; do not edit.\n\n"]
    unknown = set(implemented) - {e.entry[len("sys_"):] for e in entries if e.entry}
    if unknown:
        raise SystemExit(f"the model defines syscalls x86-64 6.1 does not have: {sorted(unknown)}")
    rows, not_implemented, cond, prototyped = [], [], [], []
    for nr in range(nr_syscalls):
        entry = numbered.get(nr)
        if entry is None or entry.entry in (None, NI_ENTRY):
            table.append(f"__SYSCALL({nr}, {NI_ENTRY})\n")
            continue
        table.append(f"__SYSCALL({nr}, {entry.entry})\n")
        name = entry.entry[len("sys_"):]
        definition = defined.get(name)
        if definition is None:
            cond.append(name)
            rows.append(f"| {nr} | {entry.name} | `__x64_sys_{name}` | none | ENOSYS (6.1 defines it nowhere) |\n")
            continue
        events.append(sc_line(nr, definition))
        prototyped.append(definition)
        if definition.params:
            attr = "__DO_SYS_OUT_OF_LINE" if name in do_sys_symbols else "__DO_SYS_INLINED"
            inline.append(f"#define __DO_SYS_{name} {attr}\n")
        elif name not in do_sys_symbols:
            raise SystemExit(f"SYSCALL_DEFINE0({name}): 6.1 has no __do_sys_{name} alias")
        model = implemented.get(name)
        if model is not None and model.params != definition.params:
            raise SystemExit(f"{model.path}: {define_line(model)} is not 6.1's {define_line(definition)}")
        if model is None:
            not_implemented.append(definition)
        rows.append(f"| {nr} | {entry.name} | `__x64_sys_{name}` | sys_enter_{name}, sys_exit_{name} | "
                    f"{'implemented' if model else 'ENOSYS'} |\n")
    tags += [f"{tag};\n" for tag in struct_names(prototyped)]
    for definition in not_implemented:
        ni.append(f"/* {definition.path} */\n{define_line(definition)}\n{{\n\treturn sys_ni_syscall();\n}}\n\n")
    for name in cond:
        ni.append(f"/* kernel/sys_ni.c */\nCOND_SYSCALL({name});\n")
    done = sorted(implemented)
    without = [f"{e.nr} {e.name}" for e in entries if e.entry in (None, NI_ENTRY)]
    status.append(f"{len(rows)} entry points (NR_syscalls {nr_syscalls}): {len(done)} implemented, "
                  f"{len(rows) - len(done)} return ENOSYS.  The other numbers go to `__x64_sys_ni_syscall` and\n"
                  f"fail with ENOSYS too: the table's holes, all from {nr_syscalls} on, and its entries without\n"
                  f"an entry point: {', '.join(without)}.\n\nImplemented: {', '.join(done)}.\n\n")
    status.append("| nr | name | entry point | events | in the model |\n|---|---|---|---|---|\n")
    status += rows
    return {"kernel/syscall_table.h": "".join(table), "kernel/syscall_events.h": "".join(events),
            "include/syscalls_gen.h": "".join(tags + ["\n"] + inline), f"kernel/{GENERATED_NI}": "".join(ni),
            "SYSCALLS.md": "".join(status)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--linux", default=DEFAULT_LINUX,
                        help="Linux 6.1 source: a tree or linux-source-6.1.tar.xz (default %(default)s)")
    parser.add_argument("--kallsyms", default=DEFAULT_KALLSYMS,
                        help="the reference 6.1 kernel's /proc/kallsyms (default %(default)s)")
    parser.add_argument("--model", default=str(MODEL), help="kernel_model directory (default %(default)s)")
    args = parser.parse_args(argv)
    entries, defined = syscall_definitions(tree_files(args.linux))
    model = Path(args.model)
    outputs = generate(entries, defined, model_implemented(model), out_of_line_do_sys(args.kallsyms))
    for rel, text in outputs.items():
        (model / rel).write_text(text)
        print(f"wrote {model / rel}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
