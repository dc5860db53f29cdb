"""The package's native code, built by the package's own build (pyproject.toml holds the rest):
`pip install .` (or `-e .`, which setup.sh does) compiles it with the interpreter it installs
for; `python setup.py build_ext --inplace` rebuilds what changed in a checkout.

- trace/native/*.c: CPython extension modules of the trace core (tracefs_sim.trace._NAME).
- machine/native/*.c: shared libraries the machine loads with ctypes (machine/native_lib.py),
  built next to their sources as machine/native/libNAME.so; they are no Python modules.
- session/native/*.c: tracefs-sim-init, the program a session's PID namespace runs as its
  pid 1 (session/launch.py), built next to its sources; it includes the kernel's
  include/uapi/session_ring.h (the ring it shares with the emulated kernel).

The emulated kernel is not built here: `make -C kernel_model` builds it.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

TRACE_NATIVE = Path("src/tracefs_sim/trace/native")
MACHINE_NATIVE = Path("src/tracefs_sim/machine/native")
SESSION_NATIVE = Path("src/tracefs_sim/session/native")
KERNEL_UAPI = Path("kernel_model/include/uapi")
CFLAGS = ["-O2", "-Wall", "-Wextra", "-fno-strict-aliasing"]


class CtypesLibrary(Extension):
    """A plain shared library (no module init), loaded with ctypes: named libNAME.so, with no
    interpreter tag, in the package directory of its full name."""


class Executable(Extension):
    """A program (no module, no library), named by its full name's last part, in the package
    directory of the rest."""


class BuildNative(build_ext):
    def get_ext_filename(self, fullname: str) -> str:
        """(Asked with an extension's full name, and with its last part only.)"""
        for ext in self.extensions:
            if isinstance(ext, (CtypesLibrary, Executable)) and fullname in (ext.name, ext.name.rsplit(".", 1)[-1]):
                *package, name = fullname.split(".")
                return str(Path(*package, name if isinstance(ext, Executable) else f"lib{name}.so"))
        return str(super().get_ext_filename(fullname))

    def get_export_symbols(self, ext: Extension) -> list[str]:
        return [] if isinstance(ext, CtypesLibrary) else list(super().get_export_symbols(ext))

    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, Executable):
            super().build_extension(ext)
            return
        target = Path(self.get_ext_fullpath(ext.name))
        newest = max(Path(p).stat().st_mtime for p in [*ext.sources, *ext.depends])
        if target.exists() and target.stat().st_mtime >= newest and not self.force:
            return
        objects = self.compiler.compile(ext.sources, output_dir=self.build_temp, include_dirs=ext.include_dirs,
                                        extra_postargs=ext.extra_compile_args, depends=ext.depends)
        target.parent.mkdir(parents=True, exist_ok=True)
        self.compiler.link_executable(objects, target.name, output_dir=str(target.parent),
                                      extra_postargs=ext.extra_link_args)


def _sources(directory: Path, *names: str) -> list[str]:
    return [str(directory / name) for name in names]


def _headers(directory: Path) -> list[str]:
    return [str(path) for path in sorted(directory.glob("*.h"))]


trace_modules = [
    Extension(f"tracefs_sim.trace._{source.stem}", [str(source)],
              depends=[*_headers(TRACE_NATIVE), str(KERNEL_UAPI / "ring_page.h")], include_dirs=[str(KERNEL_UAPI)],
              extra_compile_args=CFLAGS)
    for source in sorted(TRACE_NATIVE.glob("*.c"))
]
# name -> its sources (the slice timer, block hook and live run loop, the PMU's instruction hook; the int3 gate; the
# syscall and out instructions, with the hostfs server; the disk (nvme.c): machine/slicer.py, runloop.py,
# int3_gate.py, cpu.py, hostfs.py)
machine_libraries = {
    "slice": ("slice.c", "runloop.c", "nvme.c", "pmu_insn.c"),
    "int3": ("int3.c",),
    "syscall": ("syscall.c",),
    "ports": ("ports.c", "hostfs.c"),
}
ctypes_libraries = [
    CtypesLibrary(f"tracefs_sim.machine.native.{name}", _sources(MACHINE_NATIVE, *files),
                  depends=[*_headers(MACHINE_NATIVE), str(KERNEL_UAPI / "hostfs.h"), str(KERNEL_UAPI / "nvme.h")],
                  include_dirs=[str(KERNEL_UAPI)], extra_compile_args=[*CFLAGS, "-pthread"], extra_link_args=["-pthread"])
    for name, files in machine_libraries.items()
]

session_programs = [
    Executable("tracefs_sim.session.native.tracefs-sim-init", [str(p) for p in sorted(SESSION_NATIVE.glob("*.c"))],
               depends=[*_headers(SESSION_NATIVE), str(KERNEL_UAPI / "session_ring.h")],
               include_dirs=[str(KERNEL_UAPI)], extra_compile_args=[*CFLAGS, "-pthread"],
               extra_link_args=["-pthread"])
]

setup(ext_modules=[*trace_modules, *ctypes_libraries, *session_programs], cmdclass={"build_ext": BuildNative})
