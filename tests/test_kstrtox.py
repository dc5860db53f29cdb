"""lib/kstrtox.c's rules, as the one parser every control file and command uses."""

import errno

import pytest

from tracefs_sim.lib.kstrtox import (kstrtobool, kstrtoll, kstrtoul_from_user, kstrtoull, or_none,
                                     simple_strtoull, strstrip)


@pytest.mark.parametrize("data, value", [
    (b"0\n", 0), (b"1\n", 1), (b"2\n", 2), (b"+1\n", 1), (b"7", 7), (b"1408\n", 1408),
    (b"18446744073709551615\n", (1 << 64) - 1), (b"5\n\0junk", 5),
])
def test_accepted_numbers(data, value):
    assert kstrtoul_from_user(data) == value


@pytest.mark.parametrize("data", [
    b"\n", b"", b"-1\n", b"abc\n", b" 1\n", b"1 \n", b"0x1\n", b"1\n\n", b"++1\n", b"1a\n",
])
def test_rejected_with_einval(data):
    with pytest.raises(OSError) as caught:
        kstrtoul_from_user(data)
    assert caught.value.errno == errno.EINVAL


def test_overflow_is_erange():
    with pytest.raises(OSError) as caught:
        kstrtoul_from_user(b"99999999999999999999999\n")
    assert caught.value.errno == errno.ERANGE


def test_only_the_first_66_bytes_count():
    # kstrtoul_from_user copies sign + 64 digits + newline; what follows is never seen.
    assert kstrtoul_from_user(b"0" * 65 + b"1" + b"garbage") == 1
    with pytest.raises(OSError):
        kstrtoul_from_user(b"0" * 64 + b"1x")


def test_strstrip():
    assert strstrip(b"  global  \n") == b"global"
    assert strstrip(b"\tnop\n") == b"nop"
    assert strstrip(b"local\nglobal") == b"local\nglobal"
    assert strstrip(b"nop\0rest") == b"nop"


def test_kstrtox_rules():
    assert kstrtoull("0x10") == 16 and kstrtoull("010") == 8 and kstrtoull("+5") == 5 and kstrtoull("7\n") == 7
    for bad in ("0x", "0X", "+0x", "08", "", "1 ", "++1", "0xg", "1\n\n", "-1"):
        assert or_none(kstrtoull, bad) is None, bad
    with pytest.raises(OSError) as caught:
        kstrtoull(str(1 << 64))
    assert caught.value.errno == errno.ERANGE
    assert kstrtoll("-0x8000000000000000") == -(1 << 63) and or_none(kstrtoll, str(1 << 63)) is None
    assert or_none(kstrtoll, "-+5") is None   # the sign is taken once: _kstrtoull(s + 1)
    assert simple_strtoull("12@3") == (12, 2) and simple_strtoull("0x1g") == (1, 3)
    assert simple_strtoull("0x") == (0, 1)   # base 8 ("0x" without a hex digit): the "0"


@pytest.mark.parametrize("data, value", [(b"1", True), (b"Y\n", True), (b"on", True), (b"0", False),
                                         (b"off", False), (b"N", False), (b"oN", True)])
def test_kstrtobool(data, value):
    assert kstrtobool(data) is value


@pytest.mark.parametrize("data", [b"", b"o", b"2", b"x", b" 1", b"ox"])
def test_kstrtobool_refuses(data):
    with pytest.raises(OSError) as caught:
        kstrtobool(data)
    assert caught.value.errno == errno.EINVAL
