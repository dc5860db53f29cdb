"""The package type-checks: mypy, configured in pyproject.toml ([tool.mypy]: strict on
src/tracefs_sim), reports no error."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_strict_is_clean() -> None:
    # (the first run, with no cache, takes about a minute on a loaded box)
    run = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT,
                         capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout + run.stderr
