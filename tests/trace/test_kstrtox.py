import errno

import pytest

from tracefs_sim.trace.kstrtox import kstrtoul_from_user, strstrip


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
