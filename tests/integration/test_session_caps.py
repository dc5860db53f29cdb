"""A session process's capget, capset and prctl capability options (issue 15): the kernel
replays them on its own copy of the process's credentials (which start as init's: every
capability), never changing the host's; where the host's sets and the kernel's agree, the
kernel's results are the host's."""
import os
import re

import pytest
from simtest import PY_SYSCALL, tracefs_sim

pytestmark = [pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                 reason="needs /dev/fuse, root and namespaces"),
              pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="needs /usr/bin/python3")]

T = "/sys/kernel/tracing"
# capget of its sets; capset of them without CAP_SYS_ADMIN, then CAP_SYS_ADMIN effective again
# (EPERM: no longer permitted); a bad version; the bounding set's CAP_CHOWN, the ambient set,
# keepcaps, an ambient raise without the inheritable bit (EPERM); each result printed as the
# host's kernel gave it.
SCRIPT = PY_SYSCALL + r'''
import ctypes, struct
hdr = ctypes.create_string_buffer(struct.pack("Ii", 0x20080522, 0))
data = ctypes.create_string_buffer(24)
res = [sc(125, ctypes.addressof(hdr), ctypes.addressof(data))]
e0, p0, i0, e1, p1, i1 = struct.unpack("6I", data.raw)
less = ctypes.create_string_buffer(struct.pack("6I", e0 & ~(1 << 21), p0 & ~(1 << 21), 0, e1, p1, 0))
res.append(sc(126, ctypes.addressof(hdr), ctypes.addressof(less)))
more = ctypes.create_string_buffer(struct.pack("6I", e0, p0 & ~(1 << 21), 0, e1, p1, 0))
res.append(sc(126, ctypes.addressof(hdr), ctypes.addressof(more)))
bad = ctypes.create_string_buffer(struct.pack("Ii", 1, 0))
res.append(sc(126, ctypes.addressof(bad), ctypes.addressof(less)))
res += [sc(157, 23, 0, 0, 0, 0), sc(157, 23, 41, 0, 0, 0), sc(157, 47, 1, 0, 0, 0), sc(157, 7, 0, 0, 0, 0),
        sc(157, 47, 2, 0, 0, 0)]
print("host", *res)
'''


def test_replayed_capability_calls_answer_as_the_host(tmp_path):
    script = tmp_path / "caps.py"
    script.write_text(SCRIPT)
    enable = "; ".join(f"echo 1 > {T}/events/syscalls/sys_exit_{c}/enable" for c in ("capget", "capset", "prctl"))
    result = tracefs_sim("run", "--workload", "none", "-c", f"{enable}; python3 {script}; cat {T}/trace", timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    host = [int(v) for v in re.search(r"^host (.*)$", result.stdout, re.M).group(1).split()]
    assert host == [0, 0, -1, -22, 1, -22, 0, 0, -1], result.stdout
    exits = re.findall(r"python3-\d+ .*: sys_(capget|capset|prctl) -> (0x[0-9a-f]+)", result.stdout)
    rets = [int(v, 16) - (1 << 64) if int(v, 16) >= 1 << 63 else int(v, 16) for _, v in exits]
    # (python's own start may ask prctl first: the script's calls are the last ones)
    assert rets[-len(host):] == host, result.stdout
