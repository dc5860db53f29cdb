"""Capability sets (issue 15): the cred's sets, capget/capset(2), the prctl capability
options, the sets across set*uid and exec, /proc/PID/status' Cap lines -- driven by the static
program kernel_model/user/static/captest.c, run as root.  Each case's expected lines are what
the same binary printed on the reference Linux 6.1 (real-tracefs, as root with every
capability, CAP_LAST_CAP 40)."""
import pytest


def cases(machine, run_program):
    status, out = run_program(machine, ["captest"], timeout=120.0)
    assert status == 0, out
    return {c.split("\n", 1)[0]: c.split("\n", 1)[1] for c in out.decode().split("== ")[1:]}


EXPECTED = {
    'get': """\
start: eff 000001ffffffffff prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffffffff
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
capget v1: 0
  v1 words: eff ffffffff next 00000000
capget bad version: EINVAL
  version now 20080522
capget bad version, no data: 0
capget pid -1: EINVAL
capget own pid: 0
capget bad data: EFAULT
""",
    'set': """\
capset another pid: EPERM
capset bad version: EINVAL
capset bad data: EFAULT
capset effective past permitted: EPERM
capset without SYS_ADMIN effective: 0
now: eff 000001ffffdfffff prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffdfffff
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
capset bits past the last cap: 0
now: eff 000001ffffdfffff prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffdfffff
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
capset drop SYS_ADMIN permitted: 0
capset SYS_ADMIN back: EPERM
capset inheritable NET_RAW: 0
capset inheritable SYS_ADMIN (not permitted, SETPCAP): 0
now: eff 0000000000000000 prm 000001ffffdfffff inh 0000000000202000
  CapInh:\t0000000000202000
  CapPrm:\t000001ffffdfffff
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
capset without SETPCAP: 0
capset inheritable CHOWN (not permitted, no SETPCAP): EPERM
capset inheritable down: 0
now: eff 0000000000000000 prm 0000000000002000 inh 0000000000002000
  CapInh:\t0000000000002000
  CapPrm:\t0000000000002000
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
capset v1: 0
now: eff 0000000000000000 prm 0000000000002000 inh 0000000000002000
  CapInh:\t0000000000002000
  CapPrm:\t0000000000002000
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
""",
    'bset': """\
CAPBSET_READ 0: 1
CAPBSET_READ 40: 1
CAPBSET_READ 41: EINVAL
CAPBSET_READ -1: EINVAL
CAPBSET_DROP 41: EINVAL
CAPBSET_DROP SYS_MODULE: 0
CAPBSET_READ SYS_MODULE: 0
after the drop: eff 000001ffffffffff prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffffffff
  CapBnd:\t000001fffffeffff
  CapAmb:\t0000000000000000
exec as root, SYS_MODULE out of the bounding set: eff 000001fffffeffff prm 000001fffffeffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001fffffeffff
  CapEff:\t000001fffffeffff
  CapBnd:\t000001fffffeffff
  CapAmb:\t0000000000000000
""",
    'bset_unpriv': """\
capset without SETPCAP effective: 0
CAPBSET_DROP without SETPCAP: EPERM
CAPBSET_DROP 41 without SETPCAP: EPERM
""",
    'ambient': """\
AMBIENT IS_SET NET_RAW: 0
AMBIENT RAISE NET_RAW (not inheritable): EPERM
capset inheritable NET_RAW, CHOWN: 0
AMBIENT RAISE NET_RAW: 0
AMBIENT RAISE CHOWN: 0
AMBIENT IS_SET NET_RAW: 1
AMBIENT RAISE 41: EINVAL
AMBIENT RAISE arg4: EINVAL
AMBIENT op 5: EINVAL
AMBIENT CLEAR_ALL arg3: EINVAL
ambient NET_RAW, CHOWN: eff 000001ffffffffff prm 000001ffffffffff inh 0000000000002001
  CapInh:\t0000000000002001
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffffffff
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000002001
AMBIENT LOWER CHOWN: 0
capset inheritable CHOWN only: 0
AMBIENT IS_SET NET_RAW (no longer inheritable): 0
AMBIENT RAISE CHOWN: 0
AMBIENT CLEAR_ALL: 0
AMBIENT IS_SET CHOWN: 0
AMBIENT RAISE CHOWN: 0
KEEPCAPS 1: 0
setresuid 1000: 0
uid 1000, keepcaps: eff 0000000000000000 prm 000001ffffffffff inh 0000000000000001
  CapInh:\t0000000000000001
  CapPrm:\t000001ffffffffff
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
AMBIENT IS_SET CHOWN after setresuid: 0
AMBIENT RAISE CHOWN: 0
exec as uid 1000 with ambient CHOWN: eff 0000000000000001 prm 0000000000000001 inh 0000000000000001
  CapInh:\t0000000000000001
  CapPrm:\t0000000000000001
  CapEff:\t0000000000000001
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000001
""",
    'keepcaps': """\
GET_KEEPCAPS: 0
SET_KEEPCAPS 2: EINVAL
SET_KEEPCAPS 1: 0
GET_KEEPCAPS: 1
GET_SECUREBITS: 16
setuid 1000: 0
uid 1000 with keepcaps: eff 0000000000000000 prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
GET_KEEPCAPS: 1
SET_SECUREBITS as uid 1000 (no SETPCAP effective): EPERM
exec as uid 1000 after keepcaps: eff 0000000000000000 prm 0000000000000000 inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t0000000000000000
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
""",
    'securebits': """\
SET_SECUREBITS 0x100: EPERM
SET_SECUREBITS KEEP_CAPS|LOCKED: 0
GET_SECUREBITS: 48
SET_KEEPCAPS 0 (locked): EPERM
SET_SECUREBITS unlock: EPERM
SET_SECUREBITS NO_SETUID_FIXUP: 0
setresuid 1000: 0
uid 1000, NO_SETUID_FIXUP: eff 000001ffffffffff prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffffffff
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
exec as uid 1000, keepcaps cleared by exec: eff 0000000000000000 prm 0000000000000000 inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t0000000000000000
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
""",
    'setuid': """\
setuid 1000: 0
uid 1000: eff 0000000000000000 prm 0000000000000000 inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t0000000000000000
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
setuid 0: EPERM
exec as uid 1000: eff 0000000000000000 prm 0000000000000000 inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t0000000000000000
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
""",
    'seteuid': """\
setreuid -1 1000: 0
euid 1000: eff 0000000000000000 prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
setreuid -1 0: 0
euid 0 again: eff 000001ffffffffff prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffffffff
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
setfsuid 1000: 0
fsuid 1000: eff 000001fef7fffde0 prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001fef7fffde0
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
setfsuid 0: 1000
fsuid 0 again: eff 000001ffffffffff prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffffffff
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
setreuid -1 1000: 0
exec with uid 0, euid 1000: eff 0000000000000000 prm 000001ffffffffff inh 0000000000000000
  CapInh:\t0000000000000000
  CapPrm:\t000001ffffffffff
  CapEff:\t0000000000000000
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
""",
    'exec_root': """\
capset inheritable NET_RAW, effective less: 0
exec as root: eff 000001ffffffffff prm 000001ffffffffff inh 0000000000002000
  CapInh:\t0000000000002000
  CapPrm:\t000001ffffffffff
  CapEff:\t000001ffffffffff
  CapBnd:\t000001ffffffffff
  CapAmb:\t0000000000000000
""",
}


def test_caps_as_6_1(machine, run_program):
    got = cases(machine, run_program)
    assert list(got) == list(EXPECTED)
    for name, lines in EXPECTED.items():
        assert got[name] == lines, name
