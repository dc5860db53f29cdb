"""The host's copies of hostif.h's ports and offsets are the kernel image's: checked when the
machine starts, and a difference is refused by name."""
import pytest

from tracefs_sim.machine import hostif


def test_the_hosts_copies_are_the_images(image):
    hostif.check_abi(image)


def test_a_copy_that_differs_is_refused_by_name(image, monkeypatch):
    monkeypatch.setitem(hostif._ABI, "PORT_TRACE", hostif.PORT_TRACE + 1)
    with pytest.raises(ValueError, match="PORT_TRACE"):
        hostif.check_abi(image)
