"""recipe: wall time of each mountpoint_scripts/*.sh under `tracefs-sim run`.

Each recipe runs in a fresh `tracefs-sim run SCRIPT` (so its time includes the session's
start: compare with boot's `tracefs-sim run -c true`). A recipe that exits non-zero is a
failure, reported with its status and last line of error output, never as a time."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .launch import tracefs_sim
from .runner import Sample

NAME = "recipe"
SCRIPTS = Path(__file__).resolve().parents[3] / "mountpoint_scripts"
TIMEOUT_S = 120.0


def recipes() -> list[Path]:
    return sorted(SCRIPTS.glob("*.sh"))


def _run(script: Path) -> Sample:
    figure = script.name
    t0 = time.perf_counter()
    try:
        done = subprocess.run(tracefs_sim("run", str(script)), capture_output=True, text=True,
                              timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Sample(figure, "s", None, f"still running after {TIMEOUT_S:.0f} s")
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1][:160]
        return Sample(figure, "s", None, f"exit {done.returncode}: {last}")
    return Sample(figure, "s", elapsed)


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    scripts = recipes()
    if not scripts:
        raise FileNotFoundError(f"no recipes in {SCRIPTS}")
    yield lambda: [_run(script) for script in scripts]
