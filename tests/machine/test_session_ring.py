"""The session ring's layout as the machine reads it (machine/session_ring.py) is the C header's
(kernel_model/include/uapi/session_ring.h), which the kernel and the supervisor are built with."""

import shutil
import subprocess
from pathlib import Path

import pytest

from tracefs_sim.machine import session_ring

UAPI = Path(__file__).resolve().parents[2] / "kernel_model" / "include" / "uapi"

PROGRAM = r"""
#include <stddef.h>
#include <stdio.h>
#include "session_ring.h"
int main(void)
{
	printf("%zu %zu %zu\n", offsetof(struct session_ring, lost), offsetof(struct session_ring, produced),
	       offsetof(struct session_ring, retired));
	return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_counters_offsets_are_the_headers(tmp_path):
    source = tmp_path / "offsets.c"
    source.write_text(PROGRAM)
    subprocess.run(["gcc", "-I", str(UAPI), "-o", str(tmp_path / "offsets"), str(source)], check=True, timeout=60)
    out = subprocess.run([str(tmp_path / "offsets")], capture_output=True, text=True, check=True, timeout=10).stdout
    assert [int(n) for n in out.split()] == [session_ring.LOST_OFFSET, session_ring.PRODUCED_OFFSET,
                                             session_ring.RETIRED_OFFSET]
